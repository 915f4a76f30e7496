"""The Ray executor: a run's items answered by workers (Ray actors) on a local or remote cluster.

The driver (the `climedbench` process) keeps the run directory: it cuts the items still to do into shards,
hands each worker two at a time, and writes every sample a worker streams back through the same crash-safe
log as a local run. A worker that dies is restarted by Ray (up to `MAX_RESTARTS` times); the items of its
shards that had not come back go to the front of the queue, and those it had answered are in the response
cache, so they are not asked again. A driver that dies loses nothing on disk: re-running the command resumes.

With `--max-cost` the driver reserves each shard's worst-case cost before handing it out (a shard is cut
short when the rest would not fit), so the limit holds across workers; `--rpm`, `--tpm` and concurrency
limits are split evenly between the workers (concurrency rounded down, at least one request in flight each).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import signal
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from climedbench.cache import ResponseCache, default_cache_path
from climedbench.core.plugins import imported
from climedbench.core.types import EndpointStats, Sample, merge_endpoint_stats
from climedbench.errors import ClimedError, ConfigError, ModelError
from climedbench.executors.options import ExecutorOptions
from climedbench.executors.ray_worker import Batch, Hello, RunContext, ShardWorker, WorkerSetup
from climedbench.limits import Budget, estimate_prompt_tokens
from climedbench.models.base import Backend
from climedbench.models.registry import ModelOptions
from climedbench.run.engine import RunStats
from climedbench.run.plan import Plan, Request, RunOptions
from climedbench.scoring import Scorer

log = logging.getLogger(__name__)

MAX_RESTARTS = 3  # Ray restarts a dead worker this many times; then its share goes to the others
IN_FLIGHT_SHARDS = 2  # shards handed to each worker at once, so it never waits for the driver
MAX_SHARD = 256


def _ray() -> Any:
    """The ray module; a clear one-line error when it is not installed."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never report usage over the network
    try:
        import ray
    except ImportError as e:
        raise ConfigError("--executor ray needs Ray, which is not installed: pip install 'climedbench[ray]'") from e
    return ray


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def share(n: float | None, workers: int) -> float | None:
    """A rate limit split between workers."""
    return n / workers if n else None


