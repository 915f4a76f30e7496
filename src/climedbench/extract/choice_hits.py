"""Answer statements of a choice response: every explicit statement of an answer (`marker_hits`) and the decision
among them."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from climedbench.extract.choice_patterns import (
    _ALL_RE,
    _ALSO,
    _ANSWER_HEDGE,
    _CLAUSE_TENTATIVE,
    _CLOSE,
    _CONDITIONAL,
    _CORRECTION,
    _COUNT_WORDS,
    _COUNTED_ABOVE,
    _EXCEPT_EN,
    _EXCEPT_RE,
    _EXCEPT_TAIL,
    _FALSE_OTHERS,
    _INTRODUCED,
    _IS_LETTER,
    _LABELLED_ITEM,
    _LETTER,
    _LINE_VERDICT,
    _LIST_ANY,
    _LIST_LINE,
    _LIST_STRONG,
    _LOWER_SINGLE,
    _MARKER_RE,
    _NEGATED_CLAUSE,
    _NEGATION_AFTER,
    _NEGATION_BEFORE,
    _NEGATIVE_MARKS,
    _NEXT_QUESTION,
    _NONE_RE,
    _NOT_AFTER,
    _NOT_BEFORE,
    _ODD_ONE_OUT,
    _ONLY,
    _OPEN,
    _OPTION_LINE,
    _POSITIVE_RE,
    _POSITIVE_VERDICT,
    _QUESTIONED,
    _RANGE_AFTER,
    _SPECIES_AFTER,
    _STANDALONE_START,
    _STRONG_ANSWER,
    _TENTATIVE,
    _TEXT_THEN_LETTER,
    _TWO_LABELLED,
    _VERDICT,
    _letters_in,
    _no_option_correct,
)
from climedbench.extract.option_text import _fold


def _joined_labelled(text: str, start: int) -> list[str]:
    """Two options written out with their labels and joined as the answer at `start`, the second not rejected: both
    letters ([] otherwise)."""
    pair = _TWO_LABELLED.match(text, start)
    if not pair:
        return []
    clause = text[pair.start():pair.end()] + re.split(r"[,.;，。；\n]", text[pair.end():], maxsplit=1)[0]
    return [] if _NEGATED_CLAUSE.search(clause) else [g for g in pair.groups() if g]


def _option_lines_after(text: str, start: int, letter: str, valid: str) -> list[str]:
    """The answer at `start` given as an option line ("the answer is:\n\nB) Cocaine", "the answer is A) Heroin") and
    followed by another option's line ("D) Ecstasy"): both letters ([] otherwise)."""
    own_line = not text[text.rfind("\n", 0, start) + 1:start].strip(" \t([【")
    if not own_line and not re.match(rf"{_OPEN}?{letter}{_CLOSE}[ \t]+\S", text[start:]):
        return []
    second = _next_option_line(text[start:], letter, valid)
    return [letter, second] if second else []


def _labelled_list(text: str, start: int) -> list[str]:
    """Letters of options written out one after another on the answer's line: "正确答案：A. 感染；C. 血栓；D. 肾损伤",
    "Answers: (A) Furosemide; (C) Spironolactone" ([] unless every segment opens with its own option label)."""
    line = re.split(r"[\n。]", text[start:], maxsplit=1)[0]
    next_label = rf"(?=(?:和|及|与|(?i:and)\s+)?{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)])"
    segments = re.split(rf"\s*[；;]\s*|\s*[，,、]\s*{next_label}", line)
    labels = [_LABELLED_ITEM.match(seg) for seg in segments]
    letters = [m.group(1) for m in labels if m]
    if len(segments) < 2 or len(letters) != len(segments) or len(set(letters)) != len(letters):
        return []
    return letters


Hit = tuple[int, list[str], bool]


