"""Group and overall intervals when one cluster spans several tasks.

A group's or the overall figure is a weighted mean of task figures, Σ_t w_t·θ_t, and its interval is the percentile
interval of the same mean of the tasks' draws (climedbench.aggregate). Those draws are independent across tasks,
which is right only when the tasks' items are. When one source record (an EHR) yields an item in several tasks, the
tasks' errors are correlated and the mean of independent draws is too narrow. This module widens it:

- the **correlation** of two task means comes from the CR1 (cluster-robust sandwich) covariance of the vector of
  task means: with u_{g,t} = Σ_{i ∈ g, task t} (y_i − ȳ_t) / n_t, Ĉ = G/(G−1) · Σ_g u_g u_gᵀ and
  ρ_st = Ĉ_st / √(Ĉ_ss Ĉ_tt) (0 when a task's scores are all equal). Ĉ is positive semidefinite, so |ρ| ≤ 1.
- each task's **spread** σ_t is that of its own draws (Jeffreys, cluster-robust t, …), so the task intervals, their
  small-sample behaviour and their within-task cluster adjustment are kept as they are;
- with V₀ = Σ_t w_t² σ_t² (the variance of the independent combination) and X = Σ_{s≠t} w_s w_t ρ_st σ_s σ_t (the
  covariances it leaves out), the combined draws' deviations from the figure are scaled by
  f = √((V₀ + k·X) / V₀), held to f ≥ 1 so the interval is never narrower than the independent one, and clipped to
  the figure's range. f² is the design effect of the combination (as Kish's is for a task); k = (t_{G−1}/z)² is a
  degrees-of-freedom factor for covariances estimated from only G clusters (the analogue of the Korn–Graubard
  factor the task intervals use): with G = 5 records the overall interval covered 92.6% without it, 94.7% with it.

Chosen over a cluster bootstrap of the whole group because that would replace every task's interval machinery
(Jeffreys at 0 and n, the Dirichlet F1 posterior, the widening for unanswered items) by one percentile bootstrap,
which is [0, 0] for an all-wrong task and covers badly with few items; the linearization adds the missing
covariance and nothing else. Only tasks that average item scores (`mean` aggregation) enter the correlations;
a corpus figure (F1, BLEU) is treated as uncorrelated with the others (it still counts in the denominator with its
own spread), so an F1 task that shares records with others is under-corrected. Items without a cluster are their own
singleton clusters. When no cluster appears in two tasks of the combination, f is not computed and nothing
changes. `bench/interval_coverage.py --across` measures the coverage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from climedbench.metrics.intervals import LEVEL


@dataclass
class TaskItems:
    """A task's answered item scores (mean aggregation) with their cluster labels (None: its own cluster)."""

    scores: np.ndarray
    clusters: Sequence[str | None]


def spans_tasks(items: Mapping[str, TaskItems]) -> bool:
    """Whether some cluster label appears in more than one of these tasks."""
    seen: dict[str, str] = {}
    for code, data in items.items():
        for lab in set(data.clusters):
            if lab is None:
                continue
            if seen.setdefault(lab, code) != code:
                return True
    return False


def correlations(items: Mapping[str, TaskItems]) -> tuple[list[str], np.ndarray, int]:
    """The tasks (in order), the CR1 correlation matrix of their means, and the number of clusters G."""
    codes = list(items)
    ids: dict[tuple[str, ...], int] = {}
    rows: list[tuple[int, int, float]] = []  # (cluster, task, contribution)
    for t, code in enumerate(codes):
        data = items[code]
        y = np.asarray(data.scores, dtype=np.float64)
        resid = (y - y.mean()) / len(y)
        for i, lab in enumerate(data.clusters):
            key = (code, str(i)) if lab is None else (lab,)
            rows.append((ids.setdefault(key, len(ids)), t, float(resid[i])))
    u = np.zeros((len(ids), len(codes)))
    for g, t, v in rows:
        u[g, t] += v
    g = len(ids)
    cov = u.T @ u * (g / (g - 1) if g > 1 else 1.0)
    sd = np.sqrt(np.diag(cov))
    rho = np.eye(len(codes))
    ok = sd > 0
    rho[np.ix_(ok, ok)] = cov[np.ix_(ok, ok)] / np.outer(sd[ok], sd[ok])
    np.fill_diagonal(rho, 1.0)
    return codes, rho, g


def widening(items: Mapping[str, TaskItems], weights: Mapping[str, float],
             spreads: Mapping[str, float]) -> tuple[float, int] | None:
    """(f, G): the factor by which the combination's draws are widened about its figure, and the clusters counted
    (items without a cluster count one each);
    None when no cluster spans two tasks (see the module docstring). `weights` and `spreads` cover every task
    of the combination; `items` those of them that average item scores."""
    used = {c: d for c, d in items.items() if c in weights and len(d.scores)}
    if not spans_tasks(used):
        return None
    codes, rho, g = correlations(used)
    w = np.asarray([weights[c] * spreads[c] for c in codes])
    rest = sum((weights[c] * spreads[c]) ** 2 for c in weights if c not in used)
    indep = float(np.sum(w ** 2)) + rest
    if indep <= 0:
        return None
    from climedbench.metrics.quantiles import normal_ppf, t_ppf

    q = 0.5 + LEVEL / 2
    cross = float(w @ rho @ w) - float(np.sum(w ** 2))
    if g >= 2:
        cross *= (t_ppf(q, g - 1) / normal_ppf(q)) ** 2
    return float(np.sqrt(max(1.0, (indep + cross) / indep))), g
