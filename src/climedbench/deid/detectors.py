"""Detectors that need more than one regular expression: names (Chinese by surname + cue words, English by titles,
cues and credentials, romanised Chinese names), addresses (a gazetteer of Chinese places, US street addresses) and
organisations (hospitals, schools, employers by their suffix). Each returns spans; `patterns.PATTERNS` holds the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from climedbench.deid import en_words, lexicon
from climedbench.deid.find import occurrences
from climedbench.deid.patterns import ADDRESS, NAME, ORGANIZATION, PATTERNS, PatternSpec


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    entity: str
    score: float
    detector: str


@cache
def _compiled(spec: PatternSpec) -> re.Pattern[str]:
    return re.compile(spec.regex, spec.flags)


def pattern_spans(text: str, specs: tuple[PatternSpec, ...] = PATTERNS) -> list[Span]:
    out = []
    for spec in specs:
        for m in _compiled(spec).finditer(text):
            start, end = (m.start("v"), m.end("v")) if "v" in m.groupdict() and m.group("v") else m.span()
            value = text[start:end].rstrip()
            end = start + len(value)
            if not value:
                continue
            score = spec.score
            if spec.validator is not None and not spec.validator(value):
                score = spec.invalid_score
            if score > 0:
                out.append(Span(start, end, spec.entity, score, spec.name))
    return out


# ---------------------------------------------------------------- English names

_CAP = r"(?:(?:Mc|Mac|O')[A-Z][a-zà-öø-ÿ]+|[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+(?:[-'][A-Z]?[a-zà-öø-ÿ]+)*)"
_NICK = r'(?:"[A-Z][a-z]+"|“[A-Z][a-z]+”)'  # Evelyn "Evie" Sutherland
_INITIAL = r"[A-Z]\.?"


@cache
def _en_name_regexes() -> tuple[re.Pattern[str], ...]:
    # A name does not run over a line's end (Dr. Rachel Kim / NEXT OF KIN: …).
    full = f"{_CAP}(?:[ \\t]+(?:{_INITIAL}(?![A-Za-z])|{_CAP}|{_NICK}|[A-Z]{{2,}}(?![a-z]))){{0,3}}"
    titled = re.compile(f"\\b{lexicon.EN_TITLES}\\s+(?P<v>(?:{_INITIAL}\\s+)?{full})")
    cues = "|".join(lexicon.EN_NAME_CUES)
    cued = re.compile(f"\\b(?i:{cues})\\s*[:#-]\\s*(?:(?i:his|her|the|their|patient's)\\s+)?"
                      f"(?:(?i:{cues})\\s+)?(?:{lexicon.EN_TITLES}\\s+)?(?P<v>(?:{_INITIAL}\\s+)?{full})")
    # Not a city before a state and ZIP code (Pittsburgh, PA 15216: PA is also a physician assistant).
    credential = re.compile(f"(?P<v>(?:{_INITIAL}\\s+)?{full}),?\\s+{lexicon.EN_CREDENTIALS}\\b(?![ \\t]+\\d{{5}})")
    initials = re.compile(r"\b(?P<v>[A-Z]\.\s?[A-Z]\.(?:\s?[A-Z]\.)?)(?=[\s,;)]|$)")
    last = f"(?:{_CAP}|[A-Z]{{2,}})"
    lastfirst = re.compile(f"\\b(?i:{cues})\\s*[:#-]?\\s*(?P<v>{last},\\s*{last}(?:\\s+{_INITIAL})?)(?![a-z])")
    caps = re.compile(r"(?<![A-Za-z\d-])(?P<v>(?:[A-Z]'|Mc|Mac)?[A-Z]{2,}(?:[-'][A-Z]+)?\s?,\s{0,2}[A-Z]{2,}(?:[-'][A-Z]+)?(?:\s{1,2}[A-Z]\s?\.?)?)"
                      r"(?![a-z\d-])")
    # Cues that name a person without a colon: a relative or a carer (husband Vikram, niece Georgia Ashford-Bell,
    # Mom (Emiko)), and the patient with a first and last name (Pt Dustin Carver).
    kin = re.compile(f"\\b(?:{lexicon.EN_KIN_CUES})\\s*\\(?\\s*(?P<v>{_CAP}(?:\\s+(?:{_NICK}|{_CAP})){{0,3}})")
    patient = re.compile(f"\\b(?:Pt|PT|Patient|Resident|Re:)\\s+(?P<v>{_CAP}(?:\\s+{_NICK})?(?:\\s+{_CAP}){{1,2}})")
    # A name before the age and sex or the date of birth (Aaliyah Robinson 24yo, … is a 58M, … 26F, …   DOB).
    age_sex = re.compile(f"(?m)^[ \\t]*(?:(?:Pt|Patient|Name)[:.]?\\s+)?(?P<v>{_CAP}(?:\\s+(?:{_NICK}|{_CAP}|{_INITIAL})){{1,3}}),?[ \\t]+(?:is\\s+an?\\s+)?"
                         r"(?:\d{1,3}\s?(?:yo|y/o|y\.o\.|-?year-old|yr|[MF])\b|DOB\b)")
    # A signature line (-- Brenda, Patient Financial Services) and an upper-case name after DR (DR  ANAND  SHARMA).
    signature = re.compile(f"(?m)^[ \\t]*(?:--|—)\\s*(?P<v>{_CAP}(?:\\s+{_CAP}){{0,2}})(?=\\s*[,\\n]|$)")
    caps_title = re.compile(r"\b(?:DR|MR|MRS|MS)\.?[ ]{1,2}(?P<v>[A-Z]{2,}(?:[ ]{1,2}[A-Z]{2,}){0,2})(?![a-z])")
    # Not after & or > (I & O. Continue, L>R. Soft, C&R. Pt: an abbreviation, then a sentence).
    initial_surname = re.compile(r"(?<![A-Za-z.\d/&>+])(?<!\d\s)(?<![&>+]\s)(?P<v>[A-Z]\.\s?(?:Mc|Mac|O')?[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")
    pinyin = "|".join(sorted(lexicon.pinyin_surnames(), key=len, reverse=True))
    upper = "|".join(sorted((p.upper() for p in lexicon.pinyin_surnames()), key=len, reverse=True))
    romanised = re.compile(f"\\b(?P<v>(?:{pinyin}|{upper})\\s+[A-Z][a-z]{{1,6}}(?:[-\\s]?[a-z]{{2,6}})?)\\b")
    romanised_rev = re.compile(f"\\b(?P<v>[A-Z][a-z]{{1,6}}(?:-[a-z]{{2,6}})?\\s+(?:{pinyin}|{upper}))\\b(?!\\s+[a-z])")
    return (titled, cued, credential, initials, lastfirst, romanised, romanised_rev, caps, initial_surname, kin,
            patient, age_sex, signature, caps_title)


def _trim_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Drop trailing words that are not name parts (section words, eponym followers); None if nothing is left."""
    words = list(re.finditer(r"[A-Za-z][A-Za-z.'-]*", text[start:end]))
    keep = []
    for w in words:
        if w.group().rstrip(".").lower() in lexicon.EN_NOT_NAMES and len(w.group()) > 2:
            break
        keep.append(w)
    if not keep:
        return None
    e = start + keep[-1].end()
    # What follows, past a short bracket (Cotton (hook) test).
    after = re.sub(r"^\s*\([^)\n]{1,20}\)", "", text[e:e + 40].lower()).lstrip(" '")
    if after.startswith("s ") or after.startswith(tuple(lexicon.EPONYM_FOLLOWERS)):
        return None
    return start, e


