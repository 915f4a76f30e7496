"""results.json from sample records: samples grouped per task (several epochs reduced to one score per item first),
aggregated into task, group and overall figures (climedbench.aggregate), each with the strict extraction pipeline's
figure beside it."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from climedbench.aggregate import TaskScores, aggregate
from climedbench.core.suite import Suite
from climedbench.core.types import Figure, Results


def scores_by_task(samples: Iterable[SampleLike]) -> dict[str, TaskScores]:
    """Group samples into per-task results and counts, in uid order within each task (tasks in code order).

    Read as a stream: only the task's scores and each sample's uid are held, never the samples; each task's lists
    are put in uid order at the end, and its count and further-metric names in the order they first occur in uid
    order, so the figures are those of the samples sorted by (task, uid)."""
    groups: dict[str, _Group] = {}
    for s in samples:
        group = groups.get(s.task)
        if group is None:
            group = groups[s.task] = _Group()
        group.add(s)
    return {code: groups[code].in_uid_order() for code in sorted(groups)}


class _Group:
    """One task's samples as they come: its TaskScores, every sample's uid, and for each further metric the
    positions of the samples that have it; where each count and further metric first occurs, in uid order."""

    def __init__(self) -> None:
        self.scores = TaskScores()
        self.uids: list[str] = []
        self.has: dict[str, array[int]] = {}  # further metric → positions of the samples that carry it
        # count or further metric → where it first occurs in uid order: (uid, position, place in that sample)
        self.first: dict[str, tuple[str, int, int]] = {}

    def add(self, s: SampleLike) -> None:
        position = len(self.uids)
        self.uids.append(s.uid)
        for place, name in enumerate(s.secondary or {}):
            self.has.setdefault(name, array("q")).append(position)
            self._seen("secondary\0" + name, (s.uid, position, place))
        for place, (name, value) in enumerate((s.flags or {}).items()):
            if value:
                self._seen("count\0" + name, (s.uid, position, place))
        self.scores.add(s.score, s.stats, error=bool(s.error), extraction_failure=s.extraction_failure,
                        flags=s.flags, secondary=s.secondary, cluster=getattr(s, "cluster", None))

    def _seen(self, name: str, where: tuple[str, int, int]) -> None:
        if name not in self.first or where < self.first[name]:
            self.first[name] = where

    def in_uid_order(self) -> TaskScores:
        order = sorted(range(len(self.uids)), key=self.uids.__getitem__)  # stable, as sorting by (task, uid)
        ts = self.scores
        _permute(ts, order)
        for name, sec in ts.secondary.items():
            if len(self.has[name]) == len(order):  # every sample carries it: the same order
                _permute(sec, order)
                continue
            rank = {p: i for i, p in enumerate(self.has[name])}
            _permute(sec, [rank[p] for p in order if p in rank])
        ts.secondary = dict(sorted(ts.secondary.items(), key=lambda kv: self.first["secondary\0" + kv[0]]))
        ts.counts = dict(sorted(ts.counts.items(), key=lambda kv: self.first["count\0" + kv[0]]))
        return ts


def _permute(ts: TaskScores, order: list[int]) -> None:
    ts.scores = [ts.scores[i] for i in order]
    ts.stats = [ts.stats[i] for i in order]
    ts.failed = [ts.failed[i] for i in order]
    ts.clusters = [ts.clusters[i] for i in order]


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
                  similarity: str = "raw", planned: Mapping[str, int] | None = None,
                  reducer: str | None = None, single_epoch: bool = False) -> Results:
    """results.json (without run accounting) from sample records; `similarity` names the similarity variant
    the samples' scores are (it labels the figures); `planned` is the items the run planned per task (items never
    asked count as unanswered); samples of several epochs reduce to one per item first (`reducer`, default mean;
    see climedbench.epochs). With `single_epoch` (a run of one epoch) the samples are read as a stream, never held
    (scores_by_task)."""
    from climedbench.epochs import reduce_epochs

    noise: dict[str, dict[str, float]] = {}
    k = 1
    if not single_epoch:
        samples, noise, k = reduce_epochs(samples, reducer or "mean")
    by_task = scores_by_task(samples)
    for code, count in (planned or {}).items():
        by_task.setdefault(code, TaskScores()).planned = count
    tasks, groups, overall = aggregate(by_task, suite, seed=seed)
    _add_strict(by_task, suite, seed, tasks, groups, overall)
    for code, fig in tasks.items():
        if suite.task(code).metric == "similarity":
            fig.variant = similarity
        fig.generation_noise = noise.get(code)
    return Results(model=model, suite=suite.suite, suite_version=suite.version, tasks=tasks, groups=groups,
                   overall=overall, epochs={"k": k, "reducer": reducer or "mean"} if k > 1 else None)


def _add_strict(by_task: Mapping[str, TaskScores], suite: Suite, seed: int, tasks: dict[str, Figure],
                groups: dict[str, Figure], overall: Figure | None) -> None:
    """Each figure's `strict` beside it: the same aggregation (intervals, groups, overall) of the scores the strict
    extraction pipeline's readings got (samples' `secondary.strict`, see scoring.STRICT). A figure all of whose items
    the strict pipeline scored as the flexible one did is the same figure (its own extraction failures aside), so equal
    readings never show different intervals. A task whose samples lack strict readings (a run scored before pipelines
    existed and not re-scored) has none, and then neither have groups nor overall."""
    from climedbench.scoring import STRICT

    strict: dict[str, TaskScores] = {}
    for code, data in by_task.items():
        sec = data.secondary.get(STRICT)
        if sec is not None and len(sec.scores) == len(data.scores):
            sec.planned = data.planned
            strict[code] = sec
    if not strict:
        return
    s_tasks, s_groups, s_overall = aggregate(strict, suite, seed=seed)
    same = {c for c, sec in strict.items()
            if (sec.scores, sec.stats, sec.failures) == (by_task[c].scores, by_task[c].stats, by_task[c].failures)}

    def twin(main: Figure, computed: Figure, codes: list[str]) -> Figure:
        if not set(codes) <= same:
            return computed
        return main.model_copy(update={"extraction_failures": computed.extraction_failures, "counts": {},
                                       "secondary": None, "strict": None})

    for code, fig in s_tasks.items():
        if code in tasks:
            tasks[code].strict = twin(tasks[code], fig, [code])
    if len(strict) < len([c for c, d in by_task.items() if d.n]):
        return
    for key, fig in s_groups.items():
        if key in groups:
            groups[key].strict = twin(groups[key], fig, groups[key].tasks or [])
    if overall is not None and s_overall is not None:
        overall.strict = twin(overall, s_overall, overall.tasks or [])
