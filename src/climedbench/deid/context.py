"""Detectors that read the words around a value: any identifier after a word that names one (…号, 编号, 单号, ID, #,
case, claim, ticket, lot, VIN), handles, and dates without a year (10/15, 6/18—6/30, 下次透析:11/9), which look like
fractions, scores and doses and are taken only where a date fits. `patterns.PATTERNS` holds the values that are
identifiers by their shape alone."""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.patterns import (
    ACCOUNT_ID,
    DATE,
    DEVICE_ID,
    ID_NUMBER,
    INSURANCE_ID,
    LICENSE_PLATE,
    NAME,
    PASSPORT,
    RECORD_NUMBER,
    identifier_shape,
)

# The kind of identifier a cue word names; anything else that ends in 号 / ID / # is a record number.
_KINDS = (
    (PASSPORT, r"护照|通行证|台胞证|回乡证|回鄉證|签证|passport|visa"),
    (ID_NUMBER, r"身份证|出生证|证件|军官证|驾驶证|驾照|permit|licen[cs]e|\bDL\b|\bCDL\b|state\s+id"),
    (INSURANCE_ID, r"保单|保险|报案|理赔|医保|社保|会员|member|policy|claim|insurance|subscriber|group|client\s+id|"
                   r"plan\s+id|medicaid|medicare|pending\s+id"),
    (DEVICE_ID, r"序列|SN|S/N|IMEI|UDI|批号|LOT|设备|仪器编号|植入物|机号|血袋|献血码|communicator|device|serial|VIN|transmitter"),
    (LICENSE_PLATE, r"\btag\b|车牌"),
    (ACCOUNT_ID, r"账号|工号|用户|user|login|handle|LINE|WhatsApp|Telegram|Discord|Messenger"),
)
# Words before 号 that do not make an identifier (a bed, a machine, a model, a room, a floor, a size).
_NOT_ID_CUES = ("床号", "机号", "型号", "房号", "楼号", "层号", "座号", "序号", "挂号", "字号", "尺码号", "期号", "血型号")
_ZH_CUE = (r"(?:[\u4e00-\u9fa5]{0,6}?(?:编号|号码|单号|档案号|卡号|证号|会员号|保单号|报案号|批号|工号|号|卡|编码|代码|条码|"
           r"[\u4e00-\u9fa5]码|流水|案件|證號|號)|[\u4e00-\u9fa5]{1,6}(?:ID|id)|医保|社保|护照|身份证|证件|序列号\s*SN)")
_EN_CUE = (r"(?<![A-Za-z])(?i:(?:[a-z]+\s+)?(?:id|sn|s/n|imei|udi|serial|lic|no\.|number|ref(?:erence)?(?:\s*#)?|case|claim|ticket|acc(?:ession)?|acct|account|lot|"
           r"vin|group|permit|cdl|dl|licen[cs]e|passport|policy|auth(?:orization)?|confirmation|requisition|tracking|"
           r"receipt|encounter|study\s+id|specimen|tag|communicator\s+id|user(?:name)?|login|handle|mrn)(?![A-Za-z])|#)")
_VALUE = r"(?P<v>[A-Za-z0-9(][A-Za-z0-9()./#_\-]*(?:[ ]{1,2}[A-Z0-9(][A-Z0-9()./#\-]*){0,4})"


@cache
def _id_regexes() -> tuple[re.Pattern[str], ...]:
    sep = r"[ \t\u3000]*[:：#＃=]?[ \t\u3000]*=?(?:\((?:US|[A-Z]{2})\)[ \t]*)?(?:#[ \t]*)?"
    return (re.compile(f"(?P<cue>{_ZH_CUE}){sep}_*{_VALUE}"), re.compile(f"(?P<cue>{_EN_CUE}){sep}{_VALUE}"))


