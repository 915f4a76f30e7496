"""Classes of English PHI that letterheads, headings and day-first notes write: the town (region, postcode) after a
found hospital or street, a hospital's heading followed by its department (which stays), day-first dates without a
year, and the weeks and months of UK-style follow-ups (review in 6/52), which are no dates. Every note is written for
this test; the places are made up, no value is taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


CLASSES = {
    "the town after a hospital in a heading, with its province or in brackets": (
        "CLINIC NOTE\nKestrelbrook Valley Hospital, Tallowmere, ON\nDate: 2024-03-01\n"
        "Consult — Brindlemoor Community Hospital (Ashcombery)\nSeen for review.\n",
        ["Tallowmere, ON", "Ashcombery"], ["CLINIC NOTE", "Seen for review"]),
    "the town after a hospital before a dash, the department after it stays": (
        "St. Aldwyn's University Hospital, Pellingford — Adult Psychiatry\nOutpatient review.\n",
        ["Pellingford"], ["Adult Psychiatry", "Outpatient review"]),
    "the state after a found town": (
        "Intake — Ridgeback Wind Services LLC, Woodward, OK\nPt lives in Frostburg, MD with wife.\n",
        ["Woodward, OK", "Frostburg, MD"], []),
    "a letterhead's street with its town, region and postcode": (
        "Quillon Harbour Medical Practice\n14 Quarry Row, Dunmerrow WA 6999   Ph (08) 9555 0101\n",
        ["14 Quarry Row, Dunmerrow WA 6999"], []),
    "a street's flat before it, its direction, town, county and postcode after it, a company's LLC": (
        "Address: Flat 3, 21 Tannery Road, Pellingford HG9 9ZZ\n"
        "Kettlewell Surgery\n48 Mossgate Road West, Dunmerrow, North Riding HG8 8ZZ\n"
        "Report: Quarrystone Pathology Associates, LLC\n",
        ["Flat 3, 21 Tannery Road, Pellingford HG9 9ZZ", "48 Mossgate Road West, Dunmerrow, North Riding HG8 8ZZ",
         "Quarrystone Pathology Associates, LLC"], ["Report"]),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_places_in_headings(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = CLASSES[name]
    check_english_note(analyzer, text, phi, keep)


DEPARTMENTS = {
    "a department after a hospital's name and a gap of spaces stays": (
        "DISCHARGE SUMMARY\nHarrowgate Community Hospital   Pulmonary Medicine\nName: X\n",
        ["Harrowgate Community Hospital"], ["Pulmonary Medicine"]),
    "a department after a dash stays": (
        "Ferncliff Bay Health Centre - Physiotherapy\nTo: Dr. X\n",
        ["Ferncliff Bay Health Centre"], ["Physiotherapy"]),
}


@pytest.mark.parametrize("name", list(DEPARTMENTS))
def test_departments_after_a_heading_stay(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = DEPARTMENTS[name]
    check_english_note(analyzer, text, phi, keep)


DAY_FIRST = {
    "day-first dates without a year in a note that writes its dates day first, also before a colon": (
        "Date of letter: 27/08/2024\n"
        "Admitted on 19/8 with cellulitis and discharged today 24/8. Bloods 28/2: Hb 101. Lithium level 6/3: 0.6.\n",
        ["19/8", "24/8", "28/2", "6/3"], []),
    "a day over 12 first is a setting where the note writes no date day first": (
        "RESP: PT INITIALLY ON 13/10 IN AM, WEANED. Tube secured at 21/2 at level of skin. Seen 03/14/2024.\n",
        ["03/14/2024"], ["13/10", "21/2"]),
    "weeks and months of a follow-up are no dates": (
        "Plan: clinic review in 4/52; repeat LFTs 3/52. GP to review 6/12. PS 14/5 overnight.\n",
        [], ["4/52", "3/52", "6/12", "14/5"]),
}


@pytest.mark.parametrize("name", list(DAY_FIRST))
def test_day_first_dates(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = DAY_FIRST[name]
    check_english_note(analyzer, text, phi, keep)


PROSE = {
    "a town after a word of living, coming or kin, in a sentence-case note": (
        "Admits to a family party in Pellingford over the weekend. Lives with wife Mary in Dunmerrow Bay.\n"
        "Family travels from Tallowmere by bus. Returned from Kerrowdale district in May.\n",
        ["Pellingford", "Dunmerrow Bay", "Tallowmere", "Kerrowdale"], ["over the weekend", "May", "district"]),
    "a street named without its number": (
        "Home: bungalow on Tannery Ave, furnace fixed. Injured outside a bar on Mossgate Street at 0200.\n",
        ["Tannery Ave", "Mossgate Street"], ["furnace", "at 0200"]),
    "what stays: a service, a language, a country, a holiday, a verb after a relative": (
        "Wife works in Radiology. Son lives in Spain; family speaks to her in Spanish. Daughter visiting at "
        "Christmas. Husband drove to Mercy Hospital. Family updated by MD's. Mother speaks to her in Iranian.\n",
        [], ["Radiology", "Spain", "Spanish", "Christmas", "drove", "MD's", "Iranian"]),
}


@pytest.mark.parametrize("name", list(PROSE))
def test_places_in_prose(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = PROSE[name]
    check_english_note(analyzer, text, phi, keep)


IDENTIFIERS = {
    "Indian, Irish and Canadian numbers after their labels, with slashes": (
        "IPD No: KP/24/019932     UHID: KSH0099120\nAadhaar: 2345 6789 0123   PPSN 1234567TW\n"
        "UHID: KMC/PC/23/7712   UCI: 12-3456-7890\nReg. KMC-2011/05/2288   IMC 123456\n",
        ["KP/24/019932", "KSH0099120", "2345 6789 0123", "1234567TW", "KMC/PC/23/7712", "12-3456-7890",
         "KMC-2011/05/2288", "123456"], ["UHID:", "Reg.", "IMC"]),
    "an age of 90 or more with its unit, a portal handle": (
        "Age: 94 years\nFrom: jodie.ashby (patient)   To: Clinic Nurses\nportal username set as kerrow09.\n"
        "She took metformin (glucophage) for years.\n",
        ["94 years", "jodie.ashby", "kerrow09"], ["metformin (glucophage) for years"]),
}


@pytest.mark.parametrize("name", list(IDENTIFIERS))
def test_identifiers_after_labels(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = IDENTIFIERS[name]
    check_english_note(analyzer, text, phi, keep)


ORGANISATIONS = {
    "an employer after a job word with a shift word between, a club": (
        "Retired officer of Bank of Kerrowshire. Works part-time at Pellmart Dunmerrow. Husband works nights at "
        "Tallow Buses depot. Plays for Old Kerrovians RFC.\n",
        ["Bank of Kerrowshire", "Pellmart Dunmerrow", "Tallow Buses", "Old Kerrovians RFC"], ["depot"]),
    "funeral homes, parishes, police, a county's EMS, a GP's surgery by its street; a specialty stays": (
        "Funeral home: Ashby & Sons Memorial Chapel. Priest visited (St. Aldwyn's Parish). Kerrow PD notified.\n"
        "Sent via Tallow County EMS Medic 3. GP: Dr Singh, Mossgate Road Surgery\nPlan: General Surgery review.\n",
        ["Ashby & Sons Memorial Chapel", "St. Aldwyn's Parish", "Kerrow PD", "Tallow County EMS",
         "Mossgate Road Surgery"], ["General Surgery review", "Medic 3"]),
}


@pytest.mark.parametrize("name", list(ORGANISATIONS))
def test_organisations(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = ORGANISATIONS[name]
    check_english_note(analyzer, text, phi, keep)
