"""Answers taken from the note itself (no model): each scenario template names one of these extractors.

An extractor gets the note's sections of the template's key content type and the guideline, and returns the
key text and the id of the segment it came from, or None with nothing to ask about. The same extractor turns
other patients' segments into distractors, so key and distractors have one shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from climedbench.build.segments import Guideline, Section, is_placeholder

Extracted = tuple[str, str] | None  # (text, segment id)
_NUM = re.compile(r"^\s*\d{1,2}\s*[.、．)）]\s*")


def _strip_num(s: str) -> str:
    return _NUM.sub("", s).strip().rstrip("。.；;，,")


def first_item(sections: list[Section], g: Guideline, max_chars: int = 60) -> Extracted:
    """The main diagnosis: the first item of the last diagnosis section (出院诊断 after 初步诊断)."""
    for sec in reversed(sections):
        for sent in sec.sentences:
            text = _strip_num(sent)
            if text and not is_placeholder(text, g):
                return text[:max_chars], sec.segment_id
    return None


def exam_names(sections: list[Section], g: Guideline, max_items: int = 5) -> Extracted:
    """Which examinations: the names of the investigations, without their results ('腹部CT示…' → '腹部CT')."""
    for sec in sections:
        names: list[str] = []
        for clause in re.split(r"[；;。\n]|(?<=[.])\s+", sec.text):
            clause = _strip_num(clause)
            if not clause or is_placeholder(clause, g):
                continue
            cut = min((i for i in (clause.find(m) for m in g.result_markers) if i > 0), default=len(clause))
            name = clause[:cut].strip(" ，,：:")
            if 1 < len(name) <= 30 and name not in names:
                names.append(name)
        if names:
            sep = ", " if g.lang == "en" else "，"
            return sep.join(names[:max_items]), sec.segment_id
    return None


def treatment_sentences(sections: list[Section], g: Guideline, max_chars: int = 160) -> Extracted:
    """The treatment: the course's sentences that name one (the guideline's treatment cue words)."""
    for sec in sections:
        picked = [s for s in sec.sentences if any(c in s for c in g.treatment_cues)]
        if picked:
            sep = " " if g.lang == "en" else ""
            return _clip(sep.join(picked), max_chars, g.lang), sec.segment_id
    return None


def whole_section(sections: list[Section], g: Guideline, max_chars: int = 200) -> Extracted:
    """The section's whole text (discharge advice), clipped at a sentence end."""
    for sec in sections:
        if not is_placeholder(sec.text, g):
            sep = " " if g.lang == "en" else ""
            return _clip(sep.join(sec.sentences), max_chars, g.lang), sec.segment_id
    return None


def _clip(text: str, max_chars: int, lang: str) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    ends = [cut.rfind(p) for p in ("。", "；", ". ", "; ")]
    end = max(ends)
    return cut[:end + 1].strip() if end > max_chars // 3 else cut.rstrip() + ("…" if lang == "zh" else "...")


EXTRACTORS: dict[str, Callable[..., Extracted]] = {
    "first_item": first_item,
    "exam_names": exam_names,
    "treatment_sentences": treatment_sentences,
    "whole_section": whole_section,
}
