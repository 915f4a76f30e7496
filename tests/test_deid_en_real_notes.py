"""English de-identification of notes written the way real ICU nursing notes are (all upper case, all lower case,
terse): names after a title, a relative or a staff role in any case, staff signature lines, initials with a
surname, names repeated through the note, dates without a year (m/d, month/two-digit year, a month's name and an
ordinal), pagers; and what must stay (upper-case clinical phrases around a comma, drug names spaCy takes for people,
clock times, pain scores, ventilator settings, strength grades, fractions). Every note is written for this test:
no value is taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


CLASSES = {
    "lower-case names after a title and a relative": (
        "npn 7p-7a\nneuro: arousable, mae. dr zabrowski aware of low u/o at 0200.\n"
        "social: son ,teodor, called x2 and was updated. dtr ottilie plans visit this eve.\n",
        ["zabrowski", "teodor", "ottilie"], ["arousable, mae", "0200", "called x2"]),
    "upper-case names after a title, a relative and a list": (
        "CV: HR 90S SR. BP LABILE, LEVOPHED TITRATED.\nDR. KREMPASKY AND GALLOWITZ AWARE. "
        "SOCIAL: WIFE ROSAMUND IN TO VISIT, SPOKE WITH RN.\n",
        ["KREMPASKY", "GALLOWITZ", "ROSAMUND"], ["HR 90S SR", "BP LABILE, LEVOPHED TITRATED"]),
    "a staff signature line and an initial with a surname": (
        "RESP CARE: VENT SETTINGS PSV 10/5, FIO2 .40. SX FOR THICK TAN SPUTUM.\n"
        "BREATH SOUNDS COARSE. K. VOLKOVA AWARE.\n  GIDEON T. HALVERSTAM, RRT\n",
        ["K. VOLKOVA", "GIDEON T. HALVERSTAM"], ["PSV 10/5", "THICK TAN SPUTUM", "BREATH SOUNDS COARSE"]),
    "a name found once is removed wherever the note repeats it": (
        "SOCIAL: DAUGHTER PERPETUA CALLED AT 2100. PERPETUA IS HCP AND WILL CALL IN AM.\n",
        ["PERPETUA"], ["2100", "IS HCP"]),
    "dates without a year in nursing-note forms": (
        "pmh: cad s/p cabg 4/91, chf. admitted to osh on 9/14 with sob; last hd 9/16.\n"
        "plan: extubation on the 18th. cath done September 3rd. c/o 6/10 chest pain, medicated.\n"
        "strength 4/5 in lue. 1/2 ns at 75cc/hr.\n",
        ["4/91", "9/14", "9/16", "the 18th", "September 3rd"], ["6/10", "4/5", "1/2 ns", "75cc/hr"]),
    "hospitals and rehabs named after a preposition, in any case": (
        "hpi: fell at home, taken to wexbury general, then transferred from ashcombe rehab.\n"
        "PLAN: TRANSFER TO ST. BRIGID'S WHEN BED AVAILABLE. BACK TO REHAB WHEN STABLE.\n",
        ["wexbury general", "ashcombe rehab", "ST. BRIGID'S"], ["fell at home", "BACK TO REHAB WHEN STABLE"]),
    "an upper-case LAST, FIRST after a patient label, whatever the given name": (
        "RADIOLOGY REPORT\nPatient: ABERNATHY-OKONJO, ZUWENA T    MRN 00-118-223\nNEURO: AWAKE, ALERT.\n",
        ["ABERNATHY-OKONJO, ZUWENA T"], ["AWAKE, ALERT"]),
    "a pager number": (
        "Social work following; will return tomorrow. Pager 61842.\n", ["61842"], ["Social work following"]),
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_real_note_class(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = CLASSES[name]
    check_english_note(analyzer, text, phi, keep)


# Upper-case clinical phrases that the rules took for "LAST, FIRST" names or names after a cue, and words spaCy's
# statistical model tags PERSON in nursing notes (a charting system, drugs, a section word).
KEPT = {
    "upper-case phrases around a comma": (
        "NEURO: AWAKE, ALERT, FOLLOWING COMMANDS. RESP: INTUBATED, SEDATED, SUCTIONED FOR THICK, YELLOW SPUTUM.\n"
        "SKIN: GROIN, NYSTATIN POWDER APPLIED.\n",
        ["AWAKE, ALERT, FOLLOWING COMMANDS", "INTUBATED, SEDATED", "THICK, YELLOW SPUTUM",
         "GROIN, NYSTATIN POWDER"]),
    "drug and system words at a sentence's start": (
        "Neuro: Alert, oriented x3. Fentanyl drip at 50 mcg/hr. Ativan given for anxiety. Chartwise updated.\n"
        "Repeat Hct pending. Wean as tolerated.\n",
        ["Alert", "Fentanyl", "Ativan", "Chartwise", "Repeat Hct", "Wean"]),
    "a hospital's name without the sentence around it": (
        "PT TRANSFERRED FROM HOLLOWAY HOSPITAL REQUIRING DOPAMINE AND LEVOPHED.\n",
        ["PT TRANSFERRED FROM", "REQUIRING DOPAMINE AND LEVOPHED"]),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_real_note_words_kept(analyzer: Analyzer, name: str) -> None:
    text, keep = KEPT[name]
    check_english_note(analyzer, text, [], keep)
