"""Structured identifiers found by general mechanisms rather than by their literal labels: a field whose label names
an identifier in any wording (Plan Member ID ...... X, Carrier ID (HMO): X, 登记号 Folha nº：X, 入境許可證：X), national
and health numbers of other countries by their check digits (US MBI, NHS/CHI mod 11, Aadhaar Verhoeff, Singapore
NRIC/FIN (S, T, F, G), Irish PPSN, Australian Medicare, NZ NHI), phones of any country after a call word (checked by
libphonenumber), short pager extensions, messenger handles after the messenger's name, and Chinese official
document numbers (…〔2024〕第118号). Guards keep lab values, doses, dates, times, beds and codes of drugs, tests and
diagnoses (lot, ICD, LOINC, NDC, 国药准字).
"""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid.detectors import Span
from climedbench.deid.patterns import (
    ACCOUNT_ID,
    ID_NUMBER,
    INSURANCE_ID,
    LICENSE_PLATE,
    PASSPORT,
    PHONE,
    PROVINCE_PLATE,
    RECORD_NUMBER,
    identifier_shape,
)

# ---------------------------------------------------------------- label-driven fields

# The head word of a label that names an identifier (the last word before the separator, or before a bracketed
# abbreviation or a second label in another language).
_EN_HEAD = (r"(?:ID|Id|id|No|NO|no|Nr|nº|n\.º|N°|Number|NUMBER|number|Num|#|MRN|MBI|URN|UID|Ref|REF|Reference|"
            r"Account|Acct|ACCT|Member|Policy|Claim|Licen[cs]e|Registration|Reg|Username|User|Login|Handle|"
            r"Passport|Passaporte|Pasaporte|Certificate|Card|Permit|Visa|Identifier|Token|Voucher)")
_EN_LABEL = rf"(?:[A-Z][A-Za-z'/&-]*\.?[ \t]+){{0,3}}{_EN_HEAD}\.?"
_ZH_LABEL = r"[\u4e00-\u9fa5]{1,12}?(?:证|證|号码|號碼|号|號|编号|編號|卡号|卡號|码|碼|账号|帳號|ID)"
# Words in a label that make its value clinical or not personal (a lot, a code of a drug, test or diagnosis, a bed,
# a room, a dose, a score, a page, a version, a count).
_NOT_ID_LABEL = re.compile(
    r"(?i:lot|batch|icd|loinc|ndc|cpt|snomed|drug|test|diagnos|code|bed|room|ward|floor|page|version|ver|dose|score|"
    r"step|item|line|model|size|cycle|day|week|gauge|lead|tooth|table|figure|fig|grade|stage|level|rx[ \t]*norm|"
    r"凭证|批号|批號|准字|床号|床號|床|房号|房號|房|型号|型號|序号|序號|挂号|掛號|页|頁|楼|樓|层|層|代码|代碼|编码|編碼|"
    r"疾病|诊断|診斷|手术|手術|药|藥|检验项目|项目|剂|劑|级|級|次|期|座|字号|尺码|血型)")
# Between a label and its value: an abbreviation in brackets, a second label in another language (Processo nº,
# BIR), dot leaders or a colon (Member ID ....... X, 號碼：X).
_ALT = r"(?:[ \t]*[(（][^()（）\n:：]{1,40}[)）])?(?:[ \t]+[A-Z][A-Za-z]{1,12}(?:[ \t]+(?:nº|n\.º|No\.?|N°))?)?"
_SEP = r"(?:[ \t]*(?:\.{3,}|…+)[ \t]*|[ \t]*[:：=][ \t]*|[ \t]*#[ \t]*)"
_VALUE = (r"(?P<v>[A-Za-z0-9=][A-Za-z0-9\-/.()\[\]〔〕【】]*(?:[\u4e00-\u9fa5]{0,4}第\d{1,8}[号號])?"
          r"(?:[ ][A-Z0-9][A-Z0-9\-()]*){0,3})")
