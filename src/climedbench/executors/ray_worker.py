"""A Ray worker: model backends and the response cache, answering the work the driver hands it.

The class is plain Python; the driver wraps it with `ray.remote`. A worker answers a run's items through the
same code path as a local run (`run.engine.answer_item`), or the units of another job (`Job`: a conversation of
participant synthesis), with `concurrency` coroutines, and streams results back in small batches: what reached
the driver is on disk, and what a dying worker had finished but not yet sent is in the response cache, so
asking again costs a cache lookup, not a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from climedbench.core.suite import Suite
from climedbench.core.types import EndpointStats, Item, endpoint_stats_since
from climedbench.errors import ClimedError
from climedbench.models.registry import ModelOptions

FLUSH_SECONDS = 0.25  # finished work goes to the driver at least this often
MAX_BATCH = 512


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker opens once and keeps for every run the executor makes with it."""

    models: tuple[str, ...]  # model specs; a run uses the first, participant synthesis all of them
    model_options: ModelOptions  # this worker's share of the concurrency and rate limits
    cache: str | None  # the response cache file (None: --no-cache)
    rpm: float | None = None  # this worker's share of --rpm / --tpm
    tpm: float | None = None
    concurrency: int | None = None  # units in flight (default: the first backend's max_concurrency)
    plugins: tuple[str, ...] = ()  # the driver's imported plug-ins (core.plugins.imported), imported here first


@dataclass
class Hello:
    """A started worker: where it runs and what it serves, or why it could not start."""

    pid: int
    node: str
    fingerprints: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    error: ClimedError | None = None


@dataclass(frozen=True)
class RunContext:
    """One run's recipe: how each task's items are asked and scored (sent with each shard; small)."""

    run_id: str
    suite: Suite
    task_plans: dict[str, Any]  # task code → run.plan.TaskPlan
    mc_mode: str
    log_prompts: bool
    tokenizer: str
    embedder: str
    similarity: str


@dataclass
class Batch:
    """Finished results, with this worker's counters for the job so far (cumulative, `seq` increasing)."""

    results: list[Any]
    pid: int
    seq: int
    stats: Any  # run.engine.RunStats
    endpoints: list[EndpointStats]


class WorkerEnv:
    """What a job's unit may use on a worker: an engine per model spec (cache, limits, backend)."""

    def __init__(self, engines: dict[str, Any]) -> None:
        self.engines = engines


class Job(Protocol):
    """Units of work other than a run's items (participant synthesis), answered on workers."""

    job_id: str

    async def run(self, env: WorkerEnv, unit: Any) -> Any: ...


@dataclass
class _JobState:
    stats: Any
    endpoints_before: list[EndpointStats]
    engines: dict[str, Any]
    scorer: Any = None


