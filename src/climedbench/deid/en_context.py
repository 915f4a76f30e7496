"""English recognizers that read a note's words around a value, for what the rule detectors of `detectors.py` and
spaCy's PERSON/ORG miss: a full name with a known first name and no cue word, names after a role (SW, PCT, Tech),
a sign-off (Thanks, Ashley) or in upper-case notes (PATIENT: JAMAL HARRIS), organisations by more suffixes
(… Health, … Dental, … Practice), before an address (a letterhead), after an insurance or work cue and in upper
case, a town after "lives in", P.O. boxes with their city, upper-case streets, UK postcodes, and identifiers after
their labels (FIN, CSN, NPI, DEA, a site-prefixed MRN, badge, claim no.) or by their shape (VM-GI-23-5512).

`extend` widens found spans to what a reader takes as one value: a title before a name (Dr. Priya Raman; the
surrogate keeps the title), a clock time after a date (03/11/2024 18:47, 2024-02-03T08:14:22Z), a unit between two
parts of an address, a branch or campus around an organisation's name (Mercy Hospital Joplin, X - Y Hospital).
"""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import en_notes, en_words, lexicon
from climedbench.deid.detectors import _SPECIALTY_WORDS, Span
from climedbench.deid.patterns import (
    ACCOUNT_ID,
    ADDRESS,
    AGE,
    DATE,
    INSURANCE_ID,
    LICENSE_PLATE,
    NAME,
    ORGANIZATION,
    PASSPORT,
    PHONE,
    RECORD_NUMBER,
    PatternSpec,
)

# A title or rank written before a name; `extend` takes it into the name's span and the surrogate keeps it.
TITLE = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Rev|Sgt|Ofc|Capt|Lt|Det|Cpl|Fr)\.?|Baby[ \t]+(?:Boy|Girl))[ \t]+")
_TITLE_BEFORE = re.compile(r"(?<![A-Za-z])(?:(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Rev|Sgt|Ofc|Capt|Lt|Det|Cpl|Fr)\.?|"
                           r"Baby[ \t]+(?:Boy|Girl))[ \t]{1,2}$")
# A clock time written right after a date (18:47, 10:52 PM, 08:19:44 -0600, T08:14:22Z, a 24-hour 0915).
_ZONE = r"(?:Z|[ \t]?[+-](?:0\d|1[0-4]):?[0-5]\d(?!\d)|[ \t](?:UTC|GMT|[ECMP][SD]T)\b)"
TIME_AFTER = re.compile(r"(?:[ \t]{1,3}|T)(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"
                        rf"{_ZONE}?"
                        r"|[ \t]{1,3}(?:[01]\d|2[0-3])[0-5]\d(?![\d:/.-])")
# A time zone right after a date whose time another step already joined to it (…14:03:55 -0500).
ZONE_AFTER = re.compile(rf"(?<=\d){_ZONE}")

_CAP = r"(?:(?:Mc|Mac|O')[A-Z][a-z]+|[A-Z][a-z]?[A-Z][a-z]{2,}|[A-Z][a-zà-öø-ÿ]+(?:[-'][A-Z]?[a-zà-öø-ÿ]+)*)"
_PARTICLE = r"(?:del|de|la|las|los|van|von|der|den|da|di|dos|du|le|bin|ibn|al|el|ter)"
_NICK = r'(?:"[A-Z][a-z]+"|“[A-Z][a-z]+”|\([A-Z][a-z]+\))'
_FULL = rf"{_CAP}(?:[ ]{{1,2}}(?:{_PARTICLE}[ ])*(?:{_CAP}|[A-Z]\.|{_NICK})){{1,3}}"
_ONE_OR_MORE = rf"{_CAP}(?:[ ]{{1,2}}(?:{_PARTICLE}[ ])*(?:{_CAP}|[A-Z]\.)){{0,3}}"
_UPPER = r"(?:(?:MA?C|O')?[A-Z]{2,}(?:[-'][A-Z]{2,})?)"


@cache
def first_names() -> frozenset[str]:
    """Given names of Faker's person providers for English-speaking, European, Latin-American and African locales
    (a general resource, not a list of any note's names), without month names and words that are mostly words."""
    import importlib

    names: set[str] = set()
    for loc in ("en_US", "en_GB", "en_IE", "en_IN", "en_NG", "en_KE", "es_MX", "es_ES", "fr_FR", "it_IT", "pt_BR",
                "pl_PL", "nl_NL", "yo_NG", "ig_NG", "ha_NG", "sw"):
        try:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except ImportError:
            continue
        for attr in ("first_names", "first_names_male", "first_names_female"):
            names.update(n for n in getattr(provider, attr, ()) if n.isascii() and n[:1].isupper() and len(n) > 2)
    return frozenset(n for n in names if n.lower() not in lexicon.EN_NOT_NAMES and
                     n.lower() not in lexicon.EN_COMMON_WORDS and n.lower() not in _WORD_NAMES)


