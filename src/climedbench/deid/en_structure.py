"""English PHI found by the structure it stands in rather than by its words: a nickname in quotes after a found name
(Lastname, Given "Nick"; Given Last ("Nick")) and wherever else the note writes it, a name after a word of calling
(prefers to be called X, goes by X), a mailing block (a line that ends in a city, a state or province and a postal
code, with the street, rural-route or box segments before it and the addressee's line above), and an organisation
named by the kind of body it is (… Services, … Laboratories, … Institution, … Elementary) or set as a letterhead at
the top of a note, with the branch written after it (… Kidney Care - Everett). No name, place or organisation of any
corpus is listed here: only kinds of words and the layout of fields.
"""

from __future__ import annotations

import re

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.en_context import generic_org_word
from climedbench.deid.patterns import ACCOUNT_ID, ADDRESS, NAME, ORGANIZATION

# ---------------------------------------------------------------- nicknames

_NICK_AFTER = re.compile(r"[ \t]*(?:\([ \t]*)?[\"“](?P<n>[A-Z][A-Za-z'’-]{1,20})[\"”](?:[ \t]*\))?")
_CALLED = re.compile(r"(?<![A-Za-z])(?:(?P<strong>(?i:prefers|likes|wants|asks)[ \t]+to[ \t]+be[ \t]+called|"
                     r"(?i:goes|went)[ \t]+by|(?i:known|referred[ \t]+to)[ \t]+as|(?i:nicknamed|a\.?k\.?a\.?))|"
                     r"(?i:friend|boyfriend|girlfriend|met|named))"
                     r"[ \t]+(?P<q>[\"“])?(?P<n>[A-Z][a-z'’-]{1,20})(?(q)[\"”])(?![A-Za-z'’-])")


# A handle in brackets right after a found name (Hollis Varga-Penn (hvargap)): one lower-case token of letters and
# digits that starts like the name and is no word.
_HANDLE_AFTER = re.compile(r"[ \t]*\([ \t]*(?P<h>[a-z][a-z0-9._-]{3,30})[ \t]*\)")
# Who transcribed or typed a note: initials or a user name at the line's end (transcribed by QRT; Transcribed: wpx).
_TYPIST = re.compile(r"(?<![A-Za-z])(?i:transcribed|typed|scribed|keyed|transcriptionist)"
                     r"(?:[ \t]+(?i:by))?[ \t]*:?[ \t]*"
                     r"(?P<v>[a-z]{2,4}|[A-Z]{2,4}|[a-z][a-z0-9._]{3,20})(?=[ \t]*(?:\n|$|\(|[ \t]{2}))")


# A table's column of user names, read under its header (USER ID, USERNAME, LOGIN) in a table set out with gaps.
_USER_HEADER = re.compile(r"(?m)^(?=.*\S[ \t]{2,}\S.*\S[ \t]{2,}\S).*?(?<![A-Za-z])"
                          r"(?P<h>(?i:user(?:[ _]?(?:id|name))?|login))(?![A-Za-z])")


_CELL = re.compile(r"[A-Za-z][A-Za-z0-9._-]{2,30}(?=[ \t]{2,}|[ \t]*$)")


def column_users(text: str) -> list[Span]:
    """The cells under a user column of a gap-separated table, down to its first empty line."""
    out = []
    for m in _USER_HEADER.finditer(text):
        line_start = text.rfind("\n", 0, m.start("h")) + 1
        col = m.start("h") - line_start
        pos = text.find("\n", m.end("h"))
        while pos >= 0:
            end = text.find("\n", pos + 1)
            line = text[pos + 1:end if end >= 0 else len(text)]
            if not line.strip():
                break
            for at in (col, col - 1, col + 1, col - 2, col + 2):  # a cell starts where its header does, give or take
                cell = _CELL.match(line, max(at, 1))
                if cell is not None and line[max(at, 1) - 1].isspace() and not en_words.function_word(cell.group()) \
                        and not (cell.group().isalpha() and en_words.common_word(cell.group())):
                    out.append(Span(pos + 1 + cell.start(), pos + 1 + cell.end(), ACCOUNT_ID, 0.7, "en-user-column"))
                    break
            pos = end
    return out


