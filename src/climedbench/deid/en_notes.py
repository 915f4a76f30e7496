"""English PHI in the forms of real nursing and ICU notes, written in any case (all upper, all lower, sentence
case): a name after a title, a relative or a staff role (dr healey, SON BILL, per NP Carol), a staff signature line
(JANE Q. DOE, RRT), a known given name before a surname in upper or lower case (MARIA KOWALCZYK), dates without a
year (on 3/4, LBM 11/5, CABG 8/87, July 2nd, the 11th), pagers (Pager 12345).
"""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.patterns import DATE, NAME, ORGANIZATION, PHONE

_WORD = r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z][A-Za-z'’]*)?"
_INITIAL = r"[A-Za-z]\.[ \t]*"
# A title or a staff role right before a name.
_TITLE_CUE = r"(?:dr|drs|doctor|np|rn|mr|mrs|ms|miss|md)(?:\.[ \t]*|[ \t]+)"
# A relative, a carer or a staff member named right after the word, perhaps after a comma, a dash or a colon.
_KIN_CUE = (r"(?:son|sons|dtr|daughter|daughters|wife|husband|sister|brother|nephew|niece|grandson|"
            r"grand[ -]?daughter|grandaughter|step[ -]?daughter|step[ -]?son|mother|father|mom|dad|cousin|aunt|uncle|"
            r"fianc[ée]e?|girlfriend|boyfriend|friend|proxy(?:[ \t]+is)?|caseworker|case[ \t]+manager|"
            r"house[ \t]+staff|social[ \t]+worker|chaplain|nurse|sw|hcp)"
            r"(?:[ \t]*[,:(-]+[ \t]*|[ \t]+)")
# Verbs and prepositions before a staff member's name: only a known name follows them (per protocol stays).
_VERB_CUE = (r"(?:per|as[ \t]+per|discussed[ \t]+with|spoke[ \t]+(?:with|to|w/)|talked[ \t]+(?:with|to|w/)|"
             r"met[ \t]+with|reported[ \t]+to|page|paged|contacts|ask(?:ed)?[ \t]+(?:to[ \t]+page|for)|notified|"
             r"informed)[ \t]+")
# The name is read ahead, not taken: "per son David" tries per, then son.
_CUED = re.compile(rf"(?<![A-Za-z])(?i:(?P<cue>{_TITLE_CUE}|{_KIN_CUE}|{_VERB_CUE}))"
                   rf"(?=(?P<v>(?:{_INITIAL})?{_WORD}(?:[ \t]+(?:{_INITIAL})?{_WORD}){{0,2}}))")
_CREDENTIAL_END = r"(?i:rrt|crt|rt|rn|np|lpn|md|licsw|lcsw|msw|pa|cna|rd)"
# A staff signature: a name (perhaps with initials) and a credential at a line's end or before another sentence.
_SIGNATURE = re.compile(rf"(?m)(?:^|[.;:!][ \t]+)[ \t]*"
                        rf"(?P<v>(?:{_INITIAL})?{_WORD}(?:[ \t]+(?:{_INITIAL})?{_WORD}){{0,2}})"
                        rf"[ \t]*,?[ \t]*(?<![A-Za-z]){_CREDENTIAL_END}\.?(?=[ \t]*(?:$|\n|[|]))")
# At every word's start (lookahead: HOUSE STAFF MARY SOUZA holds a name at its third word).
_TWO_WORDS = re.compile(rf"(?<![A-Za-z'’-])(?=(?P<v>{_WORD}(?:[ \t]+{_INITIAL}|[ \t]+{_WORD}){{1,2}})(?![A-Za-z'’-]))")


def _cued_words(text: str, start: int, end: int, strict: bool, titled: bool = False) -> tuple[int, int] | None:
    """The name words at the start of text[start:end]: a first word that is a name (a known one when `strict`),
    then more words while they are names and the first is a given name (dr mary anderson, son don reid)."""
    words = list(re.finditer(rf"{_INITIAL}|{_WORD}", text[start:end]))
    first = next((w for w in words if not w.group().endswith(".") or len(w.group().strip()) > 2), None)
    if first is None:
        return None
    token = first.group()
    ok = en_words.known_name(token) if strict else en_words.name_word(token) or (titled and _capitalised_name(token))
    if not ok or (strict and en_words.common_word(token) and not _capitalised(token)):
        return None
    last = first.end()
    given = token.lower() in en_words.given_names()
    for w in words[words.index(first) + 1:]:
        g = w.group().strip()
        if g.endswith(".") and len(g) <= 2:  # an initial inside the name (ROBERT V. SMITH)
            continue
        if not given or not en_words.name_word(g) or (en_words.known_name(g) is False and en_words.common_word(g)) or \
                (token[:1].isupper() and token[1:2].islower() and not g[:1].isupper()):  # Mary Reyes chairside
            break
        last = w.end()
    lead = words[0].start() if words[0].group().endswith(".") and words.index(first) == 1 else first.start()
    return start + lead, start + last


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _capitalised_name(word: str) -> bool:
    """A capitalised word after a title that only its ending made a common word (dr Saeed, md Reed): no stop, nursing,
    clinical or section word."""
    w = word.lower()
    return len(w) > 2 and word[:1].isupper() and word[1:].islower() and not en_words.function_word(w) and \
        not lexicon.clinical_word(w) and w not in lexicon.EN_NOT_NAMES and w not in lexicon.EN_SPECIALTY_WORDS and \
        not w.endswith(("ology", "ics", "ist", "ists"))


# A second name after the first in a list (DRS KOWALSKI AND NAKAMURA, Drs Ito & Brandt).
_AND_NAME = re.compile(rf"[ \t]*(?:,|(?i:and)|&)[ \t]*(?:(?i:dr)\.?[ \t]*)?(?P<v>{_WORD})")
# What stands around an initial and a surname of a person (per W. KOWALSKI, W. KOWALSKI AWARE, (d. brandt and …).
_INITIAL_BEFORE = re.compile(r"(?<![A-Za-z])(?i:per|by|with|dr\.?|md|np|rn|and|to)[ \t]*$|\([ \t]*$")
_INITIAL_AFTER = re.compile(r"[ \t]*[,)]?[ \t]*(?i:aware|notified|called|paged|at[ \t]+bedside|in[ \t]+to|rn|np|md|rrt|"
                            r"and[ \t]+[a-z]\.)(?![A-Za-z])")
# An initial and a surname in one case, upper or lower (W. KOWALSKI, d. brandt): sentence case is `detectors`'.
_INITIAL_SURNAME = re.compile(r"(?<![A-Za-z.])(?P<v>(?P<i>[A-Za-z])\.[ \t]?(?P<w>(?i:o'|mc)?[A-Za-z]{3,}"
                              r"(?:-[A-Za-z]{2,})?))(?![A-Za-z'])(?!\.[A-Za-z])")


def cued_names(text: str) -> list[Span]:
    """Names after a title, a relative, a staff role or a verb of talking to staff, in any case; the next name of a
    list (DR X AND Y); an initial and a surname; and every other place in the note where a found name stands."""
    out = []
    for m in _INITIAL_SURNAME.finditer(text):
        word = m.group("w")
        cued = _INITIAL_BEFORE.search(text, max(0, m.start() - 8), m.start()) is not None or \
            _INITIAL_AFTER.match(text, m.end()) is not None
        if (word.isupper() or word.islower()) and m.group("i").isupper() == word.isupper() and \
                ((en_words.known_name(word) and word.lower() in en_words.surnames()) or cued) and \
                en_words.name_word(word) and len(word) >= 3:
            out.append(Span(*m.span("v"), NAME, 0.7, "en-note-initial"))
    for m in _CUED.finditer(text):
        cue = m.group("cue").lower().strip(" \t.,:(-")
        strict = re.match(r"(?:per|as|discussed|spoke|talked|met|reported|page|paged|contacts|ask|asked|notified|"
                          r"informed)\b", cue) is not None
        if m.group("v").lower().startswith(("s ", "'s")):  # dr's order
            continue
        titled = re.fullmatch(r"(?i:drs?|doctor)\.?[ \t]*|md ", m.group("cue")) is not None  # md Saeed; not MD. Uses
        found = _cued_words(text, *m.span("v"), strict, titled)
        if found is not None:
            out.append(Span(*found, NAME, 0.75, "en-note-cue"))
            more = _AND_NAME.match(text, found[1])
            if cue.startswith(("dr", "md", "np")) and more is not None and \
                    (en_words.name_word(more.group("v")) or _capitalised_name(more.group("v"))):
                out.append(Span(*more.span("v"), NAME, 0.7, "en-note-cue"))
    for m in _SIGNATURE.finditer(text):
        words = [w for w in re.findall(_WORD, m.group("v")) if len(w) > 1]
        if words and all(not en_words.common_word(w) or en_words.known_name(w) for w in words) and \
                (len(words) >= 2 or en_words.known_name(words[0]) or "." in m.group("v")):
            out.append(Span(*m.span("v"), NAME, 0.75, "en-note-signature"))
    out += family_names(text)
    return out + _repeated(text, out)


_RELATION = (r"(?:son|daughter|dtr|wife|husband|sister|brother|niece|nephew|friend|mother|father|mom|dad|hcp|proxy|"
             r"health[ \t]+care[ \t]+proxy|grandson|grand[ -]?daughter|cousin|aunt|uncle|partner|fianc[ée]e?)")
# A name before the relation it holds (Hank Kowalski (son)) or before a telephone label (Lopie Dunmore cell# 410-…):
# the label is found first, the words before it read back.
_RELATION_AFTER = re.compile(rf"(?<=[A-Za-z])[ \t]*(?:\([ \t]*(?i:{_RELATION})[ \t]*\)|"
                             r"[ \t](?i:cell|home|work|phone|tel|mobile)[ \t]*(?:#|:|(?i:no\.?)|phone)"
                             r"[ \t]*:?[ \t]*\(?\d{3})")
_NAME_BEFORE = re.compile(rf"(?<![A-Za-z'’-]){_WORD}(?:[ \t]+{_WORD}){{0,2}}$")
# A given name that visits or calls (social: bill called; and george called early; (LUCY IS ON VACA)).
_GIVEN_DOES = re.compile(rf"(?:^|(?<=[\n:;,(.])|(?<=(?i:and)[ \t]))[ \t]*(?P<v>{_WORD})[ \t]+"
                         r"(?i:called|visited|phoned|came[ \t]+in|in[ \t]+to[ \t]+visit|was[ \t]+updated|"
                         r"is[ \t]+on[ \t]+vac)",
                         re.M)


# Labels before a telephone that name a role, not a person (Guarantor phone:, Emergency contact cell:).
_NOT_NAME_LABELS = frozenset(("guarantor", "subscriber", "insured", "member", "emergency", "contact", "patient",
                              "caller", "office", "clinic", "pharmacy", "main", "alternate", "primary", "secondary"))


def family_names(text: str) -> list[Span]:
    """Names before a relation in brackets or a telephone label, and given names that visit or call."""
    out = []
    for label in _RELATION_AFTER.finditer(text):
        m = _NAME_BEFORE.search(text, max(0, label.start() - 60), label.start())
        if m is None:
            continue
        words = list(re.finditer(_WORD, m.group()))
        keep = []
        for w in reversed(words):  # back from the relation while the words may be a name
            if not en_words.name_word(w.group()) or en_words.function_word(w.group()) or \
                    w.group().lower() in _NOT_NAME_LABELS:
                break
            keep.append(w)
        if keep:
            out.append(Span(m.start() + keep[-1].start(), m.start() + keep[0].end(), NAME, 0.7, "en-note-relation"))
    for m in _GIVEN_DOES.finditer(text):
        word = m.group("v")
        if word.lower() in en_words.given_names() and not en_words.function_word(word) and \
                not lexicon.clinical_word(word):
            out.append(Span(*m.span("v"), NAME, 0.7, "en-note-given-does"))
    return out


def _repeated(text: str, found: list[Span]) -> list[Span]:
    """Each word of a found name wherever else the note writes it, in any case (son DAVID … DAVID IS SPEAKING)."""
    parts = {w.lower() for s in found for w in re.findall(r"[A-Za-z][A-Za-z'’-]{2,}", text[s.start:s.end])
             if not en_words.common_word(w) or en_words.known_name(w)}
    parts -= {w for w in parts if en_words.function_word(w)}
    if not parts:
        return []
    rx = re.compile(r"(?<![A-Za-z'’-])(?i:" + "|".join(map(re.escape, sorted(parts))) + r")(?![A-Za-z'’-])")
    return [Span(*m.span(), NAME, 0.7, "en-note-repeat") for m in rx.finditer(text)]


def given_surname(text: str) -> list[Span]:
    """A known given name and a surname (and a middle name or initial) in one case, upper or lower (MARIA
    KOWALCZYK, maria kowalczyk): sentence-case names are found by `en_context`."""
    out = []
    firsts = en_words.given_names()
    for m in _TWO_WORDS.finditer(text):
        words = [w.strip() for w in re.findall(rf"{_INITIAL}|{_WORD}", m.group("v"))]
        first = words[0]
        if not (first.isupper() or first.islower()) or first.lower() not in firsts or en_words.function_word(first):
            continue
        if en_words.common_word(first) or any(not (w.isupper() or w.islower()) for w in words):
            continue
        same_case = [w for w in words[1:] if not w.endswith(".") and (w.isupper() == first.isupper())]
        keep = 1
        for w in words[1:]:
            if w.endswith("."):
                keep += 1
                continue
            if w not in same_case or (en_words.common_word(w) and not en_words.known_name(w)) or \
                    (keep == 2 and not words[1].endswith(".") and not en_words.known_name(w)):
                break
            keep += 1
        if keep < 2 or words[keep - 1].endswith("."):
            continue
        end = m.start("v") + _offset_after(m.group("v"), words[:keep])
        out.append(Span(m.start("v"), end, NAME, 0.7, "en-note-given-surname"))
    return out


def _offset_after(value: str, words: list[str]) -> int:
    pos = 0
    for w in words:
        pos = value.index(w, pos) + len(w)
    return pos


# A hospital, a rehab or a home named after "to", "from", "at" in any case (from holy cross hospital, TO KESTREL
# REGIONAL, at St. Brigid's).
_PLACE = re.compile(rf"(?<![A-Za-z])(?i:to|from|at|in|by|via)[ \t]+(?:(?i:the)[ \t]+)?"
                    rf"(?P<v>(?P<w>{_WORD}(?:[ \t]+{_WORD}){{0,2}})[ \t]+(?i:hospital|hosp|memorial|regional|"
                    rf"medical[ \t]+center|general|rehab|house|nursing[ \t]+home|manor)\b"
                    rf"|(?i:st\.?|saint)[ \t]+[A-Za-z]{{3,}}(?:'[sS])?(?![A-Za-z]))")


def places(text: str) -> list[Span]:
    """Hospitals, rehabs and homes by their name's last word after a preposition (see `_PLACE`): the words back to
    the last function word before the suffix (via ambulance to kessler-adventist rehab → kessler-adventist rehab),
    a facility word among them (Baltimore rehab hospital)."""
    out = []
    for m in _PLACE.finditer(text):
        saint = m.group("w") is None
        words = [w for w in re.finditer(_WORD, m.group("w") or m.group("v")[3:])]
        cut = max((i + 1 for i, w in enumerate(words) if en_words.function_word(w.group()) and
                   w.group().lower() not in _FACILITY_WORDS), default=0)
        words = words[cut:]
        first = words[0].group().lower() if words else ""
        if words and not lexicon.clinical_word(first) and first not in lexicon.EN_NOT_NAMES and \
                not (first.endswith(("'s", "’s")) and not saint) and \
                first not in _FACILITY_WORDS and \
                (saint or not first.endswith(("ac", "al", "ary", "ic", "ive", "ing"))):
            start = m.start("v") + (words[0].start() if not saint else 0)
            out.append(Span(start, m.end("v"), ORGANIZATION, 0.7, "en-note-place"))
    return out


# Words that are part of a facility's name, not of the sentence before it (Baltimore rehab hospital).
_FACILITY_WORDS = frozenset(("rehab", "hospital", "home", "house", "nursing", "general", "memorial", "medical"))


# ---------------------------------------------------------------- dates and pagers

_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
_MONTH_NAME = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
               r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_ORD = r"(?:[12]?\d|3[01])(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"(?<![A-Za-z])(?i:{_MONTH_NAME})\.?[ \t]+(?:the[ \t]+)?{_ORD}(?![\w/:.]|\.\d)"
                        rf"|(?<![\w/.])(?:[12]?\d|3[01])(?i:st|nd|rd|th)?[ \t](?:of[ \t]+)?(?i:{_MONTH_NAME})\b"
                        rf"(?![ \t]*\d{{1,2}}\b)"
                        rf"|(?<![A-Za-z])(?i:the)[ \t]+(?:[12]?\d|3[01])(?i:st|nd|rd|th)\b")
