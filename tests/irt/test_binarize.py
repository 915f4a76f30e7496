"""Binarising graded scores for IRT cannot invent ability: a scenario answered all wrong never becomes all right."""

from __future__ import annotations

import numpy as np

from climedbench.core.suite import load_suite
from climedbench.irt.binarize import binarize_scores


def test_constant_graded_scenarios_are_left_out_and_the_lowest_score_is_never_correct():
    suite = load_suite("climedbench")
    rng = np.random.default_rng(3)
    # Examinees × items: KE (ROUGE-1) all 0, CPR (Kendall's τ) all 0, WTD (similarity) graded, BKT (accuracy) 1/0.
    scenarios = ["KE"] * 5 + ["CPR"] * 5 + ["WTD"] * 6 + ["BKT"] * 4
    scores = np.zeros((7, len(scenarios)))
    wtd = rng.uniform(0.2, 0.9, size=(7, 6))
    scores[:, 10:16] = wtd
    bkt = rng.integers(0, 2, size=(7, 4)).astype(float)
    scores[:, 16:] = bkt
    scores[2, 11] = wtd[2, 1] = np.nan  # a failed request stays missing
    b = binarize_scores(scores, scenarios, suite)
    assert set(b.left_out) == {"KE", "CPR"} and "scored the same" in b.left_out["KE"]
    assert b.keep == list(range(10, 20)) and b.data.shape == (7, 10)
    assert np.array_equal(b.data[:, 6:], bkt)
    graded = b.data[:, :6]
    seen = ~np.isnan(wtd)
    assert np.array_equal(np.isnan(graded), ~seen)
    assert graded[wtd == np.nanmin(wtd)].item() == 0.0 and graded[wtd == np.nanmax(wtd)].item() == 1.0
    assert set(np.unique(graded[seen])) == {0.0, 1.0}
    # The binary mean tracks the graded mean within the granularity of 41 values.
    assert abs(graded[seen].mean() - wtd[seen].mean()) <= 1 / 41 + 0.05