def typists(text: str) -> list[Span]:
    """Initials or a user name after transcribed / typed (see `_TYPIST`), not a word."""
    return [Span(*m.span("v"), ACCOUNT_ID, 0.7, "en-typist") for m in _TYPIST.finditer(text)
            if not en_words.common_word(m.group("v")) and not en_words.function_word(m.group("v"))]


def nicknames(text: str, spans: list[Span]) -> list[Span]:
    """A quoted nickname right after a found name, the name widened over it (Beaumont, Lucille "Lulu"; Jo Ruiz
    ("Jojo")), a name after a word of calling, and every other place where the note writes such a nickname."""
    out, nicks = [], set()
    for s in spans:
        if s.entity != NAME:
            continue
        handle = _HANDLE_AFTER.match(text, s.end)
        if handle is not None and handle.group("h")[:1] in {w[:1].lower() for w in text[s.start:s.end].split()} and \
                not en_words.common_word(handle.group("h")):
            out.append(Span(*handle.span("h"), ACCOUNT_ID, 0.7, "en-handle"))
        m = _NICK_AFTER.match(text, s.end)
        if m is not None:
            out.append(Span(s.start, m.end(), NAME, 0.75, "en-nickname"))
            nicks.add(m.group("n"))
    for m in _CALLED.finditer(text):
        word = m.group("n")
        if m.group("q") is not None or (m.group("strong") and not en_words.common_word(word)) or \
                (en_words.known_name(word) and not en_words.common_word(word)):
            out.append(Span(*m.span("n"), NAME, 0.7, "en-nickname"))
            nicks.add(word)
    return out + _mentions(text, nicks, "en-nickname")


def _mentions(text: str, words: set[str], detector: str) -> list[Span]:
    """Every place the note writes one of the found name words, as written or in capitals."""
    out = []
    for word in words:
        if en_words.function_word(word):
            continue
        for m in re.finditer(rf"(?<![\w'’-])(?:{re.escape(word)}|{re.escape(word.upper())})(?![\w’-]|'[A-Za-z]{{2}})",
                             text):
            out.append(Span(*m.span(), NAME, 0.7, detector))
    return out


# A note's last line holding only a given name, perhaps after a dash and before a credential (… SUSAN; -- maria rn).
_CLOSING = re.compile(r"(?:^|\n|[.!;][ \t]+)[ \t]*(?:-{1,2}|—|–)?[ \t]*(?P<v>[A-Za-z][a-z'’-]+|[A-Z][A-Z'’-]+)"
                      r"(?:[ \t]*,?[ \t]*(?i:rn|np|md|lpn|rrt|sn))?[ \t.]*\s*\Z")


def closing_names(text: str) -> list[Span]:
    """A given name signed alone on a note's last line (Faker's given names; not a common or clinical word)."""
    m = _CLOSING.search(text[-80:])
    if m is None:
        return []
    word = m.group("v")
    if word.lower() not in en_words.given_names() or en_words.common_word(word) or en_words.function_word(word):
        return []
    offset = len(text) - len(text[-80:])
    return [Span(offset + m.start("v"), offset + m.end("v"), NAME, 0.7, "en-closing-name")]


# A person's own telephone written with the name in the possessive (KAREN'S CELL 563-…, Dale's number is (410) …).
_OWNER_PHONE = re.compile(r"(?<![A-Za-z'’-])(?P<v>[A-Za-z][a-z'’-]+|[A-Z][A-Z-]+)['’][sS][ \t]+"
                          r"(?i:cell|cellphone|phone|number|mobile|home|work|pager|beeper|landline)"
                          r"(?:[ \t]*(?:#|:|no\.?|is|number))*[ \t]*\(?\d{3}")


def owner_phones(text: str) -> list[Span]:
    """A given name in the possessive before a telephone word and a number (Faker's given names)."""
    out = []
    for m in _OWNER_PHONE.finditer(text):
        word = m.group("v")
        if word.lower() in en_words.given_names() and not en_words.function_word(word):
            out.append(Span(*m.span("v"), NAME, 0.7, "en-owner-phone"))
    return out + _mentions(text, {text[s.start:s.end] for s in out}, "en-owner-phone")


