"""Register your own loaders, extractors, metrics and aggregations — without forking climedbench.

A plug-in is a Python module that uses these decorators when it is imported. climedbench imports it from an
installed package's entry point (group `climedbench.plugins`), from a suite YAML's `plugins:` list, or from
`--include-path DIR` (docs/SUITES.md, "Plug-ins"; a worked example in docs/examples/hospital_metric/). A suite
then names what you registered (`metric: dose_within_tolerance`).

What each decorator accepts (the types are climedbench's own: `Item` from climedbench.core.types, `Task` from
climedbench.core.suite, `ScoreContext`/`ItemScore` from climedbench.metrics.item, `Extraction` from
climedbench.extract, `RecordContext`/`RecordError` from climedbench.data.loaders):

- `@metric(name)` on `def score(item: Item, extracted, task: Task, ctx: ScoreContext) -> float | ItemScore`:
  one item's score (0–1, or −1–1 with `scale="signed"`) of the extracted answer; `extracted` is None when
  nothing was extracted (and for an unanswered item). `task.metric_options` holds the suite's `metric_options:`.
  Or on a subclass of `climedbench.metrics.item.Metric` (instantiated once).
- `@extractor(name)` on `def extract(response: str, item: Item, task: Task) -> Extraction | str | list[str] | None`:
  the answer read from the raw response (None: no answer found). Or an `Extraction(answer, rule)`.
- `@loader(name)` on `def build(record: dict, task: Task, ctx: RecordContext) -> Item | None`: one raw record
  (a JSONL/JSON/CSV/XLSX row) as an Item; raise `RecordError(field, reason)` for an invalid record (reported with
  file, line and field), return None to leave it out. Or on a subclass of `climedbench.data.loaders.Loader`.
- `@aggregation(name)` on `def value(sums: numpy.ndarray, n: numpy.ndarray, task: Task) -> numpy.ndarray`: the
  task's figure (0–1) from the per-item vectors summed over items (shape (..., k); one row per bootstrap
  replicate), vectors being [score] — or the metric's `stats` with `stats=True`. Or on a subclass of
  `climedbench.metrics.aggregations.Aggregation`.

Each decorator returns what it was given, so the function stays callable (and testable) as written. A name that
is already registered (a built-in or another plug-in) is an error naming both definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

F = TypeVar("F")

__all__ = ["aggregation", "extractor", "loader", "metric"]


def metric(name: str, *, label: str | None = None, binary: bool = False, scale: str = "unit",
           answers: Sequence[str] | None = None) -> Callable[[F], F]:
    """Register an item metric. `binary`: every score is 0 or 1 (IRT takes it as is); `scale`: 'unit' (0–1) or
    'signed' (−1–1); `answers`: the answer kinds it can score (checked when a suite loads; None: any)."""
    from climedbench.core.registry import METRICS
    from climedbench.metrics.item import ItemScore, Metric

    if scale not in ("unit", "signed"):
        raise ValueError(f"@metric({name!r}): scale must be 'unit' or 'signed', not {scale!r}")

    def deco(obj: F) -> F:
        if isinstance(obj, type) and issubclass(obj, Metric):
            impl: Any = obj()
        elif callable(obj):
            class FunctionMetric(Metric):
                def score(self, item: Any, extracted: Any, task: Any, ctx: Any) -> ItemScore:
                    value = obj(item, extracted, task, ctx)  # type: ignore[operator]
                    return value if isinstance(value, ItemScore) else ItemScore(float(value))

            impl = FunctionMetric()
            impl.__wrapped__ = obj
        else:
            raise TypeError(f"@metric({name!r}) decorates a function or a Metric subclass, not {obj!r}")
        impl.name = name
        if label is not None or not getattr(impl, "label", ""):
            impl.label = label or name
        if impl.__class__ is not obj:  # the function form: its options
            impl.binary, impl.scale = binary, scale
            impl.answers = frozenset(answers) if answers is not None else None
        _add(METRICS, name, impl)
        return obj

    return deco


def extractor(name: str) -> Callable[[F], F]:
    """Register an answer extractor."""
    from climedbench.core.registry import EXTRACTORS
    from climedbench.extract import Extraction

    def deco(fn: F) -> F:
        if not callable(fn):
            raise TypeError(f"@extractor({name!r}) decorates a function, not {fn!r}")

        def read(response: str, item: Any, task: Any) -> Extraction:
            got = fn(response, item, task)
            if isinstance(got, Extraction):
                return got
            return Extraction(got, name if got is not None else f"{name}:none")

        read.__wrapped__ = fn  # type: ignore[attr-defined]
        _add(EXTRACTORS, name, read)
        return fn

    return deco


def loader(name: str, *, suffixes: Sequence[str] = ()) -> Callable[[F], F]:
    """Register a record loader; `suffixes`: file types it reads besides the generic ones (with a Loader subclass,
    override `read` to parse them)."""
    from climedbench.core.registry import LOADERS
    from climedbench.data.loaders import Loader

    def deco(obj: F) -> F:
        if isinstance(obj, type) and issubclass(obj, Loader):
            impl: Any = obj()
        elif callable(obj):
            class FunctionLoader(Loader):
                extra_suffixes = tuple(suffixes)

                def build(self, record: dict[str, Any], task: Any, ctx: Any) -> Any:
                    return obj(record, task, ctx)  # type: ignore[operator]

            impl = FunctionLoader()
            impl.__wrapped__ = obj
        else:
            raise TypeError(f"@loader({name!r}) decorates a function or a Loader subclass, not {obj!r}")
        impl.name = name
        _add(LOADERS, name, impl)
        return obj

    return deco


def aggregation(name: str, *, label: str | None = None, stats: bool = False,
                metrics: Sequence[str] | None = None) -> Callable[[F], F]:
    """Register an aggregation. `stats`: sum the metric's item statistics instead of [score]; `metrics`: the
    metrics it can aggregate (checked when a suite loads; None: any)."""
    from climedbench.core.registry import AGGREGATIONS
    from climedbench.metrics.aggregations import Aggregation

    def deco(obj: F) -> F:
        if isinstance(obj, type) and issubclass(obj, Aggregation):
            impl: Any = obj()
        elif callable(obj):
            class FunctionAggregation(Aggregation):
                def vector(self, score: float, item_stats: Sequence[float] | None, task: Any) -> list[float]:
                    if not stats:
                        return [float(score)]
                    if item_stats is None:
                        raise ValueError(f"task {task.code}: aggregation {name!r} needs item statistics, but metric "
                                         f"{task.metric!r} gives none")
                    return [float(x) for x in item_stats]

                def value(self, sums: Any, n: Any, task: Any) -> Any:
                    return obj(sums, n, task)  # type: ignore[operator]

            impl = FunctionAggregation()
            impl.__wrapped__ = obj
            impl.metrics = frozenset(metrics) if metrics is not None else None
        else:
            raise TypeError(f"@aggregation({name!r}) decorates a function or an Aggregation subclass, not {obj!r}")
        impl.name = name
        if label is not None or not getattr(impl, "label", ""):
            impl.label = label or name
        _add(AGGREGATIONS, name, impl)
        return obj

    return deco


def _add(registry: Any, name: str, impl: object) -> None:
    registry.ensure_builtins()  # a clash with a built-in name is reported here, naming this plug-in
    registry.add(name, impl)