@dataclass
class _Hits:
    """The answer statements of one text, collected pattern by pattern (`_marker_hits`)."""

    text: str
    valid: str
    special: dict[str, str]
    multi: bool
    found: list[Hit] = field(default_factory=list)

    def add(self, pos: int, letters: list[str], upto: int | None = None) -> None:
        """A hit at `pos`; its clause reaches up to `upto` (the letter), so words inside the marker count too
        ("所以可能是C")."""
        text = self.text
        if len(letters) > 1 and any(x not in self.valid for x in letters):
            return  # a word or abbreviation (CT, ACEI, MRI), not a list of options
        end = pos + 2
        upto = pos if upto is None else upto
        clause = re.split(r"[,，;；。\n]", text[max(0, pos - 30):upto])[-1]
        sentence = re.split(r"[。\n]", text[max(0, pos - 40):upto])[-1]
        tentative = bool(_TENTATIVE.search(text[max(0, pos - 6):pos]) or _QUESTIONED.match(text[end:])
                         or _CONDITIONAL.search(sentence) or _CLAUSE_TENTATIVE.search(clause))
        self.found.append((pos, letters, tentative))

    def markers(self) -> None:
        """Answer markers: "答案：B", "the answer is C", "正确的是A、C"."""
        text, valid, multi = self.text, self.valid, self.multi
        for m in _MARKER_RE.finditer(text):
            if _RANGE_AFTER.match(text, m.end(1)):
                continue  # "the answer is A through D": a range of options, no answer
            if _SPECIES_AFTER.match(text, m.end(1)):
                continue  # "either N. gonorrhoeae or C. trachomatis …": a genus initial, not option C
            after = text[m.end():m.end() + 24]
            before = text[max(0, m.start() - 8):m.start()]
            letters = _letters_in(m.group(1))
            if _NEGATION_BEFORE.search(before):
                continue
            if _NEGATION_AFTER.search(after):
                if len(letters) < 2 or not re.search(r";[ \t]*\S{0,2}$", m.group(1)):
                    continue
                letters = letters[:-1]  # "正确的是：A、B、C、E；D错误": the run ran on into the next clause
            if len(letters) > 1 and "," in m.group(1) and _ALSO.match(after):
                letters = letters[:1]  # "所以选B，C也可以作为辅助": B is the answer, C an aside
            if multi and len(letters) == 1:
                letters = _labelled_list(text, m.start(1)) or _joined_labelled(text, m.start(1)) or letters
            elif len(letters) == 1:
                # Two answers to a single-answer item, read as both (so no answer): "C) Heparin or D) Tranexamic acid",
                # "the answer is:\n\nB) Cocaine\nD) Ecstasy".
                letters = (_joined_labelled(text, m.start(1))
                           or _option_lines_after(text, m.start(1), letters[0], valid) or letters)
            if letters:
                self.add(m.start(), letters, m.start(1))

    def positives(self) -> None:
        """Options said to be correct: "B 正确", "A, C and D are correct"."""
        text = self.text
        for m in _POSITIVE_RE.finditer(text):
            before = text[max(0, m.start() - 8):m.start()]
            letters = _letters_in(m.group(1))
            if _NEGATION_BEFORE.search(before) or not letters:
                continue
            if len(letters) < 2 and re.search(r"(?i)\bare\b", m.group(0)):
                continue  # "All of the following except C are correct": C is not what is correct
            if _ALSO.search(m.group(0)):
                if not self.multi:
                    continue  # "答案：C（B也正确）": a second option endorsed is no answer (see _second_endorsed)
                earlier = [h for h in self.found if h[0] < m.start() and not h[2]]
                if earlier:  # "A正确。B也正确。": B is added to the answer before it
                    letters = sorted(set(max(earlier)[1]) | set(letters))
            self.add(m.start(), letters)

    def exceptions(self) -> None:
        """An exception ("除A外其余均错误", "all of the options except D are …", "…，除了B项。"): with one answer to
        give it is the answer (of an EXCEPT question, or the one left when the others are wrong); with several, the
        others are, unless the sentence says the others are wrong."""
        text, valid, multi = self.text, self.valid, self.multi
        for m in _EXCEPT_RE.finditer(text):
            named = [x for x in _letters_in(m.group(1) or m.group(3)) if x in valid]
            if named:
                others_wrong = m.group(2) in ("错误", "不正确", "不对", "错")
                self.add(m.start(), named if others_wrong or not multi else [x for x in valid if x not in named])
        for rx in (_EXCEPT_EN, _EXCEPT_TAIL):
            for m in rx.finditer(text):
                named = [x for x in _letters_in(m.group(1)) if x in valid]
                sentence = (re.split(r"[。.!！?？\n]", text[:m.start()])[-1]
                            + text[m.start():m.end() + 40].split("\n")[0])
                if named:
                    others_wrong = bool(_FALSE_OTHERS.search(sentence))
                    self.add(m.start(), named if others_wrong or not multi else [x for x in valid if x not in named])
        for m in _ODD_ONE_OUT.finditer(text):
            named = [x for x in _letters_in(m.group(1)) if x in valid]
            if len(named) == 1:
                self.add(m.start(), named)

    def all_or_none(self) -> None:
        """"All of the above" / "none of the above", and "以上三项均为……" after the options it counts."""
        text, valid, special = self.text, self.valid, self.special
        for m in _ALL_RE.finditer(text):
            if _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()]):
                continue
            if "all" in special:
                self.add(m.start(), [special["all"]])
            elif self.multi:  # every option, when several may be chosen; one answer needs an all-of-the-above option
                self.add(m.start(), list(valid))
        if "none" in special:
            for m in _NONE_RE.finditer(text):
                if not _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()]):
                    self.add(m.start(), [special["none"]])
        for m in _COUNTED_ABOVE.finditer(text):
            listed = re.findall(rf"(?m)^[ \t]*{_OPEN}?({_LETTER}){_CLOSE}?\s*[.、:：)]", m.group(1))
            n = m.group(2)
            count = int(n) if n.isdigit() else _COUNT_WORDS[n]
            if len(listed) == count and all(x in valid for x in listed):
                self.add(m.start(2), listed)

    def other_forms(self) -> None:
        """A lower-case answer letter, a letter after the option's text in a conclusion, an option line introduced
        as the answer."""
        text, valid = self.text, self.valid
        for m in _LOWER_SINGLE.finditer(text):
            self.add(m.start(), [next(g for g in m.groups() if g).upper()])
        for m in _TEXT_THEN_LETTER.finditer(text):
            # "(A)(B)(C)", "(A), (C)", "(A) 和 (C)": a run, read above.
            if not re.match(rf"[ \t]*(?:(?:[,、;&，]|和|及|与|或|以及|(?i:and|or))[ \t]*)?[（(]\s*{_LETTER}\s*[)）]",
                            text[m.end():]):
                self.add(m.start(1), [m.group(1)])
        for m in _INTRODUCED.finditer(text):
            letter = m.group(1) or m.group(2)
            lead = text[text.rfind("\n", 0, m.start()) + 1:m.end()]
            # "The other options are:\n\n(A) …\n(C) …" introduces a list, not an answer.
            list_follows = m.group(1) is not None and re.match(rf"\s*{_OPTION_LINE}", text[m.end():])
            others = re.search(r"(?i:other|incorrect|wrong|remaining|rest)|其他|其余|错误", lead.split("\n")[0])
            if letter in valid and not list_follows and not others:
                self.add(m.start(), [letter])

    def verdicts(self) -> None:
        """Per-option verdicts, line by line ("C. … —— 正确 √") or in a run ("A. 错误 B. 错误 C. 正确")."""
        text, valid = self.text, self.valid
        lines = {m.group(1): (m.start(), m.group(2).lower() not in _NEGATIVE_MARKS)
                 for m in _LINE_VERDICT.finditer(text) if m.group(1) in valid}
        if len(lines) >= 2 and any(ok for _, ok in lines.values()):
            self.add(max(p for p, _ in lines.values()), sorted(k for k, (_, ok) in lines.items() if ok))
        verdicts: dict[str, tuple[int, bool]] = {}
        for m in _VERDICT.finditer(text):
            if m.group(1) in valid:
                verdicts[m.group(1)] = (m.start(), m.group(2).lower() in _POSITIVE_VERDICT)
        if len(verdicts) >= 2 and any(ok for _, ok in verdicts.values()):
            self.add(max(p for p, _ in verdicts.values()), sorted(k for k, (_, ok) in verdicts.items() if ok))


