"""Task, group and overall figures from sample records, each with a 95% interval.

- task = its aggregation of the item results (mean of item scores; micro/macro-F1 of summed counts;
  corpus BLEU of summed n-gram counts), reported ×100;
- group = plain mean of its tasks' figures (CliMedBench's dimensions, ClinicBench's tasks/scenarios);
- overall = plain mean of every task figure (`mean_of_tasks`, CliMedBench's convention, checked against
  its Table 2) or of the groups of one level (`mean_of_groups`).

Task intervals (climedbench.metrics.intervals): Jeffreys for accuracies, a variance-shrunk t interval for
graded means, the posterior of the confusion counts for F1 aggregations (Goutte & Gaussier 2005;
see metrics/aggregations.py), the percentile bootstrap for corpus BLEU (the whole range at n = 1). Each task also
yields draws of its figure (posterior draws, t draws or bootstrap replicates); a group's or the overall interval is the
percentile interval of the same mean of the task draws, so it carries the uncertainty of every task.
Samples are ordered by uid before aggregating, so shards of a run aggregate to the same figures.
Samples of several epochs (`run --epochs K`) are first reduced to one per item (climedbench.epochs), and items that
declare a `cluster` get cluster-robust task intervals (climedbench.metrics.clustered; `clusters`, `design_effect`).
When a cluster has items in several tasks of a group (or of the overall), the mean of task draws is widened about its
figure by the CR1 correlations of the task means (climedbench.metrics.cross_task); otherwise it is left as it is.

Unanswered items (failed requests; planned items a stopped run never asked) are not scored as wrong: a task's
figure is that of its answered items, its interval is widened to hold every outcome the unanswered items could
have had (`task_value`), and a task with no answered item has no figure (score null, with a note). A group's or
the overall interval then runs from the low end of the mean of the tasks' worst-case draws to the high end of the
mean of their best-case draws. `answered` < `n` marks such figures; `complete` is True only when every task is
present and every item answered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Figure
from climedbench.metrics import clustered, cross_task, intervals
from climedbench.metrics.aggregations import get_aggregation
from climedbench.metrics.item import get_metric

DEFAULT_REPLICATES = 2000
_CHUNK_CELLS = 2_000_000  # bootstrap index block size (cells): memory stays flat for large tasks


@dataclass
class TaskScores:
    """The item results of one task (score and statistic vector per item) plus counts that explain them.

    `failed` marks the items whose request failed (no answer): they are recorded but not scored. `planned` is how
    many items the run planned for the task (None: as many as recorded); planned items never asked (a run stopped
    by --max-cost) are unanswered too.
    """

    scores: list[float] = field(default_factory=list)
    stats: list[list[float] | None] = field(default_factory=list)
    failed: list[bool] = field(default_factory=list)
    planned: int | None = None
    extraction_failures: int = 0
    errors: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    secondary: dict[str, TaskScores] = field(default_factory=dict)
    clusters: list[str | None] = field(default_factory=list)  # each item's cluster (None: its own)

    def add(self, score: float, stats: Sequence[float] | None = None, *, error: bool = False,
            extraction_failure: bool = False, flags: Mapping[str, bool] | None = None,
            secondary: Mapping[str, Mapping[str, Any]] | None = None, cluster: str | None = None) -> None:
        self.clusters.append(cluster)
        self.scores.append(float(score))
        self.stats.append(list(stats) if stats is not None else None)
        self.failed.append(bool(error))
        for name, result in (secondary or {}).items():
            # (The strict pipeline's record says whether it read no answer: `failed`.)
            self.secondary.setdefault(name, TaskScores()).add(result["score"], result.get("stats"), error=error,
                                                              cluster=cluster,
                                                              extraction_failure=bool(result.get("failed")))
        if error:
            self.errors += 1
        elif extraction_failure:
            self.extraction_failures += 1
        for k, v in (flags or {}).items():
            if v:
                self.counts[k] = self.counts.get(k, 0) + 1

    @property
    def n(self) -> int:
        """Items the task's figure is about: planned, or recorded when more were recorded."""
        return max(len(self.scores), self.planned or 0)

    @property
    def failures(self) -> list[bool]:
        """`failed` for every recorded item (items added without it count as answered)."""
        return self.failed + [False] * (len(self.scores) - len(self.failed))

    @property
    def answered(self) -> int:
        return len(self.scores) - sum(self.failures)