# m/d (or m-d after a date word), and month/two-digit year (8/87: no day is over 31).
MD = r"(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])"  # m/d (en_context reads it too)
_MD_END = r"(?![\w/%-]|:\S|\.\d|[ \t]*(?:mg|mcg|ml|cc|u\b|units|hr|h\b|min|x\b|%))"
_BARE_MD = re.compile(rf"(?<![\w/.:+-]){MD}{_MD_END}")
# d/m with a day over 12, which no month can be (admitted 15/7, bloods 30/1: a day-first note).
_BARE_DM = re.compile(rf"(?<![\w/.:+-])(?:1[3-9]|2\d|3[01])/(?:0?[1-9]|1[0-2]){_MD_END}")
# A note that writes its dates day first (22/07/2024, 5 Feb 2024): only there is 19/8 a date, not a setting (on 13/10).
_DAY_FIRST_NOTE = re.compile(r"(?<![\w/.])(?:1[3-9]|2\d|3[01])[/.](?:0?[1-9]|1[0-2])[/.](?:19|20)\d\d(?!\d)|"
                             r"(?<![\w/.])\d{1,2}[ \t-](?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
                             r"[ \t-](?:19|20)\d\d(?!\d)")
# n/52 and n/12 after a word of time are weeks and months from now (review in 6/52, repeat bloods 2/52), not dates.
_RELATIVE_BEFORE = re.compile(r"(?<![A-Za-z])(?i:in|review|repeat|rv|f/u|fu|follow-?up|within|for|next|x|after|"
                              r"every|over)\b[^\n.;:()]{0,12}$")
