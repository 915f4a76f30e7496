"""Whether detected spans cover or touch a value in a note (the de-identification tests' two questions)."""

from __future__ import annotations

import re
from typing import Any

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


def check_english_note(analyzer: Any, text: str, phi: list[str], keep: list[str]) -> None:
    """Every place each `phi` value stands is removed from an English note, and no `keep` value is touched."""
    check_note(analyzer, text, "en", phi, keep)


def check_note(analyzer: Any, text: str, lang: str, phi: list[str], keep: list[str]) -> None:
    """Every place each `phi` value stands is removed from a note in `lang`, and no `keep` value is touched."""
    covered = {i for s in analyzer.analyze(text, lang) for i in range(s.start, s.end)}
    for value in phi:  # every place the value stands
        spots = [m.start() for m in re.finditer(re.escape(value), text)]
        assert spots, value
        for start in spots:
            assert set(range(start, start + len(value))) <= covered, f"{value!r} at {start} not removed"
    for value in keep:
        start = text.index(value)
        assert not set(range(start, start + len(value))) & covered, f"{value!r} was touched"
