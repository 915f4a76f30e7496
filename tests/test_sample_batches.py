"""Answers are written to samples.jsonl a batch at a time (issue 24 part 4): the engine hands `write` every sample
its consumer scored in one thread hop, and SampleStore.write_many appends them with one write and one flush, with the
crash-safety of one line at a time (a cut-off last line is dropped when the file is reopened)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.openai_compat import OpenAIBackend
from climedbench.models.registry import ModelOptions
from climedbench.run.engine import Engine, RunStats, execute, make_scorer
from climedbench.run.plan import RunOptions, plan_run
from climedbench.rundir import SampleStore, parse_sample
from tests.support.cli import run_cli
from tests.support.instant_server import instant_server
from tests.support.synthetic import short_items


def test_the_engine_hands_write_batches_of_samples(tmp_path):
    data = short_items(tmp_path / "items.jsonl", 60)
    with instant_server(letters="ABCD") as url:
        plan = plan_run(RunOptions(data=str(data), model="openai:test", model_options=ModelOptions(base_url=url),
                                    no_cache=True))
        reqs = list(plan.requests)
        calls: list[list[str]] = []

        async def go() -> None:
            backend = OpenAIBackend(model="test", base_url=url, max_concurrency=8)
            try:
                engine = Engine(backend, plan.suite, None, RateLimiter(None, None), Budget(Prices()), RunStats())
                await execute(engine, reqs, lambda batch: calls.append([s.uid for s in batch]),
                              make_scorer(plan.options, plan.suite), "generate", False, 8)
            finally:
                await backend.aclose()

        asyncio.run(go())
    assert all(isinstance(c, list) and c for c in calls)
    assert sorted(uid for c in calls for uid in c) == sorted(r.item.uid for r in reqs)  # each item once


def _samples(tmp_path: Path, n: int):
    data = short_items(tmp_path / "items.jsonl", n)
    with instant_server(letters="ABCD") as url:
        out = tmp_path / "run"
        run_cli("run", "--data", str(data), "--model", "openai:test", "--base-url", url, "--no-cache",
                "--out", str(out), "--quiet")
    path = out / "samples.jsonl"
    return [parse_sample(line, f"{path}:{k}") for k, line in enumerate(path.read_bytes().splitlines(True), 1)]


def test_a_batch_is_written_as_the_same_lines_and_a_cut_last_line_is_asked_again(tmp_path):
    samples = _samples(tmp_path, 12)
    one, batched = tmp_path / "one.jsonl", tmp_path / "batched.jsonl"
    with SampleStore(one) as store:
        for s in samples:
            store.write(s)
    with SampleStore(batched) as store:
        store.write_many(samples[:5])
        store.write_many(samples[5:])
        assert [s.uid for s in store.samples()] == [s.uid for s in samples]  # the offsets of every line
    assert batched.read_bytes() == one.read_bytes()
    whole = batched.read_bytes()
    batched.write_bytes(whole[: len(whole) - 40])  # killed while the last batch was being written
    with SampleStore(batched) as store:
        assert store.done_uids() == {s.key for s in samples[:-1]}
        store.write_many(samples[-1:])
    assert batched.read_bytes() == one.read_bytes()


def test_the_fsync_runs_in_the_stores_own_thread_and_close_waits_for_it(tmp_path):
    samples = _samples(tmp_path, 6)
    path = tmp_path / "synced.jsonl"
    store = SampleStore(path, sync_every=0.0)  # every batch is due a sync
    store.write_many(samples[:3])
    syncers = [t for t in threading.enumerate() if t.name.startswith("samples-fsync")]
    assert len(syncers) == 1  # the caller (an event loop) did not wait on the disk
    store.write_many(samples[3:])
    store.close()
    assert not syncers[0].is_alive()
    assert [parse_sample(x, "x").uid for x in path.read_bytes().splitlines()] == [s.uid for s in samples]