_RELATIVE_RIGHT_BEFORE = re.compile(r"(?<![A-Za-z])(?i:in|review|rv|for|next|within|x|after|every|over)[ \t]+$")
_MONTH_YEAR = re.compile(r"(?<![\w/.:+-])(?:0?[1-9]|1[0-2])/(?:[4-9]\d)(?![\w/%:-]|\.\d)")
_MD_DASH = re.compile(r"(?<![A-Za-z])(?i:on|since|dated)[ \t]+(?P<v>(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01]))"
                      r"(?![\w/-]|[ \t]*(?i:l|lpm|liters?|pillows?|mg|units?|x|times|days?|hours?|hrs?|weeks?)\b)")
# Words before m/d that make it a score, a ratio, a setting or a dose, not a date.
_NOT_DATE = re.compile(r"(?i:strength|motor|power|grip|murmur|grade|ms|bp|b/p|abp|nbp|pap|pa|peep|ps|cpap|vent|ratio|"
                       r"i:e|x|q|s/s|sbp|dbp|map|cvp|pas|tv|mode|settings?|fio2|ie|scale|score|pain|gcs|ie\s+ratio|"
                       r"rr|hr|sats?|dose|doses|tab|tabs|ns|d5|amp|amps|vial|bag|of|reflexes)[ \t:=]*(?:of[ \t]*)?$"
                       r"|\d[ \t]*(?:-|to|/|and|or)[ \t]*$")
