"""Replaying adaptive tests from recorded answers, and the observed + predicted score estimators."""

from __future__ import annotations

import numpy as np
import pytest

from climedbench.cat.engine import CATConfig
from climedbench.cat.replay import align, full_scores, replay
from climedbench.core.suite import load_suite
from climedbench.errors import DataError
from climedbench.irt.bank import ItemBank
from climedbench.irt.calibrate import fit
from climedbench.irt.matrix import ResponseMatrix
from climedbench.irt.model import prob
from climedbench.irt.synthetic import generate_bank, simulate_responses, suite_layout

CLIMED = suite_layout(load_suite("climedbench"))  # the bank shaped like the 14 CliMedBench scenarios


@pytest.fixture(scope="module")
def world() -> tuple[ItemBank, np.ndarray]:
    """A bank fitted on simulated calibration answers (3 scenarios), and answers of 40 other examinees."""
    rng = np.random.default_rng(11)
    truth = generate_bank(240, rng)
    scen = ["A"] * 80 + ["B"] * 100 + ["C"] * 60
    cal = simulate_responses(rng.normal(size=400), truth, rng)
    bank = fit(cal, "2pl", item_ids=truth.ids, scenarios=scen)
    test = simulate_responses(rng.normal(size=40), truth, rng)
    return bank, test


@pytest.mark.parametrize("selection", ["stratified", "fisher"])
def test_replay_never_asks_an_item_the_row_did_not_answer(world, selection: str) -> None:
    bank, test = world
    x = test.copy()
    rng = np.random.default_rng(3)
    x[rng.random(x.shape) < 0.3] = np.nan  # 30% of every row unanswered
    x[0, :] = np.nan
    x[0, :5] = 1.0  # a row that answered only 5 items
    rep = replay(bank, x, CATConfig(max_items=60, selection=selection))
    st = rep.state
    for r in range(x.shape[0]):
        asked = st.items[r, :st.n_admin[r]]
        assert np.all(~np.isnan(x[r, asked])), "asked an item the row did not answer"
        assert len(set(asked.tolist())) == asked.size
        np.testing.assert_array_equal(st.responses[r, :st.n_admin[r]], x[r, asked])
    assert st.n_admin[0] == 5 and np.all(st.n_admin[1:] == 60)


@pytest.mark.parametrize("selection", ["stratified", "fisher"])
def test_prediction_is_the_observed_score_when_every_item_is_asked(world, selection: str) -> None:
    bank, test = world
    rep = replay(bank, test[:10], CATConfig(max_items=bank.n_items, selection=selection))
    actual, per, names = full_scores(bank, test[:10])
    assert names == ["A", "B", "C"]
    # hand check of the overall definition: the plain mean of the three scenario percentages
    a = 100 * test[:10, :80].mean(axis=1)
    b = 100 * test[:10, 80:180].mean(axis=1)
    c = 100 * test[:10, 180:].mean(axis=1)
    np.testing.assert_allclose(actual, (a + b + c) / 3)
    np.testing.assert_allclose(rep.prediction.overall, actual, atol=1e-9)
    np.testing.assert_allclose(rep.prediction.scenario, per, atol=1e-9)
    np.testing.assert_allclose(rep.prediction.overall_se, 0.0, atol=1e-6)


def test_stratified_prediction_is_the_difference_estimator(world) -> None:
    """Recompute the prediction of a short stratified test item by item from its definition."""
    bank, test = world
    rep = replay(bank, test[:3], CATConfig(max_items=30), seed=5)
    eng, st = rep.engine, rep.state
    strata = eng.strata
    assert strata is not None and strata.method == "clusters"
    names, sidx = bank.scenario_labels()
    w = eng.posterior_weights(st.logpost)
    for r in range(3):
        # posterior-expected probability of every bank item, one item at a time
        pbar = np.array([w[r] @ prob(eng.grid, bank.a[j], bank.b[j], bank.c[j]) for j in range(bank.n_items)])
        asked = st.items[r, :st.n_admin[r]]
        resid = {j: test[r, j] - pbar[j] for j in asked}
        per = []
        for s in range(len(names)):
            total = 0.0
            for h in np.unique(strata.labels[sidx == s]):
                members = np.flatnonzero(strata.labels == h)
                res_h = [resid[j] for j in members if j in resid]
                total += pbar[members].sum() + (members.size * np.mean(res_h) if res_h else 0.0)
            per.append(100 * total / np.sum(sidx == s))
        assert rep.prediction.overall[r] == pytest.approx(np.mean(per), abs=1e-6)
        np.testing.assert_allclose(rep.prediction.scenario[r], per, atol=1e-6)


def test_align_names_a_column_missing_from_the_bank(world) -> None:
    bank, _ = world
    m = ResponseMatrix(["m1"], [bank.ids[0], "zzz"], np.array([[1.0, 0.0]]))
    with pytest.raises(DataError, match=r"runs\.csv:1: field 'zzz': column 3: item is not in the bank"):
        align(m, bank, file="runs.csv")
    ok = align(ResponseMatrix(["m1"], [bank.ids[3]], np.array([[1.0]])), bank)
    assert ok[0, 3] == 1.0 and np.isnan(ok[0, [0, 1, 2, 4]]).all()


def test_predictions_stay_on_the_scale():
    """Weak examinees who answered every item of one scenario wrong: the stratified difference estimator steps
    past 0 and 100 (−19 and 124 points before), a predicted score may not."""
    rng = np.random.default_rng(0)
    bank = generate_bank(600, rng, layout=CLIMED)
    _, idx = bank.scenario_labels()
    x = np.zeros((40, bank.n_items))
    for i in range(40):
        x[i] = (rng.random(bank.n_items) < rng.uniform(0.0, 0.3)).astype(float)
    x[:, idx == 0] = 0.0
    pred = replay(bank, x, CATConfig(max_items=60), seed=0).prediction
    assert pred.scenario.min() >= 0.0 and pred.scenario.max() <= 100.0
    assert pred.overall.min() >= 0.0 and pred.overall.max() <= 100.0
    assert np.allclose(pred.overall, pred.scenario.mean(axis=1))
    _, actual, _ = full_scores(bank, x)
    assert np.all(actual[:, 0] == 0.0)
