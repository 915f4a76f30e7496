"""Cluster-robust uncertainty: items that share a source (an EHR cut into several scenarios, a record reused by
built suites) are not independent, so a task's interval must treat the cluster, not the item, as the unit.

- Means of item scores: the cluster-robust (CR1, "sandwich") variance of the mean,
  V = G/(G−1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² / n², over the naive s²/n gives the **design effect** d (Kish). It is held
  to [1, Σ_g m_g²/n]: never below 1 (a clustered interval is never narrower than the naive one), never above
  the effect of perfectly correlated clusters; when every score is equal the correlation cannot be estimated and
  the upper bound is used (conservative).
  - accuracies: the Jeffreys interval at the **effective sample size** n/d with x/d successes (Kish), with the
    Korn–Graubard (1998) degrees-of-freedom factor (t_{n−1}/t_{G−1})² on n/d, so few clusters widen it further.
    Chosen over the cluster bootstrap because it keeps Jeffreys' behaviour at 0 and n (a bootstrap of an all-wrong
    task is [0, 0]) and its Beta draws combine into groups as before;
  - graded scores: the shrunk-t interval with its standard error ×√d and G − 1 (+ 2 pseudo) degrees of freedom.
- Corpus figures (F1, BLEU): the bootstrap over clusters (each cluster's statistic vectors summed, clusters
  resampled); F1's posterior draws are widened about the figure by the ratio of the cluster bootstrap's spread
  to theirs when that is above 1.

When every item is its own cluster (or none declares one) nothing changes. Epoch repeats need no clustering here:
they are reduced to one score per item first (climedbench.epochs). `bench/interval_coverage.py` measures coverage.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cluster_ids(labels: Sequence[str | None]) -> np.ndarray | None:
    """Integer cluster ids (an item without a label is its own cluster); None when no cluster has two items."""
    ids: dict[str, int] = {}
    out = np.empty(len(labels), dtype=np.int64)
    for i, lab in enumerate(labels):
        key = f"\0{i}" if lab is None else lab
        out[i] = ids.setdefault(key, len(ids))
    if len(ids) == len(labels):
        return None
    return out


def cr1_variance(y: np.ndarray, ids: np.ndarray) -> float:
    """The CR1 cluster-robust variance of the mean of `y` (clusters `ids`)."""
    n = len(y)
    g = int(ids.max()) + 1
    totals = np.bincount(ids, weights=y - y.mean(), minlength=g)
    if g < 2:
        return float("inf")
    return float(g / (g - 1) * np.sum(totals ** 2) / n ** 2)


def design_effect(y: np.ndarray, ids: np.ndarray) -> float:
    """CR1 variance of the mean over the naive s²/n, held to [1, Σ m_g² / n] (see the module docstring)."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    sizes = np.bincount(ids)
    sizes = sizes[sizes > 0]
    top = float(np.sum(sizes.astype(np.float64) ** 2) / n)
    s2 = float(y.var(ddof=1)) if n > 1 else 0.0
    if s2 <= 0 or len(sizes) < 2:
        return top
    return float(min(top, max(1.0, cr1_variance(y, ids) / (s2 / n))))


def n_clusters(ids: np.ndarray) -> int:
    return len(np.unique(ids))


def effective_n(n: int, deff: float, groups: int, level: float = 0.95) -> float:
    """Kish's n/d with the Korn–Graubard degrees-of-freedom factor (t_{n−1} / t_{G−1})², at most n."""
    from climedbench.metrics.quantiles import t_ppf

    q = 0.5 + level / 2
    factor = 1.0
    if groups >= 2 and n >= 2:
        factor = (t_ppf(q, n - 1) / t_ppf(q, groups - 1)) ** 2
    return float(min(n, n / deff * factor))


def cluster_rows(vectors: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(G, k) sums of the item vectors of each cluster."""
    g = int(ids.max()) + 1
    out = np.zeros((g, vectors.shape[1]))
    np.add.at(out, ids, vectors)
    return out
