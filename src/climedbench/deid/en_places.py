"""Places in real English notes, in any case, that no suffix names: a town of libphonenumber's North-American
geocoding data after a word that places it (lives in catonsville, sister called from Seattle, nephew of Towson,
FROM ANNAPOLIS, MD), a hospital's acronym after a word of movement (transferred to GH, seen at MGH, w/u by GBMC), a
named ward or building with its floor (transfer to Quartermain 2, TRANSFERRED TO QUARTERMAIN4), and every other
place in the note where the distinctive word of a found place stands (… FROM CALVERT HOSPITAL … 7/23 AT CALVERT).
The gazetteer is a general resource (the towns libphonenumber names for North-American exchanges), not a list of
any note's places.
"""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon, tables
from climedbench.deid.detectors import Span
from climedbench.deid.en_context import generic_org_word
from climedbench.deid.patterns import ADDRESS, NAME, ORGANIZATION

_WORD = r"[A-Za-z][A-Za-z'’.]*"
# A word that places what follows (lives in X, called from X, of X, near X, TO X).
_TOWN_CUE = re.compile(rf"(?<![A-Za-z])(?i:in|from|of|near|to|outside(?:[ \t]+of)?|around|toward|towards)[ \t]+"
                       rf"(?=(?P<v>{_WORD}(?:[ \t]+{_WORD}){{0,2}}))")
# A town right before a state (ANNAPOLIS, MD; Towson, Maryland).
_STATE_AFTER = re.compile(r"[ \t]*,[ \t]*(?:" + "|".join(lexicon.US_STATES) + r")(?![A-Za-z])|"
                          r"[ \t]*,?[ \t]*(?i:maryland|"
                          r"massachusetts|virginia|pennsylvania|new[ \t]+york|new[ \t]+jersey|connecticut|delaware|"
                          r"california|florida|texas|ohio)(?![A-Za-z])")
_STATE_ABBREVIATION = re.compile(r"(?<=[A-Za-z]),[ \t]*(?:" + "|".join(lexicon.US_STATES) + r")(?![A-Za-z])")
# A state's name (towson maryland's facility): the gazetteer is asked about the one to three words before it.
_STATE_NAME = re.compile(r"(?<=[A-Za-z])[ \t]*,?[ \t]*(?i:maryland|massachusetts|virginia|pennsylvania|new[ \t]+york|"
                         r"new[ \t]+jersey|connecticut|delaware|california|florida|texas|ohio)(?![A-Za-z])")
_WORDS_BEFORE = re.compile(r"(?<![A-Za-z'’-])[A-Za-z][A-Za-z'’-]*(?:[ \t]+[A-Za-z][A-Za-z'’-]*){0,2}$")
# A state's university hospital written short (per U Maryland scale, UNIV OF VIRGINIA).
_UNIVERSITY = re.compile(r"(?<![A-Za-z])(?:U|u|(?i:univ\.?|university))[ \t]+(?:(?i:of)[ \t]+)?(?i:" +
                         "|".join(("alabama", "arizona", "arkansas", "california", "colorado", "connecticut", "florida",
                                   "georgia", "illinois", "iowa", "kansas", "kentucky", "maryland", "massachusetts",
                                   "michigan", "minnesota", "mississippi", "missouri", "nebraska", "penn",
                                   "pennsylvania", "pittsburgh", "rochester", "tennessee", "texas", "utah", "vermont",
                                   "virginia", "washington", "wisconsin", "chicago", "miami")) + r")(?![A-Za-z])")
# A hospital's acronym (GH, MGH, BWH, GBMC, BIDMC, UMMC) after a word of movement or place.
_ACRONYM = re.compile(r"(?<![A-Za-z])(?:(?i:to|at|from|into|in|by|via)[ \t]+|@[ \t]*)(?:(?i:the)[ \t]+)?"
                      r"(?P<v>[A-Za-z]{0,4}(?:[Hh]|[Mm][Cc]|[Hh][Cc]))(?![A-Za-z'’-])")
