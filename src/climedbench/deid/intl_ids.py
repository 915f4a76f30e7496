"""Identifiers of other health systems and their written forms, after their labels or by an unmistakable shape.

UK, Irish, Australian, New Zealand, Canadian and Hong Kong notes label their numbers differently from US and mainland
notes (Hosp No, UR/URN, NHS, CHI, NHI, Medicare 2953 61148 2-1, OHIP, RAMQ, PHN, HCN, GMC, AHPRA, Provider No) and
write their phones in their own groups (en_context's uk-au-phone reads those); labs and pharmacies print
CLIA, CAP and NCPDP numbers; dictations end with a job number; imaging numbers stand in brackets after the study
(胸片（DR241209-55）). Values must look like identifiers (digits, or letters with digits), so a label word used in
prose (the cap of a vial, UR as in urine) takes nothing. Used for notes of every language (mixed notes are common).
"""

from __future__ import annotations

import re

from climedbench.deid import lexicon
from climedbench.deid.patterns import (
    DEVICE_ID,
    ID_NUMBER,
    INSURANCE_ID,
    LICENSE_PLATE,
    PASSPORT,
    PHONE,
    RECORD_NUMBER,
    PatternSpec,
    identifier_shape,
)

_SEP = r"[ \t]*(?:#|(?i:no\.?|number|num))?[ \t]*[:#：]?[ \t]*"
# A value: an optional site or letter prefix, then digits in groups (SGH 7741208, HN24018873(5), 2144871B, W0448127)
_VALUE = (r"(?P<v>(?:[A-Z]{2,5}[ \t])?(?:[A-Z]{0,4}[-/]?\d[0-9A-Z]*(?:[ /-][0-9A-Z]+){0,3}|"
          r"[A-Z]{1,5}/[A-Z]{1,5}(?:/\d{2,8}){1,3})(?:\(\d\))?)(?![\w/-])")  # also IP/24/0188, KMC/PC/23/6612


def _six_digits(value: str) -> bool:
    return sum(c.isdigit() for c in value) >= 6


_STATES = "|".join(lexicon.US_STATES)


def _plate(value: str) -> bool:
    """Three digits or more in the plate itself (a state's code before it is not part of the count)."""
    return sum(c.isdigit() for c in value) >= 3 and not re.fullmatch(r"[A-Z]{2}[ \t]\d+", value)


def _bare_plate(value: str) -> bool:
    plate = value.split(maxsplit=1)[1]
    letters, digits = sum(c.isalpha() for c in plate), sum(c.isdigit() for c in plate)
    return letters >= 2 and digits >= 3 and not re.fullmatch(r"\d+[A-Z]{1,2}|[A-Z]\d{2,4}[A-Z]", plate)


