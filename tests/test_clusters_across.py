"""Clusters that span tasks (one EHR yields an item in several scenarios) widen group and overall intervals.

The expected intervals are computed here independently of climedbench.metrics.cross_task: the tasks' Jeffreys draws are
drawn again from numpy's generator with the same seed (one Beta draw block per task, in the suite's order), the CR1
correlations of the task means are summed by loops over the items, and scipy.stats gives the quantiles.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from climedbench.aggregate import TaskScores, aggregate
from climedbench.core.suite import load_suite

SEED, REPS, RECORDS = 13, 2000, 12
CODES = ("ID#1", "ID#2", "ID#3")  # all three in the clinical_qa dimension
RIGHT = {"ID#1": {0, 3, 4, 8, 10}, "ID#2": {0, 3, 4, 5, 8, 10}, "ID#3": {0, 3, 4, 8}}  # records right per task


def planted() -> dict[str, list[float]]:
    return {c: [1.0 if g in RIGHT[c] else 0.0 for g in range(RECORDS)] for c in CODES}


def run(labels: dict[str, list[str | None]]):
    data = {c: TaskScores(list(y), [None] * len(y), clusters=list(labels[c])) for c, y in planted().items()}
    tasks, groups, overall = aggregate(data, load_suite(), seed=SEED, replicates=REPS)
    return tasks, groups, overall


def hand_n_eff(y: list[float], labels: list[str | None]) -> float:
    """Kish's effective n with the Korn–Graubard factor (the task interval; items without a label alone)."""
    keys = [lab if lab is not None else f"single{i}" for i, lab in enumerate(labels)]
    n, mean, groups = len(y), sum(y) / len(y), sorted(set(keys))
    if len(groups) == n:
        return float(n)
    total = sum(sum(v - mean for v, k in zip(y, keys, strict=True) if k == g) ** 2 for g in groups)
    cr1 = len(groups) / (len(groups) - 1) * total / n ** 2
    s2 = sum((v - mean) ** 2 for v in y) / (n - 1)
    d = min(sum(keys.count(g) ** 2 for g in groups) / n, max(1.0, cr1 / (s2 / n)))
    kg = (stats.t.ppf(0.975, n - 1) / stats.t.ppf(0.975, len(groups) - 1)) ** 2
    return min(n, n / d * kg)


def hand_overall(labels: dict[str, list[str | None]], across: bool) -> tuple[float, float]:
    """The overall (= clinical_qa) interval: the mean of the tasks' Jeffreys draws, its deviations from the figure
    scaled by f = √((V₀ + k·X)/V₀) when `across` (CR1 correlations by loops; k = (t_{G−1}/z)²)."""
    rng = np.random.default_rng(SEED)
    scores = planted()
    draws, points = {}, {}
    for c in CODES:
        y = scores[c]
        n_eff = hand_n_eff(y, labels[c])
        x = sum(y) / len(y) * n_eff
        draws[c], points[c] = rng.beta(x + 0.5, n_eff - x + 0.5, REPS), sum(y) / len(y)
    w = 1 / len(CODES)
    point = sum(points.values()) * w
    mean_draw = sum(draws[c] for c in CODES) * w
    if across:
        keys = {c: [lab if lab is not None else f"{c}/{i}" for i, lab in enumerate(labels[c])] for c in CODES}
        clusters = sorted({k for c in CODES for k in keys[c]})
        u = {g: {c: 0.0 for c in CODES} for g in clusters}
        for c in CODES:
            mean = points[c]
            for v, k in zip(scores[c], keys[c], strict=True):
                u[k][c] += (v - mean) / len(scores[c])
        cov = {(s, t): sum(u[g][s] * u[g][t] for g in clusters) for s in CODES for t in CODES}
        sd = {c: float(np.std(draws[c])) for c in CODES}
        v0 = sum((w * sd[c]) ** 2 for c in CODES)
        cross = sum(w * w * sd[s] * sd[t] * cov[(s, t)] / (cov[(s, s)] * cov[(t, t)]) ** 0.5
                    for s in CODES for t in CODES if s != t)
        k = (stats.t.ppf(0.975, len(clusters) - 1) / stats.norm.ppf(0.975)) ** 2
        f = max(1.0, (v0 + k * cross) / v0) ** 0.5
        mean_draw = np.clip(mean_draw + (f - 1) * (mean_draw - point), 0.0, 1.0)
    lo, hi = np.percentile(mean_draw, [2.5, 97.5])
    return round(min(lo, point) * 100, 2), round(max(hi, point) * 100, 2)


def test_a_cluster_spanning_tasks_widens_group_and_overall_to_the_cr1_figure():
    spanning = {c: [f"ehr{g}" for g in range(RECORDS)] for c in CODES}
    none: dict[str, list[str | None]] = {c: [None] * RECORDS for c in CODES}
    tasks, groups, overall = run(spanning)
    n_tasks, _, n_overall = run(none)
    assert tasks == n_tasks  # within a task every record is one item: the task intervals do not change
    assert overall is not None and n_overall is not None and overall.ci and n_overall.ci
    assert overall.score == n_overall.score
    assert tuple(n_overall.ci) == hand_overall(none, across=False)
    assert tuple(overall.ci) == hand_overall(spanning, across=True)
    assert overall.ci[1] - overall.ci[0] > 1.3 * (n_overall.ci[1] - n_overall.ci[0])  # planted: much wider
    assert overall.clusters == RECORDS
    assert groups["clinical_qa"].ci == overall.ci  # the dimension holds the same three tasks


def test_clusters_that_stay_within_a_task_leave_group_and_overall_as_independent():
    within: dict[str, list[str | None]] = {c: [f"{c}-ehr{g // 2}" for g in range(RECORDS)] for c in CODES}
    within["ID#3"] = [None] * RECORDS
    tasks, groups, overall = run(within)
    assert tasks["ID#1"].clusters == RECORDS // 2  # the task intervals are cluster-robust …
    assert overall is not None and overall.ci is not None
    assert tuple(overall.ci) == hand_overall(within, across=False)  # … their combination is as before
    assert overall.interval == "mean of task draws" and overall.clusters is None
    assert groups["clinical_qa"].ci == overall.ci and groups["clinical_qa"].interval == "mean of task draws"
