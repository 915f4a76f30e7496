"""The held-out validation study of adaptive tests (climedbench.cat.validate, what bench/cat_real.py prints), on
simulated answers: the random-sampling baseline by hand, and the study's cells against bounds that follow from the
designs (asking all but one item leaves at most that one item's answer to predict)."""

from __future__ import annotations

import numpy as np
import pytest

from climedbench.cat.records import HeldOutStudy
from climedbench.cat.validate import DESIGNS, heldout_study, random_sampling
from climedbench.errors import ConfigError
from climedbench.irt.matrix import ResponseMatrix
from climedbench.irt.synthetic import generate_bank, simulate_responses

N_ITEMS = 30


def test_random_sampling_asking_every_answered_item_gives_the_mean_of_the_scenario_scores() -> None:
    answers = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, np.nan, 1.0]])
    scenario = np.array([0, 0, 1, 1])
    # row 1: scenario 0 50%, scenario 1 100% → 75; row 2 (item 3 missing): 0% and 100% → 50
    err = random_sampling(answers, np.array([10.0, 20.0]), scenario, 4, 3, np.random.default_rng(0))
    assert err.tolist() == [65.0, 30.0]


def test_random_sampling_fills_a_scenario_not_drawn_with_the_pooled_percent() -> None:
    answers = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    # one item drawn: its scenario scores 100 (or 0), the other scenario takes the pooled 100 (or 0)
    err = random_sampling(answers, np.array([40.0, 40.0]), np.array([0, 0, 1, 1]), 1, 5, np.random.default_rng(1))
    assert err.tolist() == [60.0, 40.0]


@pytest.fixture(scope="module")
def matrix() -> ResponseMatrix:
    rng = np.random.default_rng(5)
    bank = generate_bank(N_ITEMS, rng)
    answers = simulate_responses(rng.normal(size=40), bank, rng)
    return ResponseMatrix([f"model{i}" for i in range(40)], list(bank.ids), answers)


@pytest.fixture(scope="module")
def study(matrix: ResponseMatrix) -> HeldOutStudy:
    return heldout_study(matrix, model="2pl", holdout=0.25, splits=2, lengths=(N_ITEMS - 1, N_ITEMS, 40), folds=3,
                         random_draws=2, seed=1, name="simulated")


def test_the_study_has_one_cell_per_design_and_length_shorter_than_the_bank(study: HeldOutStudy) -> None:
    assert (study.n_examinees, study.n_items, study.matrix) == (40, N_ITEMS, "simulated")
    assert study.skipped_lengths == [N_ITEMS, 40]
    assert {(c.design, c.n_items) for c in study.cells} == {(d, N_ITEMS - 1) for d in ("random", *DESIGNS)}
    assert all(len(c.mae_by_split) == 2 for c in study.cells)


def test_asking_all_but_one_item_leaves_at_most_that_item_unknown(study: HeldOutStudy) -> None:
    cells = {c.design: c for c in study.cells}
    one_item = 100.0 / N_ITEMS  # points of the full score one item weighs
    # random: c of 29 against c (+1) of 30; fisher: the 29 answers + one expected answer in [0, 1]
    for design in ("random", "fisher"):
        assert all(v <= one_item + 1e-3 for v in cells[design].mae_by_split), design
    # stratified: the one unasked item is predicted by its expected answer plus the mean residual, in (-1, 2)
    assert all(v <= 2 * one_item + 1e-3 for v in cells["stratified"].mae_by_split)


def test_designs_report_interval_coverage_and_the_baseline_does_not(study: HeldOutStudy) -> None:
    cells = {c.design: c for c in study.cells}
    assert cells["random"].coverage is None and cells["random"].width is None
    for design in DESIGNS:
        cell = cells[design]
        assert cell.coverage is not None and 0.0 <= cell.coverage <= 1.0
        assert cell.width is not None and cell.width > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"holdout": 1.0}, "--holdout must be between 0 and 1"),
    ({"designs": ["fisher", "bogus"]}, "unknown design"),
    ({"holdout": 0.9, "folds": 5}, "too few calibration rows"),
])
def test_bad_settings_are_refused_before_any_fit(matrix: ResponseMatrix, kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        heldout_study(matrix, **kwargs)
