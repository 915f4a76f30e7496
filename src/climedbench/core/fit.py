"""Does each task's metric fit its answer kind, and its aggregation its metric? Checked when a suite file is
loaded, before any request: `answer: text` with `metric: accuracy` would otherwise score every item 0 and be
averaged into the overall."""

from __future__ import annotations

from typing import TYPE_CHECKING

from climedbench.core.registry import AGGREGATIONS, METRICS
from climedbench.errors import ConfigError

if TYPE_CHECKING:  # core.suite calls check_fit when it loads a suite file; at run time this needs no import of it
    from climedbench.core.suite import Suite, Task


def _check(task: Task, metric: str, aggregation: str, where: str, field: str) -> None:
    if metric not in METRICS:
        raise ConfigError(f"{where}: task {task.code}: {field}: unknown metric {metric!r}; known: "
                          f"{', '.join(METRICS.names())}")
    if aggregation not in AGGREGATIONS:
        raise ConfigError(f"{where}: task {task.code}: unknown aggregation {aggregation!r}; known: "
                          f"{', '.join(AGGREGATIONS.names())}")
    answers = getattr(METRICS.get(metric), "answers", None)
    if answers is not None and task.answer not in answers:
        raise ConfigError(f"{where}: task {task.code}: {field} {metric!r} cannot score answer kind {task.answer!r} "
                          f"(it scores {', '.join(sorted(answers))} answers)")
    needs = getattr(AGGREGATIONS.get(aggregation), "metrics", None)
    if needs is not None and metric not in needs:
        raise ConfigError(f"{where}: task {task.code}: aggregation {aggregation!r} cannot aggregate metric "
                          f"{metric!r} (it needs {', '.join(sorted(needs))})")


def check_fit(suite: Suite, where: str) -> None:
    """A ConfigError naming the suite file and the task whose metric does not fit its answer kind, or whose
    aggregation does not fit its metric (the task's own metric and each `also:` metric)."""
    for task in suite.tasks:
        _check(task, task.metric, task.aggregation, where, "metric")
        for ref in task.also:
            _check(task, ref.metric, ref.aggregation, where, "also: metric")