# A named ward or building with its floor after a word of movement (transfer to Quartermain 2, ON REISFELD 4).
_WARD = re.compile(r"(?<![A-Za-z])(?i:(?:transfer|transferred|transfered|trans|tx'?d|sent|admitted|admit|moved|go|"
                   r"going|went|back|returned|d/c'?d|discharged|brought|taken)[ \t]+(?:to|from)|from|transfer)[ \t]+"
                   r"(?P<v>(?P<w>[A-Za-z][A-Za-z'’]{3,})[ \t]?\d{1,2})"
                   r"(?![A-Za-z\d/:%'’+-]|\.\d|[ \t]*(?i:mg|mcg|g|ml|cc|units?|u|meq|mmol|mm|cm|l|lpm|%|hrs?|hours?|"
                   r"min|x|times|days?|weeks?|am|pm|o'?clock)\b)")


@tables.stored("en_towns")
def towns() -> frozenset[str]:
    """Lower-cased names of the North-American towns and cities libphonenumber's geocoder gives for telephone
    exchanges ("Catonsville, MD"); whether one is an everyday word (Normal, Tea) is asked where it stands."""
    from phonenumbers.geodata import GEOCODE_DATA

    rx = re.compile(r"([A-Za-z][A-Za-z .'-]{3,}), [A-Z]{2}")
    return frozenset(m.group(1).lower() for prefix, names in GEOCODE_DATA.items() if prefix.startswith("1")
                     and (m := rx.fullmatch(names.get("en", ""))) is not None)


def _town_at(text: str, start: int, end: int) -> int | None:
    """The end of the longest gazetteer town that starts text[start:end] (three words at most), or None."""
    words = [m.end() for m in re.finditer(r"[A-Za-z][A-Za-z'’-]*\.?", text[start:end])]
    for n in range(len(words), 0, -1):
        value = text[start:start + words[n - 1]].rstrip(".").lower()
        if re.sub(r"[ \t]+", " ", value) in towns():
            return start + len(value)
    return None


def _ordinary(word: str, upper_or_lower: bool) -> bool:
    """A word that is more likely a word than a place: a function, common or clinical word, a state (which Safe
    Harbor keeps), or — in a sentence-case note — a word not written with a capital."""
    return en_words.function_word(word) or en_words.common_word(word) or lexicon.clinical_word(word) or \
        word.lower() in lexicon.US_STATE_NAMES or word.lower().endswith(("ish", "ese")) or \
        (not upper_or_lower and not word[:1].isupper())


# Where a town is said to be a home (lives in, home in, family in), a town needs no more; after a bare preposition
# in a note written all in one case, where no capital marks it, it must look like a town's name (…ville, …town) or
# be written in title case among upper-case words, and not stand before a clinical word (of orange urine).
_HOME_BEFORE = re.compile(r"(?i:lives?|living|resides?|residing|home|moved|relocated|family|families|members|"
                          r"vacation(?:ing)?|visiting|raised|born|works?|job|called|calling|return(?:s|ed|ing)?|"
                          r"go(?:es|ing)?|went|drove|flew|trip|shelter|housing|area)\b[^.;\n]{0,25}$")
_TOWN_ENDING = re.compile(r"(?i:ville|town|burg|burgh|port|ton|ford|field|wood|dale|mont|polis|boro|borough|mouth|"
                          r"haven|stead|chester|ham|bury|land|sville)$")


def _town_fits(text: str, start: int, end: int, cue: str, one_case: bool) -> bool:
    words = text[start:end].split()
    if all(_ordinary(w, True) for w in words):
        return False
    if _STATE_AFTER.match(text, end) is not None:
        return True
    after = re.match(r"[ \t]*([A-Za-z]+)", text[end:end + 20])
    if after is not None and (lexicon.clinical_word(after.group(1)) or (en_words.common_word(after.group(1)) and
                                                                        after.group(1).lower() not in _AFTER_TOWN)):
        return False
    home = _HOME_BEFORE.search(text, max(0, start - 40), start) is not None
    title_in_upper = words[0][:1].isupper() and not words[0].isupper()  # marked in a note written in one case
    if not one_case:
        return not _ordinary(words[0], False) and (cue.lower() != "to" or home)
    return title_in_upper or (home and not _ordinary(words[0], True)) or \
        (cue.lower() != "to" and _TOWN_ENDING.search(words[-1]) is not None)