def cued_identifiers(text: str) -> list[Span]:
    out = []
    rxs = _id_regexes()
    for rx in rxs:
        for m in rx.finditer(text):
            cue = m.group("cue")
            s, value = m.start("v"), m.group("v")
            # A trial's randomisation number is one, and a machine's serial (机号4008S-7B21930; not 机号：3).
            if cue.endswith(_NOT_ID_CUES) and not cue.endswith("随机号") and \
                    not (cue.endswith("机号") and re.match(r"(?=[A-Z0-9-]*[A-Z])(?=[A-Z0-9-]*\d)[A-Z0-9-]{8,}", value)):
                continue
            # Stop before a word that is not part of the value (… on file, … expires).
            keep = value.split(" ")
            while len(keep) > 1 and (re.fullmatch(r"[a-z]{2,}\)?", keep[-1]) or not re.search(r"[0-9A-Z]", keep[-1]) or
                                     (rx is rxs[1] and _word_after_value(keep[-1]))):
                keep.pop()
            # A short number right before a Chinese word is the next field's (… 17床), not part of the value.
            nxt = m.start("v") + len(" ".join(keep))
            while len(keep) > 1 and re.fullmatch(r"\d{1,3}", keep[-1]) and re.match(r"[\u4e00-\u9fa5]", text[nxt:nxt + 1]):
                keep.pop()
            value = " ".join(keep).rstrip(".-/(")
            if value.count(")") > value.count("("):
                value = value.rstrip(")")
            if value.startswith("(") and value.count("(") > value.count(")"):
                s, value = s + 1, value[1:]
            # A diagnosis or procedure code (疾病编码 K85.900, I10.x00) is clinical, not an identifier.
            if _ICD.fullmatch(value) or (cue.endswith(("编码", "代码")) and re.search(r"疾病|诊断|ICD|手术|操作", cue)):
                continue
            kind = next((k for k, rx_kind in _KINDS if re.search(rx_kind, cue, re.IGNORECASE)), RECORD_NUMBER)
            account = kind == ACCOUNT_ID and re.search(r"\d|_|\.", value) is not None
            if not value or not (identifier_shape(value) or account) or (rx is rxs[1] and _measurement(value)):
                continue
            if text[s - 2:s] in ("：=", ":="):  # ISBT 128's flag before a donation number (献血码：=W0422 25 118734)
                s, value = s - 1, "=" + value
            out.append(Span(s, s + len(value), kind, 0.85, "id-cue"))
            out += _listed_after(text, s + len(value), value, kind)
    # A handle with an underscore or a dot between letters and digits (jdoe_84, misty.lynn.1990, tbrennan#4471).
    for m in _HANDLE.finditer(text):
        if _ICD.fullmatch(m.group("v")):
            continue
        if "#" in m.group("v") and not re.search(r"[a-z]", m.group("v").split("#")[0]):
            continue  # POD#2, HD#3: a day count
        out.append(Span(m.start("v"), m.end("v"), ACCOUNT_ID, 0.8, "handle"))
    if re.search("[\u4e00-\u9fa5]", text):  # the cells of a Chinese table's columns (its names: zh_names)
        from climedbench.deid.zh_tables import table_spans

        out += [s for s in table_spans(text) if s.entity != NAME]
        out += _zh_bracketed_and_long_ids(text)
    return out


def _listed_after(text: str, end: int, value: str, kind: str) -> list[Span]:
    """The identifiers listed after a cued one (血袋号0124E08、0124E09): as long as it, with its first three characters."""
    out = []
    while (m := re.match(r"[、，,/／][ \t]*(?P<v>[A-Z0-9][A-Z0-9-]+)(?![A-Za-z0-9])", text[end:end + len(value) + 4])) is not None:
        nxt = m.group("v")
        if len(nxt) != len(value) or nxt[:3] != value[:3] or len(value) < 6:
            break
        out.append(Span(end + m.start("v"), end + m.end("v"), kind, 0.8, "id-cue-list"))
        end += m.end("v")
    return out


# A specimen's number in brackets after the test that took it (病理（P22-0345）, 活检病理（BX24-118）).
_ZH_BRACKETED_ID = re.compile(r"(?:病理|活检|标本|送检|穿刺|细胞学)[\u4e00-\u9fa5]{0,4}[（(](?P<v>[A-Z]{0,4}\d{2,4}-?\d{3,8})[）)]")
# Letters and eight digits or more (LP3201250066318), or twelve digits or more: an identifier without any cue (a
# claim, a transaction); not a toll-free number.
_ZH_LONG_ID = re.compile(r"(?<![A-Za-z0-9_\-])(?P<v>[A-Z]{1,5}-?\d{8,20}|(?!400|800)\d{12,20})(?![A-Za-z0-9_\-])")


