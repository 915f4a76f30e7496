"""Preprocess: drop notes a benchmark should not be built from, each with its reason.

- too short: fewer than `min_chars` characters of content;
- garbled: replacement characters, mojibake (UTF-8 read as Latin-1/GBK: 'Ã', 'â€', '锟斤拷') or control
  characters above `max_garbled` of the text;
- template only: fewer than `min_sections` sections with real content (placeholders like 无, ___, 待填写
  count as empty) — the guideline's headers with nothing filled in;
- no sections: no header of the guideline found, so nothing can be segmented;
- near duplicate: MinHash (character 5-grams, `num_perm` permutations) LSH above `dup_threshold` estimated
  Jaccard with an earlier kept note (datasketch); the earlier note is kept.
Deterministic: no model.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from climedbench.build.records import BuildNote
from climedbench.build.segments import OTHER, Guideline, Section, is_placeholder, split_sections


@dataclass(frozen=True)
class QualityRules:
    min_chars: int = 80
    max_garbled: float = 0.02
    min_sections: int = 3
    dup_threshold: float = 0.8
    num_perm: int = 128
    shingle: int = 5


@dataclass
class Drop:
    record: str
    where: str
    reason: str  # too_short | garbled | template_only | no_sections | near_duplicate
    detail: str


@dataclass
class Kept:
    note: BuildNote
    sections: list[Section] = field(default_factory=list)


_MOJIBAKE = re.compile(r"锟斤拷|烫烫|屯屯|[ÃÂâ][\u0080-\u00ff€-™]|\ufffd|[\x00-\x08\x0b\x0c\x0e-\x1f]")


def garbled_share(text: str) -> float:
    bad = sum(len(m.group(0)) for m in _MOJIBAKE.finditer(text))
    return bad / max(1, len(text))


def _content_chars(sections: list[Section], g: Guideline) -> int:
    return sum(len(s.text) for s in sections if not is_placeholder(s.text, g))


def check_note(note: BuildNote, g: Guideline, rules: QualityRules) -> tuple[list[Section], Drop | None]:
    """The note's sections, or the reason to drop it (the first rule it fails)."""
    share = garbled_share(note.text)
    if share > rules.max_garbled:
        return [], Drop(note.record, note.where, "garbled", f"{share:.1%} of characters are mojibake, "
                        f"replacement or control characters (limit {rules.max_garbled:.0%})")
    sections = split_sections(note.text, g, note.record)
    if not sections:
        return [], Drop(note.record, note.where, "no_sections", f"no section header of the {g.lang} guideline "
                        f"({g.source})")
    filled = [s for s in sections if s.ctype != OTHER and not is_placeholder(s.text, g)]
    content = _content_chars(sections, g)
    if content < rules.min_chars:
        if len(filled) < rules.min_sections and len(sections) >= rules.min_sections:
            return [], Drop(note.record, note.where, "template_only", f"{len(sections)} sections, {len(filled)} "
                            f"filled in (placeholders such as 无/___ count as empty)")
        return [], Drop(note.record, note.where, "too_short", f"{content} characters of content "
                        f"(minimum {rules.min_chars})")
    if len(filled) < rules.min_sections:
        return [], Drop(note.record, note.where, "template_only", f"{len(filled)} of {len(sections)} sections "
                        f"filled in (minimum {rules.min_sections})")
    return sections, None


def _shingles(text: str, k: int) -> set[bytes]:
    compact = re.sub(r"\s+", "", text)
    return {compact[i:i + k].encode("utf-8") for i in range(max(1, len(compact) - k + 1))}


def preprocess(notes: list[BuildNote], guidelines: dict[str, Guideline], rules: QualityRules
               ) -> tuple[list[Kept], list[Drop]]:
    """Kept notes with their sections, and every drop with its reason, in input order."""
    from datasketch import MinHash, MinHashLSH

    kept: list[Kept] = []
    drops: list[Drop] = []
    lsh = MinHashLSH(threshold=rules.dup_threshold, num_perm=rules.num_perm)
    hashes: dict[str, Any] = {}
    seen: set[str] = set()
    for note in notes:
        if note.record in seen:
            drops.append(Drop(note.record, note.where, "near_duplicate", "same record id as an earlier note"))
            continue
        seen.add(note.record)
        sections, drop = check_note(note, guidelines[note.lang], rules)
        if drop is not None:
            drops.append(drop)
            continue
        mh = MinHash(num_perm=rules.num_perm, seed=1)
        mh.update_batch(list(_shingles(note.text, rules.shingle)))
        near = sorted(lsh.query(mh))
        if near:
            other = max(near, key=lambda r: mh.jaccard(hashes[r]))
            drops.append(Drop(note.record, note.where, "near_duplicate", f"estimated Jaccard "
                              f"{mh.jaccard(hashes[other]):.2f} with kept record {other} (threshold "
                              f"{rules.dup_threshold})"))
            continue
        lsh.insert(note.record, mh)
        hashes[note.record] = mh
        kept.append(Kept(note, sections))
    return kept, drops


def drops_json(drops: list[Drop]) -> list[dict[str, Any]]:
    return [asdict(d) for d in drops]