# Given names that are also everyday or clinical words at a sentence's start (Will, Mark, Hope, Grace, Gene).
_WORD_NAMES = frozenset(("will", "mark", "hope", "grace", "gene", "faith", "joy", "mercy", "patience", "dawn", "rose",
                         "iris", "ruby", "jade", "pearl", "amber", "crystal", "summer", "autumn", "chase", "guy",
                         "bill",
                         "sue", "don", "major", "royal", "miles", "lane", "reed", "wade", "hunter", "angel", "star",
                         "sky", "precious", "unique", "justice", "liberty", "harmony", "ivory", "cash", "rich", "else",
                         "per", "post", "sol", "ana", "lea", "ian", "eve", "max", "pat", "art", "ray", "jan", "sam",
                         "ed", "al", "bob", "mel", "val", "dee", "kit", "kay", "may", "june", "april", "august",
                         "ave", "blvd", "street", "road", "drive", "court", "mercedes", "dakota", "cleveland",
                         "memphis", "austin", "houston", "dallas", "phoenix", "jackson", "lincoln", "carolina",
                         "virginia", "georgia", "florida", "indiana", "montana", "nevada", "india", "china", "jordan",
                         "israel", "kenya", "victoria", "sydney", "paris", "london", "berlin", "lourdes", "trinity"))


def _name_like(word: str) -> bool:
    w = word.strip(".,;:()\"“”").lower()
    return bool(w) and w not in lexicon.EN_NOT_NAMES and w not in lexicon.EN_COMMON_WORDS and \
        not lexicon.clinical_word(w) and w not in _GENERIC_ORG_WORDS and \
        not w.endswith(("ology", "itis", "osis", "ectomy", "otomy", "emia", "ment", "tion", "sion", "ness", "ship"))


def _trim_words(text: str, s: int, e: int, ok: object) -> tuple[int, int] | None:
    """The span without leading and trailing words that `ok` refuses (Social Work Tamsin Reed → Tamsin Reed,
    JAMAL HARRIS  DOB → JAMAL HARRIS); single letters (initials) pass; None when no word is left."""
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\.?", text[s:e])]
    good = [len(text[s + a:s + b].rstrip(".")) == 1 or ok(text[s + a:s + b].rstrip("."))  # type: ignore[operator]
            for a, b in words]
    while words and not good[0]:
        words, good = words[1:], good[1:]
    while words and not good[-1]:
        words, good = words[:-1], good[:-1]
    if not words or not all(good):
        return None
    return s + words[0][0], s + words[-1][1]


def _followed_by_eponym(text: str, end: int) -> bool:
    after = text[end:end + 30].lower().lstrip(" '")
    return after.startswith("s ") or any(after.startswith(f) for f in lexicon.EPONYM_FOLLOWERS)


# ---------------------------------------------------------------- names

_FIRST_LAST = re.compile(rf"(?<![\w'’-])(?P<v>{_FULL})(?![\w'’-])")
_ROLE = (r"(?:SW|PCT|Tech|CNA|LCSW|MSW|RT|OT|PT|SLP|NNP|CRNA|RD|Aide|Chaplain|Officer|Deputy|Trooper|Caller|"
         r"(?:Injured\s+)?[Ww]orker|[Gg]randma|[Gg]randpa|[Gg]ran|[Nn]ana|[Pp]apa|[Gg]randmother|[Gg]randfather|"
         r"[Ss]tep(?:mother|father|son|daughter)|[Pp]arents?|[Ff]amily|[Gg]odmother|[Gg]odfather|Member|Insured|"
         r"Subscriber|Veteran|Infant|Guarantor|Baby\s+(?:Boy|Girl)|Twin\s+[AB])")
# Labels that name a person only with a colon (From: Ashley Brennan; To: Dr. Osei).
_ROLE_COLON = r"(?:Employee|Client|Sender|Recipient|Author|From|To|Reporter|Requester|Requestor|Applicant|Claimant)"
_ROLE_NAME = re.compile(rf"(?<![A-Za-z])(?:(?:{_ROLE})(?:[ \t]*:[ \t]*|[ \t]*\(|[ \t]+)|{_ROLE_COLON}[ \t]*:[ \t]*)"
                        rf"(?:{lexicon.EN_TITLES}[ \t]+)?"
                        rf"(?P<v>{_ONE_OR_MORE})(?:[ \t]*(?:&|and)[ \t]*(?P<w>{_ONE_OR_MORE}))?")
_SIGN_OFF = re.compile(rf"(?i:thanks|thank\s+you|regards|best|sincerely|cheers|warmly|respectfully|yours\s+truly|"
                       rf"take\s+care)[,!.]?[ \t]*\n?[ \t]*(?:[-—–][ \t]*)?(?P<v>{_ONE_OR_MORE})[ \t]*(?=\n|$|,)")
_DASH_SIGNATURE = re.compile(rf"(?m)(?:^|[.)][ \t]+)[ \t]*(?:--|—|–)[ \t]*(?P<v>(?:[A-Z]\.[ \t]?)?{_ONE_OR_MORE})"
                             r"(?=[ \t]*(?:,|\n|$|\d|\())")
_UPPER_CUE = re.compile(rf"\b(?:PATIENT|PT|NAME|SON|DAUGHTER|WIFE|HUSBAND|MOTHER|FATHER|SISTER|BROTHER|POA|NOK|"
                        rf"CONTACT|GUARDIAN|CAREGIVER|RN|MD|DR|ATTENDING|PCP|CALLER|FAMILY)\b[:.]?[ \t]{{1,3}}"
                        rf"(?:[A-Z]{{2,}}:[ \t]+)?(?P<v>{_UPPER}(?:[ \t]{{1,2}}{_UPPER}){{1,2}})(?![a-z])")
_UPPER_LAST_FIRST = re.compile(rf"(?<![A-Za-z\d-])(?P<v>{_UPPER},[ \t]?{_UPPER}(?:[ \t]{_UPPER})?)(?![A-Za-z\d-])")
_INITIAL_CREDENTIAL = re.compile(rf"(?<![A-Za-z.])(?P<v>[A-Z]\.[ \t]?(?:[A-Z]\.[ \t]?)?(?:{_UPPER}|{_CAP})),?[ \t]+"
                                 rf"{lexicon.EN_CREDENTIALS}\b")
