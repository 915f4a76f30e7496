"""Choice answers (single and multi): the rules table and `extract_choice`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from climedbench.extract.base import Extraction, Pipeline, Rule, run_rules
from climedbench.extract.choice_checks import (
    _answer_then_odd_one,
    _rival_verdicts,
    _second_endorsed,
    _text_belies_letter,
)
from climedbench.extract.choice_hits import (
    _answer_region,
    _decide,
    _listed,
    _lists_every_option,
    _marker_hits,
    _next_option_line,
    _self_contradiction,
    _stated_with_text,
    _without_partial_restatements,
)
from climedbench.extract.choice_patterns import (
    _DANGLING_END,
    _DISJUNCTION,
    _ECHOED_LABELS,
    _HEDGE,
    _JOIN,
    _LAST_LINE_LETTERS,
    _LETTER,
    _LETTER_RUN,
    _NEGATION_AFTER,
    _NOT_AFTER,
    _OPTION_LINE,
    _ORDINAL,
    _ORDINALS,
    _STANDALONE_START,
    _STRONG_ANSWER,
    _TRAILING,
    _TRAILING_RUN,
    _TRUNCATED_TAIL,
    _labels_of,
    _letters_in,
    _no_option_correct,
    _special_options,
)
from climedbench.extract.clean import clean_response
from climedbench.extract.option_text import (
    _by_option_text,
    _echo_end,
    _exactly_named,
    _explained_first,
    _fold,
    _in_own_rebuttal,
    _marked_options,
    _text_walk,
    _walks_through_options,
)

_CODE_LINE = re.compile(r"^\s*(?:def |import |from \S+ import |return\b|class |(?:el)?if .*:\s*$|else:\s*$|"
                        r"for .*:\s*$|while .*:\s*$|```|print\(|[A-Za-z_][\w.]*\s*=\s*\S)")


def _without_code(text: str) -> str:
    """The text without fenced blocks of program code, and without its code lines when at least three lines are code
    (a `return '蒸发散热'` or `random.choice('ABCD')` is no answer)."""
    text = re.sub(r"```.*?(?:```|$)", lambda m: "" if any(_CODE_LINE.match(x) for x in m.group(0).split("\n")[1:])
                  else m.group(0), text, flags=re.S)  # a fenced answer ("```json\n{"answer": "B"}\n```") stays
    lines = text.split("\n")
    if sum(1 for x in lines if _CODE_LINE.match(x)) < 3:
        return text
    return "\n".join(x for x in lines if not _CODE_LINE.match(x) and not re.match(r"\s{4,}\S", x))


def _labels_in_order(text: str, valid: str) -> bool:
    """The lines that open with an option label give the options in their order from the first (A, B, C, …)."""
    labels = [m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", text)]
    return len(labels) >= 3 and "".join(labels) == valid[:len(labels)]


@dataclass
class ChoiceReading:
    """A choice response prepared once for the rules: the cleaned text and what several rules read from it (each
    computed on first use; the rules only read it)."""

    response: str
    valid: str
    multi: bool
    option_texts: dict[str, str] | None
    cleaned: str | None = field(init=False)
    # each rule's decision on this reading, filled as rules are applied (see extract.base.run_rules)
    decided: dict[str, Extraction | None] = field(init=False, default_factory=dict)
    checked: dict[Extraction, Extraction] = field(init=False, default_factory=dict)  # a single answer, re-checked

    def __post_init__(self) -> None:
        self.cleaned = clean_response(self.response)

    @cached_property
    def text(self) -> str:
        """The answer region, without program code (a weak model writing a program instead of answering: only its
        prose can answer)."""
        return _without_code(_answer_region(self.cleaned or "", self.valid))

    @cached_property
    def special(self) -> dict[str, str]:
        return _special_options(self.option_texts, self.valid)

    @cached_property
    def hits(self) -> list[tuple[int, list[str], bool]]:
        """Every explicit answer statement, in order of position (see `_marker_hits`)."""
        text, valid = self.text, self.valid
        # "参考答案\n\nA．……\nB．……\n…\nE．……": every option listed after the marker is the options echoed.
        hits = [h for h in _marker_hits(text, valid, self.special, self.multi)
                if not _lists_every_option(text, h[0], valid)]
        if not hits and self.option_texts:
            hits = _stated_with_text(text, valid, self.option_texts)
        listed = _listed(text, self.multi)
        if listed and _lists_every_option(text, listed[0], valid):
            listed = None
        if listed and (not hits or listed[0] >= hits[-1][0]):
            hits.append(listed)
        return hits

    @cached_property
    def decisive_hits(self) -> list[tuple[int, list[str], bool]]:
        """The hits the answer is decided among (multi-answer: without partial restatements of a strong answer)."""
        return _without_partial_restatements(self.hits, self.text) if self.hits and self.multi else self.hits

    @cached_property
    def echoed(self) -> bool:
        """The response opens by echoing three or more option labels."""
        return len({m.group(0).strip()[0] for m in _ECHOED_LABELS.finditer(self.text[:400])}) >= 3

    def answer(self, letters: list[str] | None, method: str) -> Extraction:
        """The Extraction of letters decided among the hits (None: no answer, `method` says why)."""
        if letters is None:
            return Extraction(None, method)
        chosen = sorted(set(letters))
        if any(letter not in self.valid for letter in chosen):
            return Extraction(None, "marker_out_of_range")
        if self.multi:
            return Extraction("".join(chosen), method)
        if len(chosen) == 1:
            return Extraction(chosen[0], method)
        return Extraction(None, "marker_ambiguous")


def _unterminated(r: ChoiceReading) -> Extraction | None:
    return Extraction(None, "unterminated_reasoning") if r.cleaned is None else None


def _empty(r: ChoiceReading) -> Extraction | None:
    return Extraction(None, "empty") if not (r.cleaned or "").strip() else None


def _alternatives(r: ChoiceReading) -> Extraction | None:
    """Single answer: two letters offered as alternatives, with no definite answer after them: a hedge."""
    if r.multi:
        return None
    for dis in reversed(list(_DISJUNCTION.finditer(r.text))):
        if len({g for g in dis.groups() if g} & set(r.valid)) >= 2:
            if not any(not h[2] and h[0] >= dis.end() for h in r.hits):
                return Extraction(None, "hedge")
            break
    return None


def _contradiction(r: ChoiceReading) -> Extraction | None:
    return Extraction(None, "inconsistent") if r.hits and _self_contradiction(r.text, r.valid) else None


def _truncated(r: ChoiceReading) -> Extraction | None:
    text = r.text
    unfinished = _TRUNCATED_TAIL.search(text.rstrip()) or _DANGLING_END.search(text.rstrip())
    return Extraction(None, "truncated") if unfinished and not _STRONG_ANSWER.search(text) else None


def _none_option(r: ChoiceReading) -> bool | None:
    return True if "none" in r.special else (False if r.option_texts else None)


def _marker(r: ChoiceReading) -> Extraction | None:
    """The last definite answer statement (see `_decide`)."""
    if not any(not h[2] for h in r.decisive_hits):
        return None
    return r.answer(*_decide(r.decisive_hits, r.text, r.valid, _none_option(r)))


def _tentative(r: ChoiceReading) -> Extraction | None:
    """Only tentative statements ("可能是A"), all of one answer."""
    hits = r.decisive_hits
    if not hits or len({tuple(h[1]) for h in hits}) != 1:
        return None
    return r.answer(*_decide(hits, r.text, r.valid, _none_option(r)))


def _guesses(r: ChoiceReading) -> Extraction | None:
    """Answer statements, none definite (and, in the flexible pipeline, tentative ones that disagree): a hedge."""
    return Extraction(None, "hedge") if r.decisive_hits else None


def _hedge(r: ChoiceReading) -> Extraction | None:
    return Extraction(None, "hedge") if _HEDGE.search(r.text) else None


def _none_correct(r: ChoiceReading) -> Extraction | None:
    # ("None of the above" may be the last option's text when the option texts are not known.)
    if "none" not in r.special and _no_option_correct(r.text, r.valid, above_counts=bool(r.option_texts)):
        return Extraction(None, "no_option_correct")
    return None


def _answer_then_others(r: ChoiceReading) -> Extraction | None:
    first = None if r.multi else _explained_first(r.text, r.valid, r.option_texts)
    return Extraction(first, "answer_then_others") if first is not None else None


def _marked_lines(r: ChoiceReading) -> Extraction | None:
    marked = _marked_options(r.text, {k: v for k, v in (r.option_texts or {}).items() if k in r.valid})
    return Extraction(marked, "marked_lines") if marked is not None and (r.multi or len(marked) == 1) else None


def _leading_letters(r: ChoiceReading) -> Extraction | None:
    """Multi-answer: the response opens with its letters ("ACD。……")."""
    if not r.multi:
        return None
    lead = re.match(rf"\s*{_LETTER_RUN}[ \t]*(?:[.。;；]|\n|$)", r.text)
    letters = sorted(set(_letters_in(lead.group(1)))) if lead else []
    if letters and all(x in r.valid for x in letters) and not r.echoed:
        return Extraction("".join(letters), "leading_letters")
    return None


def _leading_option_text(r: ChoiceReading) -> Extraction | None:
    """The response opens with one option's text alone ("四君子汤。\n\n本方由……")."""
    first = re.split(r"[。.!！\n]", r.text.strip(), maxsplit=1)[0]
    opening = [k for k, v in (r.option_texts or {}).items() if k in r.valid and _fold(v) and _fold(v) == _fold(first)]
    return Extraction(opening[0], "leading_option_text") if len(opening) == 1 and not r.echoed else None