def _marker_hits(text: str, valid: str, special: dict[str, str] | None = None, multi: bool = True) -> list[Hit]:
    """Every explicit answer statement: (position, letters, tentative), skipping negated ones and words; in order of
    position (statements at one position in the order the patterns are tried)."""
    hits = _Hits(text, valid, special or {}, multi)
    hits.markers()
    hits.positives()
    hits.exceptions()
    hits.all_or_none()
    hits.other_forms()
    hits.verdicts()
    hits.found.sort(key=lambda h: h[0])
    return hits.found


def _self_contradiction(text: str, valid: str) -> bool:
    """Two strong answer statements that disagree, with no correction between them. An answer slot ("【答案】B") after
    an answer in the analysis is the response's commitment; two slots that disagree ("(1)…【答案】A (2)…【答案】D",
    answers to sub-questions the model invented) contradict each other."""
    strong = [(m.start(), m.end(), "".join(sorted(set(_letters_in(m.group(1))))), text[m.start() - 1:m.start()] == "【")
              for m in _STRONG_ANSWER.finditer(text)]
    strong = [x for x in strong if x[2] and all(c in valid for c in x[2])]
    return any(a != b and not _CORRECTION.search(text, p1, e2) and (slot1 or not slot2)
               for (p1, _, a, slot1), (_, e2, b, slot2) in itertools.pairwise(strong))


def _without_partial_restatements(hits: list[tuple[int, list[str], bool]], text: str
                                  ) -> list[tuple[int, list[str], bool]]:
    """Multi-answer: a statement naming part of a letter set that a strong answer gave before it ("答案：AD，其中A正确是
    因为……") explains that answer rather than replacing it, unless a correction or "only" comes between or opens it."""
    strong = [(m.start(), set(_letters_in(m.group(1)))) for m in _STRONG_ANSWER.finditer(text)]
    kept = []
    for hit in hits:
        before = [(p, letters) for p, letters in strong if p < hit[0]]
        if before:
            at, letters = before[-1]
            if (len(letters) > 1 and set(hit[1]) < letters and not _CORRECTION.search(text, at, hit[0] + 6)
                    and not _ONLY.search(text, at, hit[0] + 6)):
                continue
        kept.append(hit)
    return kept