# Ventilator settings and scores near m/d (PS 10/5, pain 4/10, strength 5/5).
_SETTING_NEAR = re.compile(r"(?<![A-Za-z])(?i:ps|peep|cpap|psv|simv|imv|bipap|vent|fio2|tv|pain|strength|motor|"
                           r"settings?|sedation|rass|cp|c/o|angina|discomfort|pressure|ache|[a-z]*flexion|extension|"
                           r"abduction|adduction|grip|muscle|mmt|[rl]?[ul]e|reflex(?:es)?)(?![A-Za-z])")
_SCORE_AFTER = re.compile(r"[ \t,]*(?i:pain|cp|angina|chest|back|scale|discomfort|[a-z]+al[ \t]+pain)")
_MD_BEFORE_OR = re.compile(rf"(?<![\w/.:+-]){MD}[ \t]+(?:or|and|to|-)[ \t]+$")
_PAGER = re.compile(r"(?<![A-Za-z])(?i:pager|beeper|bleep|bleeper|pg|bpr|page)[ \t]*(?:#|no\.?)?[ \t]*:?[ \t]*"
                    r"(?P<v>\d{4,6})(?!\d)")


# A month with its year (MARCH OF 1993, Aug 2001, sept '98), or a month's full name after a word of time (admitted
# in sept., since early June): more precise than a year. Not may and mar, nor an abbreviation without a year (the
# dec in bp).
_MONTH_ALONE = re.compile(r"(?<![A-Za-z])(?:(?P<cue>(?i:in|since|during|until|till|through|by|early|late|mid))[ \t-]+"
                          r"(?:(?i:early|late|mid)[ \t-]+)?)?"
                          r"(?P<v>(?P<m>(?i:january|february|march|april|june|july|august|september|october|november|"
                          r"december|(?:jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?))"
                          r"(?:[ \t]+(?i:of[ \t]+)?(?P<y>(?:19|20)\d{2}|'\d{2}))?)(?![A-Za-z])")