def _leading_letter(r: ChoiceReading) -> Extraction | None:
    """The response opens with its answer letter ("B. 狼疮性肾炎……", "选项C")."""
    text, valid, multi = r.text, r.valid, r.multi
    m = _STANDALONE_START.match(text)
    if m and _NEGATION_AFTER.match(text[m.end(1):]):
        m = None  # "A项不符合。……": the response opens by rejecting A
    if m and not multi and _next_option_line(text, m.group(1).upper(), valid):
        return Extraction(None, "second_option_endorsed")  # "B. Ceftriaxone\nD. Azithromycin"
    if m and not multi and re.match(rf"\s*{_LETTER}\s*[.、:：)]?[ \t]*\n", text) and _labels_in_order(text, valid):
        m = None  # "A.\n\n<A's text> …\n\nB.\n\n<B's text> …": the options glossed in order, not an answer A
    if m and m.group(1).upper() in valid and not r.echoed:
        if multi:
            run = re.match(rf"^\s*({_LETTER}(?:{_JOIN}?{_LETTER})*){_NOT_AFTER}", text)
            letters = sorted(set(_letters_in(run.group(1)))) if run else [m.group(1).upper()]
            if letters and all(letter in valid for letter in letters):
                return Extraction("".join(letters), "leading_letters")
        return Extraction(m.group(1).upper(), "leading_letter")
    return None


