"""Task, group and overall figures from sample records, each with a 95% interval.

- task = its aggregation of the item results (mean of item scores; micro/macro-F1 of summed counts;
  corpus BLEU of summed n-gram counts), reported ×100;
- group = plain mean of its tasks' figures (CliMedBench's dimensions, ClinicBench's tasks/scenarios);
- overall = plain mean of every task figure (`mean_of_tasks`, CliMedBench's convention, checked against
  its Table 2) or of the groups of one level (`mean_of_groups`).

Intervals are percentile bootstraps. Items are resampled within each task independently; because every
aggregation is a function of summed per-item vectors, a replicate is the same function of resampled sums.
A group's or the overall replicate is the same mean of the task replicates, so every interval reflects
the item sampling of every task it averages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Figure, Results, Sample
from climedbench.metrics.aggregations import get_aggregation

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

    def add(self, score: float, stats: Sequence[float] | None = None, *, error: bool = False,
            extraction_failure: bool = False, flags: Mapping[str, bool] | None = None) -> None:
        self.scores.append(float(score))
        self.stats.append(list(stats) if stats is not None else None)
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


def bootstrap_means(scores: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """`replicates` means of resamples (with replacement) of `scores`."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return np.full(replicates, np.nan)
    return bootstrap_sums(scores.reshape(-1, 1), replicates, rng)[:, 0] / len(scores)


def _ci(replicates: np.ndarray) -> tuple[float, float]:
    lo, hi = np.percentile(replicates, [2.5, 97.5])
    return round(float(lo) * 100, 2), round(float(hi) * 100, 2)


def task_value(task: Task, data: TaskScores, replicates: int, rng: np.random.Generator
               ) -> tuple[float, np.ndarray]:
    """The task's figure (0–1 scale) and its bootstrap replicates."""
    agg = get_aggregation(task.aggregation)
    vectors = np.asarray([agg.vector(s, st, task) for s, st in zip(data.scores, data.stats, strict=True)],
                         dtype=np.float64)
    n = np.asarray(len(data.scores))
    point = float(agg.value(vectors.sum(axis=0), n, task))
    reps = agg.value(bootstrap_sums(vectors, replicates, rng), n, task)
    return point, np.asarray(reps, dtype=np.float64)


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
        points[t.code], reps[t.code] = task_value(t, data, replicates, rng)
        tasks[t.code] = Figure(score=round(points[t.code] * 100, 2), ci=_ci(reps[t.code]), n=len(data.scores),
                               metric=t.metric, aggregation=t.aggregation,
                               extraction_failures=data.extraction_failures, errors=data.errors,
                               counts=dict(sorted(data.counts.items())))

    def combined(parts: list[list[str]], what: str, **extra: Any) -> Figure:
        codes = [c for part in parts for c in part]
        point = float(np.mean([np.mean([points[c] for c in part]) for part in parts]))
        rep = np.mean([np.mean([reps[c] for c in part], axis=0) for part in parts], axis=0)
        return Figure(score=round(point * 100, 2), ci=_ci(rep), n=sum(tasks[c].n or 0 for c in codes),
                      metric=what, extraction_failures=sum(tasks[c].extraction_failures or 0 for c in codes),
                      errors=sum(tasks[c].errors or 0 for c in codes), **extra)

    groups, overall = _roll_up(tasks, suite, combined)
    return tasks, groups, overall


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


def scores_by_task(samples: Iterable[Sample]) -> dict[str, TaskScores]:
    """Group samples into per-task results and counts."""
    out: dict[str, TaskScores] = {}
    for s in samples:
        out.setdefault(s.task, TaskScores()).add(s.score, s.stats, error=bool(s.error),
                                                  extraction_failure=s.extraction_failure, flags=s.flags)
    return out


def build_results(samples: Iterable[Sample], suite: Suite, model: str, seed: int = 0) -> Results:
    """results.json (without run accounting) from sample records."""
    tasks, groups, overall = aggregate(scores_by_task(samples), suite, seed=seed)
    return Results(model=model, suite=suite.suite, suite_version=suite.version, tasks=tasks, groups=groups,
                   overall=overall)