# Words that may follow a town in a sentence (in Towson visited today, from Seattle and, in Rockville where).
_AFTER_TOWN = frozenset(("today", "tomorrow", "tonight", "yesterday", "visited", "visiting", "area", "called",
                         "and", "or", "but", "where", "when", "who", "with", "to", "for", "the", "is", "was", "he",
                         "she", "they", "this", "last", "next", "on", "at", "in", "by", "via", "per", "after", "before",
                         "until", "since", "now", "then", "will", "would", "has", "had", "have", "are", "were"))
_VOWELS = frozenset("aeiouyAEIOUY")


def en_places(text: str) -> list[Span]:
    """Towns, hospital acronyms and named wards (see the module's description)."""
    out = []
    one_case = en_words.upper_note(text) or en_words.lower_note(text)
    for m in _TOWN_CUE.finditer(text):
        end = _town_at(text, *m.span("v"))
        if end is not None and _town_fits(text, m.start("v"), end, m.group().split()[0], one_case):
            out.append(Span(m.start("v"), end, ADDRESS, 0.7, "en-note-town"))
    for rx in (_STATE_NAME, _STATE_ABBREVIATION):  # Towson, MD; towson maryland's: the town ends at the state
        for state in rx.finditer(text):
            before = _WORDS_BEFORE.search(text, max(0, state.start() - 40), state.start())
            words = before.group() if before is not None else ""
            for a in [w.start() for w in re.finditer(r"[A-Za-z][A-Za-z'’-]*", words)]:
                value = words[a:]
                if re.sub(r"[ \t]+", " ", value.lower()) in towns() and \
                        not all(_ordinary(w, True) for w in value.split()):
                    out.append(Span(state.start() - len(value), state.start(), ADDRESS, 0.7, "en-note-town"))
                    break
    for m in _ACRONYM.finditer(text):
        v = m.group("v")
        vowels = [i for i, c in enumerate(v) if c in _VOWELS]
        # Letters that spell no word: no vowel, or one as the first letter (GH, MGH, GBMC, UMMC; not SYNCH, PUSH).
        if (v.isupper() or (one_case and v.islower() and not vowels)) and vowels in ([], [0]) and len(v) >= 2 and \
                not re.match(r"[ \t]*\d+\.\d", text[m.end():m.end() + 8]) and \
                not re.fullmatch(r"(?i:[cpstw]h)", v) and not en_words.common_word(v) and \
                not lexicon.clinical_word(v) and v.lower() not in lexicon.EN_NOT_NAMES:
            out.append(Span(*m.span("v"), ORGANIZATION, 0.7, "en-note-hospital-acronym"))
    out += [Span(*m.span(), ORGANIZATION, 0.75, "en-note-university") for m in _UNIVERSITY.finditer(text)]
    for m in _WARD.finditer(text):
        w = m.group("w")
        if not _ordinary(w, True) and w.lower() not in lexicon.EN_NOT_NAMES and "-" not in w:
            out.append(Span(*m.span("v"), ORGANIZATION, 0.7, "en-note-ward"))
    return out


# Words of a found place that name no one place (the suffix of CALVERT HOSPITAL, a state, a preposition).
_GENERIC = frozenset(("hospital", "hosp", "medical", "center", "centre", "general", "memorial", "regional", "rehab",
                      "rehabilitation", "nursing", "home", "house", "manor", "healthcare", "health", "clinic",
                      "facility", "saint", "st", "mount", "mt", "university", "county", "city", "north", "south",
                      "east", "west", "new", "lake", "beach", "air", "park", "valley", "village", "walk", "square",
                      "plaza", "street", "road", "avenue", "family", "care", "children", "community", "heights",
                      "women", "womens", "veterans", "state", "national", "international", "united", "christian"))


# The detectors whose places are repeated (not spaCy's, whose organisations are often drugs or devices here).
# (Those of real notes' forms: an organisation of a typed letterhead or form repeats its kind of place — School,
# Hospice, Therapy — more often than its name.)
_REPEATABLE = frozenset(("en-org-upper", "en-note-place", "en-note-town", "en-note-ward", "en-note-hospital-acronym",
                         "en-town"))


