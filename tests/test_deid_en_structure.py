"""Classes of English PHI found by the structure they stand in (deid/en_structure.py): a quoted nickname after a found
name and its later mentions, a name after a word of calling, a mailing block (town, state and postal code with the
street or route before it and the addressee above), organisations named by the kind of body they are, and letterheads
with the branch after a dash. Every note is written for this test; names, places and organisations are made up, no
value is taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


NAMES = {
    "a quoted nickname after a Last, First field, and again later": (
        "Client: Ashgrove, Theodora \"Teddy\"    Agency ID: QX-11-2020\nTeddy says the stairs are hard.\n",
        ["Ashgrove, Theodora \"Teddy\"", "Teddy"], ["the stairs are hard"]),
    "a nickname in brackets and quotes after a full name, and again later": (
        "Driver: Lorcan Pemberton (\"Lorrie\")   DOB 03/04/1961\nLorrie was restrained. No LOC.\n",
        ["Lorcan Pemberton (\"Lorrie\")", "Lorrie"], ["No LOC"]),
    "a name after a word of calling, and again later": (
        "Met with pt at bedside; she prefers to be called Dottie. Dottie lives alone with her cat.\n",
        ["Dottie"], ["Met with pt at bedside", "her cat"]),
    "a Last, First field before a bar or a credential": (
        "Patient: Tarrant-Oakes, Wilhelmina | MRN 44 | Rm 3\nOrdering: Quenby, Marisela DO\n",
        ["Tarrant-Oakes, Wilhelmina", "Quenby, Marisela"], ["Rm 3"]),
}

USERS = {
    "initials or a user name after transcribed or typed": (
        "Dictated 9/22/2026 15:05, transcribed by QRT\nTranscribed by: jdoakes (job #DX-1)\n"
        "Dictated by: A. Smith, MD   Transcribed: wpx\nTyped by hand in clinic.\n",
        ["QRT", "jdoakes", "wpx"], ["hand in clinic"]),
    "user names in a table's user column": (
        "Access log extract:\n WHEN                 USER ID        ROLE           ACTION\n"
        " 2026-01-02 10:14    tquarrel4      Billing Clerk  Chart open\n"
        " 2026-01-03 11:02    mbrindlewood   Attending MD   Note signed\n\nReviewed by compliance.\n",
        ["tquarrel4", "mbrindlewood"], ["Billing Clerk", "Attending MD", "Chart open", "Reviewed by compliance"]),
    "a portal handle in brackets after the sender's name": (
        "From: Patient Hollis Varga-Penn (hvargap)\nReceived Tue 4/1/25 9:03 PM\nSon Abel Cruz (son) called.\n",
        ["Hollis Varga-Penn", "hvargap"], ["(son)"]),
}

# Real nursing notes: staff named after a verb of talking, a capitalised name after a title that only its ending
# made a common word, a given name signed alone at a note's end.
NURSING = {
    "a known given name after talked with, in lower case": (
        "neuro: alert. talked with maureen from case management about rehab options.\n",
        ["maureen"], ["case management", "rehab options"]),
    "a capitalised name after a title and after and, ending in -ed": (
        "per md Fareed will hold lasix. Drs Kowalczyk and Fareed in to see pt.\n",
        ["Fareed", "Kowalczyk"], ["hold lasix", "to see pt"]),
    "a given name signed alone after the last sentence": (
        "PT IS ON 20MCG/HR OF NEO, NOT 40. CORINNE\n\n",
        ["CORINNE"], ["NEO", "NOT 40"]),
    "a given name in the possessive before a telephone, again later": (
        "DTR VISITED, HOME IS 2 HRS AWAY. LORETTA'S CELL 555-201-3344. LORETTA WILL CALL AM.\n",
        ["LORETTA"], ["DTR VISITED", "WILL CALL AM"]),
    "two name words before aware at a sentence's start": (
        "K REPLETED. QUENBY TALLOWAY AWARE. RESIDENT AWARE. TEAM NOTIFIED.\n",
        ["QUENBY TALLOWAY"], ["RESIDENT AWARE", "TEAM NOTIFIED", "K REPLETED"]),
    "a second date without a year after or": (
        "P: Hemodialysis 9/6 or 9/7, then reassess. Pain 4 or 5/10.\n",
        ["9/6", "9/7"], ["5/10"]),
}

PLACES = {
    "a place gone to or come from, in a sentence-case note": (
        "Pt wants to go to Pellham and wait there. Transferred from Ormsby Cross yesterday. Return to Pt's baseline.\n"
        "Will go to Radiology later, then back to Rehab.\n",
        ["Pellham", "Ormsby Cross"], ["Pt's baseline", "Radiology", "Rehab"]),
    "a place named by its kind, in title case or in capitals after a placing word": (
        "Fell while hiking near Lake Orrinmere. Walked at Tansy Whitcombe Park with her son. Lives in Quillon County.\n"
        "INJURED AT A PARTY ON CROWFOOT MARSH BAYOU.\n",
        ["Lake Orrinmere", "Tansy Whitcombe Park", "Quillon County", "CROWFOOT MARSH BAYOU"],
        ["Fell while hiking", "with her son", "INJURED AT A PARTY"]),
}

ADDRESSES = {
    "an upper-case mailing block: addressee, rural street line, town state and ZIP": (
        "Statement date: 09/01/2026\n\nMARGUERITE L OSTRANDER\nW2290 HOLLOW PINE RD\nFENNIMORE WI 53809\n\n"
        "Dear patient,\n",
        ["MARGUERITE L OSTRANDER", "W2290 HOLLOW PINE RD", "FENNIMORE WI 53809"], ["Dear patient"]),
    "a rural route and box before the town, state and ZIP": (
        "Visit site: pt home, RR 3 Box 72, Dunmore, KS 67001\nClinician: RN\n",
        ["RR 3 Box 72, Dunmore, KS 67001"], ["pt home"]),
}

ORGANISATIONS = {
    "an upper-case letterhead ending in a kind of body": (
        "QUILLFEATHER VALLEY HOME HEALTH SERVICES\nSKILLED NURSING VISIT NOTE\nSeen today.\n",
        ["QUILLFEATHER VALLEY HOME HEALTH SERVICES"], ["SKILLED NURSING VISIT NOTE", "Seen today"]),
    "a letterhead with its branch after a dash, not the chair after a gap": (
        "Brambleton Kidney Care - Hartsfield   Chair 4   Date: 3/3/2026\nTreatment tolerated.\n",
        ["Brambleton Kidney Care - Hartsfield"], ["Chair 4", "Treatment tolerated"]),
    "employers, schools and suppliers named by the kind of body they are": (
        "SH: Retired machinist, formerly at Dunraven Correctional Institution. Daughter teaches at Ashby Creek "
        "Elementary.\nSupplies via Tollund Respiratory Supply. Sample sent to Orrin Genomics, Inc. for testing.\n"
        "Physical Therapy Services to see pt. Respiratory Care Services aware. Moved to the Intensive Care Unit.\n",
        ["Dunraven Correctional Institution", "Ashby Creek Elementary", "Tollund Respiratory Supply",
         "Orrin Genomics, Inc."], ["Retired machinist", "Supplies via", "for testing", "Physical Therapy Services",
                                  "Respiratory Care Services", "Intensive Care Unit"]),
    "a hospice of a region": (
        "Admitted to Lantern Ridge Hospice of the Tamsin Hills today.\n",
        ["Lantern Ridge Hospice of the Tamsin Hills"], ["Admitted to", "today"]),
}

@pytest.mark.parametrize("name", list(NAMES))
def test_names_by_structure(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = NAMES[name]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("name", list(USERS))
def test_user_names(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = USERS[name]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("name", list(NURSING))
def test_nursing_note_names(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = NURSING[name]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("name", list(PLACES))
def test_places_gone_to(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = PLACES[name]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("name", list(ADDRESSES))
def test_mailing_blocks(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = ADDRESSES[name]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("name", list(ORGANISATIONS))
def test_organisations_by_kind(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = ORGANISATIONS[name]
    check_english_note(analyzer, text, phi, keep)