_DATE_OR_TIME = re.compile(r"\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?(?:[ T]\d{1,2}:\d{2})?|\d{1,2}:\d{2}(?::\d{2})?")
_UNIT = re.compile(r"\d(?i:mg|mcg|µg|ug|g|kg|ml|l|mmol|umol|iu|u|%|cm|mm|bpm|mmhg)(?:/[A-Za-z]+)?$")
_READING = re.compile(r"(?<![\d.])\d{1,3}\.\d{1,2}(?![\d.])|(?<![\d/])\d{1,3}(?:-\d{1,3})?/\d{1,3}(?![\d/])")
_ICD_LIKE = re.compile(r"[A-Z]\d{2}(?:\.[0-9A-Za-z]{1,4})?|\d{4,5}-\d")


@cache
def _field_regexes() -> tuple[re.Pattern[str], ...]:
    en = re.compile(rf"(?<![A-Za-z])(?P<label>{_EN_LABEL}){_ALT}{_SEP}{_VALUE}")
    zh = re.compile(rf"(?P<label>{_ZH_LABEL}){_ALT}{_SEP}{_VALUE}")
    return en, zh


def _kind(label: str) -> str:
    low = label.lower()
    if re.search(r"passport|passaporte|pasaporte|visa|护照|護照|通行证|通行證|台胞|回乡|回鄉", low):
        return PASSPORT
    if re.search(r"member|policy|claim|insur|medicare|medicaid|mbi|保险|保險|医保|醫保|健保|社保", low):
        return INSURANCE_ID
    if re.search(r"user|login|handle|account|acct|账号|帳號|用户|用戶", low):
        return ACCOUNT_ID
    if re.search(r"licen|permit|national|identity|身份|證件|证件|bir|nric|ssn", low):
        return ID_NUMBER
    return RECORD_NUMBER


def _clean_value(text: str, start: int, value: str) -> str:
    """The value without trailing words, and without a short number that belongs to the next field (… 68岁)."""
    parts = value.split(" ")
    while len(parts) > 1 and (not re.search(r"\d", parts[-1]) or len(parts[-1]) < 3 or
                              re.match(r"[\u4e00-\u9fa5]", text[start + len(" ".join(parts)):][:1])):
        parts.pop()
    value = " ".join(parts).rstrip(".-/(")
    if value.count(")") > value.count("("):
        value = value.rstrip(")")
    return value


def _is_identifier(label: str, value: str) -> bool:
    if _NOT_ID_LABEL.search(label) or not re.search(r"\d", value) or _READING.search(value):
        return False
    first = value.split(" ")[0]
    # Words before the number are a reading (ID: T MAX 102, ID: received 1000), unless a short capital prefix of a
    # site or a scheme stands before four digits or more (SGH 7741208).
    if not re.search(r"\d", first) and not (re.fullmatch(r"[A-Z]{1,5}", first) and
                                            sum(c.isdigit() for c in value) >= 4 and len(value.split(" ")) == 2):
        return False
    if _DATE_OR_TIME.fullmatch(value) or _UNIT.search(value) or _ICD_LIKE.fullmatch(value):
        return False
    if re.fullmatch(r"\d{1,3}(?:\.\d+)?", value):  # a count, a reading or a score
        return False
    return identifier_shape(value.replace(" ", "")) or (_kind(label) == ACCOUNT_ID and len(value) >= 4)


def labelled_fields(text: str) -> list[Span]:
    """Values of fields whose label names an identifier, in any wording (see the module's doc)."""
    out = []
    for rx in _field_regexes():
        for m in rx.finditer(text):
            label, value = m.group("label"), _clean_value(text, m.start("v"), m.group("v"))
            if not value or not _is_identifier(label, value):
                continue
            s = m.start("v")
            out.append(Span(s, s + len(value), _kind(label), 0.85, "id-field"))
    return out


# ---------------------------------------------------------------- national and health numbers by check digits

_MBI_L = "AC-HJKMNP-RT-Y"
_MBI = re.compile(rf"(?<![A-Za-z0-9-])[1-9][{_MBI_L}][{_MBI_L}0-9]\d-?[{_MBI_L}][{_MBI_L}0-9]\d-?[{_MBI_L}]{{2}}\d{{2}}"
                  r"(?![A-Za-z0-9-])")
