"""Answers taken from the note itself (no model): each scenario template names one of these extractors.

An extractor gets the note's sections of the template's key content type and the guideline, and returns the
key text and the id of the segment it came from, or None with nothing to ask about. The same extractor turns
other patients' segments into distractors, so key and distractors have one shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from climedbench.build.clip import balanced, clip, first_phrase
from climedbench.build.contacts import strip_contacts
from climedbench.build.dates import strip_dates
from climedbench.build.exams import names_of
from climedbench.build.segments import Guideline, Section, is_placeholder

Extracted = tuple[str, str] | None  # (text, segment id)
_NUM = re.compile(r"^\s*\d{1,2}\s*[.、．)）]\s*")
# English: what follows a comma or semicolon outside brackets ('Heart failure (HFrEF, LVEF 25%), NYHA III').
_EN_QUALIFIER = re.compile(r"[,;](?![^()]*\))")


def _strip_num(s: str) -> str:
    return _NUM.sub("", s).strip().rstrip("。.；;，,")


def first_item(sections: list[Section], g: Guideline, max_chars: int = 60) -> Extracted:
    """The main diagnosis: the first item of the last diagnosis section (出院诊断 after 初步诊断), without its
    qualifiers (Chinese: what follows a space outside brackets, '扩张型心肌病　慢性心力衰竭…' → '扩张型心肌病'; English:
    what follows a comma or semicolon outside brackets, 'NSTEMI, status post …' → 'NSTEMI'); longer than
    `max_chars`: cut at a clause boundary (clip.py); None when there is none (no other diagnosis stands in for the
    main one)."""
    for sec in reversed(sections):
        for sent in sec.sentences:
            text = _strip_num(sent)
            if not text or is_placeholder(text, g):
                continue
            text = first_phrase(text) if g.lang == "zh" else _EN_QUALIFIER.split(text)[0].strip()
            got = clip(text, max_chars)
            return (got, sec.segment_id) if got is not None else None
    return None


def exam_names(sections: list[Section], g: Guideline, max_items: int = 5) -> Extracted:
    """Which examinations: the names of the investigations, without their results, values or findings
    ('腹部CT示…' → '腹部CT', '血钾2.6mmol/L' → '血钾', '心电图窦性心律' → '心电图'; exams.py)."""
    for sec in sections:
        names = [n for n in names_of(sec.text, g.result_markers, g.lang) if not is_placeholder(n, g)]
        if names:
            sep = ", " if g.lang == "en" else "，"
            return sep.join(names[:max_items]), sec.segment_id
    return None


def treatment_sentences(sections: list[Section], g: Guideline, max_chars: int = 160) -> Extracted:
    """The treatment: the course's sentences that name one (the guideline's treatment cue words)."""
    for sec in sections:
        picked = [s for s in sec.sentences if any(c in s for c in g.treatment_cues)]
        got = _sentences_upto(picked, max_chars, g.lang) if picked else None
        if got is not None:
            return got, sec.segment_id
    return None


def whole_section(sections: list[Section], g: Guideline, max_chars: int = 200) -> Extracted:
    """The section's whole text (discharge advice), whole sentences (numbered items) up to `max_chars`, without
    date expressions (dates.py: only the key's dates follow the stem's, a cue outside medicine), contact details,
    doctors' names and signature lines (contacts.py)."""
    for sec in sections:
        sents = [t for t in (strip_contacts(strip_dates(s)) for s in sec.sentences) if len(t) >= 2]
        got = None if is_placeholder(sec.text, g) or not sents else _sentences_upto(sents, max_chars, g.lang)
        if got is not None:
            return got, sec.segment_id
    return None


def _sentences_upto(sentences: list[str], max_chars: int, lang: str) -> str | None:
    """Whole sentences while they fit (the first one cut at a clause boundary if it alone is longer; None if it
    has none within `max_chars`)."""
    sep = " " if lang == "en" else ""
    out: list[str] = []
    for s in sentences:
        if out and len(sep.join([*out, s])) > max_chars:
            break
        out.append(s)
    return clip(sep.join(out), max_chars)


_NEGATIVE = re.compile(r"^(?:denies|denied|no|none|not)\b|^(?:既往)?(?:否认|无|未|体健)", re.I)


def first_sentence(sections: list[Section], g: Guideline, max_chars: int = 50, positive: bool = False
                   ) -> Extracted:
    """The section's first sentence, without dates, cut at a clause boundary (clip.py); `positive`: the first that
    is not a negation ('否认糖尿病史', 'Denies …': the same in many notes, no fact to summarise)."""
    for sec in sections:
        for sent in sec.sentences:
            text = strip_dates(_strip_num(sent))
            if len(text) < 2 or is_placeholder(text, g) or (positive and _NEGATIVE.search(text)):
                continue
            got = clip(text, max_chars)
            return (got, sec.segment_id) if got is not None else None
    return None


def first_positive(sections: list[Section], g: Guideline, max_chars: int = 50) -> Extracted:
    return first_sentence(sections, g, max_chars, positive=True)


# Qualifiers after a diagnosis's name: grades and stages ('高血压病3级', '慢性肾脏病5期', 'NYHA Ⅲ级').
_GRADE = re.compile(r"\s*(?:NYHA\s*)?(?:\d+[a-d]?|[ⅠⅡⅢⅣⅤⅥIV]+)\s*[级期度型]$|,?\s+(?:stage|grade|class)\s+\S+$", re.I)
_NOT_A_NAME = re.compile(r"score|评分|\d{2,}", re.I)


def diagnosis_names(sections: list[Section], g: Guideline, max_items: int = 6) -> Extracted:
    """The names of the diagnosis sections' items (the last section first; each as `first_item` takes the main
    one, without brackets and grades or stages: '高血压病3级（很高危）' → '高血压病'), '；'-joined; None with
    fewer than two."""
    names: list[str] = []
    for sec in reversed(sections):
        for sent in sec.sentences:
            text = _strip_num(sent)
            if not text or is_placeholder(text, g) or re.search(r"score|评分", text, re.I):
                continue
            text = first_phrase(text) if g.lang == "zh" else _EN_QUALIFIER.split(text)[0].strip()
            text = _GRADE.sub("", re.sub(r"\s*[（(][^）)]*[）)]", "", text)).strip()
            longest = 30 if g.lang == "zh" else 60
            if (1 < len(text) <= longest and balanced(text) and not _NOT_A_NAME.search(text)
                    and text.lower() not in {n.lower() for n in names}):
                names.append(text)
    if len(names) < 2:
        return None
    return "；".join(names[:max_items]), sections[-1].segment_id


EXTRACTORS: dict[str, Callable[..., Extracted]] = {
    "first_item": first_item,
    "exam_names": exam_names,
    "treatment_sentences": treatment_sentences,
    "whole_section": whole_section,
    "first_sentence": first_sentence,
    "first_positive": first_positive,
    "diagnosis_names": diagnosis_names,
}
