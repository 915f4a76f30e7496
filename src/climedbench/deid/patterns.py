"""What counts as PHI, as data: the regular expressions and checks of every pattern detector.

Each entry is (entity, detector name, pattern, score, validator). A pattern with a named group `v` reports only that
group (the value after a cue such as 住院号: or MRN:); otherwise the whole match. Entity types follow HIPAA's Safe
Harbor list and its Chinese counterparts (GB/T 37964-2019): names, identity and document numbers, record numbers,
phones, addresses below the province/state, dates other than the year, ages of 90 and over, organisations, e-mail,
URLs, IPs, licence plates, bank cards, device serials and messaging ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Entity types (the labels of the report and of mask mode).
NAME, ID_NUMBER, PASSPORT, INSURANCE_ID, RECORD_NUMBER, PHONE = "NAME", "ID_NUMBER", "PASSPORT", "INSURANCE_ID", \
    "RECORD_NUMBER", "PHONE"
ADDRESS, DATE, AGE, ORGANIZATION, EMAIL, URL, IP_ADDRESS = "ADDRESS", "DATE", "AGE", "ORGANIZATION", "EMAIL", "URL", \
    "IP_ADDRESS"
LICENSE_PLATE, BANK_CARD, DEVICE_ID, ACCOUNT_ID = "LICENSE_PLATE", "BANK_CARD", "DEVICE_ID", "ACCOUNT_ID"
STRUCTURED = (ID_NUMBER, PASSPORT, INSURANCE_ID, RECORD_NUMBER, PHONE, EMAIL, URL, IP_ADDRESS, LICENSE_PLATE,
              BANK_CARD, DEVICE_ID, ACCOUNT_ID)
ALL_TYPES = (NAME, ADDRESS, DATE, AGE, ORGANIZATION, *STRUCTURED)


def gb11643_valid(value: str) -> bool:
    """The check character of an 18-character resident identity number (GB 11643-1999, ISO 7064 MOD 11-2)."""
    s = re.sub(r"[\s-]", "", value).upper()
    if not re.fullmatch(r"\d{17}[\dX]", s):
        return False
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    total = sum(int(c) * w for c, w in zip(s[:17], weights, strict=True))
    return "10X98765432"[total % 11] == s[17]


def identifier_shape(value: str) -> bool:
    """Five digits or more, or letters with three digits or more (UJ458AB); not a year alone, a dose, a time."""
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    if re.fullmatch(r"(?:19|20)\d{2}", value) or re.search(r"\d(?:mg|ml|mL|kg|cm|mm|g|h|min)$", value):
        return False
    return digits >= 5 or (letters >= 1 and digits >= 3 and len(value) >= 5)


def luhn_valid(value: str) -> bool:
    digits = [int(c) for c in re.sub(r"\D", "", value)]
    if len(digits) < 12:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _phone_digits(value: str) -> bool:
    return 8 <= sum(c.isdigit() for c in value) <= 15


def _not_toll_free(value: str) -> bool:
    """Toll-free numbers (1-800-222-1222) belong to organisations, not to a person."""
    digits = re.sub(r"\D", "", value)
    return not re.match(r"1?8(?:00|88|77|66|55|44|33)", digits)


# Public reference sites whose addresses identify nobody (a trial registry, a health agency).
_PUBLIC_SITES = ("clinicaltrials.gov", "nih.gov", "cdc.gov", "fda.gov", "who.int", "nhc.gov.cn", "chictr.org.cn")


def _not_public_reference(value: str) -> bool:
    host = value.split("/")[0].lower()
    return not any(host == s or host.endswith("." + s) for s in _PUBLIC_SITES)


@dataclass(frozen=True)
class PatternSpec:
    entity: str
    name: str
    regex: str
    score: float
    validator: Callable[[str], bool] | None = None
    # A value that fails the validator is still reported, at this score (0: dropped).
    invalid_score: float = 0.0
    flags: int = re.IGNORECASE


_ND = r"(?<![0-9A-Za-z])"  # no digit or letter before
_NA = r"(?![0-9A-Za-z])"  # none after
_SEP = r"[:：#＃\s（(]*(?:为|是|号码?[:：]?|no\.?|number|#)?[:：\s（(#]*"  # between a cue and its value
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|" \
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
PROVINCE_PLATE = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"

PATTERNS: tuple[PatternSpec, ...] = (
    # Identity numbers: 18 characters with the GB 11643 check character; a wrong check character is still reported
    # (a mistyped number still identifies), at a lower score. Groups may be separated by a space or hyphen.
    PatternSpec(ID_NUMBER, "cn-resident-id",
                _ND + r"[1-9]\d{5}[\s-]?(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[\s-]?\d{3}[\dXx]" + _NA,
                1.0, gb11643_valid, 0.85),
    PatternSpec(ID_NUMBER, "cn-resident-id-15", _ND + r"[1-9]\d{7}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}" + _NA,
                0.7),
    PatternSpec(ID_NUMBER, "id-cue",
                r"(?<![A-Za-z])(?:身份证(?:号码?)?|证件号码?|公民身份号码|驾驶证号?|驾照号?|ID\s?(?:card|number|no\.?)|state\s+ID|driver'?s\s+licen[cs]e(?:\s+(?:number|no\.?|#))?|DL\s?#)" + _SEP +
                r"(?P<v>[0-9A-Z][0-9A-Z\s-]{5,22}[0-9A-Z])", 0.95),
    PatternSpec(INSURANCE_ID, "us-ssn", _ND + r"\d{3}-\d{2}-\d{4}" + _NA, 0.95),
    PatternSpec(INSURANCE_ID, "insurance-cue",
                r"(?<![A-Za-z])(?:医保卡号?|社保卡号?|医保号|社保号|医疗保险号|新农合(?:卡)?号|SSN|social\s+security(?:\s+(?:number|no\.?))?|"
                r"medicare(?:\s+(?:number|no\.?|id))?|medicaid(?:\s+(?:number|no\.?|id))?|insurance\s+(?:id|number|no\.?)|"
                r"member\s+id|policy\s+(?:number|no\.?)|insurance(?:\s+on\s+file)?|MBI|secondary\s+insurance|subscriber\s+id)" +
                _SEP + r"(?:Medicare\s+MBI\s+|MBI\s+)?(?P<v>[0-9A-Z][0-9A-Z-]{4,24})(?:;\s+secondary\s+(?P<w>[0-9A-Z-]{5,24}))?",
                0.95),
    PatternSpec(INSURANCE_ID, "insurance-secondary", r"(?<![A-Za-z])secondary[:\s]+(?P<v>[A-Z]{2,4}\d{6,12})", 0.9),
    PatternSpec(PASSPORT, "passport-cue", r"(?<![A-Za-z])(?:护照(?:号码?)?|passport(?:\s+(?:number|no\.?|#))?)" + _SEP +
                r"(?P<v>[A-Z]{0,2}\d{6,9}[A-Z]?)(?![A-Za-z0-9])", 0.95),
    PatternSpec(PASSPORT, "cn-passport", _ND + r"[EG]\d{8}" + _NA, 0.6, flags=0),
    PatternSpec(RECORD_NUMBER, "record-cue",
                r"(?<![A-Za-z])(?:住院号|门诊号|病案号|病历号|急诊号|就诊卡号|诊疗卡号|登记号|检查号|影像号|放射号|病理号|标本号|条码号|"
                r"accession|thread\s*#|住院流水号|体检编号|体检号|腕带号|就诊号|流水号|申请单号|报告编号|标本编号|ID号|MRN|acct|medical\s+record\s+(?:number|no\.?|#)|MR\s?#|record\s+(?:number|no\.?|#)|"
                r"acct(?:ount)?\s*(?:number|no\.?|#)|accession\s+(?:number|no\.?|#)|encounter\s+(?:number|no\.?|#|id)|"
                r"visit\s+(?:number|no\.?|id)|patient\s+id|case\s+(?:number|no\.?))" + _SEP +
                r"(?P<v>[A-Z]{0,4}[-]?\d[0-9A-Z-]{2,20})", 0.95),
    PatternSpec(BANK_CARD, "bank-card", _ND + r"(?:\d{4}[\s-]?){3}\d{4}(?:[\s-]?\d{1,3})?" + _NA, 0.9, luhn_valid, 0.0),
    PatternSpec(BANK_CARD, "bank-cue", r"(?<![A-Za-z])(?:银行卡号?|信用卡号?|卡号|账户|账号|收款账户|bank\s+(?:card|account)(?:\s+(?:number|no\.?))?|"
                r"credit\s+card(?:\s+(?:number|no\.?))?)" + _SEP + r"(?P<v>\d[\d\s-]{9,25}\d)", 0.9),
    # Phones: Chinese mobiles with any common spacing and +86; landlines with an area code (and extension);
    # North-American numbers; any number after a phone cue.
    # Not after "86)" (the prefix is the match's); after a bracketed relation it is (邹凤（母）13607914428).
    PatternSpec(PHONE, "cn-mobile", _ND + r"(?<![0-9A-Za-z][)）])(?:[(（]?(?:\+|00)?86[)）]?[\s-]?)?1[3-9]\d[\s.\-—–]?\d{4}"
                r"[\s.\-—–]?\d{4}" + _NA, 0.95),
    # 13661 882 093 and 1375 7781 204: a mobile in groups of five, three and three, or four, four and three.
    PatternSpec(PHONE, "cn-mobile-532", _ND + r"1[3-9]\d{3}[\s-]\d{3}[\s-]\d{3}" + _NA, 0.9),
    PatternSpec(PHONE, "cn-mobile-443", _ND + r"1[3-9]\d{2}[\s-]\d{4}[\s-]\d{3}" + _NA, 0.9),
    # International numbers: a + and a country code, then 6 to 12 more digits in groups (+233 24 555 0187,
    # +86-574-8766-3102, +7 914 555 28 19).
    PatternSpec(PHONE, "intl-phone", r"(?<![\w+])\+\d{1,3}(?:[\s.\-—–]?\(?\d{1,4}\)?){2,5}" + _NA, 0.9, _phone_digits),
    # The last digits of a phone or card, named as such (手机尾号8892, last 4 of card 4471).
    PatternSpec(PHONE, "phone-tail", r"(?:尾号|后四位|末四位|last\s+(?:4|four)(?:\s+digits)?(?:\s+of\s+\w+)?)[:：\s]*(?P<v>\d{3,6})",
                0.85),
    PatternSpec(PHONE, "cn-landline", r"(?<![0-9A-Za-z.])(?:[(（]?(?:\+|00)?86[)）]?[\s-]?)?(?:[(（]0\d{2,3}[)）]|0\d{2,3})"
                r"[\s\-—–]{0,2}[2-9]\d{2,3}[\s-]?\d{3,4}(?:[\s-]?(?:转|ext\.?|x|-)\s?\d{1,5})?" + _NA, 0.9),
    PatternSpec(PHONE, "us-phone", r"(?<![0-9A-Za-z.])(?:\+?1[\s.-]?)?(?:\(\s?\d{3}\s?\)[\s-]?|\d{3}[\s.-])\d{3}\s?[\s.-]\s?\d{4}"
                r"(?:,?\s?(?:ext\.?|x)\s?\d{1,5})?" + _NA, 0.9, _not_toll_free),
    # A seven-digit local number (555-0142).
    PatternSpec(PHONE, "us-local", r"(?<![\w.\-/])[2-9]\d{2}-\d{4}(?![\w\-/]|\.\d)", 0.6),
    PatternSpec(PHONE, "phone-cue", r"(?<![A-Za-z])(?:电话|手机|手机号|联系电话|联系方式|座机|传真|tel(?:ephone)?|phone|mobile|cell|fax|"
                r"pager|beeper|bleep)(?:号码?)?" + _SEP + r"(?P<v>\+?\(?\d[\d\s().-]{5,18}\d)", 0.9),
    PatternSpec(EMAIL, "email", r"[A-Za-z0-9._%+-]+ ?@ ?[A-Za-z0-9.-]+\.[A-Za-z]{2,}", 1.0),
    PatternSpec(URL, "url", r"(?:https?://|www\.)[^\s，。；、<>\"'）)]+", 0.95),
    PatternSpec(URL, "domain-path", r"(?<![\w@.])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|cn|io|co|us|uk|hk|tw|info)"
                r"(?:\.cn)?/[^\s，。；、<>\"'）)]*", 0.9, _not_public_reference),
    PatternSpec(IP_ADDRESS, "ipv4", _ND + r"(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)" + _NA,
                0.9),
    PatternSpec(IP_ADDRESS, "ipv6-short", r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6}(?![0-9A-Fa-f:])"
                r"|(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){2,7}:(?![0-9A-Fa-f:])", 0.85),
    PatternSpec(IP_ADDRESS, "ipv6", r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])", 0.9),
    PatternSpec(LICENSE_PLATE, "cn-plate", f"[{PROVINCE_PLATE}][A-HJ-NP-Z][·•\\s]?[A-HJ-NP-Z0-9]{{4,5}}"
                r"[A-HJ-NP-Z0-9挂学警港澳]" + _NA, 0.9, flags=0),
    PatternSpec(LICENSE_PLATE, "plate-cue", r"(?<![A-Za-z])(?:车牌号?码?|licen[cs]e\s+plate(?:\s+(?:number|no\.?))?|plate\s+(?:number|no\.?))"
                + _SEP + r"(?P<v>[A-Z0-9\u4e00-\u9fa5][A-Z0-9·\s-]{3,9}[A-Z0-9])", 0.9),
    PatternSpec(LICENSE_PLATE, "plate-word", r"(?<![A-Za-z])(?:vehicle\s+|car\s+)?plate[:\s#]+(?P<v>(?-i:[A-Z0-9]{1,4}[\s-]?[A-Z0-9]{2,5}))(?![A-Za-z0-9])",
                0.9),
    PatternSpec(DEVICE_ID, "serial-cue", r"(?<![A-Za-z])(?:序列号|设备编号|设备号|出厂编号|植入物编号|型号及序列号|serial(?:\s+(?:number|no\.?|#))?|"
                r"S/N|SN|device\s+(?:id|number|no\.?)|UDI|IMEI|MAC(?:\s+address)?|传感器编号|传感器|发射器编号|"
                r"transmitter(?:\s+id)?|sensor(?:\s+(?:id|serial))?|lead\s+SN|implant\s+(?:id|serial))" + _SEP +
                # A serial has a digit (not "Serial abdominal exams", not "mac" of "machinist").
                r"(?P<v>(?=(?:(?:LOT-SN|SN|S/N)\s)?[^\s]*\d)(?:(?:LOT-SN|SN|S/N)\s)?[A-Z0-9][A-Z0-9:-]{4,30})", 0.9),
    PatternSpec(ACCOUNT_ID, "wechat", r"(?<![A-Za-z])(?:微信号?|wechat(?:\s+id)?|weixin|vx)" + _SEP + r"(?P<v>[A-Za-z][-_A-Za-z0-9]{5,19}|\d{6,12})",
                0.9),
    PatternSpec(ACCOUNT_ID, "qq", r"(?<![A-Za-z])QQ(?:号码?)?" + _SEP + r"(?P<v>\d{5,12})", 0.9),
    PatternSpec(ACCOUNT_ID, "handle-cue", r"(?<![A-Za-z])(?:微博|钉钉|支付宝(?:账号)?|twitter|instagram|facebook|linkedin|skype|"
                r"(?:portal\s+)?user\s?name|login(?:\s+id)?|用户名|账号名)(?:账号|号|id)?"
                # after a colon any handle; after a space only one with a digit, _, @ or a dot (not "login from")
                r"(?:\s*[:：#＃]\s*|\s+(?=@|[A-Za-z0-9_.:-]*[\d_.]))"
                r"(?P<v>@?[A-Za-z0-9_.:-]*[A-Za-z0-9_])", 0.85),
    # Dates other than the year alone (shifted in surrogate mode; see dates.py for the formats).
    PatternSpec(DATE, "zh-ymd", r"(?<!\d)(?:18|19|20)?\d{2}\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?[日号]", 0.95),
    # Taiwan's Republic-of-China years (中華民國113年3月5日, 民國58年4月3日, 113年10月1日).
    PatternSpec(DATE, "zh-roc", r"(?:中華民國|中华民国|民國|民国)\s?\d{2,3}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?"
                r"|(?<![\d.])1[01]\d\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?[日号]", 0.95, flags=0),
    PatternSpec(DATE, "zh-numeral", r"(?:[〇零一二三四五六七八九]{2,4}年)?(?:十[一二]?|[一二三四五六七八九])月"
                r"(?:[一二]?十[一二三四五六七八九]?|三十一?|[一二三四五六七八九])[日号]", 0.9, flags=0),
    # Two-digit years (23-12-01, 23/4/20, 23.6.6) and day-first dates (05.11.2023, 14/03/2023).
    PatternSpec(DATE, "yy-md", r"(?<![\w.\-/])(?:[0-4]\d|[89]\d)([-/.])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])(?![\w\-/]|\.\d)",
                0.8),
    PatternSpec(DATE, "dmy", r"(?<![\w.\-/])(?:0?[1-9]|[12]\d|3[01])([-/.])(?:0?[1-9]|1[0-2])\1(?:18|19|20)\d{2}(?![\w\-/]|\.\d)",
                0.9),
    PatternSpec(DATE, "d-mon-y", r"(?<![\w])(?:0?[1-9]|[12]\d|3[01])[-\s/]" + _MONTHS + r"\.?[-\s/](?:18|19|20)?\d{2}(?![\w])",
                0.95),
    PatternSpec(DATE, "m-y", r"(?<![\w.\-/])(?:0?[1-9]|1[0-2])/(?:19|20)\d{2}(?![\w\-/]|\.\d)", 0.85),
    PatternSpec(DATE, "zh-ym", r"(?<!\d)(?:18|19|20)\d{2}\s?年\s?\d{1,2}\s?月(?!\s?\d{1,2}\s?[日号])", 0.9),
    PatternSpec(DATE, "zh-md", r"(?<![\d年])(?<!年\s)\d{1,2}\s?月\s?\d{1,2}\s?[日号]", 0.9),
    PatternSpec(DATE, "iso-ymd", r"(?<![\d.])(?:18|19|20)\d{2}([-/.])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])(?![\d])",
                0.95),
    PatternSpec(DATE, "us-mdy", r"(?<![\d/.])(?:0?[1-9]|1[0-2])([/-])(?:0?[1-9]|[12]\d|3[01])\1(?:18|19|20)?\d{2}(?![\d/])",
                0.9),
    PatternSpec(DATE, "dmy-name", r"(?<![\w])(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTHS +
                r"\.?,?\s+(?:18|19|20)\d{2}(?!\d)", 0.95),
    PatternSpec(DATE, "mdy-name", r"(?<![\w])" + _MONTHS + r"\.?\s+(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?,?\s+"
                r"(?:18|19|20)\d{2}(?!\d)", 0.95),
    PatternSpec(DATE, "my-name", r"(?<![\w])" + _MONTHS + r"\.?,?\s+(?:18|19|20)\d{2}(?!\d)", 0.85),
    PatternSpec(DATE, "md-name", r"(?<![\w])" + _MONTHS + r"\.?\s+(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?(?![\w,])"
                r"(?!,?\s+(?:18|19|20)\d{2})", 0.7),
    PatternSpec(DATE, "dm-name", r"(?<![\w])(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?[ \t](?:of\s+)?" + _MONTHS +
                r"\b(?!\.?,?\s+(?:18|19|20)\d{2})(?!\.?,?\s+\d{1,2}\b)", 0.7),
    # Part of a month or a year (2023年5月下旬, 9月初, 2020年冬), and a month alone where a date fits (7月起, 于3月):
    # not a count of months (3个月, 术后3月, 第2月).
    PatternSpec(DATE, "zh-month-part", r"(?<![\d个第])(?:(?:18|19|20)\d{2}\s?年\s?)?(?:1[0-2]|0?[1-9])\s?月份?"
                r"(?:上旬|中旬|下旬|初|底|末|中下旬|中上旬)|(?<!\d)(?:18|19|20)\d{2}\s?年(?:春|夏|秋|冬)(?:季|天)?", 0.85,
                flags=0),
    PatternSpec(DATE, "zh-month-cued", r"(?<![\d个第后前余近孕约半每数多])(?:1[0-2]|[1-9])月份?"
                r"(?=起|开始|复查|恢复|停药|来诊|就诊|入院|出院)|(?<=[于在自从])(?:1[0-2]|[1-9])月份?(?![\d余前后内])", 0.8,
                flags=0),
    # A mobile with its middle digits masked (138****5678): what is left still narrows the person down.
    PatternSpec(PHONE, "cn-mobile-masked", _ND + r"1[3-9]\d[*＊xX]{4}\d{4}" + _NA, 0.85, flags=0),
    # A Hong Kong identity card number with its check character in brackets (A123456(7)).
    PatternSpec(ID_NUMBER, "hk-id", _ND + r"[A-Z]{1,2}\d{6}[(（][0-9A][)）]", 0.9, flags=0),
    # A file number of a mediation, an appraisal or a court (杭调[2023]第12号, 鉴字〔2024〕第8号) after its cue.
    PatternSpec(RECORD_NUMBER, "zh-docket", r"(?:编号|案号|受理号|文书号|鉴定号|调解号|委托号)[:：\s]*"
                r"(?P<v>[\u4e00-\u9fa5]{1,8}[\[〔【(（](?:19|20)\d{2}[\]〕】)）][\u4e00-\u9fa5]{0,5}?\d{1,6}号)", 0.9),
    # Ages of 90 and over.
    PatternSpec(AGE, "age-90", r"(?<!\d)(?:9\d|1[0-4]\d)\s?(?:岁|周岁|週歲|歲|[\s-]?years?[\s-]?old|\s?years?\s+of\s+age"
                r"|\s?y\.?/?o\.?(?![a-z])|\s?yrs?\b|Y\b)", 0.95),
    # In words; not after another numeral (八九十岁 is a vague "eighty or ninety").
    PatternSpec(AGE, "age-90-words", r"(?:(?<![零〇一二三四五六七八九十百])九十[一二三四五六七八九]?|一百(?:零?[一二三四五六七八九]|"
                r"一十[一二三四五六七八九]?)?)(?:周|週)?[岁歲]"
                r"|\b(?:ninety|one\s+hundred)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?[\s-]*(?:years?[\s-]old"
                r"|years?\s+of\s+age|y\.?/?o\.?)",
                0.95),
    PatternSpec(AGE, "age-90-sex", r"(?<=,\s)(?P<v>9\d|1[0-4]\d)(?=\s?[FM]\b)", 0.9, flags=0),
    PatternSpec(AGE, "age-90-cue", r"(?<![A-Za-z])(?:年龄|age[d]?|aged)" + _SEP + r"(?P<v>(?:9\d|1[0-4]\d))(?!\d)", 0.9),
)