_TEN = re.compile(r"(?<![\w.,/+-])(?:\d{3}[ ]\d{3}[ ]\d{4}|\d{10})(?![\w/-]|[.,]\d)")
_AADHAAR = re.compile(r"(?<![\w.,/+-])[2-9]\d{3}[ -]?\d{4}[ -]?\d{4}(?![\w/-]|[.,]\d)")
_NRIC = re.compile(r"(?<![A-Za-z0-9])[STFG]\d{7}[A-Z](?![A-Za-z0-9])")
_PPSN = re.compile(r"(?<![A-Za-z0-9])\d{7}[A-W][AHWTX]?(?![A-Za-z0-9])")
_AU_MEDICARE = re.compile(r"(?<![\w.,/+-])[2-6]\d{3}[ ]?\d{5}[ ]?\d(?:[ -]?\d)?(?![\w/-]|[.,]\d)")
_NHI = re.compile(r"(?<![A-Za-z0-9])[A-HJ-NP-Z]{3}\d{4}(?![A-Za-z0-9])")


def mod11_nhs(value: str) -> bool:
    """NHS (England, Wales) and CHI (Scotland) numbers: ten digits, the last a mod-11 check of the first nine."""
    d = [int(c) for c in re.sub(r"\D", "", value)]
    if len(d) != 10 or len(set(d)) == 1:
        return False
    check = 11 - sum(x * w for x, w in zip(d[:9], range(10, 1, -1), strict=True)) % 11
    return (0 if check == 11 else check) == d[9]