def _letters_only(r: ChoiceReading) -> Extraction | None:
    """Multi-answer: the response is its letters and nothing else."""
    whole = re.fullmatch(rf"\s*{_LETTER_RUN}\s*[.。]?\s*", r.text) if r.multi else None
    letters = sorted(set(_letters_in(whole.group(1)))) if whole else []
    return Extraction("".join(letters), "letters_only") if letters and all(x in r.valid for x in letters) else None


def _last_line_letters(r: ChoiceReading) -> Extraction | None:
    """Letters alone on the last line, after some text."""
    text = r.text
    last = _LAST_LINE_LETTERS.search(text.rstrip())
    if last and text.strip() != last.group(0).strip():
        letters = sorted(set(_letters_in(last.group(1))))
        if letters and all(x in r.valid for x in letters) and (r.multi or len(letters) == 1):
            return Extraction("".join(letters), "last_line_letters")
    return None


def _trailing_letters(r: ChoiceReading) -> Extraction | None:
    """Multi-answer: letters closing the response after a colon or an arrow."""
    run = _TRAILING_RUN.search(r.text.rstrip()) if r.multi else None
    letters = sorted(set(_letters_in(run.group(1)))) if run else []
    return Extraction("".join(letters), "trailing_letters") if letters and all(x in r.valid for x in letters) else None


def _trailing_letter(r: ChoiceReading) -> Extraction | None:
    """A letter closing the response ("..., so A.", "Give IV dextrose: D.")."""
    t = _TRAILING.search(r.text)
    if t and (t.group(1) or t.group(2)).upper() in r.valid:
        return Extraction((t.group(1) or t.group(2)).upper(), "trailing_letter")
    return None


def _option_text(r: ChoiceReading) -> Extraction | None:
    """The option(s) the response names by their text (see `_by_option_text`)."""
    if not r.option_texts:
        return None
    text, valid, multi = r.text, r.valid, r.multi
    # When the response lists the options (first, or one by one to discuss each), only what it says after the
    # last option line can name its answer: an option's own line is no choice of it.
    opts = {k: v for k, v in r.option_texts.items() if k in valid}
    walk = None if multi else _text_walk(text, opts)
    if walk is not None and not _exactly_named(text[walk[1]:], opts):
        # The last option named is the last of a walk through the options by their texts ("1.辐射散热\n…
        # 5.直接散热\n…", "A.\n<A's text>\n…\nE.\n<E's text>"): only the text before the walk can answer.
        tail = text[:walk[0]]
    else:
        tail = text[_echo_end(text):] if r.echoed or _walks_through_options(text, valid) else text
    found = _by_option_text(tail, opts, multi)
    labels = {x for _, x in _labels_of(text, valid)}
    if found and not multi and len(labels) == 1 and found not in labels:
        return Extraction(None, "letter_text_mismatch")  # "……因此选项A不对。" beside another option's text
    if found and not multi and len(labels) >= 3 and _in_own_rebuttal(text, found, opts, valid):
        return Extraction(None, "no_answer")  # "A选项的…无效。B选项的…无效。C选项的对流散热此时无效。": a rebuttal
    return Extraction(found, "option_text") if found else None


