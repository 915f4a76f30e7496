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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Figure, Results
from climedbench.metrics import intervals
from climedbench.metrics.aggregations import get_aggregation
from climedbench.metrics.item import get_metric

DEFAULT_REPLICATES = 2000
_CHUNK_CELLS = 2_000_000  # bootstrap index block size (cells): memory stays flat for large tasks


@dataclass
class TaskScores:
    """The item results of one task (score and statistic vector per item) plus counts that explain them."""

    scores: list[float] = field(default_factory=list)
    stats: list[list[float] | None] = field(default_factory=list)
    extraction_failures: int = 0
    errors: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    secondary: dict[str, TaskScores] = field(default_factory=dict)

    def add(self, score: float, stats: Sequence[float] | None = None, *, error: bool = False,
            extraction_failure: bool = False, flags: Mapping[str, bool] | None = None,
            secondary: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.scores.append(float(score))
        self.stats.append(list(stats) if stats is not None else None)
        for name, result in (secondary or {}).items():
            self.secondary.setdefault(name, TaskScores()).add(result["score"], result.get("stats"))
        if error:
            self.errors += 1
        elif extraction_failure:
            self.extraction_failures += 1
        for k, v in (flags or {}).items():
            if v:
                self.counts[k] = self.counts.get(k, 0) + 1


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
    """A task's figure (0–1 scale), its interval, draws for combining, and the interval's method."""

    point: float
    interval: tuple[float, float]
    draws: np.ndarray
    method: str


def task_value(task: Task, data: TaskScores, replicates: int, rng: np.random.Generator) -> TaskValue:
    """The task's figure with its interval and draws (see the module docstring for the methods)."""
    agg = get_aggregation(task.aggregation)
    scores = np.asarray(data.scores, dtype=np.float64)
    n = len(scores)
    if task.aggregation == "mean":
        metric = get_metric(task.metric)
        if metric.binary:
            x = float(scores.sum())
            return TaskValue(x / n, intervals.jeffreys(x, n), intervals.jeffreys_draws(x, n, replicates, rng),
                             "jeffreys")
        low = -1.0 if metric.scale == "signed" else 0.0
        clipped = np.clip(scores, low, 1.0)
        return TaskValue(float(scores.mean()), intervals.graded(clipped, low, 1.0),
                         intervals.graded_draws(clipped, low, 1.0, replicates, rng), "shrunk-t")
    vectors = np.asarray([agg.vector(sc, st, task) for sc, st in zip(data.scores, data.stats, strict=True)],
                         dtype=np.float64)
    count = np.asarray(n)
    point = float(agg.value(vectors.sum(axis=0), count, task))
    draws = agg.posterior_draws(vectors.sum(axis=0), task, replicates, rng)
    if draws is not None:
        return TaskValue(point, intervals.percentile(draws, point=point), draws, "dirichlet")
    if n < 2:  # one item says nothing about the corpus figure: the whole range, not a zero-width interval
        return TaskValue(point, (0.0, 1.0), rng.uniform(0.0, 1.0, replicates), "full range (n = 1)")
    reps = np.asarray(agg.value(bootstrap_sums(vectors, replicates, rng), count, task), dtype=np.float64)
    return TaskValue(point, intervals.percentile(reps), reps, "bootstrap")


def aggregate(by_task: Mapping[str, TaskScores], suite: Suite, *, seed: int = 0,
              replicates: int = DEFAULT_REPLICATES) -> tuple[dict[str, Figure], dict[str, Figure], Figure | None]:
    """Task, group and overall figures with intervals."""
    rng = np.random.default_rng(seed)
    tasks: dict[str, Figure] = {}
    points: dict[str, float] = {}
    reps: dict[str, np.ndarray] = {}
    for t in suite.tasks:
        data = by_task.get(t.code)
        if data is None or not data.scores:
            continue
        value = task_value(t, data, replicates, rng)
        points[t.code], reps[t.code] = value.point, value.draws
        tasks[t.code] = Figure(score=round(value.point * 100, 2), ci=_ci(value.interval), n=len(data.scores),
                               metric=t.metric, aggregation=t.aggregation, interval=value.method,
                               extraction_failures=data.extraction_failures, errors=data.errors,
                               counts=dict(sorted(data.counts.items())),
                               secondary=_secondary(t, data, replicates, rng))

    def combined(parts: list[list[str]], what: str, **extra: Any) -> Figure:
        codes = [c for part in parts for c in part]
        point = float(np.mean([np.mean([points[c] for c in part]) for part in parts]))
        rep = np.mean([np.mean([reps[c] for c in part], axis=0) for part in parts], axis=0)
        return Figure(score=round(point * 100, 2), ci=_ci(intervals.percentile(rep, point=point)),
                      n=sum(tasks[c].n or 0 for c in codes), metric=what, interval="mean of task draws",
                      extraction_failures=sum(tasks[c].extraction_failures or 0 for c in codes),
                      errors=sum(tasks[c].errors or 0 for c in codes), **extra)

    groups, overall = _roll_up(tasks, suite, combined)
    return tasks, groups, overall


def _secondary(task: Task, data: TaskScores, replicates: int, rng: np.random.Generator) -> dict[str, Figure] | None:
    """Figures of a task's further metrics (`also:` in the suite)."""
    out: dict[str, Figure] = {}
    for ref in task.also:
        sec = data.secondary.get(ref.metric)
        if sec is None or len(sec.scores) != len(data.scores):
            continue
        view = task.secondary(ref)
        v = task_value(view, sec, replicates, rng)
        out[ref.metric] = Figure(score=round(v.point * 100, 2), ci=_ci(v.interval), n=len(sec.scores),
                                 metric=ref.metric, aggregation=ref.aggregation, interval=v.method)
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
                                   complete=len(codes) == len(members))
    if not tasks:
        return groups, None
    codes = list(tasks)
    complete = len(codes) == len(suite.tasks)
    if suite.overall == "mean_of_groups":
        parts = [present[k] for k, g in suite.groups.items() if g.level == suite.overall_level and k in present]
        return groups, combined(parts, "mean of group scores", tasks=codes, complete=complete)
    return groups, combined([[c] for c in codes], "mean of task scores", tasks=codes, complete=complete)


