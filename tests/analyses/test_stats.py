"""The shared statistics against reference implementations (statsmodels) and hand-computed values."""

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from climedbench.analyses import stats


def test_holm_matches_statsmodels():
    p = [0.01, 0.04, 0.03, 0.2, 0.001, 0.5]
    expected = multipletests(p, method="holm")[1]
    assert stats.holm(p) == pytest.approx(list(expected))


def test_holm_skips_missing_values():
    assert stats.holm([0.01, None, 0.02]) == [pytest.approx(0.02), None, pytest.approx(0.02)]


@pytest.mark.parametrize(("a_only", "b_only", "both", "neither"), [(3, 12, 10, 5), (0, 7, 4, 4), (9, 9, 1, 1)])
def test_mcnemar_exact_matches_statsmodels(a_only, b_only, both, neither):
    a = [1] * a_only + [0] * b_only + [1] * both + [0] * neither
    b = [0] * a_only + [1] * b_only + [1] * both + [0] * neither
    p, got_a, got_b = stats.mcnemar_exact(a, b)
    table = [[both, a_only], [b_only, neither]]
    assert p == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert (got_a, got_b) == (a_only, b_only)


def test_mcnemar_without_discordant_pairs_is_one():
    assert stats.mcnemar_exact([1, 0, 1], [1, 0, 1])[0] == 1.0


def test_wilcoxon_exact_small_sample():
    # Six positive differences: the exact two-sided p is 2 / 2**6.
    assert stats.wilcoxon_p([0] * 6, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) == pytest.approx(2 / 64)
    assert stats.wilcoxon_p([0.5, 0.5], [0.5, 0.5]) == 1.0


def test_wilson_matches_statsmodels():
    for k, n in [(0, 10), (7, 10), (33, 120)]:
        lo, hi = stats.wilson(k, n)
        ref = proportion_confint(k, n, method="wilson")
        assert (lo, hi) == pytest.approx(ref)


def test_ols_slope_matches_statsmodels_hc1():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    x = rng.uniform(5, 12, 200)
    groups = rng.choice(["a", "b", "c"], 200)
    y = 0.8 - 0.03 * x + (groups == "b") * 0.2 + rng.normal(0, 0.1 * (1 + x / 10), 200)
    got = stats.ols_slope(y, x)
    ref = sm.OLS(y, sm.add_constant(x)).fit(cov_type="HC1")
    assert got.slope == pytest.approx(ref.params[1])
    assert got.se == pytest.approx(ref.bse[1])
    assert got.p == pytest.approx(ref.pvalues[1])
    dummies = np.column_stack([(groups == g).astype(float) for g in ("a", "b", "c")])
    ref_fe = sm.OLS(y, np.column_stack([x, dummies])).fit(cov_type="HC1")
    got_fe = stats.ols_slope(y, x, list(groups))
    assert got_fe.slope == pytest.approx(ref_fe.params[0])
    assert got_fe.se == pytest.approx(ref_fe.bse[0])
    assert got_fe.lower == pytest.approx(ref_fe.conf_int()[0][0])


def test_rank_correlations_formula_and_interval():
    ours = [90, 80, 70, 60, 50, 40, 30]
    theirs = [88, 82, 60, 65, 40, 45, 20]
    c = stats.rank_correlations(ours, theirs, replicates=500)
    d = np.array([1, 2, 4, 3, 6, 5, 7]) - np.arange(1, 8)
    assert c.spearman == pytest.approx(1 - 6 * np.sum(d**2) / (7 * 48))
    assert c.kendall == pytest.approx((19 - 2) / 21)  # 2 discordant pairs of 21
    assert c.lower <= c.spearman <= c.upper and c.n == 7
    assert np.isnan(stats.rank_correlations([1, 2], [2, 1]).spearman)


def test_ranks_and_rank_intervals():
    assert list(stats.ranks_of(np.array([0.5, 0.9, 0.5, 0.1]))) == [2, 1, 2, 4]
    rng = np.random.default_rng(0)
    reps = np.column_stack([rng.normal(0.9, 0.01, 400), rng.normal(0.5, 0.05, 400), rng.normal(0.5, 0.05, 400)])
    intervals = stats.rank_intervals(reps)
    assert intervals[0] == (1, 1)
    assert intervals[1] == (2, 3) and intervals[2] == (2, 3)


def test_bootstrap_p():
    assert stats.bootstrap_p(np.full(1000, 0.2)) == pytest.approx(1 / 1000)
    assert stats.bootstrap_p(np.concatenate([np.full(500, -1.0), np.full(500, 1.0)])) == 1.0