_TITLED_ONE = re.compile(rf"(?<![A-Za-z])(?:(?:Capt|Sgt|Ofc|Lt|Det|Cpl|Rev|Mx)\.?[ \t]+(?P<v>{_CAP})|"
                         r"(?:Dr|Mr|Mrs|Ms)\.?[ \t]+(?P<w>[A-Z]\.)(?=[ \t]*(?:[,;)(]|\n|$)))")
_STAFF_INITIALS = re.compile(r"\b(?:RN|LPN|CNA|PCT|Tech|RT|MA)[ \t]+(?P<v>[A-Z]{2,3})(?=[ \t]*(?:\n|$))")
_USER_BY = re.compile(r"(?i:printed|transcribed|typed|entered|edited|modified|viewed|accessed|scanned)\b[^\n]{0,40}?"
                      r"\bby[ \t]+(?P<v>[a-z]{2,4}|[a-z]{3,12}\d{0,4})(?=[ \t]*(?:\n|$))")
_CREDENTIALS_MORE = re.compile(rf"(?P<v>{_FULL}),?[ \t]+(?:LCSW|LICSW|MSW|RDMS|RDCS|RVT|RRT|NNP|DPM|OD|DNP|APRN|"
                               r"FNP(?:-BC)?|CNA|PT|DPT|OT|OTR|SLP|CCC-SLP|RD|LD|LPC|LMFT|PsyD|RPh|EMT|NREMT|CPhT|"
                               r"MA|CMA|PCT|ARNP|D-ABSM)\b")


# Words after a cue that are a relation or a role, not a name or a user id (POA: SON …; accessed by user).
_NOT_USER_OR_KIN = frozenset(("son", "daughter", "wife", "husband", "mother", "father", "sister", "brother", "mom",
                              "dad", "pt", "patient", "user", "staff", "admin", "system", "provider", "nurse", "self",
                              "family", "friend", "phone", "fax", "mail", "email", "portal", "team", "rn", "md"))