def from_published(scores: Mapping[str, float], suite: Suite) -> tuple[dict[str, Figure], dict[str, Figure],
                                                                      Figure | None]:
    """Figures from published task scores (already ×100): no intervals, no item counts."""
    tasks = {c: Figure(score=float(scores[c]), metric=suite.task(c).metric) for c in suite.codes if c in scores}

    def combined(parts: list[list[str]], what: str, **extra: Any) -> Figure:
        value = float(np.mean([np.mean([scores[c] for c in part]) for part in parts]))
        return Figure(score=round(value, 2), metric=what, **extra)

    groups, overall = _roll_up(tasks, suite, combined)
    return tasks, groups, overall


def scores_by_task(samples: Iterable[SampleLike]) -> dict[str, TaskScores]:
    """Group samples into per-task results and counts, in uid order within each task."""
    out: dict[str, TaskScores] = {}
    for s in sorted(samples, key=lambda x: (x.task, x.uid)):
        out.setdefault(s.task, TaskScores()).add(s.score, s.stats, error=bool(s.error),
                                                  extraction_failure=s.extraction_failure, flags=s.flags,
                                                  secondary=s.secondary)
    return out


class SampleLike(Protocol):
    """What aggregation reads of a sample (a Sample, or the runner's in-memory summary of one)."""

    uid: str
    task: str
    score: float
    stats: list[float] | None
    error: str | None
    extraction_failure: bool
    flags: dict[str, bool]
    secondary: dict[str, dict[str, Any]] | None


def build_results(samples: Iterable[SampleLike], suite: Suite, model: str, seed: int = 0,
                  similarity: str = "raw") -> Results:
    """results.json (without run accounting) from sample records; `similarity` names the similarity variant
    the samples' scores are (it labels the figures)."""
    tasks, groups, overall = aggregate(scores_by_task(samples), suite, seed=seed)
    for code, fig in tasks.items():
        if suite.task(code).metric == "similarity":
            fig.variant = similarity
    return Results(model=model, suite=suite.suite, suite_version=suite.version, tasks=tasks, groups=groups,
                   overall=overall)
