"""Where substitute characters come from: published tables in maintained packages, never hand-typed lists.

- glyph (形近字): the similar-shape table of Lavender-SSCC (PyPI `lavender-sscc`, file `top_sccs.csv`: for
  each of 20,992 characters the ten most similar in shape, from glyph-image features). Only its data file
  is read. Its licence is GPL-3.0.
- homophone (同音字): pypinyin's character dictionary (`pypinyin.pinyin_dict`): characters whose main
  reading, with tone, equals the reading of the original character in its context (pypinyin's phrase-aware
  conversion of the whole text).
- traditional (繁体): OpenCC's simplified→traditional conversion (`s2t`), applied to the whole text so phrase
  dictionaries choose the right form (发 → 發 or 髮).
- symbol: one of the ASCII punctuation marks (Python's `string.punctuation`) that the item format does not
  use for structure, inserted before the character.

Substitutes are drawn only from the 3,755 first-level characters of GB 2312 (the common characters; the
table is Python's own gb2312 codec), so a perturbation never introduces a rare or unrenderable character,
and never a numeral.
"""

from __future__ import annotations

import importlib.util
import string
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

from climedbench.errors import ConfigError

# Structure the loaders read: '#' headers, ':' '.' option labels, quotes around option blocks, '\' escapes,
# '_' blanks in ordering items, ',' ';' '|' list separators, brackets and braces around letters and JSON.
_STRUCTURAL = set("#:.\"'\\_`,;|()[]{}")
SYMBOLS = "".join(c for c in string.punctuation if c not in _STRUCTURAL)


def is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


def is_numeral(ch: str) -> bool:
    """A digit or a Han numeral (一, 十, 百, 〇 …) by the Unicode character database."""
    return ch.isdigit() or unicodedata.numeric(ch, None) is not None


@cache
def common_chars() -> frozenset[str]:
    """GB 2312 level 1: rows 0xB0–0xD7 of the gb2312 codec (3,755 characters)."""
    out = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                ch = bytes([hi, lo]).decode("gb2312")
            except UnicodeDecodeError:
                continue
            if is_han(ch):
                out.add(ch)
    return frozenset(out)


def _usable(ch: str) -> bool:
    return ch in common_chars() and not is_numeral(ch)


@cache
def glyph_table() -> dict[str, tuple[str, ...]]:
    """Character → similar-shape common characters, most similar first."""
    import csv

    # Located without importing the package: its __init__ loads pandas, scikit-learn and a feature matrix.
    spec = importlib.util.find_spec("lavender_sscc")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    try:
        text = (Path(folders[0]) / "top_sccs.csv").read_text(encoding="utf-8")
    except (IndexError, OSError) as e:
        raise ConfigError("the glyph perturbation needs the similar-shape table of the 'Lavender-SSCC' package, an "
                          "optional extra because its data is GPL-3.0: pip install 'climedbench[glyph]' (or "
                          "Lavender-SSCC==0.0.10)") from e
    out: dict[str, tuple[str, ...]] = {}
    rows = csv.reader(text.splitlines())
    next(rows, None)
    for row in rows:
        if len(row) < 2 or len(row[0]) != 1:
            continue
        ch = row[0]
        subs = tuple(c for c in row[1] if c != ch and _usable(c))
        if subs:
            out[ch] = subs
    return out


def glyph_substitutes(ch: str) -> tuple[str, ...]:
    return glyph_table().get(ch, ())


@cache
def homophone_index() -> dict[str, tuple[str, ...]]:
    """Toned pinyin (TONE3, e.g. 'zhong4') → the common characters whose main reading it is."""
    from pypinyin import Style, pinyin

    index: dict[str, list[str]] = {}
    for ch in sorted(common_chars()):
        if is_numeral(ch):
            continue
        reading = pinyin(ch, style=Style.TONE3, heteronym=False, neutral_tone_with_five=True)[0][0]
        if reading and reading != ch:
            index.setdefault(reading, []).append(ch)
    return {k: tuple(v) for k, v in index.items()}


def _blank(chunk: str) -> list[list[str]]:
    return [[""] for _ in chunk]


def readings(text: str) -> list[str]:
    """The toned pinyin of every character of `text` in context ('' for non-Han characters)."""
    from pypinyin import Style, pinyin

    blank: Any = _blank  # one empty reading per non-Han character keeps positions
    out = pinyin(text, style=Style.TONE3, heteronym=False, neutral_tone_with_five=True, errors=blank)
    flat = [r[0] if r else "" for r in out]
    if len(flat) != len(text):  # never seen; be safe: character by character
        flat = [pinyin(c, style=Style.TONE3, heteronym=False, neutral_tone_with_five=True,
                       errors=blank)[0][0] for c in text]
    return flat


def homophone_substitutes(ch: str, reading: str) -> tuple[str, ...]:
    return tuple(c for c in homophone_index().get(reading, ()) if c != ch)


@cache
def _s2t() -> object:
    import opencc

    return opencc.OpenCC("s2t")


def traditional(text: str) -> str:
    """OpenCC simplified → traditional, position by position (character by character when the phrase
    conversion changes the length)."""
    conv = _s2t()
    out = conv.convert(text)  # type: ignore[attr-defined]
    if len(out) == len(text):
        return str(out)
    return "".join(conv.convert(c) if len(conv.convert(c)) == 1 else c for c in text)  # type: ignore[attr-defined]


def versions() -> dict[str, str]:
    """Versions of the packages the tables come from (for the perturbation manifest)."""
    from importlib import metadata

    out = {}
    for name in ("lavender-sscc", "pypinyin", "opencc"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
