"""Interval calibration: the conformal quantile, coverage on held-out simulees, and where multipliers come from."""

from __future__ import annotations

import numpy as np
import pytest

from climedbench.cat.engine import CATConfig
from climedbench.cat.estimate import intervals
from climedbench.cat.intervals import calibrate_intervals, conformal_quantile
from climedbench.cat.multipliers import IntervalCalibration, multipliers_for, normal_multiplier
from climedbench.cat.replay import full_scores, replay
from climedbench.irt.calibrate import fit
from climedbench.irt.synthetic import generate_bank, simulate_responses


def test_conformal_quantile_by_hand() -> None:
    scores = np.arange(1.0, 101.0)[::-1]  # 100 normalised errors 1..100
    q, ok = conformal_quantile(scores, 0.95, 100)
    assert ok and q == 96.0  # rank ⌈101 · 0.95⌉ = 96
    q, ok = conformal_quantile(np.arange(1.0, 11.0), 0.95, 10)
    assert not ok and q == 10.0  # ⌈11 · 0.95⌉ = 11 > 10: no guarantee, the largest error
    assert normal_multiplier(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_calibrated_intervals_cover_new_examinees_at_the_nominal_rate() -> None:
    """Calibrate on 300 simulees by 5-fold cross-fitting, then test 400 fresh ones: the share of 95% intervals
    that contain the actual full score lies within three binomial SEs of 95% (or above, as conformal
    intervals may be conservative by up to 1/(m + 1))."""
    rng = np.random.default_rng(21)
    truth = generate_bank(200, rng)
    cal = simulate_responses(rng.normal(size=300), truth, rng)
    bank = fit(cal, "2pl", item_ids=truth.ids, scenarios=["A"] * 120 + ["B"] * 80)
    cfg = CATConfig(max_items=40)
    ic = calibrate_intervals(bank, cal, cfg, [40], folds=5, seed=1)
    assert ic.n_examinees == 300 and ic.guaranteed and ic.replications == 1
    new = simulate_responses(rng.normal(size=400), truth, rng)
    rep = replay(bank, new, cfg, seed=2)
    q_o, q_s = ic.multipliers(40)
    lo, hi, slo, shi = intervals(rep.prediction, q_o, q_s)
    actual, per, _ = full_scores(bank, new)
    cover = np.mean((lo <= actual) & (actual <= hi))
    tol = 3 * np.sqrt(0.95 * 0.05 / 400)
    assert 0.95 - tol <= cover <= 0.95 + tol + 1 / 301
    cover_s = np.mean((slo <= per) & (per <= shi))
    assert 0.95 - tol <= cover_s <= 0.95 + tol + 1 / 301
    # the uncalibrated normal multiplier is not what was chosen: the calibration changed the width
    assert abs(q_o - normal_multiplier(0.95)) > 0.05


def test_multipliers_come_from_the_matching_calibration_only() -> None:
    rng = np.random.default_rng(2)
    truth = generate_bank(60, rng)
    bank = fit(simulate_responses(rng.normal(size=200), truth, rng), "2pl", item_ids=truth.ids)
    z = normal_multiplier(0.95)
    q_o, q_s, note = multipliers_for(bank, CATConfig(), 50)
    assert (q_o, q_s) == (z, z) and "NOT calibrated" in note
    cal = IntervalCalibration(level=0.95, selection="stratified", lengths=[20, 80], q_overall=[3.0, 2.0],
                              q_scenario=[3.5, 2.5], n_examinees=200, folds=5, replications=1, seed=0)
    bank.meta["interval_calibration"] = cal.to_dict()
    q_o, q_s, note = multipliers_for(bank, CATConfig(), 40)
    # log-linear between the calibrated lengths: halfway in log n between 20 and 80 is 40
    assert q_o == pytest.approx(2.5) and q_s == pytest.approx(3.0) and "calibrated by" in note
    q_o, _, note = multipliers_for(bank, CATConfig(), 200)
    assert q_o == 2.0 and "outside the calibrated lengths" in note
    q_o, _, note = multipliers_for(bank, CATConfig(selection="fisher"), 40)
    assert q_o == z and "NOT calibrated" in note
