"""Where a run's items are answered: in this process (`local`) or by workers on a Ray cluster (`ray`).

An executor opens a session for a plan; the session gives the model's fingerprint, then answers the items it is
handed and passes every finished sample back to the run, which writes it to the run directory. Both executors
answer an item through the same code path (`run.engine.answer_item`: cache → budget → rate limit → backend →
extraction and score), so a plan gives the same samples and the same results wherever it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from climedbench.executors.options import ExecutorKind, ExecutorOptions

__all__ = ["Executor", "ExecutorKind", "ExecutorOptions", "LocalExecutor", "Session", "make_executor"]

if TYPE_CHECKING:
    from climedbench.cache import ResponseCache
    from climedbench.core.types import EndpointStats, Sample
    from climedbench.limits import Budget
    from climedbench.models.base import Backend
    from climedbench.run.engine import RunStats
    from climedbench.run.plan import Plan, Request
    from climedbench.scoring import Scorer


class Session(Protocol):
    """An executor opened for one plan."""

    fingerprint: dict[str, Any]
    name: str  # the model's name (for the default run directory and results.json)
    label: str  # 'local' or 'ray (N workers)'
    endpoints: list[str]  # public URLs of HTTP endpoints ([] for in-process models)
    backend: Backend | None  # the model in this process, if any (the judge pass may reuse it)

    async def execute(self, todo: Iterable[Request], write: Callable[[Sequence[Sample]], None], stats: RunStats,
                      budget: Budget, cache: ResponseCache | None, scorer: Scorer) -> None:
        """Answer `todo`, calling `write` with each batch of finished samples (in this process, in any order)."""

    def endpoint_stats(self) -> list[EndpointStats]:
        """Per-endpoint counters of this session so far."""

    async def aclose(self) -> None:
        """Release what the session opened (an executor's workers may stay up for its next plan)."""


class Executor(Protocol):
    """Opens sessions; `close` releases what the executor holds (workers, a cluster it started)."""

    async def open(self, plan: Plan, backend: Backend | None = None) -> Session: ...

    def close(self) -> None: ...


def make_executor(opts: ExecutorOptions) -> Executor:
    """The executor the options ask for (Ray is imported only for `ray`)."""
    if opts.kind == "ray":
        from climedbench.executors.ray_driver import RayExecutor

        return RayExecutor(opts)
    return LocalExecutor()


class LocalExecutor:
    """Every item in this process: a fixed pool of coroutines over one backend."""

    async def open(self, plan: Plan, backend: Backend | None = None) -> Session:
        from climedbench.executors.local import LocalSession
        from climedbench.models.registry import open_backend

        own = backend is None
        if backend is None:
            backend = await open_backend(plan.options.model, plan.options.model_options)
        return LocalSession(plan, backend, own)

    def close(self) -> None:
        return None
