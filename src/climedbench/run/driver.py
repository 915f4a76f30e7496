"""Drive a planned run: open the executor, skip what --out already holds, write samples and results, the judge pass."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from climedbench.cache import ResponseCache
from climedbench.core.suite import Task
from climedbench.core.types import Results, Sample
from climedbench.errors import BudgetExceeded
from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.base import Backend
from climedbench.models.registry import open_backend
from climedbench.results import build_results
from climedbench.run.accounting import SampleTally, finish_endpoint_stats, run_accounting
from climedbench.run.engine import Engine, RunStats, make_scorer, open_cache
from climedbench.run.plan import IDENTITY_KEYS, Plan, default_out_dir
from climedbench.rundir import RunDir, SampleStore, iter_samples, summarize, write_json_atomic, write_jsonl_atomic
from climedbench.scoring import Scorer

if TYPE_CHECKING:
    from climedbench.executors import Executor


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
        executor = executor or LocalExecutor()
        scorer = make_scorer(opts, plan.suite)
        if isinstance(executor, LocalExecutor):  # answers scored here: the embedder loads while the model works
            scorer.prefetch(planned_tasks(plan))
        session = await executor.open(plan, backend)
        return await _run_session(plan, session, held, progress, scorer)


def planned_tasks(plan: Plan) -> list[Task]:
    """The tasks of a plan that have items to answer."""
    counts = plan.spec.items_by_task
    return [tp.task for code, tp in plan.task_plans.items() if counts is None or counts.get(code)]


async def _run_session(plan: Plan, session: Any, held: contextlib.ExitStack,
                       progress: Callable[[int, int, str], None] | None,
                       scorer: Scorer) -> tuple[RunDir, Results, RunStats]:
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
        with SampleStore(rundir.samples_file) as store:
            done_before = store.done_uids() if resuming else set()
            # the requests are built as they are sent (plan.requests is a stream), never held all at once
            todo = (r for r in plan.requests if r.key not in done_before)
            stats.resumed = sum(1 for k in plan.requests.sample_keys() if k in done_before) if done_before else 0
            total = len(plan.requests) - stats.resumed
            start = time.perf_counter()

            def write(samples: Sequence[Sample]) -> None:
                store.write_many(samples)
                for sample in samples:
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
            store.finalize(plan.requests.sample_keys())
        # the results read back from the final samples.jsonl as a stream: memory does not grow with the items
        tally = SampleTally()
        rows = tally.count(map(summarize, iter_samples(rundir.samples_file)))
        results = build_results(rows, plan.suite, session.name, opts.seed, similarity=opts.similarity,
                                planned=plan.spec.items_by_task, reducer=opts.epoch_reducer,
                                single_epoch=opts.epochs <= 1)
        results.run = run_accounting(tally, stats, len(plan.requests), prices)
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
        wanted = {s.uid for s in pending}
        items = {r.item.uid: r.item for r in plan.requests if r.item.uid in wanted}
        for s in await judge_samples(pending, items, plan.suite, engine, scorer, judge.name):
            store.write(s)
        stats.requested += engine.stats.requested
    finally:
        if not same:
            await judge.aclose()


def _in_process_type() -> type:
    from climedbench.models.llamacpp import LlamaCppBackend

    return LlamaCppBackend