def repeated_places(text: str, found: list[Span]) -> list[Span]:
    """The distinctive words of found hospitals, wards and towns (four letters or more, not a generic word) wherever
    else the note writes them, in any case (… FROM CALVERT HOSPITAL … 7/23 AT CALVERT; F-MICU/QUARTERMAIN/CCU)."""
    found = [s for s in found if s.detector in _REPEATABLE]
    parts = {w.lower() for s in found
             for w in re.findall(r"(?<![A-Za-z'’])[A-Za-z]{4,}(?![A-Za-z'’])", text[s.start:s.end])
             if w.lower() not in _GENERIC and w.lower() not in lexicon.US_STATE_NAMES and
             not en_words.common_word(w) and not lexicon.clinical_word(w) and not generic_org_word(w)
             and w.lower() not in lexicon.EN_NOT_NAMES}
    parts |= {text[s.start:s.end].lower() for s in found if s.detector == "en-note-hospital-acronym"}
    if not parts:
        return []
    rx = re.compile(r"(?<![A-Za-z'’-])(?i:" + "|".join(map(re.escape, sorted(parts))) + r")(?![A-Za-z'’-])")
    towns_found = {w.lower() for s in found if s.entity == ADDRESS for w in re.findall(r"[A-Za-z'’]+",
                                                                                      text[s.start:s.end])}
    return [Span(*m.span(), ADDRESS if m.group().lower() in towns_found else ORGANIZATION, 0.7,
                 "en-note-place-repeat") for m in rx.finditer(text)]


# ---------------------------------------------------------------- the town, region and postcode after a found place

_CAP_WORD = r"(?:St\.?|Co\.|Mt\.?|[A-ZÀ-Þ][^\W\d_]*(?:['’-][^\W\d_]+)*)"
_PLACE_WORDS = rf"{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,3}}"
# A postcode that no time or count can be (a ZIP, a Canadian, British or Irish code), and any (4 or 6 digits).
_POSTCODE_SURE = (r"(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z][ ]?\d[A-Z]\d|[A-Z]\d{2}[ ]?[A-Z0-9]{4}|"
                  r"[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?(?:[ ]\d[ABD-HJLNP-UW-Z]{2})?)")
_POSTCODE = rf"(?:{_POSTCODE_SURE}|\d{{4}}|\d{{6}})"
_UNIT = r"(?:Suite|Ste|Unit|Apt|Flat|Level|Room|Rm|Floor|Fl|Bldg|Space|#)\.?[ \t]*#?[A-Za-z]?\d+[A-Za-z]?"
# Where a heading's place ends: the line's end, a bracket, a dash, a gap of spaces, a semicolon, a sentence's end.
_PLACE_END = r"(?=[ \t]*(?:\n|$)|[ \t]*[)\]]|[ \t]{2,}|\t|[ \t]+[—–-][ \t]|[ \t]*[;|]|\.(?:[ \t]|\n|$))"
# After a found organisation or street: ", Town[, Region][ postcode]" or "(Town)" or " — Town" to where the heading
# ends (Ridgeview Hospital, Tallowby, ON; Kestrel Clinic (Marrowdale); 12 Elm Row, Dunmore, Co. Kerry X91 AB12).
_TOWNS_AND_CODE = rf"{_PLACE_WORDS}(?:,[ \t]*{_PLACE_WORDS}){{0,2}}(?:,?[ \t]+{_POSTCODE})?"
_TAIL_AFTER = re.compile(rf"(?:[ \t]*,[ \t]*|[ \t]*\([ \t]*|[ \t]+[—–][ \t]+)(?P<v>{_TOWNS_AND_CODE}){_PLACE_END}")
# After a found street: its direction and unit, then the town (55 Quarry Road West, Suite 4, Dunmerrow, ON K1A 0B1).
_STREET_TAIL = re.compile(rf"(?:[ \t]+(?:North|South|East|West|[NSEW]{{1,2}})(?![\w'’-]))?(?:[ \t]*,[ \t]*{_UNIT})?"
                          rf"[ \t]*,[ \t]*(?P<v>{_TOWNS_AND_CODE}){_PLACE_END}")
