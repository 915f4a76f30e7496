"""Gold references parsed strictly — never with the lenient extractor that reads model answers.

A model's answer may be read generously (a letter after "我选", an option's text, a trailing "(B)"); a gold
key may not: a reference that does not state its answer in one of the forms below is a validation error
naming the file, line and field, never a guessed key.

Accepted for a choice: the letter alone ("B", "(B)", "B."), the letter labelling an option ("B. 心衰"),
or an explicit statement ("答案：B", "正确答案是 B，…", "答案应为 E 而不是 C", "the answer is B") —
and exactly one letter stated; letters named as wrong ("答案 C 并不正确", "而不是 C") are not statements.
Accepted for an order: the letters alone, separated or not ("ABDC", "A→B→D→C", "A, B, D, C"), or after
"答案："/"正确顺序：".
"""

from __future__ import annotations

import re

_FOLD = str.maketrans({**{chr(c): chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)},
                       **{chr(c): chr(c - 0xFEE0) for c in range(0xFF10, 0xFF1A)},
                       "：": ":", "（": "(", "）": ")", "．": ".", "，": ",", "　": " "})

_ALONE = re.compile(r"^\s*[(\[【]?\s*([A-Z])\s*[)\]】]?\s*[.。]?\s*$")
_LABEL = re.compile(r"^\s*[(\[【]?([A-Z])[)\]】]?\s*(?:[.、:]|\s)\s*\S")
_STATED = re.compile(
    r"(?:正确答案|参考答案|标准答案|最终答案|答案|正确选项|应选|故选|当选|本题选|the (?:correct )?answer|answer)"
    r"\s*(?:应该|应当|应)?\s*(?:是|为|选|is|:|=)?\s*[(\[【]?\s*([A-Z])(?![A-Za-z0-9])", re.I)
_NEGATED = re.compile(r"^\s*[)\]】]?\s*(?:并不|不|并非|不是|是错|有误|错误|is (?:not|wrong|incorrect))")
_NEGATED_BEFORE = re.compile(r"(?:不是|而不是|并非|而非|not|rather than)\s*$", re.I)
_ORDER_ALONE = re.compile(r"^\s*(?:(?:答案|正确顺序|正确答案|顺序)\s*(?:是|为)?\s*:?\s*)?"
                          r"((?:[A-Z]\s*(?:→|->|>|,|、|\s|-)?\s*)+)[.。]?\s*$")


class ReferenceError(ValueError):
    """The reference does not state its answer unambiguously."""


def reference_letter(text: str, letters: str) -> str:
    """The one option letter a reference states."""
    t = text.translate(_FOLD).strip()
    m = _ALONE.match(t) or _LABEL.match(t)
    if m and m.group(1) in letters:
        return m.group(1)
    stated: list[str] = []
    for m in _STATED.finditer(t):
        letter = m.group(1).upper() if m.group(1).islower() and len(m.group(0)) > 2 else m.group(1)
        if letter not in letters:
            continue
        if _NEGATED.match(t[m.end():m.end() + 8]) or _NEGATED_BEFORE.search(t[max(0, m.start(1) - 6):m.start(1)]):
            continue
        stated.append(letter)
    distinct = sorted(set(stated))
    if len(distinct) == 1:
        return distinct[0]
    if not distinct:
        raise ReferenceError(f"states no option letter ({'/'.join(letters)}) — write the letter alone or "
                             f"'答案：X' in {text[:60]!r}")
    raise ReferenceError(f"states several answers ({', '.join(distinct)}) in {text[:60]!r}")


def reference_letters(text: str, letters: str) -> str:
    """Sorted letters of a multi-answer reference: the letters alone ('ACD', 'A, C, D') or after '答案：'."""
    t = text.translate(_FOLD).strip()
    t = re.sub(r"^(?:正确答案|答案)\s*(?:是|为)?\s*:?\s*", "", t)
    m = re.fullmatch(r"((?:[A-Z]\s*[,、/和及]?\s*)+)[.。]?", t)
    if not m:
        raise ReferenceError(f"is not a list of option letters ({'/'.join(letters)}): {text[:60]!r}")
    got = re.findall(r"[A-Z]", m.group(1))
    if any(x not in letters for x in got) or len(set(got)) != len(got):
        raise ReferenceError(f"{text[:40]!r} is not a set of distinct option letters ({'/'.join(letters)})")
    return "".join(sorted(got))


def reference_order(text: str, letters: str) -> str:
    """The order a reference states: every letter exactly once ('ABDC', 'A→B→D→C', 'A, B, D, C')."""
    t = text.translate(_FOLD).strip()
    m = _ORDER_ALONE.match(t)
    if not m:
        raise ReferenceError(f"is not an order of the letters {letters}: {text[:60]!r}")
    got = re.findall(r"[A-Z]", m.group(1))
    if sorted(got) != sorted(letters):
        raise ReferenceError(f"{text[:40]!r} is not an order of all the letters {letters}")
    return "".join(got)