def _month_alone(text: str) -> list[Span]:
    out = []
    for m in _MONTH_ALONE.finditer(text):
        full = len(m.group("m").rstrip(".")) > 4 or m.group("m").rstrip(".").lower() in ("june", "july", "sept")
        if m.group("y") or (m.group("cue") and full):
            out.append(Span(m.start("v"), m.end("v"), DATE, 0.7, "en-note-month"))
    return out


def dates_and_pagers(text: str) -> list[Span]:
    """Dates without a year in the forms of real notes, and pager numbers."""
    out = [Span(*m.span(), DATE, 0.7, "en-note-month-day") for m in _MONTH_DAY.finditer(text)
           if not re.fullmatch(r"(?i:may|mar)\.?[ \t]+\d+", m.group())]
    day_first = _DAY_FIRST_NOTE.search(text) is not None
    for rx in (_BARE_MD, _MONTH_YEAR, _BARE_DM) if day_first else (_BARE_MD, _MONTH_YEAR):
        for m in rx.finditer(text):
            before = text[max(0, m.start() - 16):m.start()]
            month, day = (int(x) for x in m.group().split("/")[::-1 if rx is _BARE_DM else 1])
            listed = _MD_BEFORE_OR.search(before) is not None  # 8/9 or 8/10: a second date, not 4 or 5
            if (_NOT_DATE.search(before) and not listed) or (rx is _BARE_MD and month < day <= 4):  # 1/2: a fraction
                continue
            if rx is not _BARE_DM and ((day == 52 and _RELATIVE_BEFORE.search(before)) or
                                       (day == 12 and _RELATIVE_RIGHT_BEFORE.search(before))):
                continue
            near = text[max(0, m.start() - 40):m.start()]
            if rx is not _MONTH_YEAR and (month == day == 5 or _SETTING_NEAR.search(near) or
                                          _SCORE_AFTER.match(text, m.end())):
                continue
            out.append(Span(*m.span(), DATE, 0.65, "en-note-md"))
    out += [Span(*m.span("v"), DATE, 0.7, "en-note-md") for m in _MD_DASH.finditer(text)]
    out += _month_alone(text)
    out += [Span(*m.span("v"), PHONE, 0.8, "en-note-pager") for m in _PAGER.finditer(text)]
    return out