def en_names(text: str, deny: frozenset[str] = frozenset()) -> list[Span]:
    regexes = _en_name_regexes()
    names = ("en-name-title", "en-name-cue", "en-name-credential", "en-initials", "en-name-lastfirst",
             "en-name-pinyin", "en-name-pinyin", "en-name-caps", "en-initial-surname", "en-name-kin", "en-name-patient",
             "en-name-age-sex", "en-name-signature", "en-name-caps-title")
    found: list[Span] = []
    for rx, detector in zip(regexes, names, strict=True):
        for m in rx.finditer(text):
            labelled = en_words.NAME_LABEL.search(text, max(0, m.start("v") - 16), m.start("v")) is not None
            if (detector == "en-name-caps" and _caps_not_name(m.group("v"), labelled)) or \
                    (detector == "en-name-lastfirst" and m.group("v").isupper() and
                     _caps_not_name(m.group("v"), labelled)):
                continue
            trimmed = _trim_name(text, *m.span("v")) if detector not in ("en-initials", "en-name-caps",
                                                                         "en-name-caps-title") \
                else en_words.leading_names(text, *m.span("v")) if detector == "en-name-caps-title" else m.span("v")
            trimmed = strip_title(text, *trimmed) if trimmed is not None else None
            if trimmed is None:
                continue
            value = text[trimmed[0]:trimmed[1]]
            if (detector == "en-name-cue" and value.islower()) or \
                    (detector == "en-initials" and re.sub(r"[.\s]", "", value).lower() in lexicon.EN_DOTTED_ABBREVIATIONS and
                     not re.match(r"\s*(?i:dictat|signed|for\s+dr)", text[trimmed[1]:trimmed[1] + 12])):
                continue
            if detector in ("en-name-kin", "en-name-patient", "en-initial-surname") and _common_words(value):
                continue
            # After Dr., Mr., Mrs. … a word is a name even when it is also a clinical word (Dr. Kocher).
            titled = re.search(r"\b(?i:mr|mrs|ms|miss|mx|dr|prof|professor)\.?\s+$", text[max(0, trimmed[0] - 12):trimmed[0]])
            if not titled and (_clinical(value) or _label(text, *trimmed)):
                continue
            found.append(Span(*trimmed, NAME, 0.85, detector))
    for name in deny:
        for start, end in occurrences(text, name, whole_word=True):
            found.append(Span(start, end, NAME, 1.0, "deny-list"))
    # Each part of a found name (Smith of John Smith) found again elsewhere in the note.
    parts = {p for s in found for p in re.findall(r"[A-Z][a-z]{2,}(?:-[A-Z][a-z]+)?|[A-Z]{3,}", text[s.start:s.end])
             if p.lower() not in lexicon.EN_NOT_NAMES and not lexicon.clinical_word(p) and
             (en_words.known_name(p) or not en_words.common_word(p))}
    parts |= {p.capitalize() for p in parts if p.isupper()} | {p.upper() for p in parts if not p.isupper()}
    for p in parts:
        for start, end in occurrences(text, p, whole_word=True):
            after = text[end:end + 30].lower().lstrip(" '")
            if not (after.startswith("s ") or after.startswith(tuple(lexicon.EPONYM_FOLLOWERS))):
                found.append(Span(start, end, NAME, 0.75, "en-name-repeat"))
    return found


