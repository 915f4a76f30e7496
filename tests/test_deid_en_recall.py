"""English recall of `climedbench deid`, class by class: names without a cue word, after a role, in a sign-off and in
upper case; titles and clock times inside the found span (the surrogate keeps them as written); organisations by
suffix, cue, letterhead and in upper case; P.O. boxes, upper-case streets, UK postcodes, a town; identifiers after
their labels and by their shape; dates without a year in ranges, before a 24-hour time and after a planning word.
Every note is written for this test (no value is taken from any corpus); each also holds hard negatives (eponyms,
drugs, device brands, lab values, spine levels, bare years) that must survive."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from climedbench.deid.pipeline import deidentify_text
from climedbench.deid.surrogates import Replacer

SALT = bytes(range(64, 96))


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


def _covered(analyzer: Analyzer, text: str) -> set[int]:
    return {i for s in analyzer.analyze(text, "en") for i in range(s.start, s.end)}


def _assert_found(analyzer: Analyzer, text: str, phi: list[str], keep: list[str]) -> None:
    covered = _covered(analyzer, text)
    for value in phi:
        start = text.index(value)
        assert set(range(start, start + len(value))) <= covered, value
    for value in keep:
        start = text.index(value)
        assert not set(range(start, start + len(value))) & covered, value


CLASSES = {
    "name without a cue word, with a known given name": (
        "PULMONARY CLINIC\nDate of visit: 3/2/2025\nNadia Petrenko (interpreter: Ukrainian, by phone) here for f/u.\n"
        "Austin Flint murmur absent. Hashimoto thyroiditis on levothyroxine. Cushing syndrome ruled out.\n"
        "Bell's palsy resolved in 2019.\n",
        ["Nadia Petrenko"], ["PULMONARY CLINIC", "Austin Flint murmur", "Hashimoto thyroiditis", "Cushing syndrome",
                                    "Bell's palsy", "2019"]),
    "name after a role without a colon, and a sign-off": (
        "Foley catheter removed at 0600. SW Bernadette Quillfeather paged about placement. Tech: Dorian\n"
        "Tylenol 500 mg given. Please call with questions.\nThanks,\nMirela\n",
        ["Bernadette Quillfeather", "Dorian", "Mirela"], ["Foley catheter", "Tylenol 500 mg"]),
    "upper-case names of a legacy note": (
        "ED TRIAGE (LEGACY)\nPATIENT: DESMOND OYELARAN  DOB: 01-02-1950\nPOA: SON AUGUSTINE FERRIS 555 0101\n"
        "HX: CHF, DM, HTN. BNP 1,200.\n",
        ["DESMOND OYELARAN", "AUGUSTINE FERRIS"], ["CHF, DM, HTN", "BNP 1,200"]),
    "a title or rank before a name": (
        "Reviewed with Dr. Ottoline Vance; Sgt. Pembrook (officer) at bedside. Medtronic Azure pacemaker interrogated.\n",
        ["Dr. Ottoline Vance", "Sgt. Pembrook"], ["Medtronic Azure"]),
    "a clock time written with its date": (
        "Signed 04/09/2025 21:15\nSent: Thursday, January 9, 2025 10:41 PM\nDate: Thu, 9 Jan 2025 14:03:55 -0500\n"
        "2025-01-04T07:22:10Z login from portal. Cr 0.9, K 4.1.\n",
        ["04/09/2025 21:15", "Thursday, January 9, 2025 10:41 PM", "Thu, 9 Jan 2025 14:03:55 -0500",
         "2025-01-04T07:22:10Z"], ["Cr 0.9", "K 4.1", "login from portal"]),
    "a date without a year: range, 24-hour time, planning word": (
        "Holter (3/14-3/16) showed PACs. Next draw 4/18 0600. Home infusion to start 5/22. Strength 4/5 in the legs.\n",
        ["3/14-3/16", "4/18", "5/22"], ["4/5"]),
    "organisations by suffix, upper case, cue, employer and letterhead": (
        "MERCY RIVERBEND HOSPITAL\nInsurance: Prairie Mutual ID PM44120987\nWorks as a line cook at Harbor Grill.\n"
        "Referred to Brightwater Family Dentistry, 18 Alder Rd, Salem, OR 97301.\n"
        "Internal Medicine to follow. Mental Health consulted.\n",
        ["MERCY RIVERBEND HOSPITAL", "Prairie Mutual", "Harbor Grill", "Brightwater Family Dentistry"],
        ["Internal Medicine", "Mental Health"]),
    "addresses: P.O. box with its city, upper-case street, unit, UK postcode, town": (
        "Mail to PO Box 5521, Topeka, KS 66601.\nFROM: 4410 WILLOW CREEK RD, DAYTON OH 45402\n"
        "Office: 7700 Larkspur Ave Ste 410, Reno, NV 89501\nLondon flat, postcode SW1A 2AA.\n"
        "Social: lives in Marshfield with his wife. Retired in 2015.\n",
        ["PO Box 5521, Topeka, KS 66601", "4410 WILLOW CREEK RD, DAYTON OH 45402", "7700 Larkspur Ave Ste 410",
         "SW1A 2AA", "Marshfield"], ["2015"]),
    "identifiers after their labels and by their shape": (
        "FIN 55102938476   CSN: 902211843   NPI 1457392011   DEA AB1234563\nMRN: RGH 3-221-908\n"
        "Officer badge #5521. Claim No: WC-OH-2024-5521907. Specimen to pathology (SP-25-11842).\n"
        "Images pushed (study UID 1.2.840.10008.5.1.4.9917). Car plate OH KDL-2210. Call ext. 3-4412.\n"
        "Handle @river_runner88 on the app. Passport: 72 4419023.\nT11-T12-L1 fusion in 2012.\n",
        ["55102938476", "902211843", "1457392011", "AB1234563", "RGH 3-221-908", "#5521", "WC-OH-2024-5521907",
         "SP-25-11842", "1.2.840.10008.5.1.4.9917", "OH KDL-2210", "ext. 3-4412", "@river_runner88", "72 4419023"],
        ["T11-T12-L1", "2012"]),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_english_class_is_found_and_hard_negatives_stay(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = CLASSES[name]
    _assert_found(analyzer, text, phi, keep)


def test_title_and_clock_time_are_kept_as_written_in_the_surrogate(analyzer: Analyzer) -> None:
    text = "Attending: Dr. Ottoline Vance\nSigned 04/09/2025 21:15\n"
    out, _, spans, _ = deidentify_text(text, "p-en-recall", analyzer, Replacer(SALT), "en")
    assert any(text[s.start:s.end] == "Dr. Ottoline Vance" for s in spans)
    assert any(text[s.start:s.end] == "04/09/2025 21:15" for s in spans)
    assert "Attending: Dr. " in out and "Ottoline" not in out and "Vance" not in out
    assert out.rstrip().endswith(" 21:15") and "04/09/2025" not in out
    masked, _, _, _ = deidentify_text(text, "p-en-recall", analyzer, Replacer(SALT, "mask"), "en")
    assert masked == "Attending: Dr. [NAME]\nSigned [DATE] 21:15\n"