def en_names_more(text: str) -> list[Span]:
    """Names the rule detectors miss (see the module's description)."""
    out: list[Span] = []
    firsts = first_names()
    for m in _FIRST_LAST.finditer(text):
        trimmed = _trim_words(text, *m.span("v"), lambda w: w in firsts or _name_like(w))
        if trimmed is None:
            continue
        s, e = trimmed
        # Past a capitalised word before the name (Yesterday Rosalind Okafor): the name starts at its given name.
        lead = next((w for w in re.finditer(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?", text[s:e]) if w.group() in firsts), None)
        if lead is None:
            continue
        s += lead.start()
        words = re.findall(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", text[s:e])
        caps = [w for w in words if w[:1].isupper() and len(w) > 1]
        if len(caps) < 2 or caps[0] not in firsts or not all(_name_like(w) for w in caps[1:]) or \
                _followed_by_eponym(text, e) or text[e:e + 1] == ":" or re.search(r"(?:St\.?|Saint)\s+$", text[:s]):
            continue
        out.append(Span(s, e, NAME, 0.7, "en-first-last"))
    for rx, name in ((_TITLED_ONE, "en-name-title"), (_ROLE_NAME, "en-name-role"), (_SIGN_OFF, "en-name-sign-off"),
                     (_DASH_SIGNATURE, "en-name-signature"), (_CREDENTIALS_MORE, "en-name-credential")):
        for m in rx.finditer(text):
            for g in ("v", "w"):
                if g not in m.groupdict() or m.group(g) is None:
                    continue
                trimmed = _trim_words(text, *m.span(g), lambda w: w in firsts or _name_like(w))
                if trimmed is None or _followed_by_eponym(text, trimmed[1]):
                    continue
                out.append(Span(*trimmed, NAME, 0.75, name))
    for rx, name in ((_UPPER_CUE, "en-name-upper"), (_UPPER_LAST_FIRST, "en-name-upper"),
                     (_INITIAL_CREDENTIAL, "en-name-initial"), (_STAFF_INITIALS, "en-name-initials"),
                     (_USER_BY, "en-user")):
        for m in rx.finditer(text):
            s, e = m.span("v")
            if name == "en-name-upper":
                trimmed = _trim_words(text, s, e, lambda w: _name_like(w) and re.search(r"[AEIOUY]", w.upper()) and
                                      w.lower() not in _NOT_USER_OR_KIN)
                if trimmed is None or " " not in text[trimmed[0]:trimmed[1]].replace(", ", " ") or \
                        (en_words.NAME_LABEL.search(text, max(0, s - 16), s) is None and
                         not en_words.upper_name(re.findall(r"[A-Za-z'-]+", text[trimmed[0]:trimmed[1]]))):
                    continue
                # After a cue without a colon (PATIENT PORTAL MESSAGE) only with a known given name in it.
                colon = ":" in text[max(0, m.start()):s] or "," in text[trimmed[0]:trimmed[1]]
                if not colon and not any(w.capitalize() in firsts for w in re.findall(r"[A-Z]+", text[s:e])):
                    continue
                s, e = trimmed
            word = text[s:e].lower()
            if name in ("en-user", "en-name-initials") and (word.endswith(("ed", "ing")) or word in _NOT_USER_OR_KIN or
                                                           word in lexicon.EN_COMMON_WORDS):
                continue
            out.append(Span(s, e, ACCOUNT_ID if name == "en-user" else NAME, 0.75, name))
    return out + en_notes.cued_names(text) + en_notes.given_surname(text) + en_notes.last_first_fields(text)


# ---------------------------------------------------------------- organisations and places

_ORG_WORD = r"(?:[A-Z][A-Za-z'’&.+-]*|[A-Z]{2,}(?:[+/&-][A-Z]+)*)"
_ORG_SUFFIX_MORE = (r"(?:Health(?:\s+(?:Plan|Partners|Network|Alliance))?|Healthcare|Health\s+System|Dental|Dentistry|"
                    r"Practice|Pediatrics|Physicians|Medical\s+Group|Urgent\s+Care|Pharmacy|Drug|Rehab|Home\s+Care|"
                    r"Home\s+Health|Senior\s+Living|Care\s+Home|Nursing\s+Home|Nursing\s+Center|Hospice|Manor|"
                    r"Convalescent|Home\s+for\s+the\s+Aged|Retirement\s+Community|Medical|Wellness|Therapy|"
                    r"Oncology|Orthopaedics|Surgery\s+Center|Surgical\s+Center|Transit|Logistics|Motors|Foods|"
                    r"Insurance|Mutual|Assurance|Life|Shield|LLP|LLC|PLLC|PC|Inc\.?|Co\.|Corp\.?|Club|League|Academy|"
                    r"Preschool|Daycare|Day\s+Care|Church|Temple|Mosque|Synagogue|Children['’]s|Funeral\s+Home|Chapel|"
                    r"Mortuary|Parish|Cathedral|Pavilion|Mine|Laboratory|Optical|Montessori|Polytechnic|Bureau|PD|"
                    r"(?:County|City)[ \t]+(?:EMS|Sheriff|Jail)|"
                    r"(?:Road|Street|Lane|Park|Green|Square|Hill|Town|Village|Riverside|House|Bridge|Cross)\s+Surgery)"
                    r"(?:[ \t]+of[ \t]+[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){0,2})?")
_ORG_MORE = re.compile(rf"(?<![\w'-])(?:(?:St\.?|Saint|Mount|Mt\.?|The)[ \t]+)?{_ORG_WORD}"
                       rf"(?:[ \t]+(?:of|and|&|for|the)?"
                       rf"[ \t]*{_ORG_WORD}){{0,5}}[ \t]+{_ORG_SUFFIX_MORE}(?![\w-])")
_ORG_UPPER = re.compile(r"(?<![\w-])(?:[A-Z][A-Z'&.-]+[ \t]+){1,5}"
                        r"(?:HOSPITAL|MEDICAL[ \t]+CENTER|CLINIC|HEALTH(?:CARE)?|"
                        r"SENIOR[ \t]+LIVING|NURSING[ \t]+(?:HOME|CENTER)|REHABILITATION[ \t]+CENTER|CARE[ \t]+CENTER|"
                        r"HEALTH[ \t]+SYSTEM|INSTITUTE|UNIVERSITY|PHARMACY|ASSOCIATES|DIALYSIS)(?![\w-])"
                        r"(?:[ \t]+(?!HEART\b|NOTE\b|ED\b|EMERGENCY\b)[A-Z]{3,}){0,2}")
_UPPER_SUFFIX = r"HOSPITAL|CENTER|CLINIC|HEALTH(?:CARE)?|LIVING|HOME|INSTITUTE|UNIVERSITY|PHARMACY|ASSOCIATES"
_ORG_CUE = re.compile(r"(?<![A-Za-z])(?:(?i:primary|secondary)[ \t]+(?i:ins(?:urance)?)|"
                      r"Insurance|Ins|Insurer|Payer|Payor|"
                      r"Carrier|Coverage|[Ss]upplemental|Work|Employer|Occupation|School|Daycare|Facility|Pharmacy|"
                      r"Preferred[ \t]+pharmacy|Platform|Agency|Vendor|Transport|SNF|Placement|Line|Company)"
                      r"[ \t]*[:(][ \t]*(?P<v>[A-Z][A-Za-z'’&.+/-]*"
                      r"(?:[ \t]+(?:of|and|&|for|the)?[ \t]*[A-Z][A-Za-z'’&.+/-]*)"
                      r"{0,5})")
_ORG_STORE = re.compile(rf"(?<![\w-])(?P<v>{_ORG_WORD}(?:[ \t]+{_ORG_WORD}){{0,3}}[ \t]+#[ \t]?\d{{3,5}})(?![\w-])")
# Not an organisation after a cue: a public programme, a plan type, nothing at all.
_NOT_ORG = frozenset(("medicare", "medicaid", "medi-cal", "tricare", "none", "self", "self-pay", "uninsured", "unknown",
                      "n/a", "ppo", "hmo", "epo", "pos", "retired", "unemployed", "disabled", "student", "homemaker",
                      "yes", "no", "home", "private", "commercial", "ambulance", "car", "taxi", "family", "per"))
_CUT_ORG_AT = re.compile(r"[ \t]+(?:ID|Member|Medicaid|Medicare|PPO|HMO|EPO|MA|Advantage|Policy|Group|Plan[ \t]+[A-Z]|"
                         r"Phone|Ph|Tel|Fax|#|[A-Z]{2,}\d|[A-Z]*-?\d)\b.*$")


def _org_span(text: str, s: int, e: int, detector: str) -> Span | None:
    value = text[s:e]
    cut = _CUT_ORG_AT.search(value)
    if cut is not None and detector == "en-org-cue":
        value = value[:cut.start()]
    value = re.split(r"(?<!\bSt)(?<!\bMt)(?<!\bFt)(?<!\bDr)\.[ \t]+(?=[A-Z])|\.\n", value)[0].rstrip(" ,;:/-&")
    if value.endswith(".") and not re.search(r"\b(?:Inc|Co|Corp|Ltd|St|Mt)\.$", value):
        value = value.rstrip(".")
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", value)
    if not words or value.lower() in _NOT_ORG or words[0].lower() in _NOT_ORG or \
            all(generic_org_word(w) for w in words):
        return None
    return Span(s, s + len(value), ORGANIZATION, 0.75, detector)


def generic_org_word(word: str) -> bool:
    w = word.lower()
    return w in lexicon.EN_NOT_NAMES or w in _GENERIC_ORG_WORDS or w in _SPECIALTY_WORDS or \
        lexicon.clinical_word(w) or w.endswith(("ology", "ologic", "ological", "iatric", "iatrics", "ary", "ic", "ics"))


# Words that together name a kind of place, not one place (Internal Medicine, Mental Health, Home Health).
_GENERIC_ORG_WORDS = frozenset((
    "health", "healthcare", "mental", "public", "home", "behavioral", "behavioural", "women's", "womens", "men's",
    "child", "children's", "student", "occupational", "population", "global", "community", "primary", "care",
    "dental", "dentistry", "practice", "pediatrics", "physicians", "medical", "group", "urgent", "pharmacy", "drug",
    "rehab", "nursing", "senior", "living", "hospice", "wellness", "therapy", "oncology", "orthopaedics", "surgery",
    "surgical", "center", "centre", "insurance", "life", "club", "academy", "preschool", "daycare", "day", "church",
    "family", "local", "outside", "our", "the", "this", "a", "an", "your", "his", "her", "their", "my", "any", "of",
    "and", "for", "at", "physical", "speech", "respiratory", "infusion", "specialty", "retail", "hospital", "clinic",
    "outpatient", "inpatient", "dialysis", "transit", "medical", "general", "internal", "emergency", "heart",
    "cancer", "plan", "network", "system", "partners", "alliance", "mutual", "shield", "school", "high", "middle",
    "elementary", "university", "college", "nurse", "on", "call", "line", "team", "services", "service", "unit",
    "device", "memory", "allergy", "asthma", "diabetes", "anticoagulation", "lipid", "weight", "fertility", "lab",
    "laboratory", "vaccine", "travel", "headache", "epilepsy", "movement", "disorders", "bariatric", "breast", "eye",
    "hearing", "voice", "foot", "ankle", "hand", "knee", "hip", "joint", "bone", "liver", "kidney", "lung", "brain",
    "skin", "blood", "cath", "echo", "walk-in", "express", "virtual", "telehealth", "employee", "information",
    "management", "access", "financial", "patient", "message", "portal", "records", "record", "billing", "office",
))
_PLACE_BEFORE_ADDRESS = re.compile(rf"(?P<v>{_ORG_WORD}(?:[ \t]+(?:of|and|&|for|the|at)?[ \t]*{_ORG_WORD}){{0,6}})"
                                   r"[ \t]*(?:,|\||—|–|-)?[ \t]*\n?[ \t]*$")
_TOWN = re.compile(r"(?<![A-Za-z])(?i:lives|living|resides|residing|moved|relocated|grew\s+up|raised|born|works)"
                   r"(?:\s+(?:alone|independently|with\s+(?:\w+\s+){1,3}?|here|back))?\s+(?i:in|to|from|near|outside(?:\s+of)?)"
                   r"\s+(?P<v>[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){0,2}(?:,[ \t]*[A-Z]{2}\b)?)")
_UPPER_STREET = re.compile(r"(?<![\w.,/-])\d{1,6}[ \t]+(?:[NSEW][ \t]+)?(?:[A-Z0-9]+[ \t]+){0,4}"
                           r"(?:ST|AVE|RD|BLVD|DR|LN|CT|WAY|"
                           r"PL|HWY|PKWY|STREET|AVENUE|ROAD|DRIVE|LANE|COURT|BOULEVARD|TERRACE|CIRCLE)\.?"
                           r"(?:,?[ \t]+(?:APT|STE|SUITE|UNIT|#)[ \t]*#?\w+)?"
                           r"(?:,[ \t]*[A-Z]+(?:[ \t][A-Z]+){0,2},?[ \t]+(?:"
                           + "|".join(lexicon.US_STATES) + r")(?:[ \t]+\d{5}(?:-\d{4})?)?)?(?![\w-])")
_PO_BOX_CITY = re.compile(r"(?i:\bP\.?[ \t]?O\.?[ \t]*Box)[ \t]+\d+"
                          r"(?:,[ \t]*[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){0,2},?[ \t]+(?:"
                          + "|".join(lexicon.US_STATES) + r")(?:[ \t]+\d{5}(?:-\d{4})?)?)?")
_JOB_AT = re.compile(r"(?<![A-Za-z])(?i:cook|server|cashier|driver|clerk|teacher|manager|worker|employee|mechanic|"
                     r"technician|engineer|volunteer|works?|worked|working|employed|intern|nanny|housekeeper|"
                     r"custodian|janitor|guard|waitress|waiter|bartender|barista|stocker|foreman|welder|electrician|"
                     r"officer|plays|played)(?:[ \t]+(?i:part-time|full-time|nights|days|weekends|evenings|shifts|"
                     r"seasonally)){0,2}[ \t]+(?:at|for|with|of)[ \t]+(?:the[ \t]+)?"
                     r"(?P<v>[A-Z][A-Za-z'’&.-]*(?:[ \t]+(?:of|and|&|for|the|on)?"
                     r"[ \t]*[A-Z][A-Za-z'’&.-]*){0,4})")
_BASE = re.compile(r"(?<![A-Za-z])(?:Fort|Ft\.|Camp|Naval[ \t]+Station|Joint[ \t]+Base)[ \t]+[A-Z][a-z]+"
                   r"(?:[ \t]+[A-Z][a-z]+)?")
_UK_POSTCODE = re.compile(r"(?<![\w-])(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?)[ \t]?\d[ABD-HJLNP-UW-Z]{2}(?![\w-])")


def en_places_more(text: str) -> list[Span]:
    """Organisations and addresses the rule detectors miss (see the module's description)."""
    out: list[Span] = []
    for rx, name in ((_ORG_MORE, "en-org-suffix"), (_ORG_UPPER, "en-org-upper"), (_ORG_CUE, "en-org-cue"),
                     (_ORG_STORE, "en-org-store"), (_JOB_AT, "en-org-cue")):
        for m in rx.finditer(text):
            s, e = m.span("v") if "v" in rx.groupindex else m.span()
            if name == "en-org-upper":  # not the sentence around it (… AT KESTREL HOSPITAL REQUIRING …)
                s, e = en_words.trim_common(text, s, e, _UPPER_SUFFIX)
            span = _org_span(text, s, e, name)
            if span is not None and not _followed_by_eponym(text, span.end):
                out.append(span)
    for m in _TOWN.finditer(text):
        words = m.group("v").split()
        if all(_name_like(w) for w in words) and not en_words.country(m.group("v")):
            out.append(Span(*m.span("v"), ADDRESS, 0.7, "en-town"))
    for rx, name in ((_BASE, "en-base"), (_UPPER_STREET, "en-street-upper"), (_PO_BOX_CITY, "en-po-box"),
                     (_UK_POSTCODE, "uk-postcode")):
        out += [Span(*m.span(), ADDRESS, 0.8, name) for m in rx.finditer(text)
                if rx is not _UPPER_STREET or _street_name(m.group())]
    return out + en_notes.places(text)


def _street_name(value: str) -> bool:
    """An upper-case street has a name between its number and its suffix, none of whose words is a common or clinical
    word (not 3 WAY FOLEY, 116 ST, 1 ST DEGREE, 120 PER DR, 2 CT)."""
    words = re.findall(r"[A-Z][A-Z'-]*", re.sub(r"^\d+[ \t]+(?:[NSEW][ \t]+)?", "", value).split(",")[0])[:-1]
    return bool(words) and all(not en_words.common_word(w) and not lexicon.clinical_word(w) for w in words)


def places_before_addresses(text: str, spans: list[Span]) -> list[Span]:
    """A name written right before a street address, on its line or the line above (a letterhead: Riverside Family
    Practice / 890 Elm Street; Hotel Riverside, 350 W 43rd St) names the place: an organisation."""
    out = []
    for a in spans:
        if a.entity != ADDRESS or not (text[a.start:a.start + 1].isdigit() or text[a.start:a.start + 2] == "PO"):
            continue
        line_start = text.rfind("\n", 0, max(0, a.start - 1) if text[a.start - 1:a.start] == "\n" else a.start)
        m = _PLACE_BEFORE_ADDRESS.search(text, line_start + 1, a.start)
        if m is None:
            continue
        span = _org_span(text, *m.span("v"), "en-org-letterhead")
        if span is not None:
            out.append(span)
    return out


# ---------------------------------------------------------------- identifiers after their labels

_ID_SEP = r"[ \t]*(?:#|(?i:no\.?|number|num))?[ \t]*[:#]?[ \t]*"
EN_PATTERNS: tuple[PatternSpec, ...] = (
    # Encounter, billing and prescriber numbers (FIN 70012883412, CSN: 320018874452, NPI 1902847731, DEA BB4417729).
    PatternSpec(RECORD_NUMBER, "en-encounter-cue",
                r"(?<![A-Za-z])(?:FIN|CSN|HAR|NPI|DEA|ICN|EDIPI|UPIN|Visit/FIN|Enc(?:ounter)?|Chart)" + _ID_SEP +
                r"(?P<v>(?:FIN[ \t]+)?[A-Z]{0,3}\d[0-9A-Z-]{5,20})(?![\w-])", 0.9, flags=0),
    # A record number with a site prefix and spaces (MRN: BWH 0-448-1902, MRN UPMC 88104427, MRN HMC-U9981273).
    PatternSpec(RECORD_NUMBER, "en-mrn-site",
                r"(?<![A-Za-z])(?:MRN|MR#|Med(?:ical)?[ \t]+Rec(?:ord)?(?:[ \t]+(?:No\.?|Number|#))?)" + _ID_SEP +
                r"(?P<v>[A-Z]{2,6}(?:[ \t]|-[A-Z]{0,2}-?)[A-Z]?\d[\d \t-]{2,16}\d[A-Z]?)(?![\w-])", 0.9, flags=0),
    # Labels whose value may be short or odd-shaped (badge #4417, Claim No: WC-TX-2023-0884172, CIN 92288417A).
    PatternSpec(RECORD_NUMBER, "en-label-id",
                r"(?<![A-Za-z])(?i:badge|USDOT|DOT|cert(?:ificate)?|specimen(?:[ \t]+IDs?)?|requisition|"
                r"study(?:[ \t]+UID)?|"
                r"accession|chart|report|case|claim|sleep[ \t]+study|ticket|incident)" + _ID_SEP +
                r"(?P<v>(?=[A-Z0-9.-]*\d)[A-Z0-9][A-Z0-9.-]{2,40}[A-Z0-9])(?![\w-])", 0.85, flags=0),
    PatternSpec(INSURANCE_ID, "en-member-cue",
                r"(?<![A-Za-z])(?i:member|subscriber|CIN|BIN|PCN|RxGrp|group|grp|policy|plan)(?:[ \t]+(?i:id|no\.?|#))?"
                r"[ \t]*[:#]?[ \t]*(?P<v>(?=[A-Z0-9-]*\d{3})[A-Z0-9][A-Z0-9-]{3,24}[A-Z0-9])(?![\w-])", 0.85, flags=0),
    # A DICOM or other object identifier (1.2.840.113619.2.55.3…).
    PatternSpec(RECORD_NUMBER, "oid", r"(?<![\w.])[012](?:\.\d+){5,}(?![\w.])", 0.85),
    # An identifier by its shape: capitals, then hyphen-joined parts with five digits or more (SP-24-03317).
    PatternSpec(RECORD_NUMBER, "en-id-shape",
                r"(?<![\w-])(?![CTLS]\d{1,2}(?:-[CTLS]?\d{1,2})+(?![\w-]))(?=(?:[A-Z-]*\d){5})[A-Z]{1,5}\d{0,2}"
                r"(?:-[A-Z0-9]{1,10}){1,5}(?![\w-])", 0.7,
                flags=0),
    PatternSpec(PASSPORT, "en-passport-spaced",
                r"(?<![A-Za-z])(?i:passport)[^\n\d]{0,40}?(?P<v>\d{2}[ \t]\d{7})(?!\d)", 0.9),
    PatternSpec(LICENSE_PLATE, "en-plate-state",
                r"(?<![A-Za-z])(?i:plate|tag)[ \t]*(?:#|(?i:no\.?))?[ \t]*:?[ \t]*(?P<v>(?:" +
                "|".join(lexicon.US_STATES) +
                r")[ \t][A-Z0-9]{1,4}[ \t-][A-Z0-9]{2,5})(?![\w-])", 0.9, flags=0),
    PatternSpec(PHONE, "en-extension", r"(?<![A-Za-z])(?i:ext\.?|extension|x)[ \t]?(?P<v>\d-\d{4}|\d{4,5})(?!\d)", 0.8,
                flags=0),
    # National numbers of the UK and Australia (07700 900734, 01323 555 270, 0161 555 0123, (08) 9021 4478).
    PatternSpec(PHONE, "uk-au-phone", r"(?<![\w.+/-])(?:\(0[1-9]\)[ ]?\d{4}[ ]?\d{4}|0[1-9][ ]\d{4}[ ]\d{4}|"
                r"0[1-9]\d{3}[ ]?\d{3}[ ]?\d{3}|0[1-9]\d{2}[ ]?\d{3}[ ]?\d{4})(?![\w-]|\.\d|[ ]\d)", 0.85, flags=0),
    # A portal message's sender by a handle with a digit or a dot (From: jdoe.ashby (patient); From: Jo Doe (jdoe88)).
    PatternSpec(ACCOUNT_ID, "en-portal-handle",
                r"(?<![A-Za-z])From:[ \t]*(?:[^\n(]{0,60}\()?(?P<v>(?=[a-z]+[0-9._])[a-z][a-z0-9._]{4,29}[a-z0-9])"
                r"(?=[ \t]*[()])", 0.75, flags=0),
    PatternSpec(ACCOUNT_ID, "at-handle", r"(?<![\w.@])@[A-Za-z][A-Za-z0-9_.]{2,29}[A-Za-z0-9_](?![\w@])", 0.85),
    PatternSpec(ACCOUNT_ID, "en-user-cue", r"(?<![A-Za-z])(?i:user(?:name)?|login|screen\s+name)"
                r"(?:[ \t]+(?i:set[ \t]+as|is|was))?[ \t]*[:=]?[ \t]*"
                r"(?P<v>(?![a-z]+(?:ed|ing)\b)[a-z][a-z0-9._-]{3,30}[a-z0-9])(?![\w@])", 0.8, flags=0),
)
# An insurance line (Insurance: Medica MA MED-99120417; Ins Blue Cross … BKC449120083): its identifier-shaped words.
_INSURANCE_LINE = re.compile(r"(?<![A-Za-z])(?i:ins(?:urance)?|payer|coverage|carrier)\b[^\n]{0,90}")
_ID_WORD = re.compile(r"(?<![\w/.-])(?=[A-Z0-9-]*\d{5})[A-Z0-9][A-Z0-9-]{4,24}(?![\w/.-])")
_DATE_LIKE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")


def insurance_ids(text: str) -> list[Span]:
    out = []
    for line in _INSURANCE_LINE.finditer(text):
        for m in _ID_WORD.finditer(text, line.start(), line.end()):
            if not _DATE_LIKE.fullmatch(m.group()) and sum(c.isdigit() for c in m.group()) >= 5:
                out.append(Span(*m.span(), INSURANCE_ID, 0.8, "en-insurance-line"))
    return out


# ---------------------------------------------------------------- spans widened

_UNIT_BETWEEN = re.compile(r"[ \t]*,?[ \t]*(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|Bldg|#)\.?[ \t]*#?[\w-]+"
                           r"[ \t]*,?[ \t]*")
_ORG_TAIL = re.compile(r"(?:\.(?=[ \t]+[A-Z]))?(?:(?:[ \t](?![ \t])|[ \t]+(?=[-–—/]))"
                       r"(?:[-–—/][ \t]*|(?:for|of|at|&|and)[ \t]+)?"
                       r"(?:[A-Z][A-Za-z'’.]+|[A-Z]{2,}))"
                       r"{1,4}(?=[ \t]*(?:,|\n|$|[ \t]{2}|\d|\())")
_ORG_HEAD = re.compile(r"(?:[A-Z][A-Za-z'’.-]*(?:[ \t]+[A-Z][A-Za-z'’.-]*){0,3}[ \t]*(?:[-–—][ \t]*|/)|[A-Z]{2,}\+)$")


_AGE_UNIT = re.compile(r"[ \t]*(?i:years?|yrs?|y/o|yo)(?:[ \t-]+(?i:old))?(?![A-Za-z])")


def extend(text: str, spans: list[Span]) -> list[Span]:
    """Spans widened to the whole value (see the module's description)."""
    out = []
    for s in spans:
        start, end = s.start, s.end
        if s.entity == NAME:
            m = _TITLE_BEFORE.search(text, max(0, start - 12), start)
            start = m.start() if m else start
            while start > 0 and text[start - 1].isascii() and text[start - 1].isalpha():  # at a word's start (La|Toya)
                start -= 1
            first = re.match(r"[ ]([A-Z][a-z]+|[A-Z]{2,})(?![\w-])", text[end:end + 20])
            if "," in text[start:end] and first is not None and first.group(1).capitalize() in first_names():
                end += first.end()  # LAST, FIRST MIDDLE
        elif s.entity == DATE:
            m = TIME_AFTER.match(text, end)
            end = m.end() if m else end
            zone = ZONE_AFTER.match(text, end) if re.search(r"\d:[0-5]\d$", text[start:end]) else None
            end = zone.end() if zone else end
        elif s.entity == ADDRESS:
            while end < len(text) and text[end].isascii() and text[end].isalpha() and text[end - 1].isalpha():  # Ste
                end += 1
            m = _UNIT_BETWEEN.match(text, end)
            if m is not None and m.group().strip(" \t,")[:1].isalpha():
                end = m.start() + len(m.group().rstrip(" \t,"))
            elif re.search(r"(?:Ste|Suite|Apt|Unit|#)\.?$", text[start:end]) and \
                    (number := re.match(r"[ \t]*#?[\w-]{1,6}(?=[ \t]*[,\n])", text[end:end + 10])) is not None:
                end += number.end()
        elif s.entity in (PHONE, RECORD_NUMBER, ACCOUNT_ID, INSURANCE_ID, LICENSE_PLATE):
            m = re.search(r"(?:(?<![A-Za-z])(?i:ext\.?|x)[ \t]?|#[ \t]?)$", text[max(0, start - 6):start])
            if m is not None and (s.entity == PHONE or m.group().startswith("#")):
                start -= len(m.group())
        elif s.entity == AGE and (unit := _AGE_UNIT.match(text, end)) is not None:
            end = unit.end()  # Age: 93 years
        elif s.entity == ORGANIZATION and not s.detector.startswith("en-note-"):  # a nursing note's place is one word
            tail = _ORG_TAIL.match(text, end)
            if tail is not None and (not tail.group().startswith(".") or text[end - 2:end] in ("St", "Mt", "Ft")) and \
                    all(_name_like(w) and not generic_org_word(w) for w in re.findall(r"[A-Za-z]{2,}", tail.group())):
                end = tail.end()
            head = _ORG_HEAD.search(text, max(0, start - 40), start)
            if head is not None and all(_name_like(w) and not generic_org_word(w)
                                        for w in re.findall(r"[A-Za-z]{2,}", head.group())):
                start = head.start()
        out.append(Span(start, end, s.entity, s.score, s.detector) if (start, end) != (s.start, s.end) else s)
    return out


# ---------------------------------------------------------------- dates without a year

_MD = en_notes.MD
_MD_RANGE = re.compile(rf"(?<![\w./-]){_MD}[ \t]?[-–][ \t]?{_MD}(?![\w/%]|\.\d)")
_MD_TIME = re.compile(rf"(?<![\w./-]){_MD}(?=[ \t](?:[01]\d|2[0-3])[0-5]\d(?![\w/:.]))")
_MD_CUED = re.compile(rf"(?<![A-Za-z])(?i:start|starts|starting|planned|plan(?:ned)?\s+for|last\s+dose|next\s+dose|"
                      rf"f/u|follow-?up|appt|appointment|returns?|surgery|procedure|transfer(?:red)?|discharge)"
                      rf"[ \t]+(?P<v>{_MD})(?![\w/%]|\.\d)")


def dates_without_year(text: str) -> list[Span]:
    """m/d in English forms `context.dates_without_year` leaves: a range (10/20-10/21), before a 24-hour time
    (2/15 0530), after a word of planning (start 11/11, planned 9/4, last dose 9/6)."""
    out = [Span(*m.span(), DATE, 0.75, "en-date-range") for m in _MD_RANGE.finditer(text)]
    out += [Span(*m.span(), DATE, 0.75, "en-date-time") for m in _MD_TIME.finditer(text)]
    out += [Span(*m.span("v"), DATE, 0.75, "en-date-cue") for m in _MD_CUED.finditer(text)]
    return out + en_notes.dates_and_pagers(text)