def _zh_bracketed_and_long_ids(text: str) -> list[Span]:
    out = [Span(*m.span("v"), RECORD_NUMBER, 0.8, "zh-specimen-id") for m in _ZH_BRACKETED_ID.finditer(text)]
    out += [Span(*m.span("v"), RECORD_NUMBER, 0.6, "zh-long-id") for m in _ZH_LONG_ID.finditer(text)
            if not text[max(0, m.start() - 3):m.start()].endswith(("准字", "准字 "))]  # a drug's approval number
    out += [Span(*m.span(), DATE, 0.8, "zh-ocr-date") for m in _OCR_DATE.finditer(text) if "O" in m.group()]
    return out + [Span(*m.span(), DATE, 0.75, "zh-iso-ym") for m in _ISO_YM.finditer(text)]


# A date OCR read with the letter O for zeros (2O23-O7-12 O8:15), and a year and month (2019-04; not 2019-4-1).
_OCR_DATE = re.compile(r"(?<![\w.])[12][0-9O]{3}([-/.])[0-9O]{1,2}\1[0-9O]{1,2}(?:[ T][0-9O]{1,2}:[0-9O]{2})?(?![\w])")
_ISO_YM = re.compile(r"(?<![\w.\-/])(?:19|20)\d{2}-(?:0[1-9]|1[0-2])(?![\w\-/]|\.\d)")


_ICD = re.compile(r"[A-Z]\d{2}(?:\.[0-9xX]{1,4})?")
# What follows an English cue (the ID: section of a nursing note, a # before a size) and is a reading, not an
# identifier: a temperature or lab value (T MAX 101.4, WBC 10.5), a pressure or ratio (PA 70/38), a tube's size
# (#20fr, #8ETT 22), or words before the number (CONTINUES ON CIPRO 500, MARCH OF 1993).
_READING = re.compile(r"(?<![\d.])\d{1,3}\.\d{1,2}(?![\d.])|(?<![\d/])\d{1,3}(?:-\d{1,3})?/\d{1,3}(?![\d/])|"
                      r"^\d{1,2}(?i:fr|f|french|ga|g|gauge|x|ett|et|cm|mm|mg)(?![A-Za-z])")


def _word_after_value(part: str) -> bool:
    """A last part of an English cue's value that is a word after it (RECTALLY, CONT, R for rectal), not a part of
    the value (KS tag 412 KZB)."""
    word = part.rstrip(".)")
    return re.fullmatch(r"[A-Za-z]+", word) is not None and \
        (len(word) == 1 or len(word) >= 4 or en_words.common_word(word) or lexicon.clinical_word(word))


def _measurement(value: str) -> bool:
    """An English cue's value that is a reading (see `_READING`); a value that starts with letters is an identifier
    only as a short capital prefix before four digits or more (BWH 0-448-1902, PA DL 28 441 907), not a word (Tmax 101,
    received 1000)."""
    if _READING.search(value):
        return True
    parts = value.split(" ")
    if len(parts) > 1 and re.fullmatch(r"[A-Za-z]+\.?", parts[0]):
        prefix = parts[0].rstrip(".")
        digits = sum(c.isdigit() for c in " ".join(parts[1:]))
        return not (prefix.isupper() and len(prefix) <= 5 and digits >= 4)
    return False


# Without a cue, a handle needs a digit (jdoe_84, misty.lynn.1990): notes_zh or a_b alone are names of things.
_HANDLE = re.compile(r"(?<![A-Za-z0-9_@./-])(?P<v>[A-Za-z][A-Za-z0-9]*(?:[_#][A-Za-z0-9_#.]*\d[A-Za-z0-9_]*|"
                     r"(?:\.[A-Za-z0-9]+)+\d{2,4}))(?![\w@])")


# ---------------------------------------------------------------- dates without a year