def _caps_not_name(value: str, labelled: bool = False) -> bool:
    """An upper-case "LAST, FIRST" that is a list of abbreviations (DM, HTN; CBC, BMP; LIMA-LAD, SVG-OM): a part is a
    section word or has three letters or more and no vowel (NSCLC), or every part is a clinical abbreviation (LIMA,
    ROSA stays a name)."""
    words = re.findall(r"[A-Za-z]+(?:[-'][A-Za-z]+)*", value)
    return any(w.lower() in lexicon.EN_NOT_NAMES or (len(w) >= 3 and not re.search(r"[AEIOUY]", w.upper()))
               for w in words) or all(lexicon.clinical_word(w) for w in words) or \
        (not labelled and not en_words.last_first(value))  # after "Patient:" any given name


def _clinical(value: str) -> bool:
    """Every word of a found "name" is a clinical abbreviation or word (CABG, Neuro, Plt, Cefazolin, Lembert)."""
    words = re.findall(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", value)
    return bool(words) and all(lexicon.clinical_word(w) for w in words)


_LABEL_BEFORE = re.compile(r"(?:^|\n|[.;)]|^\s*#|\n\s*#|\n\s*\d{1,2}[.)]|\n\s*[-*•])[ \t]*$")


def _label(text: str, start: int, end: int) -> bool:
    """A one-word span that is a section or item label: followed by a colon, at a line's start or after a sentence
    (Neuro: oriented; Gen: ill-appearing; … infection). Analgesia: hydromorphone)."""
    if " " in text[start:end].strip() or not re.match(r"[ \t]*:", text[end:end + 3]):
        return False
    return _LABEL_BEFORE.search(text[max(0, start - 6):start]) is not None or start == 0


_TITLE = re.compile(r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor)(?:\.|(?=\s|$))\s*")


def strip_title(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A name span without a title at its start (Dr. Priya Raman → Priya Raman: the title stays in the note); None
    when the span is only a title."""
    m = _TITLE.match(text, start, end)
    if m is not None:
        start = m.end()
    return (start, end) if start < end else None


def _common_words(value: str) -> bool:
    """A cued "name" that is an English word (son Is here, Pt Tolerated Diet)."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", value)]
    return any(w in lexicon.EN_COMMON_WORDS or w in lexicon.EN_NOT_NAMES or
               (len(w) >= 6 and w.endswith(("ated", "ised", "ized", "ing", "ed", "ly"))) for w in words)


