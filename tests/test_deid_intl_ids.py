"""Identifiers of UK, Irish, Australian, New Zealand, Canadian and Hong Kong notes, phones with extensions, plates,
bracketed study numbers and OCR digits (climedbench.deid.intl_ids). Examples written for this test."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered, touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


REMOVED = [
    ("en", "Name: OKONJO, Tendai   Hosp No: QM5512093   DOB: 14.02.1950", "QM5512093"),
    ("en", "Patient Ruairi Byrne   UR No: TCH2287415   Ward 6B", "TCH2287415"),
    ("en", "Allergies nil. URN BRH771204, lives alone.", "BRH771204"),
    ("en", "Hosp no WGH 4418820   NHS 484 221 7730", "WGH 4418820"),
    ("en", "Hosp no WGH 4418820   NHS 484 221 7730", "484 221 7730"),
    ("en", "Pt: Mere Tawhiri  NHI: KPL3390  seen in clinic", "KPL3390"),
    ("en", "Ayrshire patient, CHI 0211694412, admitted overnight", "0211694412"),
    ("en", "Medicare No: 5531 20847 3-2 | Admission 11/04", "5531 20847 3-2"),
    ("en", "OHIP: 7712-390-441-QP   Phone (h): not given", "7712-390-441-QP"),
    ("en", "PHN: 9183 220 417 | Referral from GP", "9183 220 417"),
    ("en", "Dr A. Mensah, consultant, GMC 6630148 — reviewed", "6630148"),
    ("en", "Reference lab CLIA 44D2210937, results attached", "44D2210937"),
    ("en", "Dictated 3/2 0915   Job# T55120377", "T55120377"),
    ("en", "warfarin 5 mg (Rx# 4471902) filled elsewhere", "4471902"),
    ("en", "Niece can be reached on 07812 443 901 after six.", "07812 443 901"),
    ("en", "Surgery: 01632 960 418, ask for the practice nurse.", "01632 960 418"),
    ("en", "Practice in Bunbury, phone (08) 9722 6104, fax below.", "(08) 9722 6104"),
    ("en", "Daughter mobile 0427 118 653 — prefers text.", "0427 118 653"),
    ("en", "Registrar bleep 3317 if concerns overnight.", "3317"),
    ("en", "Follow-up line (512) 555-0193, ext 41 for scheduling.", "(512) 555-0193, ext 41"),
    ("zh", "会诊医师联系方式：+852 2716 4409 ext 620，请提前预约。", "+852 2716 4409 ext 620"),
    ("en", "her van (OR KTB-4419) was parked in the bay", "OR KTB-4419"),
    ("en", "Car 2: grey Civic WA 3QZM118, driver uninjured", "WA 3QZM118"),
    ("en", "Passport (NZ): LT882015   expires 2030", "LT882015"),
    ("en", "Card payment declined (conf QX7719024451).", "QX7719024451"),
    ("zh", "腹部CT（CT240718-33）：肝右叶低密度灶。", "CT240718-33"),
    ("zh", "已收取押金，收据编号KF0719-0088。", "KF0719-0088"),
    ("zh", "军官证号：军字第4418201号，随军家属。", "军字第4418201号"),
    ("zh", "联系电话：15O 2271 88З6（家属）", "15O 2271 88З6"),
    ("en", "CALL BACK NUMBER 6O2-555-O174 PER WIFE", "6O2-555-O174"),
]


@pytest.mark.parametrize(("lang", "text", "phi"), REMOVED)
def test_international_identifiers_are_removed(analyzer, lang, text, phi):
    spans = analyzer.analyze(text, lang)
    assert covered(text, spans, phi), (phi, [text[s.start:s.end] for s in spans])


KEPT = [
    ("en", "SPONT VT 600CC, PS 10/5, PEEP 5", "VT 600CC"),
    ("en", "HX OF MI IN 1980S, AFIB IN 100S", "IN 1980S"),
    ("en", "PLAT CT 152K, HCT 31", "CT 152K"),
    ("en", "PIK3CA H1047R detected; KRAS G12D negative", "CA H1047R"),
    ("en", "CA 125 of 35 U/mL and CA 19-9 normal", "CA 125"),
    ("en", "UR 2+ protein on dipstick; the cap of the vial was cracked", "UR 2+"),
    ("en", "Bloods: Hb 121, NHS trust guidance followed", "NHS trust"),
    ("en", "Order set for sepsis reviewed; member of staff informed", "member of staff"),
    ("en", "Oxygen 2L NC, O2 sat 95%, SpO2 100% on 4L", "O2 sat 95%"),
]


@pytest.mark.parametrize(("lang", "text", "keep"), KEPT)
def test_look_alikes_are_kept(analyzer, lang, text, keep):
    spans = analyzer.analyze(text, lang)
    assert not touched(text, spans, keep), [(text[s.start:s.end], s.detector) for s in spans]


@pytest.mark.parametrize("value", ["Ann", "ann", "Ng", "李娜", "O'Neil", "-x", "a_b", "5"])
def test_occurrences_finds_what_re_finditer_finds(value):
    """find.occurrences (str.find, no pattern compiled per name) against re.finditer over the same value."""
    import re

    from climedbench.deid.find import occurrences

    text = ("Ann saw ann; Annie and Ann_ B. Ann's Ng,Ng Ngs 李娜李娜娜 见李娜。O'Neil O'Neils -x--x a_b a_bc 5 55 x5 "
            "AnnAnn Ann")
    for whole in (False, True):
        pattern = (r"\b" + re.escape(value) + r"\b") if whole else re.escape(value)
        assert occurrences(text, value, whole) == [m.span() for m in re.finditer(pattern, text)], (value, whole)