INTL_PATTERNS: tuple[PatternSpec, ...] = (
    # An ISBT 128 donation identification number by its shape, with or without a label (a transfusion table's rows):
    # its flag '=', a facility letter and four digits, the year's two digits, six digits of sequence, a check character
    # (=X1234 25 012345 7, =X123425012345).
    PatternSpec(DEVICE_ID, "isbt-din",
                r"(?<![A-Za-z0-9=])(?P<v>=?[A-Z]\d{4} \d{2} \d{6}(?: [0-9A-Z])?|=[A-Z]\d{12}[0-9A-Z]?)(?![A-Za-z0-9])",
                0.85, flags=0),
    # A Chinese document number by its shape, with or without a label: the issuer's abbreviation, the year in brackets,
    # the kind and the number (…司鉴[2024]临鉴字第0123号, …职诊字〔2024〕第0456号, 乙认〔2022〕第1186號).
    PatternSpec(RECORD_NUMBER, "zh-document-number",
                r"(?<![\u4e00-\u9fa5])(?P<v>[\u4e00-\u9fa5A-Z]{1,10}[\[〔【(（](?:19|20)\d{2}[\]〕】)）][\u4e00-\u9fa5]{0,5}"
                r"第?\d{1,8}[号號])", 0.85, flags=0),
    # Hospital and registration numbers (Hosp No: RW0938211, UR No: PAC1099372, URN KGH448102, HN: HN24018873(5), UHID,
    # IPD No, a council's Reg. and IMC numbers).
    PatternSpec(RECORD_NUMBER, "intl-record-cue",
                r"(?<![A-Za-z])(?:(?i:hosp(?:ital)?)[ \t]*(?i:no\.?|number|#)|UR(?:N|[ \t]*No\.?)?|HN|(?i:job)[ \t]*#|"
                r"(?i:req(?:uisition)?\.)|Rx[ \t]*#|ACC[ \t]*#|(?i:acc(?:ession)?[ \t]+no\.?)|"
                r"GMC|NMC|IMC|AHPRA|UHID|UCI|IPD|OPD|(?i:reg\.)|(?i:provider)[ \t]+(?i:no\.?|number)|CLIA|CAP|NCPDP|"
                r"(?i:c[ée]dula[ \t]+profesional)|"
                r"(?i:lab(?:oratory)?[ \t]+(?:no\.?|#))|(?i:conf(?:irmation)?\.?)|(?i:order)[ \t]*(?:#|(?i:no\.?)))"
                + _SEP + _VALUE,
                0.9, identifier_shape, flags=0),
    # National and health identity numbers (NHS 943 476 5919, CHI 1507456721, NHI: ZGT4821, SIN 046 454 286, PPSN
    # 1234567TW, Aadhaar 2345 6789 0123).
    PatternSpec(ID_NUMBER, "intl-id-cue",
                r"(?<![A-Za-z])(?:NHS|CHI|NHI|SIN|PPSN|IHI|HKID|TFN|PHIN|(?i:aadhaa?r))" + _SEP +
                r"(?P<v>(?:[A-Z]{1,3}\d{4,7}(?:\(\w\))?|\d{4}[ \t-]\d{4}[ \t-]\d{4}|\d{3}[ \t-]?\d{3}[ \t-]?\d{3,4}|"
                r"\d{7}[A-Z]{1,2}))(?![\w-])", 0.9, flags=0),
    # Chinese service-book numbers (军字第2019417号, 警官证号).
    PatternSpec(ID_NUMBER, "zh-service-id", r"(?P<v>[军警武士][字]第\d{4,10}号)", 0.9, flags=0),
    # Provincial and national insurance numbers (Medicare No: 2953 61148 2-1, OHIP: 6201-448-917-MB, RAMQ: DESG 9161
    # 0214, PHN: 9071 442 158, HCN: 4512 338 906 KT, DVA Gold Card: QX441872, member IMH 60021847 02, 新农合：…).
    PatternSpec(INSURANCE_ID, "intl-insurance-cue",
                r"(?<![A-Za-z])(?:(?i:medicare)|OHIP|RAMQ|PHN|HCN|MSP|(?i:DVA(?:[ \t]+gold)?[ \t]+card)|"
                r"(?i:member)|(?i:health[ \t]+card)|新农合|医保|社保)" + _SEP +
                r"(?P<v>(?:[A-Z]{2,4}[ \t])?[A-Z]{0,2}\d[\d \t-]{3,16}\d(?:[ \t-]?[A-Z]{1,2})?(?:[ \t-]\d)?|"
                r"[A-Z]{2}\d{6,9}|[0-9A-Z]{2,8}(?:-[0-9A-Z]{2,8}){2,4})(?![\w-])",
                0.9, _six_digits, flags=0),
    # A number after a contact word (bleep 4471, contact 9188 4417, reached on …, callback …, 内线6218, 分机 2204).
    PatternSpec(PHONE, "contact-cue",
                r"(?<![A-Za-z])(?:(?i:bleep|contact|callback|call[ \t]+back[ \t]+(?:on|at)|reached[ \t]+(?:on|at)|"
                r"page[ \t]+(?:at|on)|NOK)|内线|分机|总机|座机号?)[ \t,:：]*"
                r"(?P<v>\+?\(?\d[\d \t().-]{2,16}\d)(?![\w-])",
                0.85),
    # Plates after a vehicle word (truck (NC PKD-8842), vehicle PA LKT-3390, reg 191-D-48213) …
    PatternSpec(LICENSE_PLATE, "intl-plate",
                r"(?<![A-Za-z])(?i:reg(?:istration)?|vehicle|truck|car|van|cab)[ \t(]+"
                r"(?P<v>(?:(?:" + _STATES + r")[ \t])?(?=[A-Z0-9-]*\d)(?=[0-9-]*[A-Z])[A-Z0-9]{1,4}-?(?:[A-Z]-)?"
                r"[A-Z0-9]{3,5})(?![\w-])", 0.85, _plate, flags=0),
    # … or after a state's code alone, when letters and digits mix as on a plate (CA 8XKP231), not a volume, a decade,
    # a count or a protein change (VT 600CC, IN 1980S, CT 152K, PIK3CA H1047R).
    PatternSpec(LICENSE_PLATE, "intl-plate-state",
                r"(?<![A-Za-z0-9])(?P<v>(?:" + _STATES + r")[ \t](?=[A-Z0-9-]*\d)(?=[0-9-]*[A-Z])[A-Z0-9]{1,4}-?"
                r"[A-Z0-9]{3,5})(?![\w-])", 0.8, _bare_plate, flags=0),
    # A British plate (two letters, two digits, three letters: LK19 XHN) after a vehicle word; never alone, where the
    # shape is also a marker and a therapy (CD19 CAR).
    PatternSpec(LICENSE_PLATE, "uk-plate",
                r"(?<![A-Za-z])(?i:reg(?:istration)?\.?(?:[ \t]+(?:no\.?|number|mark|plate))?|(?:number[ \t]+)?plate|"
                r"vehicle|car|van|VRN)[ \t]*[:#(]?[ \t]*(?P<v>[A-Z]{2}\d{2}[ \t]?[A-Z]{3})(?![\w-])", 0.85, flags=0),
    # A passport with its country in brackets (Passport (PRC): EJ4471928, Passport (US): A09917734).
    PatternSpec(PASSPORT, "intl-passport", r"(?<![A-Za-z])(?i:passport)[ \t]*\([A-Za-z .]{2,20}\)[ \t]*[:#]?[ \t]*"
                r"(?P<v>[A-Z]{0,2}\d{6,9}[A-Z]?)(?![\w-])", 0.95, flags=0),
    # An international number with its extension (+86 24 3185 6620 ext 8103).
    PatternSpec(PHONE, "intl-phone-ext",
                r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}[ \t,]*(?i:ext\.?|extension|x)[ \t]?\d{1,5}(?!\d)",
                0.9),
    # A study's number in brackets after the study (胸片（DR241209-55）, OCT（OCT-0619-771）, (req. RQ6618203)).
    PatternSpec(RECORD_NUMBER, "bracketed-study-id",
                r"[（(][ \t]*(?P<v>[A-Z]{1,4}-?\d{4,8}-\d{2,4}|[A-Z]{1,4}-\d{4}-\d{2,4})[ \t]*[）)]", 0.85, flags=0),
    # A numbered receipt or certificate (编号YJ0302-0147, 编号：SJ(2024)第03128号).
    PatternSpec(RECORD_NUMBER, "zh-numbered",
                r"编号[:：]?[ \t]*(?P<v>[A-Z]{1,4}(?:\(\d{4}\)第\d{3,8}号|\d{3,8}(?:-\d{2,6})?))", 0.85, flags=0),
)


# Letters OCR reads for digits (O and o for 0, Cyrillic З for 3, l for 1), read so inside a run of digits only.
_OCR_MAP = str.maketrans("OoЗзl", "00331")
_OCR_RUN = re.compile(r"(?<![A-Za-z])[\dOoЗзl][\dOoЗзl \t().-]{4,18}[\dOoЗзl](?![A-Za-z])")


def ocr_digits(text: str) -> str:
    """`text` with O, o, З and l read as digits inside runs of six or more digit-like characters holding four real
    digits or more (1З977 6O8 124 → 13977 608 124, 8O8-555-O112, l39l234 5678); one character for one, so offsets
    hold."""
    if not re.search(r"\d[OoЗзl]|[OoЗзl]\d", text):
        return text
    chars = list(text)
    for m in _OCR_RUN.finditer(text):
        run = m.group()
        if sum(c.isdigit() for c in run) >= 4 and any(c in "OoЗзl" for c in run):
            for i in range(m.start(), m.end()):
                chars[i] = chars[i].translate(_OCR_MAP)
    return "".join(chars)
