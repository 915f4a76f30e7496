"""Examination names without their results (the examinations items' key and options): a blind clinical read found
half their options still carrying the record's results ('血糖38.6mmol/L', 'Child-Pugh评分8分', '心电图窦性心律'),
which gives the key away. An investigations section is read sentence by sentence (。；; and '. '):

- a sentence with a result marker ('心电图：Ⅱ、Ⅲ、aVF导联ST段抬高…', 'BMP: creatinine …', '头颅MRI示…') names one
  examination, the text before the marker; the rest is its result. When that text only says when ('入院时：',
  '第3天：', '…后：'), the result is read as a list instead;
- any other sentence is a list ('血钾2.6mmol/L，血钠146mmol/L，HCO3- 31mmol/L'): each comma clause names what stands
  before its first value (a number with a unit, a ratio, a range, a comparison) or finding word (阳性, 正常, 未见,
  升高, normal, negative …).

Names keep digits that belong to them (HbA1c, CA19-9, IgG4, 25-羟维生素D, 24小时尿蛋白定量); annotations in
brackets and timing words ('第3天超声心动图' → '超声心动图', 'ECG on arrival' → 'ECG') go.
"""

from __future__ import annotations

import re

from climedbench.build.clip import CLOSE, OPEN, balanced, without_dangling

# A value: a number not glued to letters before it (so HbA1c, CA19-9, IgG4, V4R stay names) followed by a unit, a
# ratio, a range, a bracket, the clause's end …
_VALUE = re.compile(r"(?<![A-Za-z0-9.\-/+_^])[<>≤≥＜＞]?\s?\d+(?:\.\d+)?(?=\s*(?:[×xX*]\s*10|[%‰]|[～~\-–]\s*\d|"
                    r"[:：/]\s*\d|[A-Za-zμµ]|[（(，,。；;、]|[.](?:\s|$)|个|次|分|岁|倍|级|$))")
_FINDING_ZH = re.compile(r"阴性|阳性|正常|未见|未检出|检出|升高|降低|增高|减低|偏高|偏低|增多|减少|增大|缩小|异常|"
                         r"轻度|中度|重度|大致|基本|窦性|可疑|考虑|符合|提示|显示|均|[（(][+\-−±]")
_FINDING_EN = re.compile(r"\b(?:normal|abnormal|negative|positive|unremarkable|within|elevated|raised|increased|"
                         r"decreased|reduced|showed|shows|revealed|demonstrated|consistent|without|grew|"
                         r"was|were|is|are|no|not|pending|at|on|from|in|with)\b", re.I)
# Timing words before a name, and a name that is only a time ('入院时', '治疗2周后', 'on admission').
_WHEN_HEAD = re.compile(r"^(?:(?:入院|治疗|术)[前后时]?(?:第?\d+(?:天|日|病日|小时|周))?[，,]?|第\d+(?:天|日|病日|周)|"
                        r"复查|再次|急诊|(?:on|at)\s+(?:arrival|admission)\s*)")
_WHEN_ONLY = re.compile(r"(?:时|后|前|当天|当日|期间|第\d+(?:天|日|病日)|后复查)$|^(?:on|at|after|before)\b", re.I)
_NOT_A_NAME = re.compile(r"^(?:其余|其他|余|另|停用|予|给予|诊断|确诊)")
_SENTENCE = re.compile(r"[；;。\n]|(?<=[A-Za-z0-9%)][.])(?<!\b[A-Z][.])\s+(?=[A-Z])")  # not 'C. difficile'
_WHEN_TAIL = re.compile(r"\s+(?:on|at)\s+(?:arrival|admission|presentation)$", re.I)
_COMMA = {"zh": re.compile(r"[，,]"), "en": re.compile(r",(?=\s)")}  # English '17,900/uL' is one number
MAX_NAME = 30