# A "Surname, Given" set apart as a field of a heading or label, in upper or title case: at a line's start (after a
# short label such as S: or Member:) or after a gap of spaces, and followed by a gap, the line's end, an age or a
# number (MARQUETTE, ODALYS   POD#2; Quenneville, Marisol  71F; S: Thackeray, Wilma, 88 yo F).
_L = r"[^\W\d_][^\W\d_'’]*(?:[-'’][^\W\d_]+)*"
_LAST_FIRST_FIELD = re.compile(
    rf"(?m)(?:^(?:[A-Za-z][A-Za-z ]{{0,14}}:)?[ \t]*|[ \t]{{2,}}|(?<=:)[ \t]*)"
    rf"(?P<v>(?P<last>{_L}(?:[ \t]{_L})?),[ \t]?(?P<first>{_L}(?:[ \t](?:{_L}|[A-Z]\.?))?(?:[ \t][A-Z]\.?)?))"
    r"(?=[ \t]{2,}|[ \t]*\n|[ \t]*$|,?[ \t]+\d|,[ \t]*\d|,[ \t]*[a-z]+-[a-z]+[ \t]+y|[ \t]*\(|[ \t]*/[ \t]|"
    r"[ \t]+[\"“][A-Z]|[ \t]*\||[ \t]+(?:MD|DO|NP|PA|RN|DPM)\b)")


