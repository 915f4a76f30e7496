"""The statistics every analysis shares: paired tests, multiplicity control, intervals, trends, correlations.

- `mcnemar_exact`: the exact McNemar test for paired 0/1 outcomes (a two-sided binomial test on the
  discordant pairs, scipy.stats.binomtest).
- `wilcoxon_p`: the Wilcoxon signed-rank test for paired graded scores (scipy.stats.wilcoxon).
- `holm`: Holm's step-down adjustment of a family of p-values.
- `bootstrap_p`: a two-sided p-value from bootstrap replicates of a difference.
- `wilson`: the Wilson score interval of a proportion (scipy).
- `ols_slope`: an OLS slope with heteroskedasticity-robust (HC1) standard error, with optional fixed effects.
- `rank_correlations`: Spearman and Kendall with a bootstrap-over-models percentile interval.
- `rank_intervals`: each model's rank in every bootstrap replicate, summarised as an interval.

Everything is checked against reference implementations (statsmodels) in tests/analyses/test_stats.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

ALPHA = 0.05


def mcnemar_exact(a: Sequence[float] | Any, b: Sequence[float] | Any) -> tuple[float, int, int]:
    """Exact McNemar p-value of paired 0/1 outcomes, and the discordant counts (a right only, b right only)."""
    from scipy.stats import binomtest

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    only_a = int(np.sum((x == 1) & (y == 0)))
    only_b = int(np.sum((x == 0) & (y == 1)))
    n = only_a + only_b
    if n == 0:
        return 1.0, only_a, only_b
    return float(binomtest(only_a, n, 0.5).pvalue), only_a, only_b


def wilcoxon_p(a: Sequence[float] | Any, b: Sequence[float] | Any) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired scores (zero differences dropped); 1.0 when every
    pair is tied."""
    from scipy.stats import wilcoxon

    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(wilcoxon(d, zero_method="wilcox").pvalue)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values (None entries are skipped and stay None)."""
    idx = [i for i, p in enumerate(pvalues) if p is not None and not math.isnan(p)]
    m = len(idx)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda k: float(pvalues[k]))):  # type: ignore[arg-type]
        adj = min(1.0, (m - rank) * float(pvalues[i]))  # type: ignore[arg-type]
        running = max(running, adj)
        out[i] = running
    return out


def bootstrap_p(replicates: np.ndarray) -> float:
    """Two-sided p-value of 'difference = 0' from bootstrap replicates of the difference: twice the smaller
    tail share, at least 1/replicates."""
    r = np.asarray(replicates, dtype=float)
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan")
    if np.all(r == 0):
        return 1.0
    tail = min(float(np.mean(r <= 0)), float(np.mean(r >= 0)))
    return float(min(1.0, max(2 * tail, 1 / len(r))))


def percentile_ci(replicates: np.ndarray, level: float = 0.95, point: float | None = None) -> tuple[float, float]:
    """The percentile interval of bootstrap or posterior replicates (finite ones), widened to hold `point` if given
    (posterior draws centre on the posterior mean, which can leave the observed difference outside)."""
    r = np.asarray(replicates, dtype=float)
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan"), float("nan")
    lo, hi = (float(v) for v in np.percentile(r, [50 * (1 - level), 50 * (1 + level)]))
    if point is not None:
        lo, hi = min(lo, point), max(hi, point)
    return lo, hi


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials (nan, nan when n = 0)."""
    from scipy.stats import binomtest

    if n <= 0:
        return float("nan"), float("nan")
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


@dataclass(frozen=True)
class Slope:
    """An OLS slope with its HC1 standard error, 95% interval, p-value and n."""

    slope: float
    se: float
    lower: float
    upper: float
    p: float
    n: int


def ols_slope(y: Sequence[float], x: Sequence[float], groups: Sequence[str] | None = None) -> Slope:
    """The slope of y on x by OLS (with an intercept, or one fixed effect per group), with a
    heteroskedasticity-robust (HC1) standard error and a normal-approximation 95% interval."""
    from scipy.stats import norm

    yv = np.asarray(y, dtype=float)
    xv = np.asarray(x, dtype=float)
    n = len(yv)
    if groups is None:
        design = np.column_stack([xv, np.ones(n)])
    else:
        levels = sorted(set(groups))
        dummies = np.array([[1.0 if g == lv else 0.0 for lv in levels] for g in groups]).reshape(n, len(levels))
        design = np.column_stack([xv, dummies])
    k = design.shape[1]
    if n <= k or np.ptp(xv) == 0:
        return Slope(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), n)
    xtx_inv = np.linalg.pinv(design.T @ design)
    beta = xtx_inv @ design.T @ yv
    resid = yv - design @ beta
    meat = (design * resid[:, None] ** 2).T @ design
    cov = xtx_inv @ meat @ xtx_inv * n / (n - k)
    se = float(math.sqrt(max(cov[0, 0], 0.0)))
    b = float(beta[0])
    z = norm.ppf(0.975)
    p = float(2 * norm.sf(abs(b) / se)) if se > 0 else (1.0 if b == 0 else 0.0)
    return Slope(b, se, b - z * se, b + z * se, p, n)


@dataclass(frozen=True)
class Correlation:
    """Spearman and Kendall rank correlations of two score lists, with a bootstrap-over-models 95% interval
    of Spearman's rho."""

    spearman: float
    kendall: float
    lower: float
    upper: float
    n: int
    kendall_lower: float
    kendall_upper: float


def rank_correlations(a: Sequence[float] | Any, b: Sequence[float] | Any, *, replicates: int = 2000,
                      seed: int = 0) -> Correlation:
    """Spearman and Kendall (tau-b) of paired scores; intervals from resampling the models (pairs) with
    replacement, replicates where either side is constant being left out."""
    from scipy.stats import kendalltau, spearmanr

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    n = len(x)
    nan = float("nan")
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(nan, nan, nan, nan, n, nan, nan)
    rho = float(spearmanr(x, y).statistic)
    tau = float(kendalltau(x, y).statistic)
    rng = np.random.default_rng(seed)
    rhos = np.full(replicates, np.nan)
    taus = np.full(replicates, np.nan)
    for r in range(replicates):
        idx = rng.integers(0, n, n)
        xs, ys = x[idx], y[idx]
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            continue
        rhos[r] = spearmanr(xs, ys).statistic
        taus[r] = kendalltau(xs, ys).statistic
    lo, hi = percentile_ci(rhos)
    klo, khi = percentile_ci(taus)
    return Correlation(rho, tau, lo, hi, n, klo, khi)


def ranks_of(values: np.ndarray) -> np.ndarray:
    """Competition ranks (1 = highest), ties sharing the best rank, along the last axis."""
    v = np.asarray(values, dtype=float)
    return 1 + np.sum(v[..., None, :] > v[..., :, None], axis=-1)


def rank_intervals(replicates: np.ndarray, level: float = 0.95) -> list[tuple[int, int]]:
    """Per model (columns of `replicates`, one row per bootstrap replicate of every model's score), the
    interval of its rank over the replicates."""
    ranks = ranks_of(replicates)
    lo, hi = np.percentile(ranks, [50 * (1 - level), 50 * (1 + level)], axis=0)
    return [(math.floor(a), math.ceil(b)) for a, b in zip(lo, hi, strict=True)]