# The flat, unit or level written before a street's number (Flat 2, 17 Quarry Row; Unit 4/27 Quarry Row).
_UNIT_BEFORE = re.compile(rf"{_UNIT}(?:[ \t]*,[ \t]*|[ \t]*/|[ \t]+)$")
_CODE_AFTER = re.compile(rf"[ \t]*,?[ \t]+{_POSTCODE_SURE}(?![\w-])")
_CORPORATE_AFTER = re.compile(r"[ \t]*,?[ \t]+(?:LLC|L\.L\.C\.|Inc\.?|Ltd\.?|LLP|PLLC|P\.A\.|P\.C\.|PA|PC|Corp\.?|PLC|"
                              r"Pty\.?[ \t]+Ltd\.?)(?![\w])")
_NOT_TOWN = frozenset(("llc", "inc", "ltd", "llp", "pllc", "pc", "corp", "plc", "pty", "lp", "pa", "md", "do", "np"))
# After a found town: its state or province and postcode (Tallowby, ON K7L 3N6; Marrowdale NSW 2999).
_REGION_AFTER = re.compile(r"[ \t]*,?[ \t]*(?:[A-Z]{2,3}|(?i:" + "|".join(sorted(lexicon.US_STATE_NAMES)) + r"))"
                           rf"(?:[ \t]+{_POSTCODE})?(?![\w'’-])")
_ENDS = re.compile(r"[ \t]*(?:$|\n|[.;:)\]]|[ \t]{2})")  # Dunmerrow NH. / Dunmerrow NH (no comma): at an end
_POST_AFTER = re.compile(rf"[ \t]*,?[ \t]+{_POSTCODE}(?![\w-])")
_REGIONS = frozenset((*lexicon.US_STATES, *lexicon.AU_STATES, *lexicon.CA_PROVINCES))
_TITLES = frozenset(("dr", "mr", "mrs", "ms", "miss", "prof", "rev", "fr", "re", "attn", "to", "from", "cc"))


def _tail_place(words: list[str]) -> bool:
    """Words that may name a town or region: not a person's title, not a kind of service or place (Clinic, Cardiology,
    Unit), and not all of them everyday or clinical words."""
    words = [w for w in words if w not in _REGIONS]  # ON, NSW: a province, not the word
    low = [w.lower().rstrip(".") for w in words]
    if not low or low[0] in _TITLES or any(w in _NOT_TOWN or generic_org_word(w)
                                           for w in low if w not in ("st", "co")):
        return False
    return not all(_ordinary(w, True) for w in words if w.lower().rstrip(".") not in ("st", "co"))


def place_tails(text: str, spans: list[Span]) -> list[Span]:
    """The town (and region, postcode) written after a found organisation or street, and the state or province
    written after a found town, which the place's own detector left out."""
    out = []
    for s in spans:
        if s.entity == ADDRESS and text[s.start:s.start + 1].isdigit():
            u = _UNIT_BEFORE.search(text, max(0, s.start - 16), s.start)
            if u is not None:
                out.append(Span(u.start(), s.start, ADDRESS, 0.7, "en-place-tail"))
            m = _STREET_TAIL.match(text, s.end)
            if m is not None and _tail_place(re.findall(r"[^\W\d_][\w'’.-]*", re.sub(r"\d[\w ]*$", "", m["v"]))):
                out.append(Span(s.end, m.end("v"), ADDRESS, 0.7, "en-place-tail"))
                continue
        if s.entity == ADDRESS and (c := _CODE_AFTER.match(text, s.end)) is not None:
            out.append(Span(s.end, c.end(), ADDRESS, 0.7, "en-place-tail"))  # …, Dunmerrow HG9 9ZZ
        if s.entity == ORGANIZATION and (c := _CORPORATE_AFTER.match(text, s.end)) is not None:
            out.append(Span(s.end, c.end(), ORGANIZATION, 0.7, "en-place-tail"))  # Quarry Row Partners, LLC
            continue
        if s.entity in (ORGANIZATION, ADDRESS):
            m = _TAIL_AFTER.match(text, s.end)
            if m is not None and _tail_place(re.findall(r"[^\W\d_][\w'’.-]*", re.sub(r"\d[\w ]*$", "", m["v"]))):
                out.append(Span(s.end, m.end("v"), ADDRESS, 0.7, "en-place-tail"))
                continue
        if (s.entity == ADDRESS or "town" in s.detector) and not any(
                n.entity == NAME and n.start < s.start < n.end for n in spans):  # Ann Kaplan, MD: a name
            r = _REGION_AFTER.match(text, s.end)
            if r is not None and (r.group().strip(" \t,").split()[0].upper() in _REGIONS or
                                  r.group().strip(" \t,").split()[0].lower() in lexicon.US_STATE_NAMES) and \
                    ("," in r.group() or re.search(r"\d", r.group()) or _ENDS.match(text, r.end())):
                out.append(Span(s.end, r.end(), ADDRESS, 0.7, "en-place-tail"))
        if s.entity == ADDRESS and re.search(r"(?<![A-Za-z])[A-Z]{2,3}$", text[max(0, s.start):s.end]) and \
                text[s.end - 3:s.end].strip(" ,") in _REGIONS and (p := _POST_AFTER.match(text, s.end)) is not None:
            out.append(Span(s.end, p.end(), ADDRESS, 0.7, "en-place-tail"))  # Marrowdale NSW 2999
    return out


