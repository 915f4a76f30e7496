"""The local executor's session: the run's items answered by coroutines in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from climedbench.cache import ResponseCache
from climedbench.core.types import EndpointStats, Sample, endpoint_stats_since
from climedbench.limits import Budget, RateLimiter
from climedbench.models.base import Backend
from climedbench.run.engine import Engine, RunStats, execute
from climedbench.run.plan import Plan, Request
from climedbench.scoring import Scorer


class LocalSession:
    """One backend, one engine, `backend.max_concurrency` requests in flight."""

    label = "local"

    def __init__(self, plan: Plan, backend: Backend, own: bool) -> None:
        self.plan, self._backend, self._own = plan, backend, own
        self.backend: Backend | None = backend
        self.fingerprint: dict[str, Any] = backend.fingerprint
        self.name = backend.name
        urls = getattr(backend, "urls", None)
        base = getattr(backend, "base_url", None)
        self.endpoints: list[str] = list(urls) if urls else ([backend.fingerprint["base_url"]] if base else [])
        # A backend passed in may have served earlier runs (analyze all): count only what this run adds.
        self._before = [] if own else backend.endpoint_stats()

    async def execute(self, todo: Iterable[Request], write: Callable[[Sequence[Sample]], None], stats: RunStats,
                      budget: Budget, cache: ResponseCache | None, scorer: Scorer) -> None:
        opts = self.plan.options
        engine = Engine(self._backend, self.plan.suite, cache, RateLimiter(opts.rpm, opts.tpm), budget, stats)
        await execute(engine, todo, write, scorer, opts.mc_mode, opts.log_prompts, self._backend.max_concurrency)

    def endpoint_stats(self) -> list[EndpointStats]:
        return endpoint_stats_since(self._backend.endpoint_stats(), self._before)

    async def aclose(self) -> None:
        if self._own:
            await self._backend.aclose()