def bootstrap_sums(vectors: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """(replicates, k) sums of resamples (with replacement) of the rows of `vectors` (n, k)."""
    n, k = vectors.shape
    out = np.empty((replicates, k))
    if n == 0:
        out.fill(np.nan)
        return out
    block = max(1, _CHUNK_CELLS // max(1, n * k))
    for start in range(0, replicates, block):
        stop = min(replicates, start + block)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = vectors[idx].sum(axis=1)
    return out


def _ci(lo_hi: tuple[float, float]) -> tuple[float, float]:
    return round(lo_hi[0] * 100, 2), round(lo_hi[1] * 100, 2)


@dataclass
class TaskValue:
    """A task's figure (0–1 scale), its interval, draws for combining, and the interval's method.

    `low` and `high` are the draws with the unanswered items at their worst and at their best (both are `draws`
    when every item was answered); groups and overall take their interval's ends from them.
    """

    point: float
    interval: tuple[float, float]
    draws: np.ndarray
    method: str
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    clusters: int | None = None  # items in clusters: how many, and the design effect allowed for
    deff: float | None = None

    def __post_init__(self) -> None:
        if self.low is None:
            self.low = self.draws
        if self.high is None:
            self.high = self.draws


def score_range(task: Task) -> tuple[float, float]:
    """The range an item score (mean aggregation) or a corpus figure of the task can take (0–1 scale)."""
    if task.aggregation == "mean" and get_metric(task.metric).scale == "signed":
        return -1.0, 1.0
    return 0.0, 1.0


def _zero_one(scores: np.ndarray) -> bool:
    """Every score 0 or 1 (a binary metric's item scores; the mean of an item's epochs may be a fraction, and then
    the graded interval, which estimates their spread, is used: Jeffreys would assume the Bernoulli variance)."""
    return bool(np.all((scores == 0.0) | (scores == 1.0)))


def _answered_value(task: Task, data: TaskScores, keep: list[int], replicates: int,
                    rng: np.random.Generator) -> TaskValue:
    """The figure of the answered items `keep` with its interval and draws (see the module docstring)."""
    agg = get_aggregation(task.aggregation)
    scores = np.asarray([data.scores[i] for i in keep], dtype=np.float64)
    n = len(scores)
    ids = clustered.cluster_ids([data.clusters[i] for i in keep]) if len(data.clusters) == len(data.scores) else None
    if ids is not None:
        return _clustered_value(task, data, keep, ids, replicates, rng)
    if task.aggregation == "mean":
        metric = get_metric(task.metric)
        if metric.binary and _zero_one(scores):
            x = float(scores.sum())
            return TaskValue(x / n, intervals.jeffreys(x, n), intervals.jeffreys_draws(x, n, replicates, rng),
                             "jeffreys")
        low = -1.0 if metric.scale == "signed" else 0.0
        clipped = np.clip(scores, low, 1.0)
        return TaskValue(float(scores.mean()), intervals.graded(clipped, low, 1.0),
                         intervals.graded_draws(clipped, low, 1.0, replicates, rng), "shrunk-t")
    vectors = np.asarray([agg.vector(data.scores[i], data.stats[i], task) for i in keep], dtype=np.float64)
    count = np.asarray(n)
    point = float(agg.value(vectors.sum(axis=0), count, task))
    draws = agg.posterior_draws(vectors.sum(axis=0), task, replicates, rng)
    if draws is not None:
        return TaskValue(point, intervals.percentile(draws, point=point), draws, "dirichlet")
    if n < 2:  # one item says nothing about the corpus figure: the whole range, not a zero-width interval
        return TaskValue(point, (0.0, 1.0), rng.uniform(0.0, 1.0, replicates), "full range (n = 1)")
    reps = np.asarray(agg.value(bootstrap_sums(vectors, replicates, rng), count, task), dtype=np.float64)
    return TaskValue(point, intervals.percentile(reps), reps, "bootstrap")


def _clustered_value(task: Task, data: TaskScores, keep: list[int], ids: np.ndarray, replicates: int,
                     rng: np.random.Generator) -> TaskValue:
    """`_answered_value` for items in clusters (climedbench.metrics.clustered)."""
    agg = get_aggregation(task.aggregation)
    scores = np.asarray([data.scores[i] for i in keep], dtype=np.float64)
    n, groups = len(scores), clustered.n_clusters(ids)
    if task.aggregation == "mean":
        metric = get_metric(task.metric)
        deff = clustered.design_effect(scores, ids)
        if metric.binary and _zero_one(scores):
            n_eff = clustered.effective_n(n, deff, groups)
            x = float(scores.sum()) * n_eff / n
            return TaskValue(float(scores.mean()), intervals.jeffreys(x, n_eff),
                             intervals.jeffreys_draws(x, n_eff, replicates, rng),
                             f"jeffreys, effective n {n_eff:.1f} ({groups} clusters)", clusters=groups,
                             deff=round(deff, 4))
        low = -1.0 if metric.scale == "signed" else 0.0
        clipped = np.clip(scores, low, 1.0)
        return TaskValue(float(scores.mean()), intervals.graded(clipped, low, 1.0, deff=deff, groups=groups),
                         intervals.graded_draws(clipped, low, 1.0, replicates, rng, deff=deff, groups=groups),
                         f"shrunk-t, cluster-robust ({groups} clusters)", clusters=groups, deff=round(deff, 4))
    vectors = np.asarray([agg.vector(data.scores[i], data.stats[i], task) for i in keep], dtype=np.float64)
    sums, count = vectors.sum(axis=0), np.asarray(n)
    point = float(agg.value(sums, count, task))
    rows = clustered.cluster_rows(vectors, ids)
    reps = np.asarray(agg.value(bootstrap_sums(rows, replicates, rng), count, task), dtype=np.float64)
    draws = agg.posterior_draws(sums, task, replicates, rng)
    if draws is not None:
        spread = float(np.std(draws))
        factor = max(1.0, float(np.std(reps)) / spread) if spread > 0 else 1.0
        draws = np.clip(point + (draws - point) * factor, 0.0, 1.0)
        return TaskValue(point, intervals.percentile(draws, point=point), draws,
                         f"dirichlet ×{factor:.2f} for {groups} clusters", clusters=groups, deff=round(factor ** 2, 4))
    if groups < 2:
        return TaskValue(point, (0.0, 1.0), rng.uniform(0.0, 1.0, replicates), "full range (one cluster)",
                         clusters=groups)
    return TaskValue(point, intervals.percentile(reps), reps, f"cluster bootstrap ({groups} clusters)",
                     clusters=groups)


def task_value(task: Task, data: TaskScores, replicates: int, rng: np.random.Generator) -> TaskValue | None:
    """The task's figure on its answered items, with its interval widened for the unanswered ones; None when no
    item was answered.

    Widening (worst-case bounds, Manski 1989): with m of n items answered, a mean of item scores in [lo, hi] over
    all n items lies between (m·L + (n − m)·lo)/n and (m·U + (n − m)·hi)/n, where [L, U] is the answered items'
    interval (made to hold their score); so the interval holds at least its nominal coverage whatever the
    unanswered items would have scored. Corpus figures (F1, BLEU): the lower end is 0 (wrong mentions or
    n-grams in the missing answers can push the figure towards 0); the upper end is that of the figure with every
    failed item answered perfectly (F1: its gold counts as true positives), or 1 when that is not known (BLEU,
    items never asked).
    """
    keep = [i for i, f in enumerate(data.failures) if not f]
    if not keep:
        return None
    value = _answered_value(task, data, keep, replicates, rng)
    m, n = len(keep), data.n
    if m == n:
        return value
    lo_end, hi_end = score_range(task)
    method = f"{value.method}, widened for {n - m} unanswered"
    lo, hi = value.interval
    lo, hi = min(lo, value.point), max(hi, value.point)
    if task.aggregation == "mean":
        w = m / n
        return TaskValue(value.point, (w * lo + (1 - w) * lo_end, w * hi + (1 - w) * hi_end), value.draws, method,
                         w * value.draws + (1 - w) * lo_end, w * value.draws + (1 - w) * hi_end, value.clusters,
                         value.deff)
    low = np.full_like(value.draws, lo_end)
    best = _best_completion(task, data, replicates, rng)
    if best is None:
        return TaskValue(value.point, (lo_end, hi_end), value.draws, method, low, np.full_like(value.draws, hi_end),
                         value.clusters, value.deff)
    best_point, best_draws = best
    upper = max(hi, best_point, intervals.percentile(best_draws, point=best_point)[1])
    return TaskValue(value.point, (lo_end, upper), value.draws, method, low, np.maximum(best_draws, value.draws),
                     value.clusters, value.deff)


def _best_completion(task: Task, data: TaskScores, replicates: int,
                     rng: np.random.Generator) -> tuple[float, np.ndarray] | None:
    """F1 aggregations: the figure and its posterior draws with every failed item answered perfectly (the false
    negatives its failure recorded become true positives); None when that is not known (another aggregation, an
    item without counts, or planned items never asked)."""
    if task.aggregation not in ("micro_f1", "macro_f1") or len(data.scores) < data.n:
        return None
    agg = get_aggregation(task.aggregation)
    rows = []
    for sc, st, failed in zip(data.scores, data.stats, data.failures, strict=True):
        if st is None or len(st) % 3:
            return None
        v = np.asarray(agg.vector(sc, st, task), dtype=np.float64)
        if failed:
            per = v.reshape(-1, 3).copy()
            per[:, 0] += per[:, 2]
            per[:, 1:] = 0.0
            v = per.reshape(-1)
        rows.append(v)
    sums = np.sum(rows, axis=0)
    draws = agg.posterior_draws(sums, task, replicates, rng)
    if draws is None:
        return None
    return float(agg.value(sums, np.asarray(len(rows)), task)), draws


def _no_answer_note(data: TaskScores) -> str:
    asked = len(data.scores)
    if data.errors and asked == data.n:
        return f"no answers: all {data.errors} request(s) failed"
    return f"no answers: {data.errors} request(s) failed, {data.n - asked} item(s) not asked"


def aggregate(by_task: Mapping[str, TaskScores], suite: Suite, *, seed: int = 0,
              replicates: int = DEFAULT_REPLICATES) -> tuple[dict[str, Figure], dict[str, Figure], Figure | None]:
    """Task, group and overall figures with intervals (scores on the answered items; see `task_value`)."""
    rng = np.random.default_rng(seed)
    tasks: dict[str, Figure] = {}
    points: dict[str, float] = {}
    lows: dict[str, np.ndarray] = {}
    highs: dict[str, np.ndarray] = {}
    items: dict[str, cross_task.TaskItems] = {}  # mean-aggregation tasks' answered items, for clusters across tasks
    spreads: dict[str, float] = {}
    draws: dict[str, np.ndarray] = {}
    for t in suite.tasks:
        data = by_task.get(t.code)
        if data is None or data.n == 0:
            continue
        value = task_value(t, data, replicates, rng)
        common: dict[str, Any] = dict(n=data.n, answered=data.answered, metric=t.metric, aggregation=t.aggregation,
                                      extraction_failures=data.extraction_failures, errors=data.errors,
                                      counts=dict(sorted(data.counts.items())), complete=data.answered == data.n)
        if value is None:
            lo_end, hi_end = score_range(t)
            lows[t.code], highs[t.code] = np.full(replicates, lo_end), np.full(replicates, hi_end)
            tasks[t.code] = Figure(score=None, note=_no_answer_note(data), **common)
            continue
        points[t.code] = value.point
        draws[t.code], spreads[t.code] = value.draws, float(np.std(value.draws))
        if t.aggregation == "mean" and len(data.clusters) == len(data.scores):
            keep = [i for i, f in enumerate(data.failures) if not f]
            items[t.code] = cross_task.TaskItems(np.asarray([data.scores[i] for i in keep]),
                                                 [data.clusters[i] for i in keep])
        assert value.low is not None and value.high is not None
        lows[t.code], highs[t.code] = value.low, value.high
        tasks[t.code] = Figure(score=round(value.point * 100, 2), ci=_ci(value.interval), interval=value.method,
                               secondary=_secondary(t, data, replicates, rng), clusters=value.clusters,
                               design_effect=value.deff, **common)

    def combined(parts: list[list[str]], what: str, **extra: Any) -> Figure:
        codes = [c for part in parts for c in part]
        scored = [[c for c in part if c in points] for part in parts]
        base: dict[str, Any] = dict(
            n=sum(tasks[c].n or 0 for c in codes), answered=sum(tasks[c].answered or 0 for c in codes), metric=what,
            extraction_failures=sum(tasks[c].extraction_failures or 0 for c in codes),
            errors=sum(tasks[c].errors or 0 for c in codes), **extra)
        base["complete"] = bool(extra.get("all_tasks", True)) and all(tasks[c].complete for c in codes)
        if not any(scored):
            return Figure(score=None, note="no answers: no task of it has an answered item", **base)
        point = float(np.mean([np.mean([points[c] for c in part]) for part in scored if part]))
        low = np.mean([np.mean([lows[c] for c in part], axis=0) for part in parts], axis=0)
        high = np.mean([np.mean([highs[c] for c in part], axis=0) for part in parts], axis=0)
        label = "mean of task draws"
        across = _across_tasks(scored, items, spreads, suite)
        if across is not None:
            factor, n_clusters, (lo_end, hi_end), weights = across
            extra_spread = (factor - 1.0) * sum(w * (draws[c] - points[c]) for c, w in weights.items())
            low, high = np.clip(low + extra_spread, lo_end, hi_end), np.clip(high + extra_spread, lo_end, hi_end)
            label = f"mean of task draws, ×{factor:.2f} for {n_clusters} clusters across tasks"
            base.update(clusters=n_clusters, design_effect=round(factor ** 2, 4))
        if all(tasks[c].complete for c in codes):
            ci = intervals.percentile(low, point=point)
        else:
            ci = (min(intervals.percentile(low)[0], point), max(intervals.percentile(high)[1], point))
        unscored = [c for c in codes if c not in points]
        if unscored:
            base["note"] = f"score from the tasks with answers; no answers in {', '.join(unscored)}"
        return Figure(score=round(point * 100, 2), ci=_ci(ci), interval=label, **base)

    groups, overall = _roll_up(tasks, suite, combined)
    return tasks, groups, overall


def _across_tasks(scored: list[list[str]], items: Mapping[str, cross_task.TaskItems], spreads: Mapping[str, float],
                  suite: Suite) -> tuple[float, int, tuple[float, float], dict[str, float]] | None:
    """(factor, clusters, range, task weights) when a cluster spans tasks of the combination `scored`
    (climedbench.metrics.cross_task); None otherwise, and then its interval is the mean of independent task draws."""
    parts = [part for part in scored if part]
    weights: dict[str, float] = {}
    for part in parts:
        for c in part:
            weights[c] = weights.get(c, 0.0) + 1.0 / (len(parts) * len(part))
    found = cross_task.widening(items, weights, spreads)
    if found is None:
        return None
    ranges = [score_range(suite.task(c)) for c in weights]
    return found[0], found[1], (min(r[0] for r in ranges), max(r[1] for r in ranges)), weights


def _secondary(task: Task, data: TaskScores, replicates: int, rng: np.random.Generator) -> dict[str, Figure] | None:
    """Figures of a task's further metrics (`also:` in the suite)."""
    out: dict[str, Figure] = {}
    for ref in task.also:
        sec = data.secondary.get(ref.metric)
        if sec is None or len(sec.scores) != len(data.scores):
            continue
        sec.planned = data.planned
        view = task.secondary(ref)
        v = task_value(view, sec, replicates, rng)
        if v is None:
            continue
        out[ref.metric] = Figure(score=round(v.point * 100, 2), ci=_ci(v.interval), n=sec.n, answered=sec.answered,
                                 metric=ref.metric, aggregation=ref.aggregation, interval=v.method,
                                 complete=sec.answered == sec.n)
    return out or None


Combine = Callable[..., Figure]


def _roll_up(tasks: dict[str, Figure], suite: Suite, combined: Combine) -> tuple[dict[str, Figure], Figure | None]:
    """Groups (mean of their tasks) and overall (mean of all tasks, or of one level's groups)."""
    groups: dict[str, Figure] = {}
    present: dict[str, list[str]] = {}
    for key in suite.groups:
        members = suite.members(key)
        codes = [t.code for t in members if t.code in tasks]
        if codes:
            present[key] = codes
            groups[key] = combined([[c] for c in codes], "mean of task scores", tasks=codes,
                                   all_tasks=len(codes) == len(members))
    if not tasks:
        return groups, None
    codes = list(tasks)
    all_tasks = len(codes) == len(suite.tasks)
    if suite.overall == "mean_of_groups":
        parts = [present[k] for k, g in suite.groups.items() if g.level == suite.overall_level and k in present]
        return groups, combined(parts, "mean of group scores", tasks=codes, all_tasks=all_tasks)
    return groups, combined([[c] for c in codes], "mean of task scores", tasks=codes, all_tasks=all_tasks)


def from_published(scores: Mapping[str, float], suite: Suite) -> tuple[dict[str, Figure], dict[str, Figure],
                                                                      Figure | None]:
    """Figures from published task scores (already ×100): no intervals, no item counts."""
    tasks = {c: Figure(score=float(scores[c]), metric=suite.task(c).metric) for c in suite.codes if c in scores}

    def combined(parts: list[list[str]], what: str, **extra: Any) -> Figure:
        value = float(np.mean([np.mean([scores[c] for c in part]) for part in parts]))
        return Figure(score=round(value, 2), metric=what, complete=extra.get("all_tasks"), **extra)

    groups, overall = _roll_up(tasks, suite, combined)
    return tasks, groups, overall
