"""Paired differences between two runs on the same items: per task, per group and overall.

Per task, only the items both runs answered (no request error) count. The difference B − A is computed
with the task's own aggregation (mean, micro-F1, corpus BLEU …) and its 95% interval by a paired
bootstrap (the same resampled items for both runs). The test:

- accuracy-like tasks (mean of 0/1 item scores): exact McNemar on the discordant items;
- other mean tasks (Kendall's τ, ROUGE, similarity): Wilcoxon signed-rank on the item differences;
- corpus-level aggregations (F1, BLEU): the paired bootstrap's two-sided p-value.

The interval of a task's difference must not be falsely certain with few items (a plain paired bootstrap gives
[0, 0] for two items both runs got wrong). So, for item-mean tasks, it comes from draws that keep a prior's
worth of doubt, as the task intervals of results.json do (metrics/intervals.py):

- accuracy-like tasks: the posterior of P(only B right) − P(only A right) under a Dirichlet(½, ½, ½, ½) prior on
  the four agreement cells (both right, only A, only B, neither);
- graded mean tasks: the variance-shrunk t interval of the mean item difference on its bounded range;
- corpus-level aggregations: the paired bootstrap.

`bench/interval_coverage.py --paired` measures their coverage by simulation. A group's and the overall
difference are plain means of the task differences (the suite's own roll-up), with intervals and p-values from
the same per-task draws. p_holm adjusts every row of one comparison
together (Holm), so a claim about any row is controlled for the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from climedbench.aggregate import DEFAULT_REPLICATES, bootstrap_sums
from climedbench.analyses.runs import Run, shared_answered
from climedbench.analyses.stats import (
    ALPHA,
    bootstrap_p,
    holm,
    mcnemar_exact,
    percentile_ci,
    wilcoxon_p,
)
from climedbench.core.suite import Suite, Task
from climedbench.metrics import intervals
from climedbench.metrics.aggregations import get_aggregation
from climedbench.metrics.item import get_metric


@dataclass
class PairedRow:
    """One line of a paired comparison (scores ×100)."""

    key: str
    level: str  # 'task', a group level (e.g. 'dimension') or 'overall'
    n: int
    a: float
    b: float
    difference: float
    lower: float
    upper: float
    p: float
    test: str
    p_holm: float | None = None
    a_only: int | None = None  # McNemar: items only A got right
    b_only: int | None = None
    dropped: int = 0  # shared items left out because one run had a request error
    # Each run's own score interval on the shared items (task rows; as the task intervals of results.json)
    a_ci: tuple[float, float] | None = None
    b_ci: tuple[float, float] | None = None

    def verdict(self, a_name: str = "A", b_name: str = "B") -> str:
        """'B better', 'A better' or 'not separated' at Holm-adjusted α = 0.05."""
        p = self.p_holm if self.p_holm is not None else self.p
        if p < ALPHA and self.difference > 0:
            return f"{b_name} better"
        if p < ALPHA and self.difference < 0:
            return f"{a_name} better"
        return "not separated"


@dataclass
class TaskPair:
    """The paired data of one task: item vectors of both runs and their bootstrap replicates."""

    task: Task
    uids: list[str]
    scores_a: np.ndarray
    scores_b: np.ndarray
    point_a: float
    point_b: float
    reps_a: np.ndarray
    reps_b: np.ndarray
    dropped: int
    # Draws of B − A behind the interval (see the module docstring); replicates of the same resample for
    # corpus-level aggregations.
    diff_draws: np.ndarray
    diff_method: str


def task_pair(task: Task, a: Run, b: Run, rng: np.random.Generator, replicates: int,
              uids: list[str] | None = None) -> TaskPair | None:
    """Both runs' figures on their shared answered items of one task, with paired bootstrap replicates."""
    shared, dropped = shared_answered(a, b, task.code)
    if uids is not None:
        keep = set(uids)
        shared = [u for u in shared if u in keep]
    if not shared:
        return None
    agg = get_aggregation(task.aggregation)
    sa, sb = a.task_samples(task.code), b.task_samples(task.code)
    va = np.asarray([agg.vector(sa[u].score, sa[u].stats, task) for u in shared], dtype=float)
    vb = np.asarray([agg.vector(sb[u].score, sb[u].stats, task) for u in shared], dtype=float)
    n = np.asarray(len(shared))
    both = np.concatenate([va, vb], axis=1)
    sums = bootstrap_sums(both, replicates, rng)  # one resample of items for both runs
    k = va.shape[1]
    reps_a = np.asarray(agg.value(sums[:, :k], n, task), dtype=float)
    reps_b = np.asarray(agg.value(sums[:, k:], n, task), dtype=float)
    scores_a = np.asarray([sa[u].score for u in shared], dtype=float)
    scores_b = np.asarray([sb[u].score for u in shared], dtype=float)
    draws, method = difference_draws(task, scores_a, scores_b, reps_b - reps_a, replicates, rng)
    return TaskPair(task, shared, scores_a, scores_b,
                    float(agg.value(va.sum(axis=0), n, task)), float(agg.value(vb.sum(axis=0), n, task)),
                    reps_a, reps_b, dropped, draws, method)


def difference_draws(task: Task, a: np.ndarray, b: np.ndarray, bootstrap: np.ndarray, size: int,
                     rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """Draws of the paired difference B − A of one task's figure, and the method's name."""
    if task.aggregation != "mean":
        return bootstrap, "paired bootstrap"
    if np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all():
        cells = [np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0)), np.sum((a == 0) & (b == 1)),
                 np.sum((a == 0) & (b == 0))]
        p = rng.dirichlet(np.asarray(cells, dtype=float) + 0.5, size)
        return p[:, 2] - p[:, 1], "Dirichlet(½) posterior of the discordant cells"
    width = 2.0 if get_metric(task.metric).scale == "signed" else 1.0
    return intervals.graded_draws(b - a, -width, width, size, rng), "shrunk-t of item differences"