def worker_options(mo: ModelOptions, workers: int, local_cluster: bool) -> ModelOptions:
    """A worker's share of the concurrency limits (and, on a private cluster, of this machine's cores)."""
    endpoints = tuple(e.model_copy(update={"max_concurrency": max(1, (e.max_concurrency or mo.max_concurrency)
                                                                 // workers),
                                           "rpm": share(e.rpm, workers), "tpm": share(e.tpm, workers)})
                      for e in mo.endpoints)
    threads = mo.threads
    if threads is None and local_cluster:  # in-process models: the workers share this machine's cores
        threads = max(1, ((os.cpu_count() or 2) - 1) // workers)
    return replace(mo, max_concurrency=max(1, mo.max_concurrency // workers), endpoints=endpoints, threads=threads)


def shard_size(n: int, workers: int, wanted: int | None) -> int:
    """Items per shard: several shards per worker (so a dead worker's share is spread), at most MAX_SHARD."""
    if wanted:
        return wanted
    return max(1, min(MAX_SHARD, math.ceil(n / (workers * 8))))


class RayExecutor:
    """Workers on a Ray cluster; they stay up across the runs of one command (analyze all makes several)."""

    def __init__(self, opts: ExecutorOptions) -> None:
        self.opts = opts
        self._ray: Any = None
        self._started_cluster = False
        self._actors: list[Any] = []
        self._setup: WorkerSetup | None = None
        self._hellos: list[Hello] = []
        self._sigterm: Any = None
        # Of the last job: results each worker sent back, the process that sent each worker's latest batch, and
        # shards cut short by a worker dying.
        self.results_by_worker: list[int] = []
        self.latest_pid: list[int] = []
        self.shards_interrupted = 0

    def _connect(self) -> Any:
        ray = _ray()
        if ray.is_initialized():
            return ray
        address = self.opts.address or "local"
        kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.ERROR,
                                  "log_to_driver": True}
        try:
            if address == "local":
                ray.init(address="local", num_cpus=self.opts.workers, **kwargs)
                self._started_cluster = True
            else:
                ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ConfigError(f"cannot connect to the Ray cluster at {address}: {e}") from e
        if threading.current_thread() is threading.main_thread():
            # Ray's own SIGTERM handler exits at once; end like Ctrl-C instead, so `close` stops the workers (and
            # a private cluster) and the command says that finished items are saved.
            self._sigterm = signal.signal(signal.SIGTERM, _interrupt)
        return ray

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the workers as they started (for fault-injection tests and benchmarks)."""
        return [h.pid for h in self._hellos]

    async def workers(self, models: list[str], model_options: ModelOptions, cache: str | None, *,
                      rpm: float | None = None, tpm: float | None = None, concurrency: int | None = None
                      ) -> list[Hello]:
        """Start (or reuse) one worker per --workers with these models open; all must see the same models."""
        self._ray = ray = self._connect()
        w = self.opts.workers
        if cache is not None:
            cache = str(Path(cache).expanduser().resolve())
            ResponseCache(cache).close()  # create it (and its folder) once, before the workers race to
        setup = WorkerSetup(tuple(models), worker_options(model_options, w, self._started_cluster), cache,
                            share(rpm, w), share(tpm, w),
                            max(1, concurrency // w) if concurrency else None, imported())
        if self._actors and self._setup == setup:
            return self._hellos
        self._kill_actors()
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < w:
            raise ConfigError(f"the Ray cluster has {cpus:g} CPU(s) and --workers {w} needs one each; use fewer "
                              "workers or add nodes")
        actor = ray.remote(ShardWorker).options(num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=0,
                                                scheduling_strategy="SPREAD")
        self._actors = [actor.remote(setup) for _ in range(w)]
        self._setup = setup
        hellos: list[Hello] = list(await asyncio.gather(*(a.start.remote() for a in self._actors)))
        failed = next((h for h in hellos if h.error is not None), None)
        if failed is not None:
            self._kill_actors()
            assert failed.error is not None
            raise failed.error
        if len({repr(h.fingerprints) for h in hellos}) > 1:
            self._kill_actors()
            raise ModelError("the Ray workers see different models: " + "; ".join(
                f"{h.node} (pid {h.pid}): {h.fingerprints}" for h in hellos))
        self._hellos = hellos
        return hellos

    async def open(self, plan: Plan, backend: Backend | None = None) -> RaySession:
        """Start (or reuse) the workers for the plan's model; the driver itself loads no model."""
        opts = plan.options
        cache = None if opts.no_cache else str(opts.cache or default_cache_path())
        hellos = await self.workers([opts.model], opts.model_options, cache, rpm=opts.rpm, tpm=opts.tpm)
        return RaySession(self, plan, hellos)

    async def stream(self, units: list[Any], key: Callable[[Any], str], submit: Callable[[Any, list[Any]], Any],
                     on_batch: Callable[[Batch, int], None], *, size: int,
                     take: Callable[[list[Any]], list[Any]] | None = None,
                     give_back: Callable[[list[Any]], None] | None = None) -> bool:
        """Hand `units` to the workers in chunks of `size` (IN_FLIGHT_SHARDS per worker), pass every batch that
        comes back to `on_batch`, and give a dead worker's unfinished units to the others. `take` may cut a
        chunk short (a budget); once it does, no more chunks are handed out. Returns False when it stopped so.
        Every unit sent back must carry the key of a unit it answers (`key(result) == key(unit)`)."""
        from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError

        actors = self._actors
        queue: deque[list[Any]] = deque(units[i:i + size] for i in range(0, len(units), size))
        self.results_by_worker = [0] * len(actors)
        self.latest_pid = [h.pid for h in self._hellos]
        self.shards_interrupted = 0
        stopped = False
        active = 0  # chunks out at workers: their unfinished units may come back to the queue
        changed = asyncio.Event()

        async def feed(i: int) -> None:
            nonlocal stopped, active
            w = i % len(actors)
            gone = False
            pause = 0.0  # after a worker died, before handing it more work while Ray restarts it
            while not stopped:
                if not queue:
                    if not active:
                        return
                    changed.clear()
                    await changed.wait()
                    continue
                chunk = queue.popleft()
                if take is not None:
                    wanted = len(chunk)
                    chunk = take(chunk)
                    if len(chunk) < wanted:
                        stopped = True
                    if not chunk:
                        return
                active += 1
                received: set[str] = set()
                try:
                    async for ref in submit(actors[w], chunk):
                        batch: Batch = await ref
                        received.update(key(r) for r in batch.results)
                        self.results_by_worker[w] += len(batch.results)
                        self.latest_pid[w] = batch.pid
                        on_batch(batch, w)
                    pause = 0.0
                except RayTaskError as e:  # the worker raised: a user-facing error stops the job as locally
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, ClimedError):
                        raise cause from None
                    raise
                except RayActorError as e:
                    rest = [u for u in chunk if key(u) not in received]
                    if give_back is not None:
                        give_back(rest)
                    if not stopped:
                        queue.extendleft(reversed([rest[k:k + size] for k in range(0, len(rest), size)]))
                    restarting = isinstance(e, ActorUnavailableError)
                    if not pause or not restarting:  # not the same death seen again while it restarts
                        self.shards_interrupted += 1
                        log.warning("Ray worker %d died (%s); %d unfinished unit(s) of its shard go back to the "
                                    "queue", w + 1, type(e).__name__, len(rest))
                    gone = not restarting and not await _alive(actors[w])
                    pause = min(2.0, max(0.2, 2 * pause))
                finally:
                    active -= 1
                    changed.set()
                if gone:
                    return  # the other workers take its share
                if pause:
                    await asyncio.sleep(pause)

        await _all_or_none([feed(i) for i in range(len(actors) * IN_FLIGHT_SHARDS)])
        if queue and not stopped:
            raise ModelError(f"every Ray worker died; {sum(len(c) for c in queue)} unit(s) were not answered. "
                             "Finished work is saved: re-run the same command to resume")
        return not stopped

    def _kill_actors(self) -> None:
        for a in self._actors:
            try:
                self._ray.kill(a, no_restart=True)
            except Exception as e:  # already gone
                log.debug("could not kill a worker: %s", e)
        self._actors, self._hellos, self._setup = [], [], None

    def close(self) -> None:
        """Stop the workers, and the cluster if this executor started it."""
        if self._ray is None:
            return
        self._kill_actors()
        if self._started_cluster:
            self._ray.shutdown()
            self._started_cluster = False
        if self._sigterm is not None:
            signal.signal(signal.SIGTERM, self._sigterm)
            self._sigterm = None


class RaySession:
    """One plan on the executor's workers."""

    backend: Backend | None = None

    def __init__(self, executor: RayExecutor, plan: Plan, hellos: list[Hello]) -> None:
        self.executor, self.plan = executor, plan
        first = hellos[0]
        self.fingerprint: dict[str, Any] = first.fingerprints[0]
        self.name = first.names[0]
        self.endpoints: list[str] = first.endpoints
        self.label = f"ray ({len(hellos)} workers)"
        self._snapshots: dict[tuple[int, int], Batch] = {}

    async def execute(self, requests: Iterable[Request], write: Callable[[Sequence[Sample]], None], stats: RunStats,
                      budget: Budget, cache: ResponseCache | None, scorer: Scorer) -> None:
        todo = list(requests)  # cut into the workers' chunks up front
        ray = self.executor._ray
        opts: RunOptions = self.plan.options
        ctx = RunContext(uuid.uuid4().hex, self.plan.suite, self.plan.task_plans, opts.mc_mode, opts.log_prompts,
                         opts.tokenizer, opts.embedder, opts.similarity)
        ctx_ref = ray.put(ctx)
        reserved: dict[str, tuple[float, int]] = {}  # sample key → (worst-case cost, prompt token estimate)

        def take(chunk: list[Request]) -> list[Request]:
            """The prefix of the chunk whose worst-case cost fits the budget (all of it without a limit)."""
            if budget.limit is None:
                return chunk
            for n, req in enumerate(chunk):
                estimate = estimate_prompt_tokens(req.messages(self.plan.suite))
                worst = budget.reserve(estimate, req.params.max_tokens)
                if worst is None:
                    return chunk[:n]
                reserved[req.key] = (worst, estimate)
            return chunk

        def give_back(rest: list[Request]) -> None:
            for r in rest:
                worst, _ = reserved.pop(r.key, (0.0, 0))
                budget.settle(worst, 0, 0)

        def on_batch(batch: Batch, worker: int) -> None:
            for sample in batch.results:
                worst, estimate = reserved.pop(sample.key, (0.0, 0))
                if sample.cached or sample.error:
                    budget.settle(worst, 0, 0)
                else:
                    used_in = sample.prompt_tokens if sample.prompt_tokens is not None else estimate
                    budget.settle(worst, used_in, sample.completion_tokens or 0)
            write(batch.results)
            snapshot(self._snapshots, batch, worker)

        def key(x: Any) -> str:
            return x.key if isinstance(x, Request) else str(x.key)

        def submit(actor: Any, chunk: list[Request]) -> Any:
            units = [(r.index, r.item, r.epoch) for r in chunk]  # the worker rebuilds each request (at its epoch)
            return actor.run.options(num_returns="streaming").remote(ctx_ref, units)

        size = shard_size(len(todo), len(self.executor._actors), self.executor.opts.shard_size)
        await self.executor.stream(todo, key, submit, on_batch, size=size, take=take, give_back=give_back)
        for batch in self._snapshots.values():
            stats.add(batch.stats)

    def endpoint_stats(self) -> list[EndpointStats]:
        return workers_endpoint_stats(self._snapshots, len(self.executor._actors))

    async def aclose(self) -> None:
        return None


def snapshot(snapshots: dict[tuple[int, int], Batch], batch: Batch, worker: int) -> None:
    """Keep the latest counters of each worker incarnation (worker index, process id)."""
    k = (worker, batch.pid)
    old = snapshots.get(k)
    if old is None or batch.seq > old.seq:
        snapshots[k] = Batch([], batch.pid, batch.seq, batch.stats, batch.endpoints)


def workers_endpoint_stats(snapshots: dict[tuple[int, int], Batch], workers: int) -> list[EndpointStats]:
    """Per-endpoint counters summed over the workers; the concurrency limit across them, not one's share."""
    merged = merge_endpoint_stats([b.endpoints for b in snapshots.values()])
    for e in merged:
        if e.max_concurrency is not None:
            e.max_concurrency *= workers
    return merged


async def _alive(actor: Any) -> bool:
    """Whether a worker that died is coming back (Ray restarts it until its restarts are used up)."""
    from ray.exceptions import ActorUnavailableError, RayActorError

    try:
        await asyncio.wait_for(actor.pid.remote(), timeout=120)
    except ActorUnavailableError:
        return True
    except (RayActorError, TimeoutError):
        return False
    return True


async def _all_or_none(coroutines: list[Any]) -> None:
    """Run the coroutines as tasks until all are done; when one fails, cancel the others and raise."""
    tasks = [asyncio.get_running_loop().create_task(c) for c in coroutines]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
