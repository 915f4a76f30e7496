"""Shortening a key, option or event to a length limit at a sentence or clause boundary, never mid-word or inside
a bracket: a blind clinical read of built items found keys cut mid-phrase ('…（Garden', '…ZnT8A均') and options
ending in an unclosed bracket. Boundaries: 。；，; , (ASCII '. ; ,' only before a space or the end, so '2.5' and
'1,000' are not boundaries) and a closing bracket. No boundary within the limit → None: the text is not used (the
item is skipped, or the segment is not a distractor)."""

from __future__ import annotations

import re

OPEN, CLOSE = "（([【〔", "）)]】〕"
_WIDE_END = "。；，"
_ASCII_END = ".;,"
_TRAIL = " ,;，；、:："
MIN_CHARS = 4  # a clause shorter than this is no answer


def balanced(text: str) -> bool:
    """Every bracket opened is closed, in order of depth (no '）' before its '（')."""
    depth = 0
    for ch in text:
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _boundary(text: str, end: int) -> bool:
    """text[:end] ends at a sentence or clause boundary."""
    ch = text[end - 1]
    if ch in _WIDE_END or ch in CLOSE:
        return True
    return ch in _ASCII_END and (end == len(text) or text[end].isspace())


def clip(text: str, max_chars: int) -> str | None:
    """The text itself when it fits and its brackets are closed; else its longest start, within `max_chars`, that
    ends at a boundary with its brackets closed (trailing clause punctuation removed); None when there is none."""
    text = text.strip()
    if len(text) <= max_chars and balanced(text):
        return text
    for end in range(min(len(text), max_chars + 1), 0, -1):
        if not _boundary(text, end):
            continue
        head = text[:end].rstrip(_TRAIL)
        if len(head) <= max_chars and len(head) >= MIN_CHARS and balanced(head):
            return head
    return None


def first_phrase(text: str) -> str:
    """The text up to its first whitespace outside brackets.

    '股骨颈骨折（Garden Ⅲ型） 高血压' → '股骨颈骨折（Garden Ⅲ型）'."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth = max(depth - 1, 0)
        elif ch.isspace() and depth == 0 and i > 0:
            return text[:i]
    return text.strip()


# Words a result starts with that stay behind when the result is cut off ('GADA、ZnT8A均阴性' → 'GADA、ZnT8A均').
_DANGLING = re.compile(r"(?:均|皆|都|亦|也|未|示|提示|显示|为|呈|可见|见|者)+$")


def without_dangling(name: str) -> str:
    return _DANGLING.sub("", name).rstrip(_TRAIL)
