"""Guidelines → segments: a note split into typed sections (by the guideline YAML) and sentences.

A guideline (data: `build/guidelines/{zh,en}.yaml`, or a hospital's own file) maps section headers and their
aliases to content types (chief complaint, present illness, history, exam, investigations, diagnosis, course,
operation, discharge status, discharge advice). Splitting is deterministic: no model.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from climedbench.errors import ConfigError

OTHER = "other"


@dataclass(frozen=True)
class Guideline:
    lang: str
    version: str
    aliases: dict[str, str]  # normalised header → content type
    names: dict[str, str]  # content type → display name
    treatment_cues: tuple[str, ...]
    result_markers: tuple[str, ...]
    placeholders: frozenset[str]
    digest: str
    source: str


@dataclass
class Section:
    """One section of a note: its header as written, its content type, its text and its sentences."""

    segment_id: str
    header: str
    ctype: str
    text: str
    sentences: list[str] = field(default_factory=list)


def _norm_header(h: str) -> str:
    return re.sub(r"\s+", " ", h.strip().strip("【】[]").strip()).lower()


def load_guideline(lang: str, path: str | Path | None = None) -> Guideline:
    """The bundled guideline of a language, or a hospital's own YAML file."""
    if path is None:
        return _bundled(lang)
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read guideline {p}: {e.strerror}") from e
    return parse_guideline(text, str(p))


@cache
def _bundled(lang: str) -> Guideline:
    name = "zh.yaml" if lang == "zh" else "en.yaml"
    text = resources.files("climedbench.build").joinpath("guidelines", name).read_text(encoding="utf-8")
    return parse_guideline(text, f"bundled:guidelines/{name}")


def parse_guideline(text: str, where: str) -> Guideline:
    try:
        raw: Any = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: not valid YAML: {e}") from e
    if not isinstance(raw, dict) or not isinstance(raw.get("content_types"), dict):
        raise ConfigError(f"{where}: expected a mapping with 'lang' and 'content_types'")
    aliases: dict[str, str] = {}
    names: dict[str, str] = {}
    for ctype, spec in raw["content_types"].items():
        if not isinstance(spec, dict) or not isinstance(spec.get("aliases"), list) or not spec["aliases"]:
            raise ConfigError(f"{where}: content_types.{ctype}.aliases: give a list of section headers")
        names[ctype] = str(spec.get(raw.get("lang", "zh")) or ctype)
        for a in spec["aliases"]:
            aliases[_norm_header(str(a))] = str(ctype)
    return Guideline(
        lang=str(raw.get("lang") or "zh"), version=str(raw.get("version") or "1"), aliases=aliases, names=names,
        treatment_cues=tuple(str(x) for x in raw.get("treatment_cues") or ()),
        result_markers=tuple(str(x) for x in raw.get("result_markers") or ()),
        placeholders=frozenset(_norm_header(str(x)) for x in raw.get("placeholders") or ()),
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], source=where)


_BRACKET = re.compile(r"^\s*[【\[]([^】\]\n]{1,20})[】\]]\s*(.*)$")
_COLON = re.compile(r"^\s*([^:：\n]{1,40}?)\s*[:：]\s*(.*)$")


def _header_of(line: str, g: Guideline) -> tuple[str, str, str] | None:
    """(header as written, content type, rest of the line) when the line opens a section."""
    m = _BRACKET.match(line)
    if m:
        return m.group(1).strip(), g.aliases.get(_norm_header(m.group(1)), OTHER), m.group(2)
    m = _COLON.match(line)
    if m and _norm_header(m.group(1)) in g.aliases:
        return m.group(1).strip(), g.aliases[_norm_header(m.group(1))], m.group(2)
    return None


def split_sections(text: str, g: Guideline, record_hash: str) -> list[Section]:
    """The note's sections in order; text before the first header is dropped (a title, the patient banner)."""
    sections: list[Section] = []
    current: tuple[str, str, list[str]] | None = None

    def close() -> None:
        if current is None:
            return
        header, ctype, lines = current
        body = "\n".join(x.rstrip() for x in lines).strip()
        sid = f"{record_hash}:{ctype}:{len(sections)}"
        sections.append(Section(sid, header, ctype, body, split_sentences(body, g.lang)))

    for line in text.split("\n"):
        found = _header_of(line, g)
        if found is not None:
            close()
            header, ctype, rest = found
            current = (header, ctype, [rest] if rest.strip() else [])
        elif current is not None:
            current[2].append(line)
    close()
    return sections


_ZH_END = re.compile(r"(?<=[。！？；;])")
_EN_END = re.compile(r"[.!?;]\s+(?=[A-Z0-9(])")
# Numbered items start at a line start or after a sentence end: '1. 注意休息。2. 切口…' (not 'day 2. Her').
_NUMBERED = re.compile(r"(?:(?<=^)|(?<=[。；;]))\s*(?=\d{1,2}[.、．]\s*\D)")
_ABBREV = re.compile(r"(?:^|\s)(?:Mr|Mrs|Ms|Dr|St|vs|No|e\.g|i\.e|approx|\d{1,2})$", re.IGNORECASE)


def _split_en(part: str) -> list[str]:
    out, start = [], 0
    for m in _EN_END.finditer(part):
        if _ABBREV.search(part[start:m.start()]) and not re.search(r"\D\s+\d{1,2}$", part[start:m.start()]):
            continue  # 'Mr. Brown', a list number '1. The…' (but 'day 2. Her' ends a sentence)
        out.append(part[start:m.start() + 1])
        start = m.end()
    out.append(part[start:])
    return out


def split_sentences(text: str, lang: str) -> list[str]:
    """Sentences of a section body: lines, numbered items ('1. …  2. …'), then sentence ends."""
    out: list[str] = []
    for line in text.split("\n"):
        for part in _NUMBERED.split(line):
            pieces = _ZH_END.split(part) if lang == "zh" else _split_en(part)
            out += [p.strip() for p in pieces if p and p.strip(" ;；")]
    return out


def is_placeholder(body: str, g: Guideline) -> bool:
    return not body.strip() or _norm_header(body) in g.placeholders