def _decide(hits: list[tuple[int, list[str], bool]], text: str, valid: str, none_option: bool | None = False
            ) -> tuple[list[str] | None, str]:
    """The final answer among the hits: the last definite one; tentative ones only if they agree. A conclusion
    after it that no option is correct cancels it, unless the item has a 'none of the above' option (`none_option`
    True), or may have one (None: option texts unknown) and the answer is the last option."""
    definite = [h for h in hits if not h[2]]
    if definite:
        pos, letters, _ = definite[-1]
        # Alternating contradictory answers (a looping model): no answer.
        # Only a back-and-forth of four (x, y, x, y): explanations often mention another letter once.
        if (len(definite) >= 4 and definite[-1][1] == definite[-3][1] != definite[-2][1]
                and definite[-2][1] == definite[-4][1]):
            return None, "inconsistent"
        if _ANSWER_HEDGE.search(text, pos):
            return None, "hedge_after_answer"
        above_counts = none_option is False or letters != [valid[-1]]
        if none_option is not True and _no_option_correct(text, valid, pos, above_counts):
            return None, "no_option_correct"
        return letters, "marker"
    distinct = {tuple(h[1]) for h in hits}
    if len(distinct) == 1:
        return list(hits[-1][1]), "tentative"
    return None, "hedge"


def _listed(text: str, multi: bool) -> tuple[int, list[str], bool] | None:
    """'正确选项：\n- A …\n- B …' → the letters opening each listed line (the last such list)."""
    found = None
    for rx in (_LIST_STRONG, _LIST_ANY) if multi else (_LIST_STRONG,):
        for m in rx.finditer(text):
            letters = re.findall(rf"(?m)^{_LIST_LINE}$", m.group(1))
            if len(letters) >= (1 if rx is _LIST_STRONG else 2) and (found is None or m.start() > found[0]):
                found = (m.start(), letters, False)
    return found


def _next_option_line(text: str, first: str, valid: str) -> str | None:
    """The letter of the line after an option line, when it is another option's line (or its letter alone) that does
    not reject it: two answers given."""
    m = re.match(rf"\s*[^\n]*\n\s*{_OPEN}?({_LETTER}){_CLOSE}?"
                 r"(?:[ \t]*[.、:：)][ \t]*([^\n]*)|[ \t]*[.。]?[ \t]*(?=\n|$))", text)  # "B. …\nD. …", "B\nD"
    if m is None:
        return None
    ok = m.group(1) != first and m.group(1) in valid and not _NEGATED_CLAUSE.search(m.group(2) or "")
    return m.group(1) if ok else None


def _answer_region(text: str, valid: str) -> str:
    """The cleaned response with quoted letters unquoted ({"answer": ["B", "C"]}), cut before a further question the
    model invents with its own options once it has answered this one (a restated question before any answer is not
    an invented one)."""
    text = re.sub(r"[\"'“”‘’]([A-Z])[\"'“”‘’]", r"\1", text)
    invented = _NEXT_QUESTION.search(text)
    if invented:
        before = text[:invented.start()]
        if _marker_hits(before, valid) or _STANDALONE_START.match(before):
            return before
    return text


def _stated_with_text(text: str, valid: str, option_texts: dict[str, str]) -> list[tuple[int, list[str], bool]]:
    """A letter given after "is" / "是" with its own option's text: "the division that failed here is B: Secondary
    spermatocyte" (an answer statement no marker phrase covers)."""
    hits = []
    for m in _IS_LETTER.finditer(text):
        own = _fold(option_texts.get(m.group(1), ""))
        said = _fold(text[m.end():m.end() + 3 * len(own) + 10]).startswith(own)
        if m.group(1) in valid and len(own) >= 2 and said and not _NEGATION_BEFORE.search(
                text[max(0, m.start() - 8):m.start() + 3]):
            hits.append((m.start(), [m.group(1)], False))
    return hits


def _lists_every_option(text: str, pos: int, valid: str) -> bool:
    """The text from an answer marker at `pos` on is every option, one per line in order ("答案\nA．…\nB．…")."""
    first, _, rest = text[pos:].partition("\n")
    if re.search(rf"{_NOT_BEFORE}{_LETTER}{_NOT_AFTER}", first):
        return False  # the marker's own line gives letters: "正确答案是：A、B、D" before a discussion of each option
    labels = [m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", rest)]
    starts = re.match(rf"\s*{_OPTION_LINE}", rest) is not None
    return starts and len(valid) >= 3 and "".join(labels[:len(valid)]) == valid