# ---------------------------------------------------------------- places named in the prose of sentence-case notes

_W = r"[^\W\d_][^\W\d_'’]*(?:[-'’][^\W\d_]+)*"
# A place after a preposition (in Pellingford, from Dunmerrow, near Tallowmere, Ashcombe, Kerrowshire).
_PROSE_PLACE = re.compile(rf"(?<![\w'’-])(?=(?P<cue>in|from|to|near|at|by|outside|around)[ \t]+(?![a-z])"
                          rf"(?P<v>{_W}(?:[ \t]+(?:of[ \t]+)?{_W}){{0,2}}(?:,[ \t]*{_W}(?:[ \t]+{_W})?)?))")
# A word of living, coming, going or kin before it, in the same sentence (lives with her son in …, drove in from …).
_PROSE_CUE = re.compile(r"(?i:lives?|lived|living|resides?|residing|home|house|flat|moved|moving|relocated|travel\w*|"
                        r"trips?|itinerary|drove|drives?|driving|came|comes?|coming|flew|fly|flying|flight|visit\w*|"
                        r"return\w*|born|raised|grew|family|relatives?|mother|father|son|daughter|sister|brother|"
                        r"wife|husband|partner|niece|nephew|aunt|uncle|cousin|grand\w+|nok|party|holiday|vacation|"
                        r"camping|hiking|surfing|staying|stays?|works?|worked|working|job|taxi|depart\w*|destination|"
                        r"place|child|childhood|sent|transferred|collected)\b[^.;:\n]{0,45}$")
_NOT_A_PLACE = frozenset(("christmas", "easter", "thanksgiving", "ramadan", "diwali", "mandarin", "cantonese", "arabic",
                          "hindi", "urdu", "tagalog", "creole", "punjabi", "tamil", "swahili", "farsi", "dari",
                          "pashto", "russian", "french", "german", "italian", "korean", "spanish", "english", "dr",
                          "mr", "mrs", "ms", "miss", "prof", "st", "mt", "fr", "rev", "god", "jesus", "church"))
_MONTHS_DAYS = frozenset(re.findall(r"\S+", """january february march april may june july august september october
november december monday tuesday wednesday thursday friday saturday sunday jan feb mar apr jun jul aug sep sept oct
nov dec mon tue tues wed thu thur thurs fri sat sun"""))
# A street named without its number after a word of place (a bungalow on Tannery Ave, outside a bar on West Street).
_STREET_WORDS = re.compile(rf"(?<![\w'’-])(?i:on|off|at|near|along|down|up)[ \t]+(?:the[ \t]+)?"
                           rf"(?P<v>(?:(?:[NSEW]|NE|NW|SE|SW)[ \t]+)?(?:\d{{1,3}}(?:st|nd|rd|th)|[A-Z][a-z'’]+)"
                           rf"(?:[ \t]+[A-Z][a-z'’]+){{0,2}}[ \t]+{lexicon.EN_STREET}(?:[ \t]+[NSEW](?![\w'’-]))?)"
                           r"(?![\w'’-]|[ \t]+[A-Z][a-z])")


