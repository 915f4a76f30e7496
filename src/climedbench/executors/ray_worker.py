"""A Ray worker: one model backend and response cache, answering the items the driver hands it.

The class is plain Python; the driver wraps it with `ray.remote`. Each worker answers items through the same
code path as a local run (`runner.answer_item`) with `concurrency` coroutines over its backend, and streams
finished samples back in small batches: what reached the driver is on disk, and what a dying worker had
finished but not yet sent is in the response cache, so asking again costs a cache lookup, not a request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from climedbench.core.suite import Suite
from climedbench.core.types import EndpointStats, Item, Sample, endpoint_stats_since
from climedbench.errors import ClimedError
from climedbench.models.registry import ModelOptions

FLUSH_SECONDS = 0.25  # a batch of finished samples goes to the driver at least this often
MAX_BATCH = 512


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs to open its model: the same for every run the executor makes with it."""

    model: str
    model_options: ModelOptions  # this worker's share of the concurrency and rate limits
    cache: str | None  # the response cache file (None: --no-cache)
    rpm: float | None = None  # this worker's share of --rpm / --tpm
    tpm: float | None = None


@dataclass
class Hello:
    """A started worker: where it runs and what it serves, or why it could not start."""

    pid: int
    node: str
    fingerprint: dict[str, Any] | None = None
    name: str = ""
    endpoints: list[str] = field(default_factory=list)
    error: ClimedError | None = None


@dataclass(frozen=True)
class RunContext:
    """One run's recipe: how each task's items are asked and scored (sent once per shard, small)."""

    run_id: str
    suite: Suite
    task_plans: dict[str, Any]  # task code → runner.TaskPlan
    mc_mode: str
    log_prompts: bool
    tokenizer: str
    embedder: str
    similarity: str


@dataclass
class Batch:
    """Finished samples, with this worker's counters for the run so far (cumulative, `seq` increasing)."""

    samples: list[Sample]
    pid: int
    seq: int
    stats: Any  # runner.RunStats
    endpoints: list[EndpointStats]


@dataclass
class _RunState:
    engine: Any
    scorer: Any
    stats: Any
    endpoints_before: list[EndpointStats]


class ShardWorker:
    """The body of the Ray actor (async: Ray runs every call on one event loop)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.setup = setup
        self._lock = asyncio.Lock()
        self._hello: Hello | None = None
        self._backend: Any = None
        self._cache: Any = None
        self._limiter: Any = None
        self._queue: asyncio.Queue[Any] | None = None
        self._consumers: list[asyncio.Task[None]] = []
        self._runs: dict[str, _RunState] = {}
        self._seq = 0
        from climedbench.secrets import install_log_redaction

        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        install_log_redaction()

    async def start(self) -> Hello:
        """Open the model and the cache (once); errors are returned, not raised, so the driver can show them."""
        async with self._lock:
            if self._hello is not None:
                return self._hello
            from climedbench.cache import ResponseCache
            from climedbench.limits import RateLimiter
            from climedbench.models.registry import open_backend

            hello = Hello(pid=os.getpid(), node=socket.gethostname())
            try:
                self._backend = await open_backend(self.setup.model, self.setup.model_options)
                self._cache = ResponseCache(self.setup.cache) if self.setup.cache else None
            except ClimedError as e:
                hello.error = e
                self._hello = hello
                return hello
            self._limiter = RateLimiter(self.setup.rpm, self.setup.tpm)
            hello.fingerprint = self._backend.fingerprint
            hello.name = self._backend.name
            urls = getattr(self._backend, "urls", None)
            hello.endpoints = list(urls) if urls else (
                [self._backend.fingerprint["base_url"]] if "base_url" in self._backend.fingerprint else [])
            queue: asyncio.Queue[Any] = asyncio.Queue()
            self._queue = queue
            self._consumers = [asyncio.get_running_loop().create_task(self._consume(queue))
                               for _ in range(max(1, self._backend.max_concurrency))]
            self._hello = hello
            return hello

    def pid(self) -> int:
        return os.getpid()

    def _state(self, ctx: RunContext) -> _RunState:
        state = self._runs.get(ctx.run_id)
        if state is None:
            from climedbench.limits import Budget, Prices
            from climedbench.runner import Engine, RunStats
            from climedbench.scoring import Scorer

            stats = RunStats()
            engine = Engine(self._backend, ctx.suite, self._cache, self._limiter, Budget(Prices()), stats)
            scorer = Scorer(tokenizer=ctx.tokenizer, embedder_spec=ctx.embedder,  # type: ignore[arg-type]
                            similarity=ctx.similarity, language=ctx.suite.language)  # type: ignore[arg-type]
            self._runs = {ctx.run_id: _RunState(engine, scorer, stats, self._backend.endpoint_stats())}
            state = self._runs[ctx.run_id]
        return state

    async def _consume(self, queue: asyncio.Queue[Any]) -> None:
        from climedbench.runner import answer_item

        while True:
            req, state, ctx, out = await queue.get()
            try:
                sample = await answer_item(state.engine, req, state.scorer, ctx.mc_mode, ctx.log_prompts)
            except BaseException as e:  # handed to the shard, which raises it to the driver
                out.put_nowait(e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            out.put_nowait(sample)

    async def run(self, ctx: RunContext, shard: list[tuple[int, Item]]) -> AsyncIterator[Batch]:
        """Answer a shard's items; yields batches of finished samples as they come."""
        hello = await self.start()
        if hello.error is not None:
            raise hello.error
        assert self._queue is not None
        state = self._state(ctx)
        out: asyncio.Queue[Any] = asyncio.Queue()
        for index, item in shard:
            self._queue.put_nowait((ctx.task_plans[item.task].request(index, item), state, ctx, out))
        pending = len(shard)
        batch: list[Sample] = []
        last = time.monotonic()
        while pending:
            wait = max(0.0, FLUSH_SECONDS - (time.monotonic() - last))
            try:
                got = await asyncio.wait_for(out.get(), timeout=wait)
            except TimeoutError:
                got = None
            if isinstance(got, BaseException):
                raise got
            if got is not None:
                batch.append(got)
                pending -= 1
            if batch and (not pending or len(batch) >= MAX_BATCH or time.monotonic() - last >= FLUSH_SECONDS):
                yield self._batch(state, batch)
                batch = []
                last = time.monotonic()

    def _batch(self, state: _RunState, samples: list[Sample]) -> Batch:
        self._seq += 1
        endpoints = endpoint_stats_since(self._backend.endpoint_stats(), state.endpoints_before)
        return Batch(samples, os.getpid(), self._seq, state.stats, endpoints)

    async def stop(self) -> None:
        """Close the model and the cache (the driver kills the actor afterwards)."""
        for t in self._consumers:
            t.cancel()
        if self._backend is not None:
            await self._backend.aclose()
        if self._cache is not None:
            self._cache.close()
