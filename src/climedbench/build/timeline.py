"""When a course sentence happened, as far as the note fixes it (the events of pathway-order items): a blind clinical
read rejected pathway-order items whose events share a day (antibiotics, disease report and supportive care all on
the day of diagnosis) or whose order the note does not fix (post-operative analgesia 'for 2 days' against
chest-tube removal on post-operative day 3): their order in the text is not the order of the stay.

A sentence's day is the first time expression of its first clause (up to its first comma: '予依诺肝素…，第3天加用
华法林' started enoxaparin before day 3, on a day the note does not give), read as a day of the stay (admission
day = 1):
- on the day of admission: 入院当天 / 入院时 / 入院后 / 入院N小时内 / 第N小时 / N小时内; 'on admission', 'on
  arrival', 'in the emergency department';
- 第N天 / 入院第N天 / 'day N' / 'hospital day N' / 'HD N': day N (N = 1 is the admission day);
- 术后第N天 / 'POD N' / 'postoperative day N': the operation's day + N, when the note gives the operation's day
  (a sentence naming the operation with a day: '于入院第5天手术');
- 第N病日 (day of illness): converted when the note says which illness day admission was ('入院当天（第6病日）');
- 次日 / 'the next day': the day of the time expression before it in the same sentence, + 1.
A sentence whose first time expression cannot be read so (术后, 'after 2 weeks', 'N天后', a week) has no day; the
course's first sentence without any time expression is the start of the stay (day 1) unless it starts after
something ('确诊后予…', 'after cultures …'). Sentences without a day are not events: the note does not fix their
order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS = {
    "zh": [
        ("op", re.compile(r"术后第\s*(\d+)\s*[天日]")),
        ("op0", re.compile(r"术后\s*\d+\s*小时")),
        ("illness", re.compile(r"第\s*(\d+)\s*病日")),
        ("day", re.compile(r"(?:入院)?第\s*(\d+)\s*[天日]")),
        ("adm", re.compile(r"入院(?:当天|当日|时|后(?!第)|\s*\d+\s*小时内)|第\s*\d+\s*小时|^\s*\d+\s*小时内")),
        ("next", re.compile(r"次日|翌日|第二天")),
        ("vague", re.compile(r"术后|术中|\d+\s*(?:天|日|周|小时|个月)后|第\s*\d+\s*周|治疗后|出院前")),
    ],
    "en": [
        ("op", re.compile(r"\b(?:POD|post-?operative day|post-?op day)\s*#?\s*(\d+)\b", re.I)),
        ("day", re.compile(r"\b(?:hospital day|day|HD)\s*#?\s*(\d+)\b", re.I)),
        ("adm", re.compile(r"\b(?:on|at) (?:admission|arrival|presentation)\b|\bin the emergency department\b", re.I)),
        ("next", re.compile(r"\b(?:the )?(?:next|following) (?:day|morning)\b", re.I)),
        ("vague", re.compile(r"\b(?:after|over|within) (?:\d+|two|three|several) (?:days?|weeks?|hours?)\b|"
                             r"\bpost-?operatively\b|\bbefore discharge\b", re.I)),
    ],
}
# The operation's day: a clause naming the operation and a day ('于入院第5天手术'); the first list first (an
# operation by name before a procedure such as a drain).
_OPERATION = {"zh": [re.compile(r"手术"), re.compile(r"[行于].{0,15}(?:术|切除|置换|修补|引流|PCI|置入|植入)")],
              "en": [re.compile(r"\b(?:surgery|operation|operated)\b", re.I),
                     re.compile(r"\b(?:underwent|procedure)\b", re.I)]}
_AFTER_START = {"zh": re.compile(r"^[^，。；]{0,12}后"), "en": re.compile(r"^\s*(?:after|once|following)\b", re.I)}


_CLAUSE_END = re.compile(r"[，；,;]")


@dataclass(frozen=True)
class Mark:
    kind: str
    value: int | None
    start: int


def marks(sentence: str, lang: str) -> list[Mark]:
    """The time expressions of a sentence's first clause, in order (overlapping ones: the earlier listed pattern
    wins)."""
    end = _CLAUSE_END.search(sentence)
    sentence = sentence[:end.start()] if end else sentence
    found: list[Mark] = []
    taken: list[tuple[int, int]] = []
    for kind, pat in _PATTERNS.get(lang, _PATTERNS["zh"]):
        for m in pat.finditer(sentence):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            found.append(Mark(kind, int(m.group(1)) if m.groups() and m.group(1) else None, m.start()))
    return sorted(found, key=lambda x: x.start)


def _resolve(ms: list[Mark], op_day: int | None, illness_offset: int | None) -> int | None:
    """The day of the first time expression (None: it cannot be read as a day of the stay)."""
    day: int | None = None
    for i, m in enumerate(ms):
        if m.kind == "adm":
            day = 1
        elif m.kind == "day" and m.value is not None:
            day = m.value
        elif m.kind == "op" and m.value is not None and op_day is not None:
            day = op_day + m.value
        elif m.kind == "op0" and op_day is not None:
            day = op_day
        elif m.kind == "illness" and m.value is not None and illness_offset is not None:
            day = m.value - illness_offset
        elif m.kind == "next" and i > 0:
            prior = _resolve(ms[:i], op_day, illness_offset)
            day = prior + 1 if prior is not None else None
        return day
    return None


def days(sentences: list[str], lang: str) -> list[int | None]:
    """The day of the stay of each course sentence, or None when the note does not fix it."""
    all_marks = [marks(s, lang) for s in sentences]
    illness_offset = None
    for ms in all_marks:  # '入院当天（第6病日）': illness day 6 is day 1 of the stay
        adm = [m for m in ms if m.kind == "adm"]
        ill = [m for m in ms if m.kind == "illness" and m.value is not None]
        if adm and ill and ill[0].value is not None:
            illness_offset = ill[0].value - 1
            break
    op_day = _operation_day(sentences, lang, illness_offset)
    out = [_resolve(ms, op_day, illness_offset) for ms in all_marks]
    if sentences and not all_marks[0] and not _AFTER_START.get(lang, _AFTER_START["zh"]).search(sentences[0]):
        out[0] = 1
    return out


def _operation_day(sentences: list[str], lang: str, illness_offset: int | None) -> int | None:
    for cue in _OPERATION.get(lang, _OPERATION["zh"]):
        for s in sentences:
            for clause in _CLAUSE_END.split(s):
                if cue.search(clause):
                    day = _resolve([m for m in marks(clause, lang) if m.kind in ("adm", "day")], None, illness_offset)
                    if day is not None:
                        return day
    return None