def _prose_place(words: list[str]) -> bool:
    """Words that may name a town: each written with a capital and a small letter, none a function, common or
    clinical word, a month, a language, a title, a kind of service (Radiology, Clinic); not a country alone."""
    low = [w.lower() for w in words]
    if en_words.country(" ".join(words)) or any(w in _NOT_A_PLACE or w in _MONTHS_DAYS for w in low):
        return False
    words = [re.sub(r"['’]s$", "", w) for w in words if w.lower() != "of"]  # MD's: a doctor, not a town
    return all(w[:1].isupper() and not w.isupper() and not _ordinary(w, False) and not generic_org_word(w)
               and w.lower() not in en_words.given_names() and not w.lower().endswith(("ian", "ean"))
               for w in words)


def prose_places(text: str) -> list[Span]:
    """In a note written in sentence case: a town after a preposition where a word of living, coming, going or kin
    stands before it in the sentence (her son in Pellingford, travels from Dunmerrow by bus), and a street named
    without its number after a word of place (on Tannery Ave)."""
    if en_words.upper_note(text) or en_words.lower_note(text):
        return []
    out = []
    for m in _PROSE_PLACE.finditer(text):
        if _PROSE_CUE.search(text, max(0, m.start() - 60), m.start()) is None:
            continue
        words = re.findall(_W, m.group("v"))
        while words and not _prose_place(words[-1:]):  # Pellingford over the weekend: the town alone
            words.pop()
        if words and _prose_place(words):
            out.append(Span(m.start("v"), m.start("v") + m.group("v").index(words[-1]) + len(words[-1]), ADDRESS,
                            0.65, "en-prose-town"))
    out += [Span(*m.span("v"), ADDRESS, 0.7, "en-street-name") for m in _STREET_WORDS.finditer(text)]
    return out


# ---------------------------------------------------------------- an address field's whole value

# A field labelled as an address (Address:, Home address:, Home:, Residence:, Lives at:) whose value begins with a
# number, a unit or a building: the value to the field's end (a line's end, a gap of spaces, a semicolon, a bracket,
# a phone's label, a dash or a joining word that begins a remark: … MI 49931 - split-level, … WA 98118 with family),
# whatever street or town words it uses (61 chemin des Pins, app. 2, Ashcombe, QC G1A 1A1).
_ADDRESS_FIELD = re.compile(r"(?<![A-Za-z])(?i:(?:home|postal|mailing|street|current|usual)[ \t]+address|address|"
                            r"home|residence|usual[ \t]+residence|lives[ \t]+at)[ \t]*:[ \t]*"
                            r"(?P<v>(?:\d|(?i:flat|unit|apt|apartment|suite|room|rm|level|ward|block|lot|space|rr|"
                            r"p\.?o\.?[ \t]*box)\b)[^\n;|]*?)"
                            r"(?=[ \t]*(?:\n|$|;|\||[ \t]{2}|\t|\((?!\d)|(?i:tel|ph|phone|mob|mobile|cell|fax|dob)\b)|"
                            r"[ \t]+(?:[-–—][ \t]|(?:with|for|since|until|and|but|where|who)\b))")


def address_fields(text: str) -> list[Span]:
    """The whole value of a field labelled as an address that begins with a number or a unit (see above), when it
    holds a word of two letters or more besides its numbers (not Home: 2 days, not Address: 14)."""
    out = []
    for m in _ADDRESS_FIELD.finditer(text):
        v = m.group("v").rstrip(" \t,.")
        words = re.findall(r"[^\W\d_]{2,}", v)
        if len(v) <= 120 and any(w[:1].isupper() for w in words) and not re.fullmatch(
                r"\d+[ \t]*(?i:days?|weeks?|wks?|months?|hours?|hrs?|years?|yrs?|times?|x|am|pm)\b.*", v):
            out.append(Span(m.start("v"), m.start("v") + len(v), ADDRESS, 0.75, "en-address-field"))
    return out


# ---------------------------------------------------------------- practices named by their specialty

