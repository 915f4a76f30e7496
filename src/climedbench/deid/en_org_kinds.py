"""English organisations by the kind of body their last word names, in any country's usage and written short: a run
of capitalised words (title case or capitals) ending in a kind word — a hospital or practice (Hosp, Med Ctr,
Surgery, Infirmary), a school (Primary, Elementary, High, ISD), a company (Pty Ltd, Co-operative, Paving,
Engineering), a public body (PD, EMS, Council, Board), a shelter, hostel or inn —, its left end bounded by the run's
structure: leading words of the sentence (At, Per, Called) are cut off, and one word left must be the body's own (not
an everyday, clinical or generic word, a state or a country). Departments and services (Internal Medicine, Cardiac
Surgery, Blood Bank) have no own word and stay."""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.en_context import generic_org_word
from climedbench.deid.patterns import ORGANIZATION

# Kind words in title case (their capitals are matched too). Written short: Hosp, Med Ctr, Ctr.
_KINDS = (r"Hosp|Hospital|Infirmary|Med(?:ical)?[ \t]+Ctr|Ctr|Surgery|Practice|Health[ \t]+Centre|"
          r"Primary|Elementary|High|Middle|Secondary|Academy|Kindergarten|Preschool|ISD|"
          r"Pty\.?[ \t]+Ltd\.?|Ltd\.?|Plc|PLC|GmbH|Co-operative|Cooperative|Co-op|Paving|Engineering|Logistics|"
          r"Freight|Trucking|Haulage|Construction|Plumbing|Roofing|Electrical|Landscaping|Manufacturing|Processing|"
          r"Industries|Enterprises|Holdings|Casualty|Credit[ \t]+Union|Building[ \t]+Society|"
          r"PD|EMS|FHT|Police|Sheriff['’]s[ \t]+Office|Council|Board|Shelter|Respite|Hostel|Refuge|Motel|Inn|Suites|"
          r"Mart|Supermarket|Market")
_CAP = r"(?:St\.?|Mt\.?|[A-Z][A-Za-z'’]*(?:-[A-Z]?[A-Za-z'’]+)*|&)"
_KIND_ORG = re.compile(rf"(?<![\w'’&.-])(?P<v>{_CAP}(?:[ \t](?:(?:of|the|and|on)[ \t])?{_CAP}){{0,5}}"
                       rf"[ \t](?P<k>(?i:{_KINDS})))(?![\w'’-])")
# Kinds that are also everyday words: the body needs two own words or an own word that is no given name.
_WEAK = frozenset(("primary", "high", "middle", "secondary", "practice", "surgery", "board", "market", "council",
                   "respite", "inn", "ctr"))
_NOUN_AFTER = re.compile(r"[ \t]+(?!(?:and|or|on|in|at|to|for|with|who|where|since|until|was|is|has|had)\b)[a-z]")
_LEAD_WORDS = frozenset(("at", "to", "from", "per", "via", "the", "a", "an", "with", "by", "called", "seen", "and",
                         "or", "of", "in", "on", "for", "her", "his", "their", "our", "my", "your", "dr", "re", "cc",
                         "transferred", "transfer", "sent", "admitted", "attends", "attending", "teacher", "works"))


def _own(word: str) -> bool:
    w = word.lower().strip("'’.")
    return not (generic_org_word(w) or en_words.common_word(word.strip(".")) or lexicon.clinical_word(w) or
                en_words.function_word(w) or en_words.country(word) or re.fullmatch(rf"(?i:{_KINDS})", word) is not None
                or w in ("st", "mt", "saint", "mount"))


def _sentence_start(text: str, at: int) -> bool:
    return at == 0 or re.search(r"[\n.!?;:][ \t]*$", text[max(0, at - 4):at]) is not None


def kind_word_orgs(text: str) -> list[Span]:
    """Organisations whose last word names their kind (see the module's description)."""
    out = []
    upper_note = en_words.upper_note(text)
    for m in _KIND_ORG.finditer(text):
        value, kind = m.group("v"), m.group("k")
        if not (kind[:1].isupper() and (kind.isupper() or not value.isupper())):
            continue  # a kind in small letters, or a title-case kind after capitals, is a sentence's word
        if kind.lower() in _WEAK and (upper_note or _NOUN_AFTER.match(text, m.end())):
            continue  # a note all in capitals (PT HAD SURGERY, HIGH), a noun's word (Primary school, High risk)
        words = list(re.finditer(r"\S+", value))
        pre = len(re.findall(r"\S+", text[m.start("v"):m.start("k")]))  # the words before the kind's
        first = 0
        while first < pre - 1:  # the sentence's words before the name (At, Per; Member of, Nurse at)
            w = words[first].group().lower().rstrip(".,")
            if w in _LEAD_WORDS:
                first += 1
            elif first + 2 < pre and words[first + 1].group() in ("of", "at", "for", "with", "from") and \
                    (en_words.common_word(w) or _sentence_start(text, m.start("v") + words[first].start())):
                first += 2
            else:
                break
        if value.isupper():  # no capital bounds it: back from the kind to the first common word (FROM UNION HOSP)
            while first < pre and any(en_words.common_word(w.group().strip(".,&")) or
                                      en_words.function_word(w.group().strip(".,&").lower()) for w in words[first:pre]):
                first += 1
        weak = kind.lower() in _WEAK  # an adjective before a weak kind is a department's (Colorectal Surgery)
        own = [w.group() for w in words[first:pre] if _own(w.group()) and not (weak and w.group().endswith("al"))]
        if first >= pre or not own or (weak and len(own) < 2 and own[0].lower() in en_words.given_names()):
            continue
        start = m.start("v") + words[first].start()
        out.append(Span(start, m.end("v"), ORGANIZATION, 0.7, "en-org-kind-word"))
    return out