# Two name words at a sentence's start before a word of being told (BEA TURA AWARE; jo ruiz notified), in any case.
_TOLD = re.compile(r"(?:^|(?<=[\n.;:,!?])|(?<=[\n.;:,!?][ \t])|(?<=[\n.;:,!?][ \t]{2}))[ \t]*"
                   r"(?P<v>(?P<a>[A-Za-z][a-z'’-]+|[A-Z][A-Z'’-]+)[ \t](?P<b>[A-Za-z][a-z'’-]+|[A-Z][A-Z'’-]+))[ \t]+"
                   r"(?i:aware|notified|paged|informed|updated|made[ \t]+aware|and[ \t]+drs?\b)")


def told_names(text: str) -> list[Span]:
    """A given name and a surname (or two name words) before aware / notified at a sentence's start."""
    out = []
    for m in _TOLD.finditer(text):
        words = (m.group("a"), m.group("b"))
        if all(_name_word(w) for w in words) and (words[0].isupper() == words[1].isupper()):
            out.append(Span(*m.span("v"), NAME, 0.7, "en-told"))
    return out


def _name_word(word: str) -> bool:
    w = word.lower()
    return len(w) >= 3 and re.search(r"[aeiouy]", w) is not None and en_words.name_word(word) and \
        not en_words.common_word(word) and not lexicon.clinical_word(w) and w not in lexicon.EN_NOT_NAMES and \
        not generic_org_word(w)


# ---------------------------------------------------------------- mailing blocks

_STATE = "|".join(lexicon.US_STATES)
_AU_STATE = "|".join(lexicon.AU_STATES)
_CA_PROVINCE = "|".join(lexicon.CA_PROVINCES)
_CODE = (rf"(?:(?:{_STATE})[ \t]{{1,2}}\d{{5}}(?:-\d{{4}})?|(?:{_AU_STATE})[ \t]{{1,2}}\d{{4}}|"
         rf"(?:{_CA_PROVINCE})[ \t]{{1,2}}[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)")
_TOWN_WORDS = r"[A-Z][A-Za-z.'’-]*(?:[ \t][A-Z][A-Za-z.'’-]*){0,3}"
# A segment before the town: a street with its number, a rural route or a box, a unit.
_SEGMENT = (r"(?:(?i:rr|hc|rural[ \t]+route|p\.?[ \t]?o\.?[ \t]*box)[ \t]*\d+(?:[ \t]+(?i:box)[ \t]+\d+)?|"
            r"[NSEW]?\d+[A-Za-z]?(?:[ \t][A-Z0-9][A-Za-z0-9.'’#&-]*){1,6}|"
            r"(?i:apt|unit|ste|suite|space|lot|flat)\.?[ \t]*#?[A-Za-z0-9-]+)")
_CODE_AT = re.compile(rf"(?<=[A-Za-z.,])[ \t]{{1,2}}{_CODE}(?![\w-])")
_BEFORE_CODE = re.compile(rf"(?<![\w-])(?P<v>(?:{_SEGMENT}[ \t]*,[ \t]*){{0,3}}(?P<town>{_TOWN_WORDS}),?)\Z")
_STREET_LINE = re.compile(rf"(?m)^[ \t]*(?P<v>{_SEGMENT}(?:[ \t]*,[ \t]*{_SEGMENT})*)[ \t]*\n[ \t]*\Z")
_ADDRESSEE_LINE = re.compile(r"(?m)^(?:[A-Za-z][A-Za-z ]{0,14}:)?[ \t]*"
                             r"(?P<v>[A-Z][A-Za-z'’-]+(?:[ \t]+(?:[A-Z]\.?|[A-Z][A-Za-z'’-]+)){1,3})[ \t]*\n[ \t]*\Z")


