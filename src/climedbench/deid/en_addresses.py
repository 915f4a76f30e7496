"""English addresses by their internal structure, in any country's usage and wherever they stand in a sentence: a
street named without its number (crossing Tannery Ave, lives off Quarry Rd, on S. 9th St), a numbered rural road or
route (County Rd 1400 E, Route 612, Hwy 9), a grid house number (W1234 Fen Rd), and the unit written before a street's
number (Shop 2, Lot 14, Villa 3, Block C)."""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.en_context import generic_org_word
from climedbench.deid.patterns import ADDRESS

# Street types that are not also a title or a saint (St, Dr stay out unless a number or a direction comes first).
_TYPE = (r"(?:Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Highway|Hwy|Parkway|Pkwy|Pike|Turnpike|Terrace|Crescent|"
         r"Close|Drive|Court|Ct|Place|Way|Street)\.?")
_DIR = r"(?:[NSEW]\.?|NE|NW|SE|SW|North|South|East|West)"
_NAME = r"[A-Z][a-z'’]+(?:-[A-Z][a-z'’]+)?"
# A street without its number: a direction, an ordinal or one to three capitalised words, then a street type.
_STREET = re.compile(rf"(?<![\w'’.&-])(?P<v>(?:{_DIR}[ \t]+)?(?:\d{{1,3}}(?:st|nd|rd|th)[ \t]+(?:{_TYPE}|St\.?)|"
                     rf"{_NAME}(?:[ \t]+{_NAME}){{0,2}}[ \t]+{_TYPE})(?:[ \t]+{_DIR}(?![\w'’]))?)"
                     r"(?![\w'’-]|[ \t]+[A-Z][a-z]+[ \t]+(?:Hospital|Clinic|Surgery|Practice|Centre|Center))")
# A numbered road or route (County Rd 1400 E, Route 612, State Route 7, Hwy 9, FM 1960).
_ROUTE = re.compile(rf"(?<![\w'’-])(?:County[ \t]+(?:Road|Rd)|(?:State[ \t]+)?Route|Rte|Highway|Hwy|Farm[ \t]+Road)"
                    rf"[ \t]+\d{{1,4}}[A-Z]?(?:[ \t]+{_DIR}(?![\w'’]))?(?![\w'’/-])")
# A grid house number before a street (N8812 Fen Rd, W1234 County Rd K).
_GRID = re.compile(rf"(?<![\w'’-])[NSEW]\d{{3,5}}[ \t]+(?:{_NAME}[ \t]+){{1,3}}{_TYPE}")
# The unit written before a street's number (Shop 2, 14 Mill Road; Lot 7, 3 Fen Way).
_UNIT_FIRST = re.compile(r"(?<![\w'’-])(?:Shop|Lot|Villa|Townhouse|Block|Site|Stall|Office)[ \t]+[A-Z]?\d{1,4}[A-Z]?"
                         rf"[ \t]*,?[ \t]*(?=\d{{1,5}}[A-Za-z]?[ \t]+(?:{_NAME}[ \t]+){{1,3}}(?:{_TYPE}|St\.?))")


def _own(words: list[str]) -> bool:
    """One word of a street's name is no everyday, clinical or kind-of-service word (not Main Road alone is kept:
    any own word will do)."""
    return any(not (en_words.common_word(w) or lexicon.clinical_word(w.lower()) or generic_org_word(w) or
                    en_words.function_word(w)) for w in words)


def structured_addresses(text: str) -> list[Span]:
    """Streets without numbers, numbered roads, grid numbers and units before a number (see the module's
    description)."""
    out = []
    if not (en_words.upper_note(text) or en_words.lower_note(text)):
        for m in _STREET.finditer(text):
            words = re.findall(r"[A-Za-z][a-z'’]+", m.group("v"))[:-1]
            ordinal = re.search(r"\d(?:st|nd|rd|th)", m.group("v")) is not None
            if ordinal or _own([w for w in words if not re.fullmatch(_DIR, w)]):
                out.append(Span(*m.span("v"), ADDRESS, 0.7, "en-street-unnumbered"))
    for rx, name in ((_ROUTE, "en-route"), (_GRID, "en-grid-number"), (_UNIT_FIRST, "en-unit-first")):
        out += [Span(*m.span(), ADDRESS, 0.75, name) for m in rx.finditer(text)]
    return out
