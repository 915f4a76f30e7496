"""`--executor ray` on a local Ray cluster of two workers, against real servers on 127.0.0.1.

- the same plan gives the same samples and figures locally and on Ray (the real llama.cpp server);
- a worker killed mid-run, or the driver killed mid-run and the command re-run: every item answered once in
  samples.jsonl, and no item answered (cached) before the kill is sent to the server again;
- budgets hold across workers; failures and a missing Ray are one clear line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from climedbench.cache import request_key
from climedbench.errors import BudgetExceeded, ConfigError, ModelError
from climedbench.executors import ExecutorOptions
from climedbench.executors.ray_driver import RayExecutor
from climedbench.models.openai_compat import OpenAIBackend
from climedbench.models.registry import ModelOptions
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from tests.distributed.conftest import cli, comparable, figures, samples, shard_worker_pids, wait_until_gone
from tests.support.instant_server import answer_letter, get_stats, instant_server
from tests.support.synthetic import short_items as make_items


def run(opts: RunOptions, executor: RayExecutor | None = None, progress=None):
    return asyncio.run(run_plan(plan_run(opts), executor=executor, progress=progress))


def bodies_and_keys(opts: RunOptions, model: str, url: str) -> list[tuple[str, str, str]]:
    """(uid, sha256 of the POSTed body, cache key) of every request of the plan, computed independently."""
    plan = plan_run(opts)
    backend = OpenAIBackend(model=model, base_url=url)
    out = []
    for req in plan.requests:
        msgs = req.messages(plan.suite)
        out.append((req.item.uid, hashlib.sha256(backend.request_body(msgs, req.params)).hexdigest(),
                    request_key(backend.fingerprint, msgs, req.params)))
    return out


def cached_keys(cache: Path) -> set[str]:
    with sqlite3.connect(cache) as db:
        return {k for (k,) in db.execute("SELECT key FROM responses")}


def test_a_plan_gives_the_same_samples_and_figures_on_ray_as_locally(server_url, ray_address, tmp_path):
    """Real llama.cpp server, no cache: both executors really ask; two workers share the items."""
    def opts(out: str) -> RunOptions:
        return RunOptions(tasks=["BKT", "FTT"], limit=1, max_tokens=8, model="openai:qwen-test", no_cache=True,
                          out=str(tmp_path / out), model_options=ModelOptions(base_url=server_url, max_concurrency=2))

    run(opts("local"))
    executor = RayExecutor(ExecutorOptions(kind="ray", workers=2, shard_size=1))
    try:
        _, results, stats = run(opts("ray"), executor)
    finally:
        executor.close()
    assert executor.results_by_worker == [1, 1] and stats.requested == 2 and stats.cache_hits == 0
    local, ray = samples(tmp_path / "local"), samples(tmp_path / "ray")
    assert [s["uid"] for s in local] == [s["uid"] for s in ray] and len(local) == 2
    assert all(s["raw"] and s["error"] is None for s in ray)
    assert comparable(local) == comparable(ray)
    assert figures(tmp_path / "local") == figures(tmp_path / "ray")
    assert results.run is not None and results.run.executor == "ray (2 workers)"
    assert [(e.endpoint, e.ok) for e in results.run.endpoints or []] == [(server_url, 2)]


def test_a_worker_killed_mid_run_loses_nothing_and_nothing_finished_is_asked_again(ray_address, tmp_path):
    n = 240
    data = make_items(tmp_path / "items.jsonl", n)
    cache = tmp_path / "cache.sqlite"
    with instant_server(latency=0.04, slots=8) as url:
        opts = RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, cache=str(cache),
                          out=str(tmp_path / "run"), model_options=ModelOptions(base_url=url, max_concurrency=8))
        executor = RayExecutor(ExecutorOptions(kind="ray", workers=2, shard_size=20))
        before: set[str] = set()
        killed: list[int] = []

        def progress(done: int, total: int, code: str) -> None:
            if done >= 80 and not killed:
                killed.append(executor.worker_pids[0])
                os.kill(killed[0], signal.SIGKILL)
                wait_until_gone([killed[0]])  # the worker is gone: what it had answered is in the cache
                before.update(cached_keys(cache))

        try:
            _, results, _ = run(opts, executor, progress)
        finally:
            executor.close()
        asked = get_stats(url)["by_body"]
    assert killed and executor.shards_interrupted >= 1
    got = samples(tmp_path / "run")
    assert len(got) == n and len({s["uid"] for s in got}) == n and all(s["error"] is None for s in got)
    plan = plan_run(opts)
    for s, req in zip(got, plan.requests, strict=True):
        assert s["raw"] == f"答案：{answer_letter(req.messages(plan.suite))}"
    assert len(before) >= 80
    for uid, body, key in bodies_and_keys(opts, "instant-test", url):
        assert asked.get(body, 0) >= 1, uid
        if key in before:
            assert asked[body] == 1, uid
    assert sum(asked.values()) <= n + 4  # at most the dead worker's requests in flight were asked twice
    assert results.run is not None and results.run.items == n and results.run.failed == 0


def test_the_driver_killed_mid_run_then_the_same_command_resumes(ray_address, tmp_path):
    n = 200
    data = make_items(tmp_path / "items.jsonl", n)
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "run"
    with instant_server(latency=0.04, slots=4) as url:
        args = ["run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--max-tokens", "8",
                "--max-concurrency", "8", "--cache", str(cache), "--out", str(out), "--quiet",
                "--executor", "ray", "--ray-address", ray_address, "--workers", "2"]
        proc = subprocess.Popen([sys.executable, "-m", "climedbench.cli", *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline:
            f = out / "samples.jsonl"
            if f.exists() and f.read_text(encoding="utf-8").count("\n") >= 40:
                break
            time.sleep(0.02)
        assert shard_worker_pids()  # the driver's workers are running (what wait_until_gone waits for below)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        written = samples(out)
        wait_until_gone()  # Ray stops the dead driver's workers: once they are gone, what they finished is cached
        before = cached_keys(cache)
        assert 40 <= len(written) < n and {s["uid"] for s in written} <= {f"BKT/test/q{i:05d}" for i in range(n)}
        proc2 = cli(*args, "--json")
        asked = get_stats(url)["by_body"]
    assert '"resumed"' in proc2.stdout
    got = samples(out)
    assert len(got) == n and len({s["uid"] for s in got}) == n and all(s["error"] is None for s in got)
    by_uid = {s["uid"]: s["raw"] for s in got}
    assert all(by_uid[s["uid"]] == s["raw"] for s in written)  # what was saved before the kill is kept
    opts = RunOptions(data=str(data), model="openai:instant-test", max_tokens=8)
    for uid, body, key in bodies_and_keys(opts, "instant-test", url):
        assert asked.get(body, 0) >= 1, uid
        if key in before:
            assert asked[body] == 1, uid
    assert sum(asked.values()) <= n + 8  # at most the requests in flight at the kill were asked twice


def test_a_budget_holds_across_workers(ray_address, tmp_path):
    data = make_items(tmp_path / "items.jsonl", 200)
    with instant_server() as url:
        opts = RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, no_cache=True,
                          out=str(tmp_path / "run"), price_in=100, price_out=100, max_cost=0.05,
                          model_options=ModelOptions(base_url=url, max_concurrency=8))
        executor = RayExecutor(ExecutorOptions(kind="ray", workers=2))
        try:
            with pytest.raises(BudgetExceeded, match=r"stopped before exceeding --max-cost 0\.05"):
                run(opts, executor)
        finally:
            executor.close()
        sent = get_stats(url)["requests"]
    res = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert res["run"]["stopped"] == "max_cost" and 0 < res["run"]["items"] < 200
    assert res["run"]["items"] == sent  # every request sent was recorded
    assert res["run"]["cost_usd_now"] <= 0.05
    # The cost recomputed from the recorded token counts, independently of the budget's own arithmetic.
    used = sum(s["prompt_tokens"] + s["completion_tokens"] for s in samples(tmp_path / "run"))
    assert used * 100 / 1e6 == pytest.approx(res["run"]["cost_usd_now"], abs=1e-6)


def test_a_worker_that_cannot_reach_the_server_is_one_clear_error(ray_address, tmp_path):
    with instant_server() as url:
        pass  # now closed: nothing listens on its port
    opts = RunOptions(tasks=["BKT"], limit=1, model="openai:instant-test", no_cache=True, out=str(tmp_path / "r"),
                      model_options=ModelOptions(base_url=url, timeout=5))
    executor = RayExecutor(ExecutorOptions(kind="ray", workers=2))
    try:
        with pytest.raises(ModelError, match=r"cannot reach server at http://127\.0\.0\.1:\d+/v1"):
            run(opts, executor)
    finally:
        executor.close()
    assert not (tmp_path / "r").exists()  # nothing written for a run that could not start


def test_ray_missing_is_one_clear_line(tmp_path):
    code = ("import sys; sys.modules['ray'] = None; from climedbench.cli import main; "
            "sys.argv = ['climedbench', 'run', '--executor', 'ray', '--tasks', 'BKT', '--limit', '1', '--out', "
            f"{str(tmp_path / 'r')!r}]; main()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == "error: --executor ray needs Ray, which is not installed: pip install 'climedbench[ray]'"
    assert "Traceback" not in proc.stderr


def test_more_workers_than_the_cluster_has_cpus_is_refused(ray_address):
    executor = RayExecutor(ExecutorOptions(kind="ray", workers=9))
    opts = RunOptions(tasks=["BKT"], limit=1, model="openai:x", model_options=ModelOptions(base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(ConfigError, match=r"the Ray cluster has 4 CPU\(s\) and --workers 9 needs one each"):
        asyncio.run(executor.open(plan_run(opts)))
    executor.close()
