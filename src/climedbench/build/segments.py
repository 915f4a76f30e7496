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
            aliases[_norm_label(str(a), str(raw.get("lang") or "zh"))] = str(ctype)
    return Guideline(
        lang=str(raw.get("lang") or "zh"), version=str(raw.get("version") or "1"), aliases=aliases, names=names,
        treatment_cues=tuple(str(x) for x in raw.get("treatment_cues") or ()),
        result_markers=tuple(str(x) for x in raw.get("result_markers") or ()),
        placeholders=frozenset(_norm_header(str(x)) for x in raw.get("placeholders") or ()),
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], source=where)


# A header line: an enumeration prefix ('一、', '(一)', '1.', '1、', '(1)', '①', 'I.', 'A.'), decorations
# ('▍', '■', '#', '=== … ===', brackets), the label, an optional qualifier ('Labs (admission)', 'OPERATIVE NOTE -
# 05/27/2025'), a colon; text may follow after the colon or the closing bracket ('＜既往史＞体健。').
_ENUM = re.compile(r"^(?:[一二三四五六七八九十]{1,3}\s*[、.．]|[（(]\s*(?:[一二三四五六七八九十]{1,3}|\d{1,2})\s*[）)]|"
                   r"\d{1,2}\s*[.、．](?!\d)|[①-⑳]|[IVX]{1,4}\.(?=\s)|[A-H]\.(?=\s))\s*")
_DECOR = "▍▌■□●○◆◇★☆▶►▼▲※#*=—"
_PAIRS = {"【": "】", "[": "]", "＜": "＞", "<": ">", "《": "》", "〔": "〕"}
_ANY_BRACKET = "【["  # a line '【X】' opens a section even when X is not in the guideline (type `other`)
_QUALIFIER = re.compile(r"\s*(?:[（(][^（）()]{0,30}[）)]|\s[-–—]\s.{1,30})$")
_SPACE_SEP = re.compile(r"^(\S{1,12}?)(?:\u3000|\s{2,})\s*(\S.*)$")


def _norm_label(label: str, lang: str) -> str:
    """A header as the guideline's aliases are kept: no decorations or colon; Chinese without spaces ('主　　诉'),
    English lower case with single spaces and no spaces around '/'."""
    s = label.strip().strip(_DECOR + "【】[]＜＞<>《》〔〕:：").strip()
    if lang == "zh":
        return re.sub(r"\s+", "", s).lower()
    return re.sub(r"\s*/\s*", "/", re.sub(r"\s+", " ", s)).lower()


def _ctype_of(label: str, g: Guideline) -> str | None:
    """The content type of a label that is one of the guideline's aliases, with or without a qualifier."""
    for cand in (label, _QUALIFIER.sub("", label)):
        got = g.aliases.get(_norm_label(cand, g.lang))
        if got is not None:
            return got
    return None


def _colon_at(s: str, limit: int = 40) -> int:
    """The first colon outside brackets within `limit` characters ('辅助检查（急诊，6/11 16:40）：'), or -1."""
    depth = 0
    for i, ch in enumerate(s[:limit]):
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch in ":：" and depth == 0:
            return i
    return -1


def _header_of(line: str, g: Guideline) -> tuple[str, str, str] | None:
    """(header as written, content type, rest of the line) when the line opens a section: its label, without
    enumeration, decorations, colon and qualifier, is one of the guideline's aliases (the whole label: '诊断明确后…'
    is no header); a bracketed '【X】' line with another label opens a section of type `other`."""
    s = line.strip()
    s = _ENUM.sub("", s, count=1).lstrip(_DECOR + " \t\u3000")
    if not s:
        return None
    if s[0] in _PAIRS:
        end = s.find(_PAIRS[s[0]], 1)
        if 1 < end <= 21:
            label, rest = s[1:end].strip(), s[end + 1:].lstrip(" \t\u3000:：")
            ctype = _ctype_of(label, g)
            if ctype is not None or s[0] in _ANY_BRACKET:
                return label, ctype or OTHER, rest
        return None
    at = _colon_at(s)
    if at > 0 and (ctype := _ctype_of(s[:at], g)) is not None:
        return s[:at].strip(), ctype, s[at + 1:]
    label = s.rstrip(_DECOR + " \t\u3000:：")
    if (ctype := _ctype_of(label, g)) is not None:
        return label, ctype, ""
    m = _SPACE_SEP.match(s) if g.lang == "zh" else None
    if m and (ctype := _ctype_of(m.group(1), g)) is not None:
        return m.group(1), ctype, m.group(2)  # '▍个人史　不吸烟饮酒。', '现病史  患者…'
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


# A list number inside a line: '1. 右侧慢性硬膜下血肿（钻孔引流术后）2. 高血压' (not '3.7', not 'day 2. Her').
_LIST_NO = re.compile(r"(?<![\d.．])(\d{1,2})[.、．](?!\d)")


def _list_items(line: str) -> list[str]:
    """A line cut before its numbered items: at a line start or after a sentence end (any number), and anywhere
    else before the number that follows the previous item's ('1. A（B）2. C 3. D'), so that no number is left
    dangling at the end of an item."""
    cuts: list[int] = []
    last: int | None = None
    for m in _LIST_NO.finditer(line):
        n, at = int(m.group(1)), m.start()
        after_end = not line[:at].strip() or line[:at].rstrip()[-1] in "。；;"
        if after_end or (last is not None and n == last + 1):
            if line[:at].strip():
                cuts.append(at)
            last = n
    return [line[i:j] for i, j in zip([0, *cuts], [*cuts, len(line)], strict=True)]


def split_sentences(text: str, lang: str) -> list[str]:
    """Sentences of a section body: lines, numbered items ('1. …  2. …'), then sentence ends."""
    out: list[str] = []
    for line in text.split("\n"):
        for part in _list_items(line):
            pieces = _ZH_END.split(part) if lang == "zh" else _split_en(part)
            out += [p.strip() for p in pieces if p and p.strip(" ;；")]
    return out


def is_placeholder(body: str, g: Guideline) -> bool:
    return not body.strip() or _norm_header(body) in g.placeholders