def mail_blocks(text: str) -> list[Span]:
    """A town with its state or province and postal code (PLYMOUTH WI 53073; Uki Creek NSW 2484), with the street,
    route or box segments written before it on the line or on the line above, and the addressee's name above that."""
    out = []
    for code in _CODE_AT.finditer(text):
        line_start = text.rfind("\n", 0, code.start()) + 1
        head = max(line_start, code.start() - 160)
        m = _BEFORE_CODE.search(text, head, code.start())
        if m is None:
            continue
        start = m.start("v")
        for w in re.finditer(r"[A-Za-z][A-Za-z'’-]*", m.group("town")):  # the town starts after IN, AT, NEAR
            if en_words.function_word(w.group()) or lexicon.clinical_word(w.group().lower()):
                start = m.start("town") + w.end()
        if not text[start:m.end("town")].strip(" \t,"):
            continue
        start += len(text[start:m.end("town")]) - len(text[start:m.end("town")].lstrip(" \t,"))
        out.append(Span(start, code.end(), ADDRESS, 0.8, "en-mail-block"))
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():
            continue
        above = text[max(0, line_start - 200):line_start]
        street = _STREET_LINE.search(above)
        if street is None:
            continue
        s0 = line_start - len(above) + street.start("v")
        out.append(Span(s0, s0 + len(street.group("v")), ADDRESS, 0.8, "en-mail-block"))
        who = _ADDRESSEE_LINE.search(above, 0, street.start())
        if who is not None and _person_line(who.group("v")):
            a0 = line_start - len(above) + who.start("v")
            out.append(Span(a0, a0 + len(who.group("v")), NAME, 0.75, "en-mail-block"))
    return out