# Verhoeff's tables: the multiplication of the dihedral group D5 and the permutations of the positions.
_VERHOEFF_D = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
               (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
               (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
               (9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
_VERHOEFF_P = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
               (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
               (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8))


def verhoeff_valid(value: str) -> bool:
    """Aadhaar's check digit (Verhoeff's dihedral scheme)."""
    c = 0
    for i, ch in enumerate(reversed(re.sub(r"\D", "", value))):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def nric_valid(value: str) -> bool:
    """Singapore NRIC and FIN: weights 2765432 over the seven digits, a letter for the remainder mod 11."""
    digits = [int(c) for c in value[1:8]]
    total = sum(x * w for x, w in zip(digits, (2, 7, 6, 5, 4, 3, 2), strict=True))
    total += 4 if value[0] in "TG" else 0
    letters = "JZIHGFEDCBA" if value[0] in "ST" else "XWUTRQPNMLK"
    return letters[total % 11] == value[8]


def ppsn_valid(value: str) -> bool:
    """Irish PPSN: seven digits weighted 8 to 2, the second letter weighted 9, the check letter the total mod 23."""
    digits = [int(c) for c in value[:7]]
    total = sum(x * w for x, w in zip(digits, range(8, 1, -1), strict=True))
    if len(value) == 9 and value[8] != "W":
        total += 9 * (ord(value[8]) - 64)
    return "WABCDEFGHIJKLMNOPQRSTUV"[total % 23] == value[7]


def au_medicare_valid(value: str) -> bool:
    """Australian Medicare card: the ninth digit is the first eight weighted 1, 3, 7, 9 (twice), mod 10."""
    d = [int(c) for c in re.sub(r"\D", "", value)]
    return len(d) in (10, 11) and sum(x * w for x, w in zip(d[:8], (1, 3, 7, 9) * 2, strict=True)) % 10 == d[8]


def nhi_valid(value: str) -> bool:
    """New Zealand NHI (three letters without I and O, four digits): a mod-11 check digit."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    nums = [alphabet.index(c) + 1 for c in value[:3]] + [int(c) for c in value[3:6]]
    rest = sum(x * w for x, w in zip(nums, range(7, 1, -1), strict=True)) % 11
    return rest != 0 and (11 - rest) % 10 == int(value[6])


_CHECKED = ((_MBI, None, INSURANCE_ID, "us-mbi"), (_TEN, mod11_nhs, ID_NUMBER, "nhs-chi"),
            (_AADHAAR, verhoeff_valid, ID_NUMBER, "aadhaar"), (_NRIC, nric_valid, ID_NUMBER, "sg-nric"),
            (_PPSN, ppsn_valid, ID_NUMBER, "ie-ppsn"), (_AU_MEDICARE, au_medicare_valid, INSURANCE_ID, "au-medicare"),
            (_NHI, nhi_valid, ID_NUMBER, "nz-nhi"))


def checked_numbers(text: str) -> list[Span]:
    """National and health numbers whose check digit holds (see `_CHECKED`), with or without a label."""
    out = []
    for rx, valid, kind, name in _CHECKED:
        for m in rx.finditer(text):
            if valid is None or valid(m.group()):
                out.append(Span(m.start(), m.end(), kind, 0.8, name))
    return out


# ---------------------------------------------------------------- phones after a call word, handles after a messenger

_CALL = re.compile(r"(?<![A-Za-z])(?:致電|致电|請電|请电|來電|来电|電話|电话|傳真|传真|聯絡|联络|聯繫|联系|"
                   r"(?i:call|phone|tel|fax|ring|text|whatsapp|contact|mob(?:ile)?|cell))"
                   r"[^\d\n(（]{0,8}?[(（]?(?P<v>\+?\d[\d \t().-]{5,16}\d)(?![\d-])")
# Where a number written without its country code may come from (libphonenumber checks its length and ranges).
_REGIONS = ("HK", "MO", "TW", "SG", "MY", "GB", "AU", "NZ", "CA", "IN", "IE", "US", "CN")
_PAGER = re.compile(r"(?<![A-Za-z])(?i:pager|beeper|bleep|page|ext\.?|extension|x)[ \t#:.]*(?P<v>\d-\d{4})(?![\d-])")


# A North-American or Australian toll-free number (1-800-…, (888) …, 1800 …), which libphonenumber may also read as a
# Chinese mobile (180…, 188…).
_TOLL_FREE = re.compile(r"\+?1?[ .-]?\(?8(?:00|88|77|66|55|44|33)\)?[ .-]")


def _valid_phone(value: str) -> bool:
    """A personal number of one of `_REGIONS` (not a toll-free, shared-cost or premium service line)."""
    import phonenumbers
    from phonenumbers import PhoneNumberType as T

    service = (T.TOLL_FREE, T.PREMIUM_RATE, T.SHARED_COST, T.UAN, T.UNKNOWN)
    for region in _REGIONS:
        try:
            number = phonenumbers.parse(value, region)
            if phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) not in service:
                return True
        except phonenumbers.NumberParseException:
            return False
    return False


def called_phones(text: str) -> list[Span]:
    """A number after a call word (致電診所 2573 6612, fax 8123 4567) that libphonenumber takes for a phone of one of
    `_REGIONS`, and a pager's short extension (beeper 3-5521)."""
    out = []
    for m in _CALL.finditer(text):
        value = m.group("v").rstrip(" \t(.-")
        if not _DATE_OR_TIME.fullmatch(value) and not _TOLL_FREE.match(value) and _valid_phone(value):
            out.append(Span(m.start("v"), m.start("v") + len(value), PHONE, 0.8, "called-phone"))
    out += [Span(*m.span("v"), PHONE, 0.8, "pager-ext") for m in _PAGER.finditer(text)]
    return out


_MESSENGER = (r"(?:Signal|WhatsApp|Telegram|Messenger|Instagram|Facebook|TikTok|Snapchat|Twitter|Threads|"
              r"LINE[ \t]+ID|KakaoTalk|Viber|WeChat|Discord|Reddit|Skype|LinkedIn|Bluesky|Mastodon|"
              r"微信|抖音|快手|小红书|小紅書|B站|哔哩哔哩|微博|钉钉|釘釘|QQ|知乎)")
_HANDLE_AFTER = re.compile(rf"(?<![A-Za-z]){_MESSENGER}(?:[ \t]*(?:用户名|用戶名|账号|帳號|昵称|暱稱|id|ID|handle|"
                           r"username|name))?[ \t]*[(（:：\"“「'@]*[ \t]*"
                           r"(?P<v>@?[A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)+|@[A-Za-z0-9_.]{3,30}[A-Za-z0-9]|"
                           r"@?[A-Za-z]+\d+[A-Za-z0-9]*)(?![\w@])")
# A handle glued to a Chinese word (号是lin_xiaoyu1993): an underscore and a digit.
_ZH_GLUED_HANDLE = re.compile(r"(?<=[\u4e00-\u9fa5])(?P<v>[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\d[A-Za-z0-9_]*)"
                              r"(?![A-Za-z0-9_@])")


def messenger_handles(text: str) -> list[Span]:
    """A handle after a messenger's or a platform's name (Signal jo.b.77, Instagram @x.y, Messenger (a.b.c)), and one
    with an underscore and a digit glued to a Chinese word."""
    out = [Span(*m.span("v"), ACCOUNT_ID, 0.8, "messenger-handle") for m in _HANDLE_AFTER.finditer(text)
           if not re.fullmatch(r"[a-z]+\.(?:com|org|net|me|io|cn)", m.group("v"))
           and sum(c.isalpha() for c in m.group("v")) >= 3]  # not a grade or a sequence (Signal T2.5)
    return out + [Span(*m.span("v"), ACCOUNT_ID, 0.8, "glued-handle") for m in _ZH_GLUED_HANDLE.finditer(text)]


# A report's or a specimen's number in brackets after the report (Cytology (CY23/N40918), 病理報告（XY23-0456）).
_REPORT_ID = re.compile(r"(?<![A-Za-z])(?i:histolog\w*|patholog\w*|biops\w*|cytolog\w*|report|specimen|smear|slide|"
                        r"study|imaging|scan|film|accession)[^\n()（）]{0,6}[（(][ \t]*"
                        r"(?P<v>(?=[A-Z0-9/-]*\d)(?=[A-Z0-9/-]*[A-Z-])[A-Z0-9][A-Z0-9/-]{4,20})[ \t]*[)）]|"
                        r"(?:病理|报告|報告|切片|标本|標本|检查|檢查|影像|活检|活檢)[^\n()（）]{0,4}[（(][ \t]*"
                        r"(?P<w>(?=[A-Z0-9/-]*\d)(?=[A-Z0-9/-]*[A-Z-])[A-Z0-9][A-Z0-9/-]{4,20})[ \t]*[)）]")
# A handle in quotes after a word for a user name (用户名"清风_07", username "blue heron"): anything between the quotes.
_QUOTED_HANDLE = re.compile(r"(?:用户名|用戶名|昵称|暱稱|网名|網名|账号|帳號|"
                            r"(?i:username|user\s+name|screen\s+name|handle|nickname))"
                            r"[ \t]*[:：]?[ \t]*[\"“「『'](?P<v>[^\"”」』'\n]{1,30})[\"”」』']")
# A Chinese plate with its separator in any place (鲁BX 7Q216, 粤B·D 12345), and a plate after a vehicle word in groups
# (vehicle MKT 5581, ambulance OH EMS 3310).
_ZH_PLATE = re.compile(rf"(?<![\u4e00-\u9fa5])[{PROVINCE_PLATE}][A-HJ-NP-Z](?:[·• ]?[A-HJ-NP-Z0-9]){{5,6}}"
                       r"(?![A-Za-z0-9])")
_VEHICLE_PLATE = re.compile(r"(?<![A-Za-z])(?i:vehicle|car|truck|van|ambulance|cab|taxi|tag|motorbike|motorcycle|"
                            r"scooter|plates?)[ \t:#(]+(?P<v>(?:[A-Z]{2}[ \t])?[A-Z0-9]{2,4}(?:[ -][A-Z0-9]{2,4}){1,2})"
                            r"(?![\w-])")


def _plate_like(value: str) -> bool:
    groups = value.split()
    plate = "".join(groups[1:]) if len(groups) == 3 and groups[0].isalpha() and len(groups[0]) == 2 else value
    plate = re.sub(r"[ -]", "", plate)
    return sum(c.isdigit() for c in plate) >= 3 and sum(c.isalpha() for c in plate) >= 2 and \
        not _UNIT.search(value) and not re.search(r"\d[ -]?(?:mg|ml|cm|mm|kg|hr|min)\b", value, re.IGNORECASE)


def shaped_ids(text: str) -> list[Span]:
    """Report numbers in brackets, quoted handles and plates in groups."""
    out = [Span(*(m.span("v") if m.group("v") else m.span("w")), RECORD_NUMBER, 0.8, "report-id")
           for m in _REPORT_ID.finditer(text)]
    out += [Span(*m.span("v"), ACCOUNT_ID, 0.8, "quoted-handle") for m in _QUOTED_HANDLE.finditer(text)]
    out += [Span(*m.span(), LICENSE_PLATE, 0.8, "zh-plate-spaced") for m in _ZH_PLATE.finditer(text)
            if re.search(r"\d", m.group())]
    out += [Span(*m.span("v"), LICENSE_PLATE, 0.8, "vehicle-plate") for m in _VEHICLE_PLATE.finditer(text)
            if _plate_like(m.group("v"))]
    return out  # official document numbers: intl_ids' zh-document-number


def field_identifiers(text: str) -> list[Span]:
    """Every detector of this module."""
    return labelled_fields(text) + checked_numbers(text) + called_phones(text) + messenger_handles(text) + \
        shaped_ids(text) + column_ids(text) + operator_logins(text)


# ---------------------------------------------------------------- table columns and operators' logins

_CELL_SPLIT = re.compile(r"[ \t]*\|[ \t]*|\t+|[ \u3000]{2,}")
_ID_HEADER = re.compile(r"(?<![A-Za-z])(?i:id|no\.?|nr|number|num|#|mrn|urn|user|login|username|handle|account|acct|"
                        r"member|policy|claim|passport|serial|ref)(?![A-Za-z])|(?:号|號|编号|編號|码|碼|账号|帳號|ID)$")
_LOGIN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{2,24}")


def _cells(line: str) -> list[str]:
    return [c for c in _CELL_SPLIT.split(line.strip().strip("|")) if c != ""]


def _column_value(header: str, cell: str) -> bool:
    if _DATE_OR_TIME.fullmatch(cell) or _UNIT.search(cell) or _READING.search(cell):
        return False
    if _kind(header) == ACCOUNT_ID:
        return _LOGIN.fullmatch(cell) is not None or identifier_shape(cell.replace(" ", ""))
    return re.search(r"\d", cell) is not None and identifier_shape(cell.replace(" ", ""))


def column_ids(text: str) -> list[Span]:
    """The cells below a table's header cell that names an identifier (病案号, User ID, 登录账号, Acct #): rows split on
    two spaces or more, tabs or pipes, with as many cells as the header; a blank line ends the table."""
    out: list[Span] = []
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    header: list[str] = []
    for line, at in zip(lines, offsets, strict=True):
        cells = _cells(line)
        if len(cells) < 3:
            header = []
            continue
        if header and len(cells) == len(header):
            pos = 0
            for head, cell in zip(header, cells, strict=True):
                pos = line.index(cell, pos)
                if _ID_HEADER.search(head) and not _NOT_ID_LABEL.search(head) and _column_value(head, cell):
                    out.append(Span(at + pos, at + pos + len(cell), _kind(head), 0.8, "id-column"))
                pos += len(cell)
        elif any(_ID_HEADER.search(c) and not _NOT_ID_LABEL.search(c) for c in cells) and \
                not any(re.search(r"\d", c) for c in cells):
            header = cells
        else:
            header = []
    return out


# A login after an operator's or a user's label (操作员 zhoujm, 打印者：abcd, Printed by: jdoe2), checked against the
# English word list; and a login of four characters or more after any Chinese label of who did something (…员, …者) or
# of a user (操作员 wangxf, 打印者：lihm, 用户…), taken as it stands.
_OPERATOR = re.compile(r"(?:操作员|操作員|操作者|打印者|打印人|录入者|录入人|錄入者|审核人|審核人|登录名|登錄名|工号|"
                       r"(?i:operator|printed\s+by|entered\s+by|user))[ \t]*[:：]?[ \t]*(?P<v>[a-z][a-z0-9_.]{2,19})"
                       r"(?![A-Za-z0-9_.@])")
_ZH_LOGIN = re.compile(r"(?:[\u4e00-\u9fa5](?:员|者)|用户|账号|登录名)[ \t]*[:：]?[ \t]*(?P<v>[a-z][a-z0-9_.]{3,19})"
                       r"(?![A-Za-z0-9_.@])")


def operator_logins(text: str) -> list[Span]:
    """Lower-case logins after an operator's or a user's label (see `_OPERATOR` and `_ZH_LOGIN`): after the listed
    labels not a word of the language (a login has no vowel pattern we can trust, so common words are left to the
    English word list)."""
    from climedbench.deid import en_words

    out = [Span(*m.span("v"), ACCOUNT_ID, 0.75, "operator-login") for m in _OPERATOR.finditer(text)
           if not en_words.common_word(m.group("v")) and m.group("v") not in ("the", "and", "was", "has")]
    return out + [Span(*m.span("v"), ACCOUNT_ID, 0.8, "zh-login") for m in _ZH_LOGIN.finditer(text)]
