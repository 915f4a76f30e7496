"""Intervals that keep their coverage at every sample size, and draws that combine them.

- Accuracies (0/1 item scores averaged): the **Jeffreys** interval, the equal-tailed interval of the
  Beta(x + ½, n − x + ½) posterior (Brown, Cai & DasGupta 2001 recommend it, with Wilson's, for small n;
  it never collapses: 0/2 correct gives [0, 0.67]; 0 and n successes take the boundary 0 or 1,
  their modification). Chosen over Wilson because its posterior draws
  combine directly into group and overall intervals; over Clopper–Pearson because CP is conservative
  (99.9% coverage at n = 1, 98% at n = 10), hence needlessly wide.
- Graded item scores averaged (Kendall's τ, ROUGE, similarity): a Student-t interval whose variance is
  shrunk towards the largest variance a bounded score with that mean can have, m(1 − m) on the
  rescaled [0, 1] range, with the weight of two pseudo-observations: s̃² = ((n−1)s² + 2·m̃(1−m̃)) /
  (n + 1), m̃ = (Σy + ½)/(n + 1), t with n + 1 degrees of freedom, clipped to the range. At n = 1 it spans
  the range; at n = 200 it is the ordinary t interval. A plain percentile bootstrap gives 0-width at n = 1
  and covers 48% of the time at n = 2.
- Corpus-level aggregations (micro/macro-F1, corpus BLEU): the percentile bootstrap over items.

Items in clusters (the same source record): climedbench.metrics.clustered adjusts each of these.
`bench/interval_coverage.py` measures the coverage of all of these by simulation with known truth.
Combined figures (a group, the overall score) are the same mean of per-task *draws*: Beta posterior draws
for accuracies, t draws for graded means, bootstrap replicates for corpus aggregations (widened by
climedbench.metrics.cross_task when a cluster spans tasks).
"""

from __future__ import annotations

import numpy as np

from climedbench.metrics.quantiles import beta_ppf, t_ppf

LEVEL = 0.95
PSEUDO = 2.0  # pseudo-observations of the worst-case variance in the graded interval


def jeffreys(x: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Jeffreys interval for x successes in n trials (0 and n get the one-sided end at 0 or 1); with clusters, x and n
    are effective counts (climedbench.metrics.clustered) and may be fractions."""
    # climedbench.metrics.quantiles, not scipy.special.betaincinv: the same quantile to 1e-10, without scipy's
    # ~0.2 s import on every run's tail

    a = (1 - level) / 2
    lo = 0.0 if x <= 0 else beta_ppf(a, x + 0.5, n - x + 0.5)
    hi = 1.0 if x >= n else beta_ppf(1 - a, x + 0.5, n - x + 0.5)
    return lo, hi


def jeffreys_draws(x: float, n: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the proportion from the Jeffreys posterior Beta(x + ½, n − x + ½)."""
    return rng.beta(x + 0.5, n - x + 0.5, size)


def _shrunk(y: np.ndarray, deff: float = 1.0, groups: int | None = None) -> tuple[float, float, float]:
    """(mean, standard error, degrees of freedom) of scores on [0, 1], variance shrunk to the bound; with clusters
    (climedbench.metrics.clustered) the error is ×√deff and the degrees of freedom count the `groups`."""
    n = len(y)
    m = float(y.mean())
    m_adj = (float(y.sum()) + 0.5) / (n + 1)
    s2 = float(y.var(ddof=1)) if n > 1 else 0.0
    var = ((n - 1) * s2 + PSEUDO * m_adj * (1 - m_adj)) / (n - 1 + PSEUDO)
    units = n if groups is None else groups
    return m, float(np.sqrt(var * deff / n)), units - 1 + PSEUDO


def graded(scores: np.ndarray, low: float, high: float, level: float = LEVEL, deff: float = 1.0,
           groups: int | None = None) -> tuple[float, float]:
    """Interval for the mean of scores bounded in [low, high] (see the module docstring)."""
    w = high - low
    m, se, df = _shrunk((np.asarray(scores, dtype=np.float64) - low) / w, deff, groups)
    h = t_ppf(0.5 + level / 2, df) * se
    return low + w * max(0.0, m - h), low + w * min(1.0, m + h)


def graded_draws(scores: np.ndarray, low: float, high: float, size: int, rng: np.random.Generator,
                 deff: float = 1.0, groups: int | None = None) -> np.ndarray:
    """Draws of the mean from the same t distribution, clipped to the range."""
    w = high - low
    m, se, df = _shrunk((np.asarray(scores, dtype=np.float64) - low) / w, deff, groups)
    return low + w * np.clip(m + se * rng.standard_t(df, size), 0.0, 1.0)


def percentile(draws: np.ndarray, level: float = LEVEL, point: float | None = None) -> tuple[float, float]:
    """The equal-tailed percentile interval of draws or bootstrap replicates, widened to hold `point` if given.

    Posterior draws are centred on the posterior mean, not on the observed score: two tasks with 0 of 2 right give
    draws whose 2.5th percentile of the mean is above 0. Like Jeffreys' own interval at 0 and n, the interval then
    reaches to the observed score ("0.0 [0.0, 50.8]", never "0.0 [0.5, 50.8]")."""
    a = 100 * (1 - level) / 2
    lo, hi = (float(v) for v in np.percentile(draws, [a, 100 - a]))
    if point is not None:
        lo, hi = min(lo, point), max(hi, point)
    return lo, hi