def _person_line(value: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'’-]+", value)]
    return len(words) >= 2 and all(not en_words.common_word(w) or en_words.known_name(w) for w in words) and \
        not any(generic_org_word(w) or _KIND.fullmatch(w) for w in words)


# ---------------------------------------------------------------- places gone to or come from

# Capitalised words after a verb of going and to / from, in a note that writes its sentences in lower or sentence case
# (wants to go to Harbor, transferred from Sacred Heart): a place, when no word of it is everyday, clinical or generic.
_GONE_TO = re.compile(r"(?<![A-Za-z])(?i:go|goes|going|went|gone|transfer|transferred|transfered|sent|send|return|"
                      r"returned|returning|discharged?|d/c'?d|came|comes|coming|arrived|admitted|brought|moved|back)"
                      r"[ \t]+(?i:to|from)[ \t]+(?:the[ \t]+)?"
                      r"(?P<v>[A-Z][a-z'’]+(?:-[A-Z][a-z]+)?(?:[ \t][A-Z][a-z'’]+){0,2})(?![\w'’-])")


def gone_to_places(text: str) -> list[Span]:
    """A place named after a verb of going and to / from (see `_GONE_TO`); not in an upper-case note."""
    if en_words.upper_note(text):
        return []
    out = []
    for m in _GONE_TO.finditer(text):
        words = [re.sub(r"['’]s$", "", w) for w in m.group("v").split()]
        if all(not en_words.common_word(w) and not generic_org_word(w) and not lexicon.clinical_word(w.lower())
               for w in words) and not en_words.country(m.group("v")):
            out.append(Span(*m.span("v"), ORGANIZATION, 0.7, "en-gone-to"))
    return out


# A named place by the kind of place it is (… Park, … Hall, … Bridge, … County, Lake …, Isle of …), in title case, or
# in capitals after a word that places it (ON PINE ISLAND BAYOU).
_PLACE_KIND = (r"Park|State[ \t]Park|Hall|Bridge|Trail|Beach|Creek|River|Canyon|Campground|Reservoir|Island|Bayou|"
               r"County|Parish|Township|Falls|Springs|Marina|Pier|Harbo(?:u)?r|Plaza|Square|Mall|Stadium|Arena|"
               r"Fairgrounds|Speedway|Pond|Woods|Forest|Preserve|Ranch|Farm|Lodge|Cottage|Estate|Apartments|Towers|"
               r"Court|Village|Heights|Terrace|Gardens|Manor")
_PLACE_BY_KIND = re.compile(rf"(?<![\w'’-])(?P<v>(?:(?:Lake|Mount|Mt\.|Isle[ \t]of|Port|Cape)[ \t])?"
                            rf"[A-Z][a-z'’]+(?:-[A-Z][a-z]+)?(?:[ \t][A-Z][a-z'’]+){{0,2}}[ \t](?:{_PLACE_KIND})"
                            rf"|(?:Lake|Mount|Mt\.|Isle[ \t]of)[ \t][A-Z][a-z'’]+(?:[ \t][A-Z][a-z'’]+)?)(?![\w'’-])")
_PLACE_BY_KIND_UPPER = re.compile(rf"(?<![A-Za-z])(?:ON|AT|NEAR|IN|FROM|TO|BY)[ \t]+(?:THE[ \t]+)?"
                                  rf"(?P<v>[A-Z]{{3,}}(?:[ \t][A-Z]{{3,}}){{0,2}}[ \t](?i:{_PLACE_KIND}))"
                                  r"(?![\w'’-])")


_WARD_BEFORE = re.compile(r"(?<![A-Za-z])(?i:unit|ward|wing|pod|bldg|building|floor)[ \t]*:?[ \t]*\Z")


def kind_places(text: str) -> list[Span]:
    """A place named by its kind (see `_PLACE_KIND`) with a word of its own (not Grand Rounds Hall's generic words)."""
    out = []
    for rx in (_PLACE_BY_KIND, _PLACE_BY_KIND_UPPER):
        for m in rx.finditer(text):
            start, value = _trim_lead(text, *m.span("v"))
            if (rx is _PLACE_BY_KIND_UPPER and not value.isupper()) or _WARD_BEFORE.search(text, 0, start):
                continue
            words = re.findall(r"[A-Za-z][A-Za-z'’]*", value)
            if len(words) >= 2 and _distinct(" ".join(words[:-1])) and not en_words.country(value):
                out.append(Span(start, start + len(value), ADDRESS, 0.7, "en-place-kind"))
    return out


# ---------------------------------------------------------------- organisations by kind

# Nouns that name the kind of body an organisation is; the name before them must hold a word of its own.
_KIND_WORDS = (r"Services|(?:Health|Ambulance|Fire|Rescue)[ \t]+Service|Systems|System|Group|Laboratories|Laboratory|"
               r"Solutions|Supply|Supplies|"
               r"Institution|Institute|Elementary|Genomics|Diagnostics|Imaging|Network|Trust|Authority|Agency|"
               r"Cemetery|Associates|Partners|Consultants|Specialists|Foundation|Society|College|University|School|"
               r"Kidney[ \t]+Care|Renal[ \t]+Unit|Health[ \t]+Care|Hospice|Clinic|Hospital|Health|Healthcare|"
               r"Pharmacy|Inn|Lodge|Motel|Hotel|Company|Corporation|Co-op|Ministries|Church")
_KIND = re.compile(rf"(?i:{_KIND_WORDS})")
_CORP = r"(?:,?[ \t]+(?:Inc\.?|LLC|L\.L\.C\.|P\.C\.|PC|Ltd\.?|LLP|PLLC|P\.A\.|Corp\.?))"
_CAP_WORD = r"(?:St\.|Mt\.|[A-Z][A-Za-z'’&-]*|&)"
_OF_REGION = r"(?:[ \t]of[ \t](?:the[ \t])?[A-Z][A-Za-z'’-]+(?:[ \t][A-Z][A-Za-z'’-]+)?)"
_KIND_ORG = re.compile(rf"(?<![\w'’-])(?P<v>{_CAP_WORD}(?:[ \t](?:(?:of|the|and|de|del|la)[ \t])?{_CAP_WORD}){{0,5}}"
                       rf"[ \t](?i:{_KIND_WORDS}){_OF_REGION}?{_CORP}?)(?![\w'’-])"
                       r"(?![ \t](?i:proxy|decisions?|directives?|agent|power|team|provider|worker|needs|plan)\b)")
# An upper-case organisation stands as a field of its own: a line, a cell between gaps, a value after a label.
_FIELD_BEFORE = re.compile(r"(?:^|\n|[ \t]{2}|\t|[:|])[ \t]*$")
_FIELD_AFTER = re.compile(r"[ \t]*(?:$|\n|[ \t]{2}|\t|[,|(])")
_KIND_END = re.compile(rf"(?i:{_KIND_WORDS}){_OF_REGION}?{_CORP}?$")
# An institution's kind before a department's words (… REGIONAL HOSPITAL HOSPITALIST SERVICE): the name ends there.
_INSTITUTION = re.compile(r"(?i:hospital|clinic|medical[ \t]center|university|college|institute)(?=[ \t])")
# Words of a note's own heading, not of an organisation (SKILLED NURSING VISIT NOTE, DISCHARGE SUMMARY).
_HEADING_WORDS = frozenset(("note", "notes", "report", "summary", "letter", "form", "record", "consult", "consultation",
                            "visit", "assessment", "discharge", "progress", "admission", "request", "order", "orders",
                            "instructions", "notice", "statement", "results", "result", "encounter", "referral",
                            "evaluation", "exam", "examination", "history", "certificate", "log", "sheet", "department",
                            "dept", "division", "ward", "program", "programme"))


# Words of a body's kind or audience that name no one body (INTERNATIONAL PATIENT SERVICES).
_GENERIC = frozenset(("international", "national", "patient", "patients", "outpatient", "inpatient", "triage",
                      "visiting", "community", "financial", "diseases", "disease", "infectious", "consult", "services"))


def kind_orgs(text: str) -> list[Span]:
    """An organisation of capitalised words ending in a kind of body (see `_KIND_WORDS`), also in upper case and
    after `of the` (Hospice of the …), when one of its words is neither everyday, clinical nor generic."""
    out = []
    for m in _KIND_ORG.finditer(text):
        kinds = list(_KIND.finditer(m.group("v")))
        if not kinds or not kinds[-1].group()[:1].isupper():  # HHA services: a kind of help, not a body's name
            continue
        start, value = _trim_lead(text, *m.span("v"))
        inner = _INSTITUTION.search(value)
        if inner is not None and not _distinct(value[inner.end():]):
            value = value[:inner.end()]
        if value.isupper() and not (_FIELD_BEFORE.search(text, max(0, start - 3), start) and
                                    _FIELD_AFTER.match(text, start + len(value))):
            continue
        if value and _distinct(value):
            out.append(Span(start, start + len(value), ORGANIZATION, 0.75, "en-org-kind"))
    return out


def _trim_lead(text: str, start: int, end: int) -> tuple[int, str]:
    """Leading words of the sentence cut off the organisation (At, The, Via, Her, Per)."""
    value = text[start:end]
    words = list(re.finditer(r"\S+", value))
    for w in words[:-1]:
        word = w.group().rstrip(".,")
        if (en_words.common_word(word) and not en_words.known_name(word) and word.lower() != "the") or \
                word.lower() in _HEADING_WORDS:
            continue
        return start + w.start(), value[w.start():]
    return end, ""


def _all_own(value: str) -> bool:
    """Every word a name's own (a town or a site after a letterhead; not a department such as Infectious Diseases)."""
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", value)
    return bool(words) and all(_distinct(w) for w in words)


def _distinct(value: str) -> bool:
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", value)
    own = [w for w in words if not generic_org_word(w) and not _KIND.fullmatch(w) and
           w.lower() not in _HEADING_WORDS and w.lower() not in _GENERIC and not en_words.common_word(w) and
           not (lexicon.clinical_word(w.lower()) or w.lower() in lexicon.EN_NOT_NAMES)]
    return bool(own) and not en_words.country(value)


# A letterhead: the first lines of a note, before a gap, a bar or a dash (CANYON RIM HOME HEALTH SERVICES).
_HEAD_SPLIT = re.compile(r"[ \t]{2,}|\t|[ \t]*\|[ \t]*|[ \t]+[—–-][ \t]+")
_HEAD_WORDS = re.compile(rf"(?:{_CAP_WORD}|of|the|and|de|del|la)(?:[ \t](?:{_CAP_WORD}|of|the|and|de|del|la)){{1,7}}"
                         rf"{_CORP}?")


def heading_orgs(text: str) -> list[Span]:
    """An organisation set as a note's letterhead (one of its first three lines, its first field) that holds a kind
    of body and a word of its own, with the place or site written after a dash (… Kidney Care - Everett)."""
    out = []
    pos, lines = 0, 0
    while lines < 3 and pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if line.strip():
            lines += 1
            lead = len(line) - len(line.lstrip())
            parts = _HEAD_SPLIT.split(line.strip())
            first = parts[0]
            if _HEAD_WORDS.fullmatch(first) and _KIND_END.search(first) and _distinct(first) \
                    and not any(w.lower().strip(".,") in _HEADING_WORDS for w in first.split()):
                stop = pos + lead + len(first)
                tail = re.match(r"[ \t]+[—–-][ \t]+(?P<t>[A-Z][A-Za-z'’.]*(?:[ \t][A-Z][A-Za-z'’.]*){0,3})"
                                r"(?=[ \t]*(?:$|\n|[ \t]{2}|\||,))", text[stop:end + 1])
                if tail is not None and _all_own(tail.group("t")):
                    stop += tail.end("t")
                out.append(Span(pos + lead, stop, ORGANIZATION, 0.75, "en-org-heading"))
        pos = end + 1
    return out
