"""Places in notes written the way real ICU nursing notes are (all upper case, all lower case, terse): towns after a
word that places them, hospital acronyms after a word of movement, named wards with their floor, a found place's
word repeated through the note; and what must stay: the readings an id cue must not take (the ID: section's
temperatures, a pressure after #, a tube's size), dotted abbreviations, ventilator settings that look like dates,
numbers before ST/DR/CT that are no street, an abbreviation and a sentence that look like an initial and a surname,
everyday words after a relative. Every note is written for this test: no value is taken from any corpus; the towns
are real towns of libphonenumber's geocoding data, the acronyms those of well-known hospitals."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


CLASSES = {
    "towns after a word that places them, in lower case": (
        "social: pt widowed, lives in frostburg with her dtr. son drove up from elkton this am.\n"
        "gu: foley draining lg amt of orange urine. able to bear weight with assist.\n",
        ["frostburg", "elkton"], ["orange urine", "bear weight"]),
    "towns in upper case and sentence case, and before a state": (
        "SOCIAL: PT LIVES WITH WIFE IN CHESTERTOWN. OLD RECORDS FROM SALISBURY, MD REQUESTED.\n"
        "Social: Brother called from Tacoma. Family members in Ocean City were updated.\n"
        "PLAN: VS BACK TO NORMAL. SISTER IN TEXAS AWARE.\n",
        ["CHESTERTOWN", "SALISBURY", "Tacoma", "Ocean City"], ["BACK TO NORMAL", "TEXAS"]),
    "a hospital's acronym after a word of movement, not a word or a reading": (
        "HPI: CP AT HOME, TAKEN TO MGH ER, THEN TRANSFERRED TO UMMC FOR CATH. MGH RECORDS PENDING.\n"
        "RESP: BREATHING IN SYNCH WITH VENT. TRIES TO PUSH STAFF AWAY. OOB TO CH. ABG DUE TO PH 7.30.\n",
        ["MGH", "UMMC"], ["SYNCH", "PUSH STAFF", "TO CH", "PH 7.30"]),
    "a named ward with its floor after a word of movement, not a drip or a setting": (
        "plan: transfer to whitcombe 6 when bed available. pt was transferred from HALLORAN 3 last pm.\n"
        "cv: on dopamine 5mcg/kg. resp: weaned to PS 10. skin: dressing to stage 2 ulcer.\n"
        "gi: advance to goal 50cc/hr.\n",
        ["whitcombe 6", "HALLORAN 3"], ["dopamine 5mcg", "PS 10", "stage 2", "goal 50cc"]),
    "a found hospital's name is removed wherever the note repeats it": (
        "O: ADMITTED IN TRANSFER FROM LINDQUIST MEMORIAL HOSPITAL FOR HYPOTENSION. 2 FFP GIVEN AT LINDQUIST.\n"
        "PLAN: ? TRANSFER BACK TO whitcombe 6. WHITCOMBE AWARE.\n",
        ["LINDQUIST", "whitcombe", "WHITCOMBE"], ["2 FFP GIVEN", "PLAN"]),
    "phones with an extension after a comma, national UK and Australian numbers, a bleep": (
        "Front desk (614) 555-0187, ext 31. Niece (07700 900 482) and NOK 01632 960 118 aware.\n"
        "Daughter in Perth on (08) 9470 2216. Seen by FY1, bleep 5582.\n",
        ["(614) 555-0187, ext 31", "07700 900 482", "01632 960 118", "(08) 9470 2216", "5582"], []),
    "names before a relation or a phone label, given names that call or visit, a month and its year": (
        "Contacts: Tomasz Wierzbicki (son) 410-555-0172. Halina Wierzbicki cell# 410-555-0199.\n"
        "social: marek called twice overnight. last chemo MARCH OF 2019; admitted to osh in september.\n",
        ["Tomasz Wierzbicki", "Halina Wierzbicki", "marek", "MARCH OF 2019", "september"], ["called twice"]),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_phi_of_real_notes(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = CLASSES[name]
    check_english_note(analyzer, text, phi, keep)


READINGS = {
    "the ID: section's temperature and labs": (
        "ID: T MAX 101.4 RECTALLY, CONT ON ABX.\nid: tmax 99.2 po on vanco.\nID: WBC 12.1 CONT ON CEFTAZ.\n",
        [], ["T MAX 101.4 RECTALLY", "tmax 99.2", "WBC 12.1 CONT ON CEFTAZ"]),
    "a pressure or a tube's size after #, words before a number": (
        "PA line placed, opening # PA 62/30 PWP 24. replaced foley with #22fr 3way. intubated #7ETT 23 at lip.\n"
        "ID CONTINUES ON CIPRO 500 MG PO BID.\n",
        [], ["PA 62/30 PWP 24", "22fr 3way", "7ETT 23", "CONTINUES ON CIPRO 500"]),
    "an identifier after its cue is still taken": (
        "Patient ID: 5520194. Transport ordered (ref # 4471930). Policy #: BCBS 88120447.\n",
        ["5520194", "4471930", "BCBS 88120447"], []),
}


@pytest.mark.parametrize("name", list(READINGS))
def test_readings_are_not_identifiers(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = READINGS[name]
    check_english_note(analyzer, text, phi, keep)


NOT_PHI = {
    "dotted clinical abbreviations are no initials": (
        "CV: C.O. 5.4 C.I. 2.6 BY FICK. H.O. AWARE. RETURNED FROM O.R. AT 1400. R.T. IN TO SUCTION.\n",
        [], ["C.O.", "C.I.", "H.O.", "O.R.", "R.T."]),
    "ventilator settings and fractions that look like dates": (
        "resp: remains on PSV 12/5, 40%. tried on 5/5 this am. CPAP .4%, 5/16 overnight.\n"
        "RENAL: 1/2 NS AT 75CC/HR. RALES 1/3 UP BILAT. admitted on 9/14 with sob.\n",
        ["9/14"], ["12/5", "5/5", "5/16", "1/2 NS", "1/3 UP"]),
    "numbers before ST, DR, CT, WAY that are no street": (
        "GU: 3 WAY FOLEY IN PLACE. CV: HR 116 ST, 1 ST DEGREE AVB. SBP < 120 PER DR ORTEGA. 2 CT TO SUCTION.\n"
        "SOCIAL: LIVES AT 41 WINDHAM ST WITH WIFE.\n",
        ["41 WINDHAM ST"], ["3 WAY", "116 ST", "1 ST DEGREE", "120 PER", "2 CT"]),
    "an abbreviation and a sentence are no initial and surname": (
        "Plan: keep careful I & O. Continue lasix. BS coarse L>R. Soft restraints on. Encouraged C&R. Pt tired.\n",
        [], ["O. Continue", "R. Soft", "R. Pt"]),
    "everyday words after a relative are no names": (
        "SOCIAL: SON MET WITH TEAM. BROTHER REQUEST NOTED. SISTER AND SISTER-IN-LAWS VERY INVOLVED.\n",
        [], ["MET WITH", "REQUEST", "IN-LAWS"]),
}


@pytest.mark.parametrize("name", list(NOT_PHI))
def test_what_real_notes_keep(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = NOT_PHI[name]
    check_english_note(analyzer, text, phi, keep)
