"""Checks after a single answer was read: a second option endorsed beside it, or the answer contradicted."""

from __future__ import annotations

import re

from climedbench.extract.choice_patterns import (
    _ALL_RE,
    _ALSO,
    _CLOSE,
    _CONDITIONAL,
    _CORRECTION,
    _EXCEPT_EN,
    _EXCEPT_RE,
    _EXCEPT_TAIL,
    _MARKER_RE,
    _NEGATION_BEFORE,
    _NONE_RE,
    _NOT_AFTER,
    _NOT_BEFORE,
    _ODD_ONE_OUT,
    _ODD_STATEMENT,
    _OPEN,
    _POSITIVE_RE,
    _STRONG_ANSWER,
    _letters_in,
)
from climedbench.extract.option_text import _fold

# A second option endorsed beside the answer of a single-answer item: "D is also correct", "C也可以。", "正确答案是A，C
# 同样正确", "A and C are both appropriate". ("C也可以作为辅助" is an aside, not an endorsement.)
_SECOND_ENDORSED = re.compile(
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}(?:项|选项)?\s*(?:也|亦|同样|也同样|同样也)\s*(?:是)?\s*"
    r"(?:正确(?:的)?|对(?:的)?|可以|可选|可行|合理|说得通|正确答案|符合题意)(?=\s*[。.，,;；!！)）]|\s*$)|"
    rf"{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}(?:\s*\([^()\n]{{2,40}}\))?\s+(?i:(?:(?:is|seems)\s+(?:also|equally)|"
    r"(?:would|could|might|may|can)\s+(?:also|equally)\s+be|(?:would|could) be\s+(?:also|equally))\s+"
    r"(?:an?\s+)?(?:correct|right|acceptable|valid|appropriate|true)\b|(?:would|could|might|may|can)\s+also\s+work\b|"
    r"(?:is|would be) (?:correct|right|acceptable|valid) (?:as well|too)\b)|"
    rf"[,;]\s*(?:(?i:as is|and so is)\s+(?i:option\s+)?([A-Z]){_NOT_AFTER}|"
    rf"(?i:and)\s+(?i:option\s+)?([A-Z]){_NOT_AFTER}\s+(?i:too|as well))\s*(?:[.;!]|$)|"
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}\s+(?i:and|or)\s+([A-Z]){_NOT_AFTER}\s+(?i:are|would be)\s+(?i:both|equally)\s+"
    r"(?i:correct|right|appropriate|acceptable|valid|true)\b"
)
# A second option left open beside the answer: "B, but it could also be D", "D is also possible", "也可能是D" (not when
# the sentence goes on to set it aside: "D) Ecstasy could also cause these symptoms, but less often").
_SECOND_LEFT_OPEN = re.compile(
    rf"(?i:(?:\bor\s+)?\b(?:possibly|perhaps|maybe)(?:\s+also)?)\s+(?i:option\s+)?\(?([A-Z])\)?{_NOT_AFTER}|"
    rf"(?i:\b(?:could|might|may|can)\s+(?:also|equally)\s+be)\s+(?i:option\s+)?\(?([A-Z])\)?{_NOT_AFTER}"
    r"(?=\s*(?:[.;!,]|$))|"
    rf"{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}(?:\s*\([^()\n]{{2,40}}\)|(?<=\))[ \t]+[^\n.;,()]{{1,40}}?)?\s+"
    r"(?i:is\s+also\s+(?:a\s+)?(?:possible|possibility|plausible|likely)(?:\s+(?:answer|option|choice))?)"
    r"(?=\s*(?:[.;!]|$))|"
    # "However, D) Ecstasy could also cause these symptoms": an option, written as a label, left open.
    rf"(?:{_NOT_BEFORE}\(([A-Z])\)|{_NOT_BEFORE}([A-Z])\)|(?i:option)\s+([A-Z]){_NOT_AFTER})"
    r"(?:[ \t]+[^\n.;,()]{1,40}?)?\s+"
    r"(?i:(?:could|might|may|can)\s+also\s+(?:be|fit|work|(?:cause|explain|account\s+for)\s+(?:all\s+)?(?:these|the|this)"
    r"\s+(?:symptoms|findings|signs|presentation|picture))\b)|"
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}(?:项|选项)?\s*也\s*(?:有)?可能(?:是正确答案|正确|对)?"
    r"(?=\s*[。.，,;；!！)）]|\s*$)|"
    rf"也(?:有)?可能(?:是|选|为)\s*([A-Z]){_NOT_AFTER}"
)
_SET_ASIDE = re.compile(r"但|不过|然而|可能性(?:较|很)?小|(?i:\b(?:but|however|though|although|less|unlikely|not)\b)")