_WEEKDAY = (r"(?:(?<![A-Za-z])(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s+|(?:星期|周)[一二三四五六日天]\s*)")
_MD = re.compile(r"(?<![\w./\-+])(?P<m>0?[1-9]|1[0-2])(?P<sep>[/.\-])(?P<d>0?[1-9]|[12]\d|3[01])"
                 r"(?![\w/%]|\.\d|-\d|:\d)")
# Words before a number pair that make it a score, a dose or a count (strength 5/5, murmur 2/6, visit 6/12).
_NOT_DATE_BEFORE = re.compile(r"(?<![A-Za-z])(?i:strength|power|motor|grade|murmur|pain|score|visit|session|cycle|dose|tab|tablet|"
                              r"ratio|gcs|apgar|fraction|of|x|rated|scale|level|stage|day|week|pod|hd|肌力|评分|分级|级|第)"
                              r"\s*[:：]?\s*$")
_DATE_CUE_BEFORE = re.compile(r"(?:(?<![A-Za-z])(?i:on|since|from|until|till|through|thru|by|dated?|due|scheduled|admitted|discharged|"
                              r"placed|removed|started|stopped|held|drawn|collected|done|performed|seen|last|next|"
                              r"submitted|received|returned|expires?|日期|时间|就诊|入院|出院|复诊|透析|随访|手术|"
                              r"于|在|至|到|自|从|截至)(?:\s+[A-Za-z]{1,8})?)[\s:：(（]*$")
# A test's abbreviation before a date of it (BCx 6/1, ERCP 6/2): only for m/d whose day is not a usual denominator
# of a score (2/4 reflexes, 4/5 strength, 2/6 murmur, 7/10 pain).
_TEST_BEFORE = re.compile(r"(?<![A-Za-z])[A-Z]{2,5}x?\s*$")
_ZH_DATE_CUE = re.compile(r"(?:日期|时间|就诊|入院|出院|复诊|透析|随访|随诊|手术|下次|于|至|到)[\s:：]*$")
_DATE_AFTER = re.compile(r"\s*(?:上午|下午|晚上?|凌晨|中午|早上?|夜间?|[0-2]?\d[:：]\d\d|\d{1,2}\s?(?i:am|pm)\b|[—–~～至到-]\s*\d{1,2}[/.\-]\d{1,2})")


def dates_without_year(text: str) -> list[Span]:
    """m/d (and m.d, m-d) where a date fits: after a weekday or a date word (on, since, scheduled, 日期, 于), before a
    time of day, in a range of two such pairs, inside brackets, or with a day above 12 (a fraction's denominator seldom
    is) and no score word before it (strength 5/5, murmur 2/6, visit 6/12 stay)."""
    out = []
    for m in _MD.finditer(text):
        before = text[max(0, m.start() - 14):m.start()]
        if _NOT_DATE_BEFORE.search(before):
            continue
        sep, day, month = m.group("sep"), int(m.group("d")), int(m.group("m"))
        if sep == "/" and _setting_or_fraction(text, m.start(), month, day):
            continue
        weekday = re.search(_WEEKDAY + r"$", before)
        test = _TEST_BEFORE.search(before) is not None and day not in (4, 5, 6, 10)
        cued = weekday is not None or _DATE_CUE_BEFORE.search(before) is not None or \
            _DATE_AFTER.match(text, m.end()) is not None or re.search(r"[—–~～至到-]\s*$", before) is not None
        bracket = re.search(r"[(（]\s*$", before) is not None and re.match(r"\s*[)）]", text[m.end():]) is not None
        if (sep == "/" and (cued or test or bracket or (day > 12 and not re.match(r"\s*(?:mg|ml|mm|cm|kg|x|\*)", text[m.end():])))) or (sep in ".-" and (weekday or _DATE_AFTER.match(text, m.end()) or _ZH_DATE_CUE.search(before))):
            pass
        else:
            continue
        start = m.start() - (len(weekday.group()) if weekday else 0)
        out.append(Span(start, m.end(), DATE, 0.75, "date-no-year"))
    return out


_VENT_NEAR = re.compile(r"(?<![A-Za-z])(?i:ps|peep|cpap|psv|simv|imv|bipap|fio2|pressure\s+support)(?![A-Za-z])")


