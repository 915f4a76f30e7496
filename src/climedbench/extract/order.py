"""Order answers: a permutation of the option letters."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property

from climedbench.extract.base import Extraction, Pipeline, Rule, run_rules
from climedbench.extract.choice_patterns import (
    _CLAUSE_TENTATIVE,
    _CLOSE,
    _CORRECTION,
    _HEDGE,
    _LETTER,
    _NOT_AFTER,
    _NOT_BEFORE,
    _OPEN,
    _OPTION_LINE,
    _ORDINALS,
    _PAREN,
    _TENTATIVE,
    _letters_in,
)
from climedbench.extract.clean import _FULLWIDTH_TABLE, clean_response
from climedbench.extract.option_text import _coverage, _option_forms, _words

_ARROW_JOIN = (r"(?:\s*(?:→|->|=>|⇒|—>|-+>|>|-|–|—|,|、|;|/|\s|然后|再|接着|之后|最后|必要时|(?i:and|then|finally))+"
               r"\s*)")
_ORDER_MARKER = re.compile(
    r"(?:最终答案|正确答案|答案|正确顺序|正确的顺序|顺序(?:应)?(?:为|是)|排序(?:为|是)?|排列(?:为|是)?|修正后|修正为|更正为|"
    r"改为|调整为|"
    r"(?i:final answer|answer|correct order|order(?: is)?|sequence(?: is)?))\s*(?:是|为|应为|应该是|:|=|\s)*"
)
_SEQUENCE_WORDS = re.compile(r"先|首先|然后|再|接着|之后|随后|最后|(?i:first|then|next|finally)")
_NUMBERED_LINE = re.compile(
    r"(?m)^[ \t]*(?:[-*•][ \t]*)?(?:第\s*|(?i:step)\s*)?(?:\d+|[一二三四五六七八九十]+)\s*(?:步|题)?\s*[.、:)）]?"
    r"(?P<rest>[^\n]*)$"
)
_LOWER_RUN = re.compile(r"(?<![A-Za-z])([a-z](?:\s*(?:-|→|->|>|,|、)\s*[a-z])+)(?![A-Za-z])")


def _as_permutation(letters: list[str], valid: str) -> str | None:
    order = "".join(letters)
    if len(order) == len(valid) and sorted(order) == sorted(valid):
        return order
    return None


_CIRCLED = {chr(0x2460 + i): i + 1 for i in range(20)}  # ① … ⑳
# Two orders offered as equally good: "两种顺序都可以", "either order is acceptable".
_HEDGE_ORDERS = re.compile(r"都可以|均可|皆可|两种.{0,6}都|(?i:either (?:order|sequence)|both (?:orders|sequences))")
# Steps said to be interchangeable: no single order is given ("B和C的先后可以互换").
_INTERCHANGEABLE = re.compile(r"可以?互换|可互换|不分先后|先后均可|(?i:interchangeabl[ey]|in either order)")


def _order_text(text: str) -> str:
    """Circled and bracketed step numbers written as '1)', step glosses in brackets and table pipes removed, so
    only numbers, letters and arrows remain."""
    text = re.sub("[\u2460-\u2473]", lambda m: f" {_CIRCLED[m.group(0)]}) ", text)  # "① E ② B"
    text = re.sub(r"[(\[]\s*(\d{1,2})\s*[)\]]", r" \1) ", text)  # "(1)E (2)B"
    text = re.sub(rf"{_OPEN}\s*({_LETTER})\s*{_CLOSE}", r" \1 ", text)  # "（B）（C）（A）"
    text = re.sub(_PAREN, " ", text)
    text = re.sub(r"[\"'“”‘’]", " ", text)  # a JSON array: ["E", "B", "C"]
    return text.replace("|", "  ")


def _sequence_at(text: str, start: int) -> list[str]:
    """Letters of the sequence that begins at `start` (stops at the first non-sequence text)."""
    m = re.match(rf"\s*{_OPEN}?\s*({_LETTER}(?:{_ARROW_JOIN}?{_LETTER})*){_NOT_AFTER}", text[start:])
    if m:
        return _letters_in(m.group(1)) or re.findall(_LETTER, m.group(1))
    low = _LOWER_RUN.match(text[start:].lstrip())
    return re.findall(_LETTER, low.group(1).upper()) if low else []


def _order_by_text(text: str, option_texts: dict[str, str], valid: str) -> str | None:
    """The order in which the options are named: "先消毒外阴，再戴手套……", "Anesthetize first (B), then explore …".

    Searched in the text after the last order marker, else in the last stretch of text (after a colon or a sentence
    end) that names every option, so that a mnemonic quoted earlier does not count. An option is named where the text
    shares its longest run with the option (or with it without a bracketed gloss) of at least 4 characters or 60% of
    it, or covers 75% of it in runs of 2+; failing that, in English, where a word of the option (4+ letters, matched
    on its first 5) that no other option has appears; failing that, where its letter stands in brackets "(B)". Every
    option must be named, at distinct places.
    """
    markers = list(_ORDER_MARKER.finditer(text))
    if markers:
        return _order_in(text[markers[-1].end():], option_texts, valid)
    starts = [0] + [m.end() for m in re.finditer(r"[:：。.!?！？\n]", text)]
    for start in reversed(starts):
        found = _order_in(text[start:], option_texts, valid)
        if found:
            return found
    return None


def _order_in(region_text: str, option_texts: dict[str, str], valid: str) -> str | None:
    from difflib import SequenceMatcher

    region = re.sub(r"\s+", " ", region_text).lower()
    squeezed = region.replace(" ", "")
    words = {k: set(_words(option_texts.get(k, ""))) for k in valid}
    where: dict[str, int] = {}
    for letter in valid:
        forms = _option_forms(option_texts.get(letter, "").translate(_FULLWIDTH_TABLE))
        if not forms or not forms[0]:
            return None
        english = bool(re.search(r"[a-z]{3}", forms[0].lower()))
        own = [w for w in _words(forms[0]) if len(w) >= 4 and not any(w in words[o] for o in valid if o != letter)]
        # English: where a word only this option has is said (shared words such as 'the wound' would mislead).
        stems = [mm.start() for w in own for mm in re.finditer(rf"\b{re.escape(w[:5])}", region)] if english else []
        if stems:
            where[letter] = len(region[:min(stems)].replace(" ", ""))
            continue
        for form in forms:
            opt = re.sub(r"\s+", "", form).lower()
            m = SequenceMatcher(None, squeezed, opt, autojunk=False).find_longest_match(0, len(squeezed), 0, len(opt))
            long_run = m.size >= min(len(opt), max(4, int(0.6 * len(opt))))
            if long_run or (m.size >= 2 and _coverage(form, region) >= 0.75):
                where[letter] = m.a
                break
        else:
            bracketed = re.search(rf"[(\[]{letter.lower()}[)\]]", squeezed)
            if not bracketed:
                return None
            where[letter] = bracketed.start()
    if len(set(where.values())) != len(where):
        return None
    return "".join(sorted(where, key=lambda k: where[k]))


def _numbered_segments(line: str, valid: str) -> list[str]:
    """'1) 询问病史 D 2) 心电图 B …': the one option letter of each numbered segment, when numbered 1, 2, 3 …"""
    marks = list(re.finditer(r"(?:^|(?<=\s))(\d{1,2})\s*[.、)）]", line))
    if len(marks) < 2 or [int(m.group(1)) for m in marks] != list(range(1, len(marks) + 1)):
        return []
    out = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=False):
        seg = line[m.end(): nxt.start() if nxt else len(line)]
        letters = {x for x in re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", seg) if x in valid}
        if len(letters) != 1:
            return []
        out.append(letters.pop())
    return out


def _completed(seq: list[str], valid: str, text: str, at: int, option_texts: dict[str, str] | None) -> str | None:
    """A sequence missing one option, completed where the same sentence names that option's text: after the
    letters ("E→B→C→D，最后缝合切口") or before them ("先麻醉，然后B→C→D→A")."""
    missing = [x for x in valid if x not in seq]
    if not option_texts or len(missing) != 1 or len(set(seq)) != len(seq) or len(seq) != len(valid) - 1:
        return None
    sentence_start = max(text.rfind(c, 0, at) for c in "。\n!?！？") + 1
    ends = [i for i in (text.find(c, at) for c in "。\n!?！？") if i >= 0]
    sentence_end = min(ends) if ends else len(text)
    run = re.match(rf"[{valid}\s→>\-–—,、;]*", text[at:])
    run_end = at + (len(run.group(0)) if run else 0)
    option = option_texts.get(missing[0], "")
    if not option:
        return None
    if _coverage(option, text[run_end:sentence_end]) >= 0.6:
        return "".join(seq) + missing[0]
    if _coverage(option, text[sentence_start:at]) >= 0.6:
        return missing[0] + "".join(seq)
    return None


Candidate = tuple[int, str, list[str]]


def _candidates(text: str, valid: str) -> list[Candidate]:
    """Every sequence in the text: (position, kind, letters); kind marker (after an order marker), letter_run (a bare
    run "A→B→D→C") or numbered_list."""
    candidates: list[Candidate] = []
    for m in _ORDER_MARKER.finditer(text):
        seq = _sequence_at(text, m.end())
        if len(seq) >= 2:
            candidates.append((m.start(), "marker", seq))
    for m in re.finditer(rf"{_NOT_BEFORE}{_LETTER}(?:{_ARROW_JOIN}?{_LETTER})+{_NOT_AFTER}", text):
        letters = re.findall(_LETTER, m.group(0))
        candidates.append((m.start(), "letter_run", letters))
    numbered: list[str] = []
    first_at = None
    for m in _NUMBERED_LINE.finditer(text):
        found = [x for x in re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", m.group("rest")) if x in valid]
        if len(set(found)) == 1:
            numbered.append(found[0])
            first_at = m.start() if first_at is None else first_at
    if len(numbered) >= 2 and first_at is not None:
        candidates.append((first_at, "numbered_list", numbered))
    # Inline numbering on one line: "1) C 2) E 3) A 4) D 5) B", "① 询问病史（D）② 心电图（B）…".
    for line_m in re.finditer(r"[^\n]+", text):
        pairs = re.findall(rf"(?:^|[\s:：,，;；])(\d+)\s*[.、)）]\s*({_LETTER}){_NOT_AFTER}", line_m.group(0))
        if len(pairs) < 2:
            pairs = [(str(_ORDINALS.index(n) + 1) if n in _ORDINALS else n, x) for n, x in re.findall(
                rf"第\s*([一二三四五六七八]|\d+)\s*步\s*[:：]?\s*({_LETTER}){_NOT_AFTER}", line_m.group(0))]
        if len(pairs) >= 2 and [int(n) for n, _ in pairs] == list(range(1, len(pairs) + 1)):
            candidates.append((line_m.start(), "numbered_list", [x for _, x in pairs]))
        else:
            segs = _numbered_segments(line_m.group(0), valid)
            if len(segs) >= 2:
                candidates.append((line_m.start(), "numbered_list", segs))
    return candidates


@dataclass
class OrderReading:
    """An order response prepared once for the rules (each property computed on first use)."""

    response: str
    valid: str
    option_texts: dict[str, str] | None
    cleaned: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.cleaned = clean_response(self.response)

    @cached_property
    def text(self) -> str:
        return _order_text(self.cleaned or "")

    @cached_property
    def candidates(self) -> list[Candidate] | None:
        """The candidate sequences; orders offered as possibilities ("可能是ABCD，也可能是ACBD", "可以是DBCAE，也可以是
        BDCAE") count only if nothing definite is said (None: nothing is)."""
        text = self.text
        candidates = _candidates(text, self.valid)

        def clause_before(pos: int) -> str:
            return re.split(r"[,，;；。\n]", text[max(0, pos - 30):pos])[-1]

        tentative = {c[0] for c in candidates if _TENTATIVE.search(text[max(0, c[0] - 6):c[0]])
                     or _CLAUSE_TENTATIVE.search(clause_before(c[0]))}
        if tentative and len({tuple(c[2]) for c in candidates if c[0] in tentative}) > 1:
            candidates = [c for c in candidates if c[0] not in tentative]
            if not candidates:
                return None
        return candidates

    @cached_property
    def full(self) -> list[Candidate]:
        """The candidates as long as the options."""
        return [c for c in self.candidates or [] if len(c[2]) == len(self.valid)]


def _unterminated(r: OrderReading) -> Extraction | None:
    return Extraction(None, "unterminated_reasoning") if r.cleaned is None else None


def _truncated(r: OrderReading) -> Extraction | None:
    """Cut off in a numbered list ("…\n2. E 麻醉\n3."): the order was never finished."""
    text = r.text
    if re.search(r"\n[ \t]*(?:\d+|[一二三四五六七八九十]+)\s*[.、)）]?\s*$", text.rstrip(" \t")) and \
            not _ORDER_MARKER.search(text):
        return Extraction(None, "truncated")
    return None


def _only_possibilities(r: OrderReading) -> Extraction | None:
    return Extraction(None, "hedge") if r.candidates is None else None


def _either_order(r: OrderReading) -> Extraction | None:
    """Two orders offered as equally good, or steps said to be interchangeable."""
    orders = {"".join(c[2]) for c in r.full if _as_permutation(c[2], r.valid)}
    if (len(orders) > 1 and (_HEDGE_ORDERS.search(r.text) or _HEDGE.search(r.text))) or _INTERCHANGEABLE.search(r.text):
        return Extraction(None, "hedge")
    return None


def _contradiction(r: OrderReading) -> Extraction | None:
    """Two stated orders that differ with no correction between them."""
    text, valid, full = r.text, r.valid, r.full
    answered = [(p, "".join(q)) for p, m, q in full if m == "marker" and _as_permutation(q, valid)
                and re.match(r"(?:最终答案|正确答案|答案|(?i:final answer|answer))", text[p:])]
    # An order opening the response counts as stated too: "E→D→A→B→C\n…因此正确顺序为：D→E→A→B→C" contradicts itself.
    indent = len(text) - len(text.lstrip())
    opening = [(p, "".join(q)) for p, m, q in full if m == "letter_run" and p <= indent and _as_permutation(q, valid)]
    concluded = [(p, "".join(q)) for p, m, q in full if m == "marker" and _as_permutation(q, valid)]
    if opening and concluded and concluded[-1][0] > opening[0][0]:
        answered = sorted({*answered, opening[0], concluded[-1]})
    for (p1, a), (p2, b) in itertools.pairwise(answered):
        if a != b and not _CORRECTION.search(text, p1, p2 + 12):
            return Extraction(None, "inconsistent")
    return None


def _latest(r: OrderReading, kinds: tuple[str, ...]) -> Extraction | None:
    """The last full-length candidate of the given kinds that is a permutation of the options."""
    for _pos, method, seq in sorted(r.full, key=lambda c: c[0], reverse=True):
        order = _as_permutation(seq, r.valid) if method in kinds else None
        if order:
            return Extraction(order, method)
    return None


def _marker(r: OrderReading) -> Extraction | None:
    """An order after a marker ("答案：", "正确顺序为", "修正后"): it outranks lists in the explanation, which often
    walk through the steps alphabetically."""
    return _latest(r, ("marker",))


def _sequence(r: OrderReading) -> Extraction | None:
    """The last bare run of letters ("E→B→C→D→A") or numbered list of them."""
    return _latest(r, ("letter_run", "numbered_list"))


def _option_lines(r: OrderReading) -> Extraction | None:
    """The options written out one per line in the chosen order ("D. Assess …\nC. Obtain …"); the options in their
    own order are more likely an echo of the question than an answer."""
    for block in reversed([m.group(0) for m in re.finditer(rf"(?:(?:^|\n){_OPTION_LINE}[^\n]*)+", r.text)]):
        order = _as_permutation(re.findall(rf"(?m)^{_OPTION_LINE}", block.strip("\n")), r.valid)
        if order and order != r.valid:
            return Extraction(order, "option_lines")
    return None


def _completed_by_text(r: OrderReading) -> Extraction | None:
    for pos, _method, seq in sorted(r.candidates or [], key=lambda c: c[0], reverse=True):
        order = _completed(seq, r.valid, r.text, pos, r.option_texts)
        if order:
            return Extraction(order, "order_completed_by_text")
    return None


def _invalid(r: OrderReading) -> Extraction | None:
    """An order stated (after a marker, or as long as the options) that is no permutation of the options."""
    if any(m == "marker" for _, m, _ in r.candidates or []) or r.full:
        return Extraction(None, "invalid_order")
    return None


def _sequence_sentence(r: OrderReading) -> Extraction | None:
    """A sentence: "应先进行D，再进行B，接着A，最后C"."""
    for sentence in reversed(re.split(r"[。！？!?\n]", r.text)):
        if len(_SEQUENCE_WORDS.findall(sentence)) >= 2:
            letters = re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", sentence)
            order = _as_permutation(letters, r.valid)
            if order:
                return Extraction(order, "sequence_sentence")
    return None


def _by_text(r: OrderReading) -> Extraction | None:
    order = _order_by_text(r.cleaned or "", r.option_texts, r.valid) if r.option_texts else None
    return Extraction(order, "order_by_text") if order else None


# The rules of order answers, in order: the first that decides names the result (tests/test_extract_rules.py pins the
# order). `sequence` reports letter_run or numbered_list, the kind of the sequence it read.
ORDER_RULES: tuple[Rule[OrderReading], ...] = (
    Rule("unterminated_reasoning", _unterminated, "guard"),
    Rule("truncated", _truncated, "guard"),
    Rule("only_possibilities", _only_possibilities, "guard"),
    Rule("either_order", _either_order, "guard"),
    Rule("self_contradiction", _contradiction, "guard"),
    Rule("marker", _marker, "stated"),
    Rule("sequence", _sequence, "stated"),
    Rule("option_lines", _option_lines, "flexible"),
    Rule("order_completed_by_text", _completed_by_text, "flexible"),
    Rule("invalid_order", _invalid, "guard"),
    Rule("sequence_sentence", _sequence_sentence, "flexible"),
    Rule("order_by_text", _by_text, "flexible"),
)


def extract_order(response: str, options: str, option_texts: dict[str, str] | None = None,
                  pipeline: Pipeline = "flexible") -> Extraction:
    """A permutation of all `options` letters, or None when the response gives no valid order (`ORDER_RULES`).

    Every sequence in the text is a candidate — after an order marker, a bare run ("A→B→D→C"), a
    numbered list — and the last full-length one wins, so a revised order beats the first draft.
    """
    reading = OrderReading(response, options.upper(), option_texts)
    return run_rules(ORDER_RULES, reading, pipeline, Extraction(None, "no_order"))
