"""Intervals: agreement with a reference implementation, exact coverage, and no collapse at small n."""

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from climedbench.metrics import intervals


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 113])
def test_jeffreys_equals_statsmodels(n):
    """Equal to statsmodels', except that 0 and n successes take the boundary 0 or 1 (Brown, Cai & DasGupta's
    modification, which statsmodels does not apply)."""
    for x in range(n + 1):
        lo, hi = intervals.jeffreys(x, n)
        ref_lo, ref_hi = proportion_confint(x, n, alpha=0.05, method="jeffreys")
        assert lo == (0.0 if x == 0 else pytest.approx(ref_lo, abs=1e-9))
        assert hi == (1.0 if x == n else pytest.approx(ref_hi, abs=1e-9))


@pytest.mark.parametrize("n", [1, 2, 5, 10, 50, 200])
def test_jeffreys_exact_coverage_averaged_over_the_truth(n):
    """Exact binomial coverage (no simulation), averaged over true accuracies 0.02–0.98."""
    x = np.arange(n + 1)
    ci = np.array([intervals.jeffreys(k, n) for k in x])
    cover = [float((stats.binom.pmf(x, n, p) * ((ci[:, 0] <= p) & (p <= ci[:, 1]))).sum())
             for p in np.linspace(0.02, 0.98, 49)]
    assert np.mean(cover) >= 0.945


def test_small_n_never_collapses():
    lo, hi = intervals.jeffreys(0, 2)
    assert lo == 0.0 and hi > 0.5  # 0 of 2 correct says little
    lo, hi = intervals.jeffreys(2, 2)
    assert hi == 1.0 and lo < 0.5
    assert intervals.graded(np.array([0.4]), 0.0, 1.0) == (0.0, 1.0)  # one graded item: the whole range
    lo, hi = intervals.graded(np.array([1.0, 1.0]), -1.0, 1.0)  # two perfect orders (τ = 1)
    assert hi == 1.0 and lo < 0.5
    many = np.full(5000, 0.7)
    lo, hi = intervals.graded(many, 0.0, 1.0)
    assert 0.69 < lo < 0.7 < hi < 0.71  # large n, identical scores: narrow


def test_graded_interval_is_the_t_interval_at_large_n():
    rng = np.random.default_rng(3)
    y = rng.beta(2, 5, 4000)
    lo, hi = intervals.graded(y, 0.0, 1.0)
    ref = stats.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=y.std(ddof=1) / np.sqrt(len(y)))
    assert lo == pytest.approx(ref[0], abs=2e-4) and hi == pytest.approx(ref[1], abs=2e-4)


def test_draws_match_their_intervals():
    rng = np.random.default_rng(0)
    d = intervals.jeffreys_draws(7, 20, 200_000, rng)
    lo, hi = intervals.percentile(d)
    ref = intervals.jeffreys(7, 20)
    assert lo == pytest.approx(ref[0], abs=0.005) and hi == pytest.approx(ref[1], abs=0.005)
    y = rng.uniform(-1, 1, 12)
    g = intervals.graded_draws(y, -1.0, 1.0, 200_000, rng)
    lo, hi = intervals.percentile(g)
    ref = intervals.graded(y, -1.0, 1.0)
    assert lo == pytest.approx(ref[0], abs=0.01) and hi == pytest.approx(ref[1], abs=0.01)


def test_f1_intervals_are_not_falsely_certain():
    """A micro-F1 of 0 on 16 items (no true positive) is not [0, 0]: the posterior of the confusion counts
    (Goutte & Gaussier 2005) leaves room above 0; at n = 1 a corpus BLEU gets the whole range."""
    from climedbench.aggregate import TaskScores, aggregate
    from climedbench.core.suite import load_suite

    suite = load_suite("clinicbench")
    stats = [[0.0, 0.0, 1.0]] * 16  # every gold mention missed, nothing predicted
    tasks, _, _ = aggregate({"NCBI-Disease": TaskScores([0.0] * 16, stats)}, suite, seed=1, replicates=4000)
    fig = tasks["NCBI-Disease"]
    assert fig.score == 0.0 and fig.interval == "dirichlet"
    assert fig.ci[0] < 1.0 and 3.0 < fig.ci[1] < 30.0
    many = [[1.0, 0.0, 0.0]] * 400  # 400 mentions all found, none false: F1 1 and a narrow interval
    tasks, _, _ = aggregate({"NCBI-Disease": TaskScores([1.0] * 400, many)}, suite, seed=1, replicates=4000)
    assert tasks["NCBI-Disease"].score == 100.0 and tasks["NCBI-Disease"].ci[0] > 99.0
    import numpy as np

    from climedbench.aggregate import task_value
    from climedbench.metrics.functions import coco_bleu_stats

    task = suite.task("IU-Xray")
    bleu = task.secondary(task.also[0])
    stats = coco_bleu_stats("no acute cardiopulmonary process", ["no acute cardiopulmonary abnormality"])
    value = task_value(bleu, TaskScores([0.5], [stats]), 200, np.random.default_rng(0))
    assert value.interval == (0.0, 1.0) and value.method == "full range (n = 1)"


def test_quantiles_equal_scipy_stats():
    """jeffreys() and graded() use climedbench.metrics.quantiles (no scipy import on the run's tail); they give
    scipy.stats' numbers to 1e-10 (results.json rounds to 0.01 points)."""
    a = (1 - intervals.LEVEL) / 2
    for n in (1, 2, 5, 28, 113, 2000):
        for x in [*range(n + 1), 0.5, n - 0.5]:  # fractional counts come from merged or weighted tallies
            lo, hi = intervals.jeffreys(x, n)
            assert lo == pytest.approx(0.0 if x <= 0 else float(stats.beta.ppf(a, x + 0.5, n - x + 0.5)), rel=1e-10)
            assert hi == pytest.approx(1.0 if x >= n else float(stats.beta.ppf(1 - a, x + 0.5, n - x + 0.5)), rel=1e-10)
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 10, 400):
        y = rng.uniform(0, 1, n)
        m, se, df = intervals._shrunk(y)
        h = float(stats.t.ppf(0.5 + intervals.LEVEL / 2, df)) * se
        assert intervals.graded(y, 0.0, 1.0) == pytest.approx((max(0.0, m - h), min(1.0, m + h)), rel=1e-10)


def test_interval_tail_does_not_import_scipy_stats():
    """The run's tail (intervals of a results.json) must not pay for importing scipy.stats."""
    code = ("import sys, numpy as np; from climedbench.metrics import intervals; intervals.jeffreys(3, 7); "
            "intervals.graded(np.array([0.2, 0.9]), 0.0, 1.0); print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