def _setting_or_fraction(text: str, start: int, month: int, day: int) -> bool:
    """m/d that is a ventilator setting near its word (on PSV 10/5, PS - 5/5, CPAP .4%, 5/18),
    5/5 alone (a pressure support over PEEP as often as a date), or a fraction (1/2 NS, rales 1/3 up) unless a date
    word stands right before it (since 1/3)."""
    if month == day == 5 and not re.search(r"\d{1,2}[/.-]\d{1,2}[ \t]*(?:-|to)[ \t]*$", text[max(0, start - 10):start]):
        return True  # on 5/5 (pressure support over PEEP) as often as May 5th
    if re.search(r"(?<![A-Za-z])(?i:on|since|from|until|till|by|dated?|due|placed|started|done|drawn)[ \t:(]*$",
                 text[max(0, start - 10):start]):
        return False  # a date word right before it (since 1/3, placed 8/14)
    return _VENT_NEAR.search(text, max(0, start - 25), start) is not None or month < day <= 4


_WEEKDAY_END = re.compile(_WEEKDAY + r"$")
# A time of day written right after a date (2023-03-15 11:20, 2023/7/21 14:05:09, 2023年3月15日 09:42, 2023年10月9日
# 21时15分, 2024年5月9日 上午, 11/03/2023 5:47 PM, 2024-02-03T08:14:22Z, 03/11/24 0915): one or two spaces at most
# between them, none needed.
_TIME_AFTER = re.compile(
    r"(?:T|[ \t\u3000]{0,2})(?:"
    r"(?:(?:上午|下午|晚上|凌晨|中午|早上|夜间|傍晚|清晨|晚|早|夜)[ \t\u3000]?约?)?(?:[01]?\d|2[0-3])[:：][0-5]\d(?:[:：][0-5]\d)?Z?"
    r"(?:[ ]?(?i:am|pm|a\.m\.|p\.m\.)(?![A-Za-z]))?(?:[ ]?[-~～—–至到][ ]?(?:[01]?\d|2[0-3])[:：][0-5]\d(?![\d:]))?"
    r"|(?:(?:上午|下午|晚上|凌晨|中午|早上|夜间|傍晚|清晨|晚|早|夜)[ \t\u3000]?约?)?(?:[01]?\d|2[0-3])[ ]?[时点]"
    r"(?:[ ]?(?:[0-5]?\d[ ]?分|半))?许?"
    r"|(?:上午|下午|晚上|凌晨|中午|早上|夜间|傍晚|清晨)"
    r"|[（(](?:星期|周)[一二三四五六日天][）)]"
    r"|(?:[01]\d|2[0-3])[0-5]\d(?![\w.:/%]|\s*(?:mg|ml|mL|g|kg|cm|mm|U|IU|次|天|ml/h)))")


def with_weekdays(text: str, spans: list[Span]) -> list[Span]:
    """A weekday written right before a date belongs to it (Sat 21 Oct 2023, Thursday, June 6, 2024, 周三 3月5日), and
    a time of day right after it too (`_TIME_AFTER`: a date and its time are one identifier)."""
    out = []
    text = _ascii_digits(text)
    for s in spans:
        m = _WEEKDAY_END.search(text, max(0, s.start - 12), s.start) if s.entity == DATE else None
        t = _TIME_AFTER.match(text, s.end) if s.entity == DATE and _date_with_day(text[s.start:s.end]) else None
        end = t.end() if t is not None and t.end() > s.end else s.end
        out.append(Span(m.start() if m else s.start, end, s.entity, s.score, s.detector) if m or end != s.end else s)
    return out


def _ascii_digits(text: str) -> str:
    """Full-width digits and colons as ASCII, one character for one (２０２４－１１－０７　０６：５８)."""
    return text.translate(_FULL_WIDTH) if re.search("[０-９：－]", text) else text


_FULL_WIDTH = str.maketrans("０１２３４５６７８９：－", "0123456789:-")


def _date_with_day(value: str) -> bool:
    """A date that names its day (2023-03-15, 3月15日, 1-13), not a month and year alone (2023年3月, Mar 2024)."""
    return re.search(r"[日号]$|\d[/.\-]\d{1,2}(?:[/.\-]\d{2,4})?$|\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}$|\d$", value) is not None
