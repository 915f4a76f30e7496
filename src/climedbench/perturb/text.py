"""Perturb the Han characters of an item's input: which characters may change, and how.

What never changes: section headers (`## 问题:`), the body of the sections the suite keeps (`sections: {keep:
[...]}` in its YAML, e.g. a shown reference answer),
anything that is not a Han character (option letters, digits, Latin units, punctuation), Han numerals
(一, 十, 百 …), words containing a numeral (二十天), and the word right after a number (its unit: 岁, 小时,
次, 毫克). Ids, references, answers and instructions are other fields and are never touched.

Of the remaining (eligible) Han characters of a record, round(rate × eligible) positions are changed,
chosen uniformly among those the kind can change (not every character has a traditional form or a
similar-shape neighbour); the shortfall is reported. `mixed` picks, per position, one of the kinds that
can change that character. Every choice comes from a random generator seeded by (seed, kind, record).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from climedbench.data.sections import HEADER
from climedbench.perturb import tables

Kind = Literal["glyph", "homophone", "traditional", "symbol", "mixed"]
KINDS: tuple[str, ...] = ("glyph", "homophone", "traditional", "symbol", "mixed")
BASE_KINDS = ("glyph", "homophone", "traditional", "symbol")
INPUT_FIELDS = ("input", "input_zh", "text", "content", "question", "question_zh", "context")
OPTION_FIELDS = ("options", "choices")


def protected(text: str, keep: tuple[str, ...] = ()) -> list[bool]:
    """Per character: True when it must not change (`keep`: section names whose body is kept too)."""
    mask = [False] * len(text)
    headers = list(HEADER.finditer(text))
    for i, m in enumerate(headers):
        for k in range(m.start(), m.end()):
            mask[k] = True
        if m.group(1).strip() in keep:
            end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
            for k in range(m.end(), end):
                mask[k] = True
    import jieba

    jieba.setLogLevel(60)
    pos = 0
    after_number = False
    for tok in jieba.cut(text, HMM=False):
        start, pos = pos, pos + len(tok)
        has_number = any(tables.is_numeral(c) for c in tok)
        if has_number or (after_number and len(tok) <= 3 and all(tables.is_han(c) for c in tok)):
            for k in range(start, pos):
                mask[k] = True
        if tok.strip():
            after_number = has_number
    return mask


@dataclass
class Segment:
    """One text of a record that the model reads (a field, or one option)."""

    path: tuple[Any, ...]
    text: str
    eligible: list[int] = field(default_factory=list)
    options: dict[int, dict[str, str]] = field(default_factory=dict)  # position → kind → replacement


def _segments(record: dict[str, Any]) -> list[Segment]:
    out: list[Segment] = []
    for name in INPUT_FIELDS:
        if isinstance(record.get(name), str):
            out.append(Segment((name,), record[name]))
    for name in OPTION_FIELDS:
        value = record.get(name)
        if isinstance(value, str):
            out.append(Segment((name,), value))
        elif isinstance(value, dict):
            out += [Segment((name, k), v) for k, v in value.items() if isinstance(v, str)]
        elif isinstance(value, list):
            out += [Segment((name, i), v) for i, v in enumerate(value) if isinstance(v, str)]
    return out


def _candidates(seg: Segment, kinds: tuple[str, ...], keep: tuple[str, ...]) -> None:
    mask = protected(seg.text, keep)
    seg.eligible = [i for i, ch in enumerate(seg.text) if tables.is_han(ch) and not mask[i]]
    if not seg.eligible:
        return
    trad = tables.traditional(seg.text) if "traditional" in kinds else ""
    reads = tables.readings(seg.text) if "homophone" in kinds else []
    for i in seg.eligible:
        ch = seg.text[i]
        opts: dict[str, str] = {}
        if "glyph" in kinds:
            subs = tables.glyph_substitutes(ch)
            if subs:
                opts["glyph"] = "|".join(subs)
        if "homophone" in kinds:
            subs = tables.homophone_substitutes(ch, reads[i])
            if subs:
                opts["homophone"] = "|".join(subs)
        if "traditional" in kinds and trad[i] != ch:
            opts["traditional"] = trad[i]
        if "symbol" in kinds:
            opts["symbol"] = tables.SYMBOLS
        if opts:
            seg.options[i] = opts


@dataclass
class Outcome:
    """What perturbing one record did."""

    eligible: int = 0
    target: int = 0
    changed: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


def perturb_record(record: dict[str, Any], kind: str, rate: float, seed: int, key: str,
                   keep: tuple[str, ...] = ()) -> tuple[dict[str, Any], Outcome]:
    """A perturbed copy of the record and what was changed (`keep`: sections never changed)."""
    kinds = BASE_KINDS if kind == "mixed" else (kind,)
    segs = _segments(record)
    for seg in segs:
        _candidates(seg, kinds, keep)
    outcome = Outcome(eligible=sum(len(s.eligible) for s in segs))
    outcome.target = round(rate * outcome.eligible)
    pool = [(si, i) for si, seg in enumerate(segs) for i in sorted(seg.options)]
    rng = random.Random(f"{seed}:{kind}:{key}")
    chosen = sorted(rng.sample(pool, min(outcome.target, len(pool))))
    edits: dict[int, dict[int, tuple[str, str]]] = {}
    for si, i in chosen:
        opts = segs[si].options[i]
        k = rng.choice(sorted(opts))
        pick = rng.choice(opts[k].split("|") if k in ("glyph", "homophone") else list(opts[k]))
        edits.setdefault(si, {})[i] = (k, pick)
        outcome.by_kind[k] = outcome.by_kind.get(k, 0) + 1
    outcome.changed = len(chosen)
    out = dict(record)
    for si, changes in edits.items():
        seg = segs[si]
        chars = list(seg.text)
        for i, (k, pick) in changes.items():
            chars[i] = pick + seg.text[i] if k == "symbol" else pick
        _assign(out, seg.path, "".join(chars))
    return out, outcome


def _assign(record: dict[str, Any], path: tuple[Any, ...], value: str) -> None:
    if len(path) == 1:
        record[path[0]] = value
        return
    name, key = path
    container = record[name]
    container = dict(container) if isinstance(container, dict) else list(container)
    container[key] = value
    record[name] = container
