"""Regression checks on the extraction fixtures, per case, and the truncation guard, by its reason.

tests/fixtures/extraction_pinned.json lists, per development set (the fixtures and bench/data/extraction_real_v11),
the ids the extractor read right when it was written (`python bench/extraction_accuracy.py --write-pins`); any of
them read wrong now fails, naming the case.
"""

from __future__ import annotations

import json

import pytest

from climedbench.extract import extract, extract_choice, extract_order
from climedbench.extractors import extract_label

from .conftest import FIXTURES, ROOT

PINS = json.loads((FIXTURES / "extraction_pinned.json").read_text("utf-8"))
# The development sets: the fixtures, and the real responses kept with the benchmark data (not the blind v10 set).
SETS = {p.name: p for p in [*FIXTURES.glob("extraction_*.jsonl"), ROOT / "bench/data/extraction_real_v11.jsonl"]}


def _read(case: dict) -> object:
    if case["kind"] == "label":
        return extract_label(case["response"], tuple(case["labels"])).answer
    return extract(case["kind"], case["response"], case["options"], case.get("option_texts") or None).answer


def test_every_set_is_pinned():
    assert len(SETS) == 11 and sorted(PINS) == sorted(SETS)


@pytest.mark.parametrize("name", sorted(PINS))
def test_pinned_cases_stay_right(name):
    cases = {c["id"]: c for c in map(json.loads, SETS[name].read_text("utf-8").splitlines()) if c}
    regressed = [f"{i}: expected {cases[i]['expected']!r}, read {got!r}" for i in PINS[name]
                 if (got := _read(cases[i])) != cases[i]["expected"]]
    assert not regressed, f"{name}: cases read right before are wrong now:\n" + "\n".join(regressed)


# The truncation guard: a response that stops mid-sentence or mid-analysis (cut at the token limit) is read only
# by a rule that finds a stated answer, never guessed from the last option it mentions. Each case has neighbours
# one step away: the same text finished, and the same text cut off after a stated answer.
CUT_ZH = "逐一分析：\nA. 稳定型心绞痛：与本例不符。\nB. 急性前壁心肌梗死："
CUT_EN = "Option A is unlikely because the pain is pleuritic. Option B fits the ECG and"


CUT_CHOICE = "The best choice is C, because the"
CUT_LINES = "A. 稳定型心绞痛：与本例不符。\nB. 急性前壁心肌梗死：符合本例的表现，因此"


@pytest.mark.parametrize("response", [CUT_ZH, CUT_EN, CUT_CHOICE, CUT_LINES])
def test_cut_off_response_is_not_read(response):
    got = extract_choice(response, "ABCDE")
    assert (got.answer, got.method) == (None, "truncated")


@pytest.mark.parametrize("response, expected", [
    # One step away: the cut-off text after a stated answer is read by that answer.
    ("答案：B\n\n" + CUT_ZH, "B"),
    ("The answer is B.\n\n" + CUT_EN, "B"),
    # One step away: the same text finished is no longer cut off, and its answer is read.
    ("逐一分析：\nA. 稳定型心绞痛：与本例不符。\nB. 急性前壁心肌梗死：符合。\n\n故选B。", "B"),
    ("Option A is unlikely because the pain is pleuritic. Option B fits the ECG, so B.", "B"),
    ("Answer: C. " + CUT_CHOICE, "C"),
    (CUT_CHOICE + " rash is typical.", "C"),
    ("答案：B\n" + CUT_LINES, "B"),
    (CUT_LINES + "选B。", "B"),
])
def test_stated_answer_survives_the_cut_and_finished_text_is_read(response, expected):
    got = extract_choice(response, "ABCDE")
    assert got.answer == expected and got.method != "truncated"


def test_finished_text_without_answer_fails_for_another_reason():
    # The same analysis ending in a full stop with no answer is not 'truncated': it gives no answer.
    got = extract_choice("Option A is unlikely because the pain is pleuritic. Option B fits the ECG and the history.",
                         "ABCDE")
    assert got.method != "truncated"


def test_cut_off_order_list_is_not_read():
    assert extract_order("1. E 麻醉\n2. B 消毒\n3.", "ABCDE").method == "truncated"
    assert extract_order("答案：E→B→A→D→C\n1. E 麻醉\n2. B 消毒\n3.", "ABCDE").answer == "EBADC"