def _field_name_word(word: str, upper: bool) -> bool:
    """A word of a name written as its field's case wants: in upper case all capitals, else a capital and small
    letters; with a vowel, and not an everyday, clinical or stop word (ALERT, OX3 and SOFT, NT are findings)."""
    w = word.rstrip(".")
    if len(w) == 1:
        return w.isupper()
    cased = w.isupper() if upper else (w[:1].isupper() and not w.isupper())
    return cased and re.search(r"[AEIOUYaeiouyÀ-ÿ]", w) is not None and not en_words.common_word(w) and \
        not en_words.function_word(w) and not lexicon.clinical_word(w) and w.lower() not in lexicon.EN_NOT_NAMES


_MORE_CREDENTIALS = r"(?i:pharmd|dpt|otr|ccc|slp|rd|ld|cde|rph|bcps|lcsw|msw|dnp|aprn|fnp|cnp)"
_SIGN_OFFS = frozenset(("thanks", "thank", "regards", "cheers", "best", "hi", "hello", "dear", "sincerely", "yours",
                        "ok", "okay", "yes", "no", "sorry", "please"))


def last_first_fields(text: str) -> list[Span]:
    """A "Surname, Given" set apart as a field (see above), each word a name's (not a finding's)."""
    out = []
    for m in _LAST_FIRST_FIELD.finditer(text):
        start, end = m.span("v")
        credential = re.search(r"[ \t]+(?:MD|DO|NP|PA|RN|DPM)$", m.group("v"))
        if credential is not None:
            end -= len(credential.group())
            if not re.search(r",[ \t]?[^\W\d_]", text[start:end]):
                continue
        words = re.findall(rf"{_L}|[A-Z]\.?", text[start:end])
        upper = m.group("last").isupper()
        if len(re.findall(r"[^\W\d_]{2,}", text[start:end])) >= 2 and all(_field_name_word(w, upper) for w in words) \
                and words[0].lower() not in _SIGN_OFFS and not re.fullmatch(lexicon.EN_CREDENTIALS, words[-1]) and \
                not re.fullmatch(_MORE_CREDENTIALS, words[-1]):
            out.append(Span(start, end, NAME, 0.75, "en-name-last-first"))
    return out
