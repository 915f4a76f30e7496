"""English classes of this round: an address field's whole value whatever its words (a French street, a farm road,
a unit first), streets by more suffixes (Pike, Parade, Tce, Mews), a practice named by a place or person and its
specialty (… Rheumatology, … Pathology, … Diabetes & Endocrine), an insurer after a word of cover and a verb
(supplemental through …, my insurance is …), a "Surname, Given" set apart as a field (MARQUETTE, ODALYS   POD#2);
and what stays: departments named by their specialty alone, a public
programme, a duration after Home:, a town line that does not run into the next line's heading. Every note is
written for this test: no value is taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


CLASSES = {
    "an address field's whole value, whatever its street words": (
        "Client: Marchetti, Oriane   Address: 61 chemin des Pins, app. 2, Ashcombe, QC G1A 1A1     Tel: 418 555 0100\n"
        "Home: 4410 FM 2210, Dunmore, TX 79999; ph on file\n"
        "Usual residence: Flat 3/2, 19 Kiln Wynd, Tarrowby\n",
        ["61 chemin des Pins, app. 2, Ashcombe, QC G1A 1A1", "4410 FM 2210, Dunmore, TX 79999",
         "Flat 3/2, 19 Kiln Wynd, Tarrowby"], ["Tel:", "ph on file"]),
    "streets by more suffixes, with their unit and town": (
        "FROM: Quarry Spine Group, 900 Garnet Pike, Suite 12, Ashcombe, PA 19999\n"
        "Re: Mr Olek Brandvold, 12 Harbour Parade, Kelso; sister at 7 Tannery Mews.\n",
        ["900 Garnet Pike, Suite 12, Ashcombe, PA 19999", "12 Harbour Parade, Kelso", "7 Tannery Mews"], []),
    "a practice named by a place or person and its specialty": (
        "Tarrow Valley Rheumatology\nLevel 2, 10 Main Road\n"
        "Specimen to Quill Hanly Pathology (lab no 1). Follows with Brackenridge Diabetes & Endocrine.\n",
        ["Tarrow Valley Rheumatology", "Quill Hanly Pathology", "Brackenridge Diabetes & Endocrine"], []),
    "an insurer after a word of cover and a verb": (
        "Gets Medicare + supplemental through Garnet Senior Advantage (ID on file).\n"
        "also my new insurance is Quillwort now, can you resend it\n",
        ["Garnet Senior Advantage", "Quillwort"], ["Medicare", "now, can"]),
    "a Surname, Given set apart as a field, in upper or title case, whatever the given name": (
        "SICU NSG NOTE 0700-1900   MARQUETTE, ODALYS   POD#2\n"
        "Quenneville, Marisol  71F  MRN 5550001\nS: Thackeray, Wilma, 88 yo F, rm 4\n"
        "Employee: Ocampo Reyes, Jose Luis     DOB on file\n",
        ["MARQUETTE, ODALYS", "Quenneville, Marisol", "Thackeray, Wilma", "Ocampo Reyes, Jose Luis"], ["71F", "88 yo F"]),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_phi_of_this_round(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = CLASSES[name]
    check_english_note(analyzer, text, phi, keep)


KEEP = {
    "departments named by their specialty alone, a public programme, a duration": (
        "Plan: Adult Neurology to see. Musculoskeletal Radiology reviewed films. Insurance is Medicare.\n"
        "Coverage through Medicaid. Home: 2 days of rest advised.\n",
        [], ["Adult Neurology", "Musculoskeletal Radiology", "Medicare", "Medicaid", "2 days of rest"]),
    "findings and sign-offs written like a Surname, Given field": (
        "NEURO: ALERT, OX3. GI: SOFT, NT  \nRESP: LS CLEAR, DIMINISHED  \nCV: NSR, HR 80\n"
        "Thanks, Marisol  \nOlwen Tarrant, PharmD\n",
        ["Marisol", "Olwen Tarrant"], ["ALERT, OX3", "SOFT, NT", "CLEAR, DIMINISHED", "NSR, HR", "Thanks", "PharmD"]),
    "a town after a street does not run into the next line's heading": (
        "Address: 5/19 Mill Road, Tarrowby\nPlan: rest and fluids\n",
        ["5/19 Mill Road, Tarrowby"], ["Plan: rest"]),
}


@pytest.mark.parametrize("name", list(KEEP))
def test_what_this_round_keeps(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = KEEP[name]
    check_english_note(analyzer, text, phi, keep)