# A practice or laboratory named by a place or person and its specialty (Tarrow Valley Rheumatology, Quill Hanly
# Pathology, Brackenridge Diabetes & Endocrine, Fenmore Imaging): a run of capitalised words ending in a specialty.
_SPECIALTY_END = (r"(?:[A-Z][a-z]+ology|[A-Z][a-z]+ologists|Endocrine|Podiatry|Imaging|Radiology|Pathology|Vascular|"
                  r"Hematology-Oncology|Haematology|Orthopedics|Orthopaedics|Neurosurgery|Spine|Genetics|Fertility|"
                  r"Kidney[ \t]+Care|Eye[ \t]+Care|Vision|Hearing|Audiology|Chiropractic|Physiotherapy|Rehabilitation|"
                  r"Family[ \t]+Health|Family[ \t]+Medicine|Family[ \t]+Practice|Women['’]s[ \t]+Health|"
                  r"Nurse[ \t]+Line)"
                  r"(?:[ \t]+(?:Associates|Group|Partners|Program|Institute|Specialists|Consultants|Services|Line))?")
_SPECIALTY_ORG = re.compile(rf"(?<![\w'’.-])(?P<v>(?:[A-Z][A-Za-z'’-]*[A-Za-z][ ](?:(?:&|and|of)[ ])?){{2,4}}"
                            rf"{_SPECIALTY_END})(?![\w'’-])")


def specialty_orgs(text: str) -> list[Span]:
    """A practice named by its specialty (see above), two words or more before it written with a capital and one
    space (not across a sentence's full stop or a gap of spaces), when a word before the specialty is a name's or a
    place's: not an everyday, clinical or kind-of-service word (Pediatric Cardiology, Interventional Radiology stay)."""
    out = []
    for m in _SPECIALTY_ORG.finditer(text):
        words = re.findall(r"[A-Za-z][A-Za-z'’-]*", m.group("v"))
        head = [w for w in words[:-1] if w.lower() not in ("and", "of")]
        start = m.start("v")
        while head and head[0].lower() in ("the", "a", "an", "at", "to", "from", "via", "per", "with", "dr", "re"):
            start = text.index(head[0], start) + len(head[0])
            start += len(text[start:]) - len(text[start:].lstrip(" \t"))
            head = head[1:]
        if head and any(not _ordinary(w, True) and not generic_org_word(w) and
                        not w.lower().endswith(("ology", "al", "ic", "ary")) for w in head):
            out.append(Span(start, m.end("v"), ORGANIZATION, 0.7, "en-specialty-org"))
    return out


# An insurer named after a word of cover and a verb (supplemental through Garnet Senior Advantage, my insurance is
# Quillwort now, new card is Tarrow Health Colorado member …).
_INSURER_AFTER = re.compile(r"(?<![A-Za-z])(?i:insurance|insurer|coverage|supplemental|supplement|carrier|"
                            r"payer|policy|insured)\b[^.;\n]{0,25}?(?<![A-Za-z])(?i:through|by|via|is|under)"
                            r"[ \t]+(?:(?i:the)[ \t]+)?(?P<v>[A-Z][A-Za-z'’&+-]*(?:[ \t]+(?:of[ \t]+)?"
                            r"[A-Z][A-Za-z'’&+-]*){0,4})")
_INSURER_STOP = re.compile(r"[ \t]+(?:ID|Member|PPO|HMO|EPO|POS|Plan[ \t]+[A-Z]|Policy|Group|#|[A-Z]*\d).*$")


def insurers(text: str) -> list[Span]:
    """The insurer after a word of cover and a verb (see above), not a public programme alone (Medicare)."""
    out = []
    for m in _INSURER_AFTER.finditer(text):
        v = _INSURER_STOP.sub("", m.group("v"))
        words = re.findall(r"[A-Za-z][A-Za-z'’&+-]*", v)
        if words and not all(w.lower() in _PUBLIC_COVER or _ordinary(w, True) or generic_org_word(w)
                             for w in words) and words[0].lower() not in _PUBLIC_COVER:
            out.append(Span(m.start("v"), m.start("v") + len(v), ORGANIZATION, 0.7, "en-insurer-after"))
    return out


_PUBLIC_COVER = frozenset(("medicare", "medicaid", "medi-cal", "tricare", "self", "self-pay", "none", "i", "he", "she",
                           "we", "they", "it", "dr", "mr", "mrs", "ms"))
