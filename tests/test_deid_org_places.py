"""Organisations and places by general mechanisms (issue 21): the later short mentions of a found organisation — its
initials, its own words before its kind, its own words with the rest as initials (deid/en_org_mentions.py); an
organisation whose last word names its kind in any country's usage or written short (deid/en_org_kinds.py);
addresses by their structure (deid/en_addresses.py). Every
note is written for this test; names, places and organisations are made up, no value is taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_english_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


MENTIONS = {
    "the initials of a found hospital, later in the note": (
        "Admitted from Quellmoor Vale General Hospital on 3/2. QVGH cardiology notes reviewed. ECG and CBC "
        "unremarkable.\n",
        ["Quellmoor Vale General Hospital", "QVGH"], ["ECG and CBC"]),
    "a found agency's own words with the rest as initials": (
        "Home visits by Tarrowind Ridge Nursing Services since May. Tarrowind Ridge NS to resume wound care Monday.\n",
        ["Tarrowind Ridge Nursing Services", "Tarrowind Ridge NS"], ["wound care Monday"]),
    "a found clinic's own words before its kind, later alone": (
        "Followed at Brackwater Fennick Family Clinic for diabetes. Brackwater Fennick faxed her A1c of 7.9.\n",
        ["Brackwater Fennick Family Clinic", "Brackwater Fennick"], ["A1c of 7.9"]),
}

# What a short form may not be: initials that spell a clinical abbreviation, a kind's words alone, a state.
MENTION_GUARDS = {
    "initials that spell a clinical abbreviation stay": (
        "Seen at Coral Heights Foundation clinic. CHF exacerbation treated with diuresis.\n",
        ["Coral Heights Foundation"], ["CHF exacerbation"]),
    "a state before the kind is no short form": (
        "Admitted from Ohio Valley Medical Center. Ohio residents are eligible for the programme.\n",
        ["Ohio Valley Medical Center"], ["Ohio residents"]),
}


@pytest.mark.parametrize("case", list(MENTIONS))
def test_short_mentions_of_a_found_organisation(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = MENTIONS[case]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("case", list(MENTION_GUARDS))
def test_short_forms_that_are_other_words_stay(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = MENTION_GUARDS[case]
    check_english_note(analyzer, text, phi, keep)


KINDS = {
    "a hospital written short, in capitals, in a heading": (
        "ED NOTE - PELLWORTH QUINTARD HOSP EMERGENCY DEPT\nPT SEEN IN BAY 4.\n",
        ["PELLWORTH QUINTARD HOSP"], ["ED NOTE", "PT SEEN IN BAY 4"]),
    "a medical centre written short, in capitals": (
        "Old films: QUARRINGTON-HALE MED CTR, 2021. No change since.\n",
        ["QUARRINGTON-HALE MED CTR"], ["Old films", "No change since"]),
    "a school by its level, a school district by its initials": (
        "Mother teaches at Fennimore Oaks Primary. Forms to Tallowbrook Elementary and Dunmerrow ISD today.\n",
        ["Fennimore Oaks Primary", "Tallowbrook Elementary", "Dunmerrow ISD"], ["Mother teaches", "today"]),
    "a co-operative after a word of belonging": (
        "Member of Hollowfen Growers Co-operative since 2019; sells at the market on Saturdays.\n",
        ["Hollowfen Growers Co-operative"], ["Member of", "market on Saturdays"]),
    "a police force and a shelter": (
        "Per Quentonville PD the driver stayed. Sleeps at the Marrow Street Night Shelter most nights.\n",
        ["Quentonville PD", "Marrow Street Night Shelter"], ["the driver stayed", "most nights"]),
}

# Departments, services and everyday phrases whose last word is a kind word, but that have no own word.
KIND_GUARDS = {
    "a department, a service and a school level without a name stay": (
        "Seen by Cardiac Surgery and General Practice. Blood pressure High. Taught Primary school for years.\n",
        [], ["Cardiac Surgery", "General Practice", "Primary school"]),
    "a note in capitals: everyday kind words stay": (
        "PT S/P CARDIAC SURGERY. BP HIGH. FAMILY AT BEDSIDE, UPDATED ON PLAN OF CARE.\n",
        [], ["CARDIAC SURGERY", "BP HIGH"]),
}


@pytest.mark.parametrize("case", list(KINDS))
def test_organisations_by_their_kind_word(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = KINDS[case]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("case", list(KIND_GUARDS))
def test_kind_words_without_an_own_word_stay(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = KIND_GUARDS[case]
    check_english_note(analyzer, text, phi, keep)


ADDRESSES = {
    "a street without its number after any verb": (
        "Struck by a car while crossing Pellingham Ave near the bakery; lives off Quarrow Rd with her son.\n",
        ["Pellingham Ave", "Quarrow Rd"], ["near the bakery", "her son"]),
    "an ordinal street with a direction": (
        "Found by a passer-by on S. 9th St at dusk.\n",
        ["S. 9th St"], ["at dusk"]),
    "a numbered rural road and a route": (
        "Fell from a ladder at home on County Rd 1400 E; collision on Route 612 last year.\n",
        ["County Rd 1400 E", "Route 612"], ["Fell from a ladder", "last year"]),
    "a grid house number and a unit written before the number": (
        "Ship supplies to W4471 Fenwick Lake Rd. Office: Shop 7, 41 Tarrow Road, Quellby.\n",
        ["W4471 Fenwick Lake Rd", "Shop 7, 41 Tarrow Road"], ["Ship supplies"]),
}

ADDRESS_GUARDS = {
    "the road of recovery, a route of a drug, a doctor and a saint stay": (
        "Long road to recovery. Route of administration oral. Seen by Dr Pellham on St Anne Ward.\n",
        [], ["Long road to recovery", "Route of administration oral", "St Anne Ward"]),
}


@pytest.mark.parametrize("case", list(ADDRESSES))
def test_addresses_by_their_structure(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = ADDRESSES[case]
    check_english_note(analyzer, text, phi, keep)


@pytest.mark.parametrize("case", list(ADDRESS_GUARDS))
def test_street_and_route_words_without_structure_stay(analyzer: Analyzer, case: str) -> None:
    text, phi, keep = ADDRESS_GUARDS[case]
    check_english_note(analyzer, text, phi, keep)