_DOSE_AFTER = re.compile(r"\s*\d[\d.,]*\s*(?:mg|g|mcg|µg|μg|units?|U|mL|mEq|mmol|IU)\b")


def _drug_word(words: list[str], text: str) -> bool:
    """A one-word "person" that is a drug: it ends in a generic drug-name stem, or the note also writes it in lower
    case (names are capitalised; "Apixaban was held" beside "started apixaban")."""
    if len(words) != 1:
        return False
    w = words[0].strip(".,;:")
    return w.lower().endswith(lexicon.DRUG_STEMS) or bool(occurrences(text, w.lower(), whole_word=True))


def spacy_persons(doc: object, text: str) -> list[Span]:
    """PERSON entities of an English spaCy pipeline, without eponyms and section words."""
    out = []
    for ent in getattr(doc, "ents", ()):
        if ent.label_ != "PERSON":
            continue
        trimmed = strip_title(text, ent.start_char, ent.end_char)
        trimmed = _trim_name(text, *trimmed) if trimmed is not None else None
        if trimmed is None:
            continue
        value = text[trimmed[0]:trimmed[1]]
        words = value.split()
        # The first word starts with a capital (not "mL. hs-Troponin"); not only clinical terms (Plt, Cefazolin,
        # Lembert), not a label (Neuro:), and a one-word "name" before a dose is a drug.
        if not re.search(r"[A-Z][a-z]{2,}", value) or re.search(r"\d", value) or \
                not words[0][:1].isupper() or _clinical(value) or \
                any(w.lower() in lexicon.EN_NOT_NAMES for w in words) or _drug_word(words, text) or _label(text, *trimmed) or \
                (len(words) == 1 and _DOSE_AFTER.match(text, trimmed[1])) or not en_words.person_words(words):
            continue  # one word: a known name (not Carevue, Fentanyl); more: no common word (not Repeat Hct)
        out.append(Span(*trimmed, NAME, 0.7, "spacy-person"))
    return out


_ORG_BEFORE = re.compile(r"(?:\b(?i:at|for|from|by|via|to|with|employer|work|pharmacy|insurance|insurer|plan|"
                         r"clinic|agency|company|referred\s+by)|[(（])[:\s(]*$")


_ORG_JOINERS = frozenset(("of", "and", "the", "for", "at", "on", "de", "du", "la", "le", "les", "des", "del", "di", "da",
                          "l", "d", "y", "van", "von", "der"))


def _org_phrase(text: str, start: int, value: str) -> tuple[int, str]:
    """spaCy's organisation up to a line's end, without leading everyday or clinical words (Right Groin → Groin;
    HF NP Quentin … → Quentin …)."""
    value = value.split("\n")[0].rstrip()
    for w in re.finditer(r"\S+", value):
        word = w.group().strip(".,;:()")
        if not (en_words.common_word(word) or lexicon.clinical_word(word)) or en_words.known_name(word):
            return start + w.start(), value[w.start():]
    return start, ""