def _outside_brackets(text: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """The first match of `pattern` that starts outside brackets."""
    for m in pattern.finditer(text):
        depth = 0
        for ch in text[:m.start()]:
            depth += ch in OPEN
            depth -= ch in CLOSE
        if depth <= 0:
            return m
    return None


def _split(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Split at the matches of `pattern` outside brackets."""
    parts, start = [], 0
    for m in pattern.finditer(text):
        head = text[:m.start()]
        if sum(ch in OPEN for ch in head) <= sum(ch in CLOSE for ch in head):
            parts.append(text[start:m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _clean(name: str) -> str:
    name = re.sub(r"\s*[（(][^（()）]*[）)]", "", name).rstrip(".")  # '（治疗后）', '(outside films)': annotations
    for _ in range(2):
        name = _WHEN_TAIL.sub("", _WHEN_HEAD.sub("", name.strip(" ，,：:、")).strip())
    name = re.sub(r"可$", "", without_dangling(name)).strip(" ，,：:、-")
    return re.sub(r"\s{2,}", " ", name)


def _accept(name: str) -> bool:
    return (1 < len(name) <= MAX_NAME and balanced(name) and not _WHEN_ONLY.search(name)
            and not _NOT_A_NAME.match(name) and _VALUE.search(name[1:]) is None)


def clause_name(clause: str, markers: tuple[str, ...], lang: str) -> str:
    """What a list clause names: the text before its first result marker, value or finding ('' when it starts
    with one)."""
    finding = _FINDING_EN if lang == "en" else _FINDING_ZH
    at = _marker(clause, markers)
    ends = [m.start() for m in (_outside_brackets(clause, _VALUE), _outside_brackets(clause, finding)) if m]
    return _clean(clause[:min([*ends, at if at > 0 else len(clause)])])


def _marker(text: str, markers: tuple[str, ...]) -> int:
    """Where the first result marker outside brackets starts (after the first character), or -1."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch in OPEN
        depth -= ch in CLOSE
        if depth <= 0 and i > 0 and any(text.startswith(m, i) for m in markers):
            if ch in ":：" and text[i - 1].isdigit() and text[i + 1:i + 2].isdigit():
                continue  # a ratio or titre (1:400), not a marker
            return i
    return -1


def _is_when(text: str) -> bool:
    text = text.strip(" ，,：:")
    return bool(_WHEN_ONLY.search(text)) or (bool(text) and not _WHEN_HEAD.sub("", text).strip())


def sentence_names(sentence: str, markers: tuple[str, ...], lang: str) -> list[str]:
    """The examinations one sentence of an investigations section names, without their results. A list with no
    value, finding or marker anywhere is not a result ('good collaterals'): none."""
    sep = _COMMA.get(lang, _COMMA["zh"])
    clauses = _split(sentence, sep)
    at = _marker(clauses[0], markers) if clauses else -1
    if at > 0:  # 'NAME：result, result …' — one examination; or 'WHEN：list'
        raw = clauses[0][:at]
        if not _is_when(raw):
            head = _clean(raw)
            return [head] if _accept(head) else []
        rest = sentence[sentence.index(raw) + len(raw):].lstrip()
        for m in sorted((m for m in markers if rest.startswith(m)), key=len, reverse=True):
            rest = rest[len(m):]
            break
        clauses = _split(rest.lstrip(" ：:"), sep)
    names = [clause_name(c, markers, lang) for c in clauses]
    if all(n == _clean(c) for n, c in zip(names, clauses, strict=True)):
        return []
    return [n for n in names if _accept(n)]


def names_of(text: str, markers: tuple[str, ...], lang: str, drop: re.Pattern[str] | None = None) -> list[str]:
    """Every examination an investigations text names, in order, each once."""
    names: list[str] = []
    for sentence in _SENTENCE.split(text):
        sentence = re.sub(r"^\s*\d{1,2}\s*[.、．)）]\s*", "", sentence).strip()
        if not sentence or (drop is not None and drop.fullmatch(sentence)):
            continue
        for n in sentence_names(sentence, markers, lang):
            if n not in names:
                names.append(n)
    return names