class ShardWorker:
    """The body of the Ray actor (async: Ray runs every call on one event loop)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.setup = setup
        self._lock = asyncio.Lock()
        self._hello: Hello | None = None
        self._backends: dict[str, Any] = {}
        self._cache: Any = None
        self._limiter: Any = None
        self._queue: asyncio.Queue[Any] | None = None
        self._consumers: list[asyncio.Task[None]] = []
        self._jobs: dict[str, _JobState] = {}
        self._seq = 0
        from climedbench.secrets import install_log_redaction

        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        install_log_redaction()

    async def start(self) -> Hello:
        """Open the models and the cache (once); errors are returned, not raised, so the driver can show them."""
        async with self._lock:
            if self._hello is not None:
                return self._hello
            from climedbench.cache import ResponseCache
            from climedbench.limits import RateLimiter
            from climedbench.models.registry import open_backend

            hello = Hello(pid=os.getpid(), node=socket.gethostname())
            try:
                from climedbench.core.plugins import reimport

                reimport(self.setup.plugins)  # --include-path and suite plug-ins: the same registries as the driver
                for spec in self.setup.models:
                    self._backends[spec] = await open_backend(spec, self.setup.model_options)
                self._cache = ResponseCache(self.setup.cache) if self.setup.cache else None
            except ClimedError as e:
                hello.error = e
                self._hello = hello
                return hello
            self._limiter = RateLimiter(self.setup.rpm, self.setup.tpm)
            for b in self._backends.values():
                hello.fingerprints.append(b.fingerprint)
                hello.names.append(b.name)
                urls = getattr(b, "urls", None)
                hello.endpoints += list(urls) if urls else (
                    [b.fingerprint["base_url"]] if "base_url" in b.fingerprint else [])
            first = self._backends[self.setup.models[0]]
            queue: asyncio.Queue[Any] = asyncio.Queue()
            self._queue = queue
            n = self.setup.concurrency or first.max_concurrency
            self._consumers = [asyncio.get_running_loop().create_task(self._consume(queue)) for _ in range(max(1, n))]
            self._hello = hello
            return hello

    def pid(self) -> int:
        return os.getpid()

    def _job(self, job_id: str, suite: Suite | None) -> _JobState:
        state = self._jobs.get(job_id)
        if state is None:
            from climedbench.core.types import merge_endpoint_stats
            from climedbench.limits import Budget, Prices
            from climedbench.run.engine import Engine, RunStats

            stats = RunStats()
            engines = {spec: Engine(b, suite, self._cache, self._limiter, Budget(Prices()), stats)  # type: ignore[arg-type]
                       for spec, b in self._backends.items()}
            before = merge_endpoint_stats([b.endpoint_stats() for b in self._backends.values()])
            self._jobs = {job_id: _JobState(stats, before, engines)}  # one job at a time: forget the last
            state = self._jobs[job_id]
        return state

    async def _consume(self, queue: asyncio.Queue[Any]) -> None:
        while True:
            work, out = await queue.get()
            try:
                result = await work()
            except BaseException as e:  # handed to the shard, which raises it to the driver
                out.put_nowait(e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            out.put_nowait(result)

    async def run(self, ctx: RunContext, shard: list[tuple[int, Item, int | None]]) -> AsyncIterator[Batch]:
        """Answer a shard of a run's items; yields batches of finished samples as they come."""
        from climedbench.run.engine import answer_item
        from climedbench.run.plan import at_epoch
        from climedbench.scoring import Scorer

        await self._started()
        state = self._job(ctx.run_id, ctx.suite)
        if state.scorer is None:
            state.scorer = Scorer(tokenizer=ctx.tokenizer, embedder_spec=ctx.embedder,  # type: ignore[arg-type]
                                  similarity=ctx.similarity, language=ctx.suite.language)  # type: ignore[arg-type]
        engine = state.engines[self.setup.models[0]]

        def work(index: int, item: Item, epoch: int | None) -> Callable[[], Awaitable[Any]]:
            req = at_epoch(ctx.task_plans[item.task].request(index, item), epoch)  # --epochs: its seed
            return lambda: answer_item(engine, req, state.scorer, ctx.mc_mode, ctx.log_prompts)

        async for batch in self._stream(state, [work(i, item, epoch) for i, item, epoch in shard]):
            yield batch

    async def run_units(self, job: Job, units: list[Any]) -> AsyncIterator[Batch]:
        """Answer units of a job; yields batches of their results as they come."""
        await self._started()
        state = self._job(job.job_id, getattr(job, "suite", None))
        env = WorkerEnv(state.engines)

        def work(unit: Any) -> Callable[[], Awaitable[Any]]:
            return lambda: job.run(env, unit)

        async for batch in self._stream(state, [work(u) for u in units]):
            yield batch

    async def _started(self) -> None:
        hello = await self.start()
        if hello.error is not None:
            raise hello.error

    async def _stream(self, state: _JobState, works: list[Callable[[], Awaitable[Any]]]) -> AsyncIterator[Batch]:
        assert self._queue is not None
        out: asyncio.Queue[Any] = asyncio.Queue()
        for w in works:
            self._queue.put_nowait((w, out))
        pending = len(works)
        batch: list[Any] = []
        last = time.monotonic()

        def take(got: Any) -> None:
            nonlocal pending
            if isinstance(got, BaseException):
                raise got
            if got is None:  # answer_item: over budget (workers have no budget of their own)
                raise RuntimeError("a worker's engine stopped on a budget it does not have")
            batch.append(got)
            pending -= 1

        while pending:
            if not batch:
                take(await out.get())  # nothing to send: wait for the next result, however long
            else:
                wait = FLUSH_SECONDS - (time.monotonic() - last)
                if wait > 0:
                    with contextlib.suppress(TimeoutError):  # time to send what is there
                        take(await asyncio.wait_for(out.get(), timeout=wait))
            while pending and not out.empty():
                take(out.get_nowait())
            if batch and (not pending or len(batch) >= MAX_BATCH or time.monotonic() - last >= FLUSH_SECONDS):
                yield self._batch(state, batch)
                batch = []
                last = time.monotonic()

    def _batch(self, state: _JobState, results: list[Any]) -> Batch:
        from climedbench.core.types import merge_endpoint_stats

        self._seq += 1
        now = merge_endpoint_stats([b.endpoint_stats() for b in self._backends.values()])
        return Batch(results, os.getpid(), self._seq, state.stats, endpoint_stats_since(now, state.endpoints_before))

    async def stop(self) -> None:
        """Close the models and the cache."""
        for t in self._consumers:
            t.cancel()
        for b in self._backends.values():
            await b.aclose()
        if self._cache is not None:
            self._cache.close()