def _second_endorsed(text: str, answer: str, valid: str) -> bool:
    """Another option than `answer` is endorsed as correct too, or left open, after the last mention of the answer ("B
    and D are both correct, but B is the best" settles on B), outside a question or a condition."""
    mentions = [m.start() for m in re.finditer(rf"{_NOT_BEFORE}{answer}{_NOT_AFTER}", text)]
    since = mentions[-1] if mentions else 0
    for rx in (_SECOND_ENDORSED, _SECOND_LEFT_OPEN):
        for m in rx.finditer(text, since):
            letters = {g for g in m.groups() if g} & set(valid)
            sentence = re.split(r"[。.!！?？\n]", text[:m.start()])[-1]
            rest = re.split(r"[。.!！\n]", text[m.end():], maxsplit=1)[0]
            if rx is _SECOND_LEFT_OPEN and _SET_ASIDE.search(rest):
                continue
            if letters - {answer} and not _CONDITIONAL.search(sentence) and "?" not in rest and "？" not in rest:
                return True
    return False


def _rival_verdicts(text: str, answer: str) -> bool:
    """`answer` is only said to be correct ("D is true"), never stated as the answer, and another option is said to
    be correct too after the last correction: two options endorsed ("A is true. B is true. C is false. D is true.")."""
    if any(_letters_in(m.group(1)) == [answer] for rx in (_MARKER_RE, _STRONG_ANSWER) for m in rx.finditer(text)):
        return False
    if any(_letters_in(m.group(1)) == [answer] and re.search(r"(?i:best|most|answer)|最|答案", m.group(0))
           for m in _POSITIVE_RE.finditer(text)):
        return False  # "B and D are both correct, but B is the best answer"
    since = max((m.end() for m in _CORRECTION.finditer(text)), default=0)
    endorsed = {x for m in _POSITIVE_RE.finditer(text, since) if not _ALSO.search(m.group(0))
                and not _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()])
                for x in _letters_in(m.group(1))}
    return bool(endorsed - {answer})


def _answer_then_odd_one(text: str, answer: str, valid: str) -> bool:
    """An answer stated ("the answer is C"), then `answer`, a different option, named as the false one or the
    exception, with no correction between: only the question (which the extractor does not see) could tell which
    of the two answers it, so neither is read."""
    odd = [m.start() for rx in (_ODD_STATEMENT, _ODD_ONE_OUT, _EXCEPT_EN, _EXCEPT_TAIL, _EXCEPT_RE)
           for m in rx.finditer(text)
           if _letters_in(m.group(1) or (m.group(3) if rx is _EXCEPT_RE else "")) == [answer]]
    if not odd:
        return False
    last = max(odd)
    for m in _STRONG_ANSWER.finditer(text[:last]):
        stated = set(_letters_in(m.group(1)))
        if len(stated) == 1 and stated != {answer} and stated <= set(valid) and not _CORRECTION.search(text, m.end(),
                                                                                                       last):
            return True
    return False


def _text_belies_letter(text: str, answer: str, option_texts: dict[str, str]) -> bool:
    """The last answer statement gives `answer` with a text that is another option's, or "none/all of the above" when
    `answer`'s own text is not ("the answer is B) Ecstasy" where B is Cocaine and D Ecstasy): the model's options are
    not the item's, so the letter cannot be trusted."""
    own = _fold(option_texts.get(answer, ""))
    stated_at = [m.start(1) for rx in (_MARKER_RE, _STRONG_ANSWER) for m in rx.finditer(text)
                 if _letters_in(m.group(1)) == [answer]]
    if not own or not stated_at:
        return False
    m = re.match(rf"{_OPEN}?{answer}(?:{_CLOSE}|\s*[.:：])[ \t]*[\"'“‘]?([^\n.;。；,，\"'”’(（]{{2,80}})",
                 text[max(stated_at):])
    if not m:
        return False
    stated = _fold(m.group(1))
    if len(stated) < 3 or stated.startswith(own) or own.startswith(stated):
        return False
    others = [_fold(v) for k, v in option_texts.items() if k != answer and len(_fold(v)) >= 3]
    if any(stated == o or stated.startswith(o) for o in others):
        return True
    return bool((_NONE_RE.fullmatch(m.group(1).strip()) or _ALL_RE.fullmatch(m.group(1).strip()))
                and not (_NONE_RE.search(option_texts[answer]) or _ALL_RE.search(option_texts[answer])))
