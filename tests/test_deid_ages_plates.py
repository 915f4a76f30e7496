"""Ages of 90 and over in the forms notes write them, and the numbers that are not such an age; British licence plates
after a vehicle word (examples written for this test)."""

from __future__ import annotations

import pytest

from climedbench.deid import detectors
from climedbench.deid.intl_ids import INTL_PATTERNS
from climedbench.deid.patterns import PATTERNS


def _ages(text: str) -> list[str]:
    return [text[s.start:s.end] for s in detectors.pattern_spans(text, PATTERNS) if s.entity == "AGE"]


@pytest.mark.parametrize(("text", "age"), [
    ("患者九十二岁高龄，由女儿陪同入院。", "九十二岁"),
    ("老人年满九十岁，独居。", "九十岁"),
    ("病人現年九十三歲，行動不便。", "九十三歲"),
    ("長者95週歲，家屬代述病史。", "95週歲"),
    ("He is 90 years of age and lives alone.", "90 years of age"),
    ("A woman ninety-four years of age was found on the floor.", "ninety-four years of age"),
])
def test_an_age_of_ninety_or_more_is_found(text, age):
    assert _ages(text) == [age]


@pytest.mark.parametrize("text", [
    "家中老人八九十岁的居多，社区随访。",  # a vague "eighty or ninety"
    "患者89岁，既往高血压。",
    "九十年代曾行阑尾切除术。",
    "He is 89 years of age.",
])
def test_other_numbers_are_not_an_age_of_ninety(text):
    assert _ages(text) == []


def _plates(text: str) -> list[str]:
    return sorted({text[s.start:s.end] for s in detectors.pattern_spans(text, PATTERNS + INTL_PATTERNS)
                   if s.entity == "LICENSE_PLATE"})  # two patterns may find the same plate


@pytest.mark.parametrize(("text", "plate"), [
    ("Driver of vehicle reg LK19 XHN was breathalysed at the scene.", "LK19 XHN"),
    ("Car registration: YX21ABC; the patient was the front passenger.", "YX21ABC"),
    ("Number plate BD07 KTR recorded by the ambulance crew.", "BD07 KTR"),
])
def test_a_british_plate_after_a_vehicle_word_is_found(text, plate):
    assert _plates(text) == [plate]


def test_the_same_shape_without_a_vehicle_word_stays():
    assert _plates("Relapsed ALL; referred for CD19 CAR therapy, markers CD22 POS on flow.") == []