def _task_test(pair: TaskPair) -> tuple[float, str, int | None, int | None]:
    if pair.task.aggregation == "mean":
        binary = np.isin(pair.scores_a, (0.0, 1.0)).all() and np.isin(pair.scores_b, (0.0, 1.0)).all()
        if binary:
            p, a_only, b_only = mcnemar_exact(pair.scores_a, pair.scores_b)
            return p, "McNemar exact", a_only, b_only
        return wilcoxon_p(pair.scores_a, pair.scores_b), "Wilcoxon signed-rank", None, None
    return bootstrap_p(pair.reps_b - pair.reps_a), "paired bootstrap", None, None


def _r(x: float) -> float:
    return round(float(x) * 100, 2)


def paired_comparison(a: Run, b: Run, tasks: list[str] | None = None, *, seed: int = 0,
                      replicates: int = DEFAULT_REPLICATES, roll_up: bool = True,
                      uids: dict[str, list[str]] | None = None) -> tuple[list[PairedRow], dict[str, TaskPair]]:
    """Rows for each task both runs answered (or those named), then groups and overall; Holm over all rows."""
    suite: Suite = a.suite
    rng = np.random.default_rng(seed)
    codes = [c for c in (tasks or suite.codes) if c in set(a.tasks) & set(b.tasks)]
    pairs: dict[str, TaskPair] = {}
    rows: list[PairedRow] = []
    for code in codes:
        pair = task_pair(suite.task(code), a, b, rng, replicates, (uids or {}).get(code))
        if pair is None:
            continue
        pairs[code] = pair
        p, test, a_only, b_only = _task_test(pair)
        lo, hi = percentile_ci(pair.diff_draws, point=pair.point_b - pair.point_a)
        rows.append(PairedRow(code, "task", len(pair.uids), _r(pair.point_a), _r(pair.point_b),
                              _r(pair.point_b - pair.point_a), _r(lo), _r(hi), p, test, None, a_only, b_only,
                              pair.dropped, score_ci(pair.task, a, pair.uids, seed),
                              score_ci(pair.task, b, pair.uids, seed)))
    if roll_up and len(pairs) > 1:
        for key, g in suite.groups.items():
            members = [t.code for t in suite.members(key) if t.code in pairs]
            if len(members) >= 2:  # a one-task group repeats its task's row
                rows.append(_combined(key, g.level, [pairs[c] for c in members]))
        rows.append(_combined("overall", "overall", list(pairs.values())))
    for row, adj in zip(rows, holm([r.p for r in rows]), strict=True):
        row.p_holm = adj
    return rows, pairs


def score_ci(task: Task, run: Run, uids: list[str], seed: int = 0,
             replicates: int = DEFAULT_REPLICATES) -> tuple[float, float]:
    """One run's 95% interval (×100) of the task's figure on these items, by the method of results.json (Jeffreys
    for accuracy, shrunk-t for graded scores, the corpus posterior or bootstrap for F1 and BLEU)."""
    from climedbench.aggregate import TaskScores, task_value

    samples = run.task_samples(task.code)
    data = TaskScores(scores=[samples[u].score for u in uids], stats=[samples[u].stats for u in uids],
                      failed=[False] * len(uids))
    value = task_value(task, data, replicates, np.random.default_rng(seed))
    assert value is not None  # every item is answered
    return _r(value.interval[0]), _r(value.interval[1])


def _combined(key: str, level: str, parts: list[TaskPair]) -> PairedRow:
    """A plain mean over tasks of both runs' figures; interval and p from the replicates."""
    a = float(np.mean([p.point_a for p in parts]))
    b = float(np.mean([p.point_b for p in parts]))
    diff = np.mean([p.diff_draws for p in parts], axis=0)
    lo, hi = percentile_ci(diff, point=b - a)
    return PairedRow(key, level, sum(len(p.uids) for p in parts), _r(a), _r(b), _r(b - a), _r(lo), _r(hi),
                     bootstrap_p(diff), "mean of task draws", None, None, None,
                     sum(p.dropped for p in parts))


def drop_notes(rows: list[PairedRow]) -> list[str]:
    """Notes for items left out of a comparison."""
    dropped = sum(r.dropped for r in rows if r.level == "task")
    if not dropped:
        return []
    return [f"{dropped} shared item(s) were left out because a request failed in one of the runs; re-run the "
            "same command to retry them."]


PAIRED_COLUMNS = ["n", "difference", "lower", "upper", "p", "p_holm", "test"]


def paired_table(rows: list[PairedRow], a_name: str, b_name: str, first: str = "task"
                 ) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows: key, n, A, B, difference, lower, upper, p, p_holm, test."""
    from climedbench.analyses.record import fmt_p

    columns = [first, "n", a_name, b_name, "difference", "lower", "upper", "p", "p_holm", "test"]
    body = [[r.key, r.n, r.a, r.b, r.difference, r.lower, r.upper, fmt_p(r.p), fmt_p(r.p_holm), r.test]
            for r in rows]
    return columns, body


def small_n_note(rows: list[PairedRow], threshold: int = 30) -> list[str]:
    small = [f"{r.key} (n={r.n})" for r in rows if r.level == "task" and r.n < threshold]
    if not small:
        return []
    return [f"Few items in {', '.join(small)}: their intervals are wide and 'not separated' there means the data "
            "cannot tell, not that there is no difference."]