def spacy_organisations(doc: object, text: str) -> list[Span]:
    """ORG entities of the English spaCy pipeline (employers, pharmacies, insurers without a suffix: Kroger, Aetna),
    without acronyms of five letters or fewer (ICU, MRSA, NSCLC), drugs, section words and specialties."""
    out = []
    for ent in getattr(doc, "ents", ()):
        if ent.label_ != "ORG":
            continue
        start, value = _org_phrase(text, ent.start_char, ent.text)
        words = re.findall(r"[^\W\d_]+", value)
        if not words or re.fullmatch(r"[A-Z0-9&/-]{1,5}", value) or re.search(r"\d", value) or \
                all(w.lower() in lexicon.EN_NOT_NAMES or w.isupper() or lexicon.clinical_word(w) for w in words) or \
                _drug_word(words, text) or not value[:1].isupper() or _label(text, ent.start_char, ent.end_char):
            continue
        # Not a phrase of a note (PS today, OSH s/p MI, Wean IV NTG): a word in lower case that joins no names or a
        # slash inside.
        if "/" in value or any(w.islower() and w not in _ORG_JOINERS for w in words[1:]):
            continue
        # Only where an organisation fits: after a preposition or a word for one (works for, via, pharmacy:), and not
        # before an eponym's follower (Bell's palsy, Glasgow Coma Scale) or a dose (Tylenol 500 mg).
        before = text[max(0, ent.start_char - 24):ent.start_char]
        after = text[start + len(value):start + len(value) + 30].lower().lstrip(" '")
        if not _ORG_BEFORE.search(before) or any(w.lower() in lexicon.EPONYM_FOLLOWERS for w in words) or \
                after.startswith("s ") or after.startswith(tuple(lexicon.EPONYM_FOLLOWERS)) or \
                re.match(r"\s*\d", after):
            continue
        out.append(Span(start, start + len(value), ORGANIZATION, 0.6, "spacy-org"))
    return out


# ---------------------------------------------------------------- addresses

@cache
def _zh_place_regex() -> re.Pattern[str]:
    provinces, lower = lexicon.china_places()
    places = sorted(set(provinces) | set(lower), key=len, reverse=True)
    tail = lexicon.ADDRESS_TAIL_ZH
    # After the place: chunks that each end in an address word (区, 路, 号, 村, 组, 室, ...), as many as follow.
    detail = f"(?:[\u4e00-\u9fa5A-Za-z0-9０-９\\-#－—]{{0,12}}?[{tail}])*"
    return re.compile(f"(?:{'|'.join(map(re.escape, places))}){detail}"
                      f"(?:[0-9０-９]+(?:[-－][0-9０-９]+)*[号室楼栋层组门]?){{0,2}}(?:附近|一带|周边|对面)?")


_ZH_ADDRESS_CUE = re.compile(r"(?:住址|地址|家住|住在|现住|现居|居住于|居住地|居住(?=[:：])|户籍地址?|户籍|户口所在地|通讯地址|联系地址|工作单位地址|"
                             r"家庭住址|出生地|常住地址?|居所|住所|住处|寓所)[:：\s]*(?P<v>[^，。；;,\n\t（(]{3,40})")
_ZH_STREET = re.compile(r"(?P<v>[\u4e00-\u9fa5]{1,10}?(?:路|街|大道|大街|巷|胡同|弄)\d+(?:号|弄)(?:[\u4e00-\u9fa5\d\-]{0,12}?"
                        r"(?:室|楼|栋|幢|单元|号|院))*(?:\d+(?:-\d+)*)?)")
# A residential compound's building (幸福里小区12号楼), a crossing (汉中门大街与虎踞路交叉口), a highway's kilometre
# post (G4京港澳高速长沙段K1482处).
_ZH_PLACE_FORMS = re.compile(
    r"(?P<v>[\u4e00-\u9fa5]{2,8}?(?:小区|花园|新村|家园|公寓|大厦|苑|庄园|宿舍)\d+(?:号楼|栋|幢|单元|号)(?:\d+(?:单元|室|号))*"
    r"(?:\d{3,4}(?![\d\u4e00-\u9fa5]))?"  # the flat's number without 室 (…8栋201，)
    r"|(?<=[\s:：，,住在于经至到往过])[\u4e00-\u9fa5]{0,6}?[区县]?[\u4e00-\u9fa5]{1,8}?(?:路|街|大街|大道)(?:与|和)[\u4e00-\u9fa5]{1,8}?(?:路|街|大街|大道)"
    r"(?:交叉口|交汇处|路口|口)?"
    r"|[GS]\d{1,4}[\u4e00-\u9fa5]{0,8}高速(?:公路)?(?:[\u4e00-\u9fa5]{0,6}?(?:段)?K\d+(?:\+\d+)?处?)?)")