def _ordinal(r: ChoiceReading) -> Extraction | None:
    """One ordinal names an option ("第三个")."""
    ordinals = {_ORDINALS.index(m.group(1)) for m in _ORDINAL.finditer(r.text)}
    if len(ordinals) == 1 and (k := ordinals.pop()) < len(r.valid):
        return Extraction(r.valid[k], "ordinal")
    return None


# The rules of choice answers, most explicit first: the first that decides names the result. The order is the
# behaviour (tests/test_extract_rules.py pins it). A rule's name is the method it reports on an answer, except
# `leading_letter`, which reports `leading_letters` for a multi-answer run; guards report why there is no answer.
CHOICE_RULES: tuple[Rule[ChoiceReading], ...] = (
    Rule("unterminated_reasoning", _unterminated, "guard"),
    Rule("empty", _empty, "guard"),
    Rule("alternatives", _alternatives, "guard"),
    Rule("self_contradiction", _contradiction, "guard"),
    Rule("truncated", _truncated, "guard"),
    Rule("marker", _marker, "stated"),
    Rule("tentative", _tentative, "flexible"),
    Rule("tentative_only", _guesses, "guard"),
    Rule("hedge", _hedge, "guard"),
    Rule("no_option_correct", _none_correct, "guard"),
    Rule("answer_then_others", _answer_then_others, "flexible"),
    Rule("marked_lines", _marked_lines, "flexible"),
    Rule("leading_letters", _leading_letters, "stated"),
    Rule("leading_option_text", _leading_option_text, "flexible"),
    Rule("leading_letter", _leading_letter, "stated"),
    Rule("letters_only", _letters_only, "stated"),
    Rule("last_line_letters", _last_line_letters, "flexible"),
    Rule("trailing_letters", _trailing_letters, "flexible"),
    Rule("trailing_letter", _trailing_letter, "flexible"),
    Rule("option_text", _option_text, "flexible"),
    Rule("ordinal", _ordinal, "flexible"),
)


@lru_cache(maxsize=32)
def _reading(response: str, valid: str, multi: bool, option_texts: tuple[tuple[str, str], ...] | None
             ) -> ChoiceReading:
    """The reading of one response, kept for the next call: a scorer reads each response twice (the flexible and
    the strict pipeline), and the second reading reuses the first one's cleaned text, hits and rule decisions."""
    return ChoiceReading(response, valid, multi, None if option_texts is None else dict(option_texts))


def extract_choice(response: str, options: str, *, multi: bool = False,
                   option_texts: dict[str, str] | None = None, pipeline: Pipeline = "flexible") -> Extraction:
    """The chosen letter (single) or sorted letter set (multi) among `options`, e.g. 'ABCDE', read by the rules of
    `pipeline` (`CHOICE_RULES`; no_answer when none decides). A single answer with a second option endorsed beside it
    ("The answer is B. D is also correct.") is a hedge: no answer."""
    texts = None if option_texts is None else tuple(option_texts.items())
    reading = _reading(response, options.upper(), multi, texts)
    found = run_rules(CHOICE_RULES, reading, pipeline, Extraction(None, "no_answer"), reading.decided)
    if not multi and isinstance(found.answer, str):
        if found not in reading.checked:
            reading.checked[found] = _checked(reading, found, option_texts or {})
        return reading.checked[found]
    return found


def _checked(reading: ChoiceReading, found: Extraction, option_texts: dict[str, str]) -> Extraction:
    """A single answer unless the text around it withdraws it (a second option endorsed, an odd one out, a rival
    verdict, option text that belies the letter)."""
    assert isinstance(found.answer, str)
    text = _answer_region(reading.cleaned or "", reading.valid)
    if _second_endorsed(text, found.answer, reading.valid):
        return Extraction(None, "second_option_endorsed")
    if _answer_then_odd_one(text, found.answer, reading.valid):
        return Extraction(None, "inconsistent")
    if found.method == "marker" and _rival_verdicts(text, found.answer):
        return Extraction(None, "second_option_endorsed")
    if found.method == "marker" and _text_belies_letter(text, found.answer, option_texts):
        return Extraction(None, "letter_text_mismatch")
    return found
