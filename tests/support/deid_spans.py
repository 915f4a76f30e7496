"""Whether detected spans cover or touch a value in a note (the de-identification tests' two questions)."""

from __future__ import annotations

from climedbench.deid.detectors import Span


def covered(text: str, spans: list[Span], value: str) -> bool:
    """Every character of the first occurrence of `value` lies inside a detected span (it is removed)."""
    at = text.index(value)
    chars = {i for s in spans for i in range(s.start, s.end)}
    return set(range(at, at + len(value))) <= chars


def touched(text: str, spans: list[Span], value: str) -> bool:
    """Some detected span overlaps the first occurrence of `value` (a hard negative that is not kept)."""
    at = text.index(value)
    return any(s.start < at + len(value) and s.end > at for s in spans)