_ZH_NEXT_FIELD = re.compile(r"[ \t\u3000]+(?=[^ \t\u3000]{1,8}[:：☎]|电话|手机|邮编|总机|传真|籍贯|民族|性别|[Tt][Ee][Ll])")
_ZH_STOP_BEFORE = "于在到至转往赴去来自从经由及和与的、，。；：（）()\n 住家居"
_ORG_ENDINGS = (*lexicon.ORG_SUFFIXES_ZH, "院")


def zh_addresses(text: str) -> list[Span]:
    provinces, _ = lexicon.china_places()
    out = []
    for m in _zh_place_regex().finditer(text):
        start, end = m.span()
        value = text[start:end]
        # A province on its own may stay (Safe Harbor keeps the state); below it is identifying.
        # A province on its own stays; before a city or a street it is part of the address (山东省济南市…).
        lead = next((p for p in sorted(provinces, key=len, reverse=True) if value.startswith(p)), "")
        rest = value[len(lead):]
        # Not a document named after a place (香港身份证号, 澳门居民身份证号码).
        if len(rest) < 2 or rest in provinces or value.endswith(_ORG_ENDINGS) or re.search("证号|证件|号码", rest):
            continue
        # A place name that is part of an organisation's name is found as the organisation.
        if re.match(r"[\u4e00-\u9fa5]{0,8}(?:医院|大学|学院|中学|小学|公司|卫生院|中心)", text[end:end + 12]):
            continue
        out.append(Span(start, end, ADDRESS, 0.85, "zh-gazetteer"))
    for rx, name in ((_ZH_ADDRESS_CUE, "zh-address-cue"), (_ZH_STREET, "zh-street"), (_ZH_PLACE_FORMS, "zh-place-form")):
        for m in rx.finditer(text):
            s, e = m.span("v")
            if name == "zh-address-cue":  # not the next field of the line (…602室　手机：…, …路23号　邮编 …)
                cut = _ZH_NEXT_FIELD.search(text, s, e)
                e = cut.start() if cut is not None else e
            if name in ("zh-street", "zh-place-form"):
                place = _zh_place_regex().search(text, s, e)
                if place is not None:
                    s = place.start()
                while s < e and text[s] in _ZH_STOP_BEFORE:
                    s += 1
            if e - s >= 2:
                out.append(Span(s, e, ADDRESS, 0.85, name))
    from climedbench.deid.zh_places import zh_places_more  # towns and short names (a module of its own)

    return out + [Span(s, e, ADDRESS, 0.8, name) for s, e, name in zh_places_more(text)]


_UNIT = r"(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|Lot|Bldg|#)\.?\s*#?\w+"
_CITY_STATE = (r"(?:\s?,\s*|\s*\n\s*)[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){0,2}(?:\s?,?\s+(?:" + "|".join(lexicon.US_STATES) + r"))?"
               r"(?:\s+\d{5}(?:-\d{4})?)?")
_STREET_NAME = (r"(?:(?:[NSEW]|NE|NW|SE|SW)\.?\s+)?(?:[A-Z0-9][A-Za-z0-9'-]*\.?\s+){0,4}" + lexicon.EN_STREET +
                r"(?:\s+(?:NE|NW|SE|SW|N|S|E|W)\b)?")
_EN_STREET = re.compile(
    # A building and room, or a unit, written before the street (Maple Hall Rm 12, 3 Oak St; Apt 3C, 1450 Broadway).
    r"(?:(?:[A-Z][a-z]+\s+){1,3}(?:Hall|Inn|Tower|Building|House|Residence|Apartments|Suites)(?:\s+" + _UNIT + r")?,\s*|"
    + _UNIT + r",\s*)?"
    r"(?<![\w-])\d{1,6}\s+" + _STREET_NAME + r"(?:\s?,?\s+" + _UNIT + r")*" + r"(?:" + _CITY_STATE + r")?")
# A street without a number, or a crossing of two, followed by the city (SE Oak St, Portland, OR; A Ave & B Ave, Fresno).
_EN_STREET_CITY = re.compile(r"(?<![\w-])" + _STREET_NAME + r"(?:\s*(?:&|and|at|/)\s*" + _STREET_NAME + r")?"
                             r"\s?,\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2},\s*(?:" + "|".join(lexicon.US_STATES) + r")\b"
                             r"(?:\s+\d{5}(?:-\d{4})?)?")
