"""Later short mentions of an English organisation the detectors found in the same note, by the forms notes shorten a
name to: its initials (Kestrel Valley General Hospital … seen at KVGH), its own words with the rest as initials
(Tarrow Ridge Visiting Nurses … Tarrow Ridge VN), and its own words before its kind (Quillmoor Fenwick Hospital …
back to Quillmoor Fenwick, two words or more). What a short form may not be: a common, clinical or generic word, a
state, a country, an initialism of two letters."""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.en_context import generic_org_word
from climedbench.deid.patterns import ORGANIZATION

_JOIN = frozenset(("of", "and", "for", "the", "at", "on", "in", "&"))
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z][A-Za-z'’]*)*")
# Words that start a name but say nothing of which body it is (Saint, Mount, North, New, Royal).
_LEAD_GENERIC = frozenset(("st", "saint", "mount", "mt", "north", "south", "east", "west", "new", "royal", "great",
                           "upper", "lower", "central", "county", "city", "state", "national", "regional", "area",
                           "memorial", "general", "valley", "university", "lake", "river", "mountain", "park"))


def _own(word: str) -> bool:
    """A word that names this body and no kind of body: not generic, common, clinical, a state's or a country's."""
    w = word.lower().strip("'’")
    return not (generic_org_word(w) or en_words.common_word(word) or lexicon.clinical_word(w) or
                w in lexicon.US_STATE_NAMES or w in _LEAD_GENERIC or en_words.country(word))


def _forms(value: str) -> tuple[set[str], set[str]]:
    """(initialisms, word forms) a found organisation may be shortened to."""
    words = [w for w in _WORD.findall(value) if w.lower() not in _JOIN]
    caps = [w for w in words if w[:1].isupper()]
    if len(caps) < 2 or len(caps) != len(words):
        return set(), set()
    initials: set[str] = set()
    letters = "".join(w[0].upper() for w in caps)
    if len(letters) >= 3 and not lexicon.clinical_word(letters) and not en_words.common_word(letters) and \
            letters.lower() not in lexicon.EN_NOT_NAMES:
        initials.add(letters)
    words_forms: set[str] = set()
    lead: list[str] = []
    for w in caps:  # the words before the first word of a kind (Kestrel Valley | General Hospital)
        if generic_org_word(w) or w.lower() in lexicon.EN_SPECIALTY_WORDS:
            break
        lead.append(w)
    if all(w.lower() in lexicon.EN_SPECIALTY_WORDS for w in caps[len(lead):]):
        return set(), set()  # a department's words (Adolescent Medicine), not a body's kind
    if not lead or len(lead) == len(caps):
        return initials, set()
    if len(lead) > 1 and any(_own(w) for w in lead):  # one word alone is too often a brand's or a name's
        words_forms.add(" ".join(lead))  # Kestrel Valley
    for k in range(1, len(caps) - 1):  # own words, then the rest as initials (Granite Ridge VNP)
        rest = "".join(w[0].upper() for w in caps[k:])
        if any(_own(w) for w in caps[:k]) and len(rest) >= 2:
            words_forms.add(" ".join(caps[:k]) + " " + rest)
    return initials, words_forms


def org_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Every later (or earlier) mention of a found organisation's short forms (see the module's description)."""
    initials: set[str] = set()
    forms: set[str] = set()
    for s in spans:
        if s.entity == ORGANIZATION and not s.detector.startswith("spacy"):  # spaCy's organisations: often drugs
            i, f = _forms(text[s.start:s.end])
            initials |= i
            forms |= f
    out: list[Span] = []
    if initials:
        rx = re.compile(r"(?<![A-Za-z0-9'’-])(?:" + "|".join(map(re.escape, sorted(initials, key=len, reverse=True))) +
                        r")(?![A-Za-z0-9'’-])")
        out += [Span(*m.span(), ORGANIZATION, 0.7, "en-org-initials") for m in rx.finditer(text)]
    if forms and not (en_words.upper_note(text) or en_words.lower_note(text)):  # words in one case: any phrase
        body = "|".join(map(re.escape, sorted(forms, key=len, reverse=True)))
        rx = re.compile(rf"(?<![A-Za-z0-9'’-])(?:{body})(?![A-Za-z0-9'’-])")
        out += [Span(*m.span(), ORGANIZATION, 0.7, "en-org-short") for m in rx.finditer(text)]
    return out