_EN_CITY_ZIP = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2},\s+(?:" + "|".join(lexicon.US_STATES) +
                          r")\s+\d{5}(?:-\d{4})?\b")
_EN_ZIP_CUE = re.compile(r"(?:zip(?:\s+code)?|postal\s+code|邮编|邮政编码)[:：\s]*(?P<v>\d{5,6}(?:-\d{4})?)", re.IGNORECASE)
_EN_PO_BOX = re.compile(r"\bP\.?\s?O\.?\s+Box\s+\d+\b", re.IGNORECASE)


def en_addresses(text: str) -> list[Span]:
    out = []
    for rx, name in ((_EN_STREET, "en-street"), (_EN_CITY_ZIP, "en-city-zip"), (_EN_PO_BOX, "en-po-box"),
                     (_EN_STREET_CITY, "en-street-city")):
        out += [Span(*m.span(), ADDRESS, 0.85, name) for m in rx.finditer(text)]
    out += [Span(*m.span("v"), ADDRESS, 0.85, "zip-cue") for m in _EN_ZIP_CUE.finditer(text)]
    return out


# ---------------------------------------------------------------- organisations

# Chinese organisations: zh_orgs.py.

_EN_ORG = re.compile(r"(?:\b(?:St\.?|Saint|Mount|Mt\.?)\s+)?(?:\b[A-Z][A-Za-z'&.-]*\s+(?:(?:of|and|&|for|the)\s+)*){1,6}(?:" +
                     "|".join(lexicon.ORG_SUFFIXES_EN) + r")\b(?:\s+of\s+(?:[A-Z][a-z]+\s?){1,4})?")


_EN_ORG_CUE = re.compile(r"(?i:works?\s+(?:at|for)|worked\s+(?:at|for)|employed\s+(?:at|by)|employer|retired\s+from|"
                         r"community\s+resources?|school|attends|student\s+at|home\s+health|agency)[:\s(]*"
                         r"(?P<v>[A-Z][A-Za-z'.-]*(?:\s+(?:(?:of|and|&|for|the|on)\s+)*[A-Z0-9][A-Za-z0-9'.-]*){0,7})")


_SPECIALTY_WORDS = lexicon.EN_SPECIALTY_WORDS
# Where one heading ends and the next begins on a line (a letterhead's hospital, then its department).
_HEADING_GAP = re.compile(r"[ \t]{2,}|\t|[ \t]+[-—–][ \t]+")


def en_organisations(text: str) -> list[Span]:
    out = []
    for m in _EN_ORG_CUE.finditer(text):
        value = m.group("v").split("\n")[0].rstrip(". \t")  # a name does not run over a line's end
        if value.lower() not in lexicon.EN_NOT_NAMES:
            out.append(Span(m.start("v"), m.start("v") + len(value), ORGANIZATION, 0.8, "en-organisation-cue"))
    for m in _EN_ORG.finditer(text):
        start, value = m.start(), m.group().rstrip()
        if "\n" in value:  # a name does not run over a line's end (Jane Roe, MD / Endocrinology)
            cut = value.rindex("\n") + 1
            start, value = start + cut, value[cut:].strip()
        value = value.strip()
        pieces = _HEADING_GAP.split(value)
        if len(pieces) > 1 and all(w.lower() in _SPECIALTY_WORDS for w in re.findall(r"[A-Za-z]+", pieces[-1])):
            value = value[:len(value) - len(pieces[-1])].rstrip(" \t-—–")  # Hospital   Pulmonary Medicine
        first = value.split()[0].lower()
        if first in {"the", "this", "our", "a", "an", "outside", "local", "community", "general"} and \
                len(value.split()) <= 2:
            continue
        # The suffix alone, or after words that name no one (Internal Medicine, Pediatric Cardiology), is a service.
        if all(w.lower() in lexicon.EN_NOT_NAMES or w.lower() in _SPECIALTY_WORDS
               for w in re.findall(r"[A-Za-z]+", value)):
            continue
        out.append(Span(start, start + len(value), ORGANIZATION, 0.8, "en-organisation"))
    return out
