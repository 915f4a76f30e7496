"""Cached, resumable, concurrent, fault-tolerant runs — against real servers on 127.0.0.1.

- the real llama.cpp model behind our fault-injecting proxy (429 + Retry-After, 500, 503, drops, truncation);
- an instant OpenAI-compatible endpoint where only the harness is exercised (ordering, budget, many items).
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
from multiprocessing import Process
from pathlib import Path

import pytest

from climedbench.cache import ResponseCache, request_key
from climedbench.models.base import Completion, GenParams
from climedbench.models.openai_compat import OpenAIBackend
from climedbench.run.plan import RunOptions, plan_run
from tests.support.cli import run_cli as cli
from tests.support.fault_proxy import configure_proxy, fault_proxy, proxy_stats
from tests.support.instant_server import answer_letter, get_stats, instant_server, reset_stats
from tests.support.synthetic import short_items as make_items

pytestmark = pytest.mark.model

FAULTS = {"p_429": 0.15, "p_500": 0.1, "p_503": 0.1, "p_drop": 0.1, "p_truncate": 0.1}


def samples(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]


def test_a_run_through_faults_equals_a_direct_run(server_url, tmp_path):
    """Same extracted answers and scores through a proxy injecting every fault kind as without it."""
    common = ["--scenarios", "BKT,FIT,MC", "--limit", "2", "--max-tokens", "12", "--no-cache", "--quiet",
              "--model", "openai:qwen-test", "--max-concurrency", "2"]
    direct = tmp_path / "direct"
    cli("run", *common, "--base-url", server_url, "--out", str(direct))
    with fault_proxy(server_url, seed=11, max_faults_per_body=3, **FAULTS) as proxied_url:
        faulty = tmp_path / "faulty"
        cli("run", *common, "--base-url", proxied_url, "--max-retries", "4", "--timeout", "180", "--out", str(faulty))
        stats = proxy_stats(proxied_url)
    assert sum(stats["faults"].values()) >= 3, stats["faults"]
    a, b = samples(direct), samples(faulty)
    assert [s["uid"] for s in a] == [s["uid"] for s in b]
    assert [(s["raw"], s["extracted"], s["score"]) for s in a] == [(s["raw"], s["extracted"], s["score"]) for s in b]
    assert all(s["error"] is None for s in b)
    results = json.loads((faulty / "results.json").read_text())
    assert results["run"]["retried_now"] == sum(s["attempts"] - 1 for s in b) > 0
    assert results["run"]["failed"] == 0


def test_sigkill_halfway_then_rerun_completes_without_duplicates_or_repeats(server_url, tmp_path):
    n = 10
    data = make_items(tmp_path / "items.jsonl", n)
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "run"
    with fault_proxy(server_url, seed=0) as counting:  # no faults: it only counts what reaches the server
        args = ["run", "--data", str(data), "--model", "openai:qwen-test", "--base-url", counting, "--max-tokens",
                "6", "--max-concurrency", "2", "--cache", str(cache), "--out", str(out), "--quiet"]
        proc = subprocess.Popen([sys.executable, "-m", "climedbench.cli", *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.time() + 300
        while time.time() < deadline:
            f = out / "samples.jsonl"
            if f.exists() and f.read_text().count("\n") >= n // 2:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = samples(out)
        assert n // 2 <= len(before) < n  # killed halfway
        with sqlite3.connect(cache) as db:
            cached_before = {k for (k,) in db.execute("SELECT key FROM responses")}
        cli(*args)
        stats = proxy_stats(counting)
    after = samples(out)
    assert sorted(s["uid"] for s in after) == sorted({s["uid"] for s in after})  # no duplicates
    assert len(after) == n and all(s["error"] is None for s in after)
    assert [s["raw"] for s in after if s["uid"] in {b["uid"] for b in before}] == [b["raw"] for b in before]
    # Which request bodies belong to items that were cached before the kill: none may reach the server twice.
    plan = plan_run(RunOptions(data=str(data), max_tokens=6, model="openai:qwen-test"))
    backend = OpenAIBackend(model="qwen-test", base_url=counting)
    fp = dict(backend.fingerprint, base_url=counting)
    forwarded = dict(stats["forwarded_by_body"])
    forwarded.pop(hashlib.sha256(b"").hexdigest(), None)  # the two GET /models checks

    for task in plan.requests:
        msgs = task.messages(plan.suite)
        body = hashlib.sha256(backend.request_body(msgs, task.params)).hexdigest()
        times = forwarded.get(body, 0)
        assert times >= 1
        if request_key(fp, msgs, task.params) in cached_before:
            assert times == 1, task.item.id
    assert sum(forwarded.values()) <= n + 2  # at most the two requests in flight at the kill were asked again


def test_instant_endpoint_order_errors_retry_and_budget(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 400)
    with instant_server(model="instant-test") as url:
        out = tmp_path / "run"
        base = ["--data", str(data), "--model", "openai:instant-test", "--max-tokens", "8", "--quiet",
                "--cache", str(tmp_path / "c.sqlite"), "--max-concurrency", "64"]
        with fault_proxy(url, seed=1, p_500=1.0, max_faults_per_body=10) as proxy:
            # Every request fails (500 each time, more faults than retries): recorded as errors, not dropped.
            proc = cli("run", *base, "--base-url", proxy, "--max-retries", "1", "--out", str(out), "--json",
                       check=False)
            assert proc.returncode == 5  # some requests failed (docs: exit codes)
            res = json.loads(proc.stdout)
            assert res["run"]["failed"] == 400 and res["tasks"]["BKT"]["n"] == 400
            # No answer: no score (a failed request is not a wrong answer).
            assert res["tasks"]["BKT"]["score"] is None and res["tasks"]["BKT"]["answered"] == 0
            assert res["tasks"]["BKT"]["errors"] == 400
            assert all(s["error"] and "server error HTTP 500" in s["error"] for s in samples(out))
            # The server recovers: the same command retries exactly the failed items.
            configure_proxy(proxy, p_500=0.0)
            reset_stats(url)
            res = json.loads(cli("run", *base, "--base-url", proxy, "--out", str(out), "--json").stdout)
        assert res["run"]["failed"] == 0 and res["run"]["answered_now"] == 400
        assert get_stats(url)["requests"] == 400  # chat completions that reached the server: one per item
        got = samples(out)
        assert [s["item_id"] for s in got] == [f"q{i:05d}" for i in range(400)]  # item order at 64 in flight
        plan = plan_run(RunOptions(data=str(data), max_tokens=8))
        for s, task in zip(got, plan.requests, strict=True):
            assert s["raw"] == f"答案：{answer_letter(task.messages(plan.suite))}"
        # A budget stops a run cleanly before it is exceeded, with partial results saved.
        out2 = tmp_path / "budget"
        proc = cli("run", *base, "--base-url", url, "--no-cache", "--out", str(out2), "--price-in", "100",
                   "--price-out", "100", "--max-cost", "0.05", check=False)
        assert proc.returncode == 4 and "stopped before exceeding --max-cost 0.05" in proc.stderr.splitlines()[-1]
        res = json.loads((out2 / "results.json").read_text())
        assert res["run"]["stopped"] == "max_cost" and 0 < res["run"]["items"] < 400
        assert res["run"]["cost_usd_now"] <= 0.05
        assert json.loads((out2 / "run.json").read_text())["status"].startswith("stopped")


def test_timeouts_are_retried(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 12)
    with instant_server(model="instant-test") as url, fault_proxy(url, seed=3, p_stall=0.5, stall_seconds=3,
                                                                   max_faults_per_body=1) as stalling:
        out = tmp_path / "run"
        res = json.loads(cli("run", "--data", str(data), "--model", "openai:instant-test", "--base-url", stalling,
                             "--timeout", "1", "--no-cache", "--out", str(out), "--json", "--quiet").stdout)
        stats = proxy_stats(stalling)
    assert stats["faults"]["stall"] >= 2 and res["run"]["failed"] == 0
    assert res["run"]["retried_now"] == stats["faults"]["stall"]


def _fill(path: str, start: int) -> None:
    cache = ResponseCache(path)
    for i in range(start, start + 1500):
        cache.put(f"k{i}", "m", Completion(text=f"答案：{'ABCD'[i % 4]}" * 20))
        cache.put(f"shared{i % 300}", "m", Completion(text="same"))
    cache.close()


def test_concurrent_processes_share_one_cache_file_safely(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    ResponseCache(path).close()
    procs = [Process(target=_fill, args=(path, s)) for s in (0, 1000)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    cache = ResponseCache(path)
    assert cache.integrity_ok()
    assert cache.stats()["entries"] == 2500 + 300  # k0..k2499 plus 300 shared keys, each once
    assert cache.get("k1234").text == "答案：C" * 20 and cache.get("k1234").cached


def test_different_models_or_parameters_never_share_an_entry():
    msgs = [{"role": "user", "content": "问题"}]
    fp = {"backend": "openai", "model": "a", "base_url": "http://h/v1"}
    keys = {
        request_key(fp, msgs, GenParams(max_tokens=10)),
        request_key(dict(fp, model="b"), msgs, GenParams(max_tokens=10)),
        request_key(dict(fp, base_url="http://other/v1"), msgs, GenParams(max_tokens=10)),
        request_key(fp, msgs, GenParams(max_tokens=11)),
        request_key(fp, msgs, GenParams(max_tokens=10, temperature=0.7)),
        request_key(fp, msgs, GenParams(max_tokens=10, seed=1)),
        request_key(fp, msgs, GenParams(max_tokens=10, top_logprobs=5)),
        request_key(fp, [{"role": "user", "content": "问题 "}], GenParams(max_tokens=10)),
    }
    assert len(keys) == 8


def test_the_api_key_never_reaches_files_logs_or_messages(tmp_path):
    key = "sk-test-secret-abcdef123456"
    data = make_items(tmp_path / "items.jsonl", 5)
    with instant_server(model="instant-test", api_key=key) as url:
        out = tmp_path / "run"
        cache = tmp_path / "c.sqlite"
        ok = cli("--debug", "run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url,
                 "--api-key-env", "MY_KEY", "--cache", str(cache), "--out", str(out), env={"MY_KEY": key})
        bad = cli("run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url,
                  "--api-key-env", "MY_KEY", "--out", str(tmp_path / "bad"), env={"MY_KEY": key + "x"}, check=False)
    assert bad.returncode == 3 and "rejected the API key" in bad.stderr
    everything = ok.stdout + ok.stderr + bad.stdout + bad.stderr
    for f in [*out.iterdir(), cache]:
        everything += f.read_bytes().decode("utf-8", "replace")
    assert key not in everything and key[6:] not in everything


def test_cache_commands(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    for i in range(3):
        cache.put(f"a{i}", "model-a", Completion(text="x"))
    cache.put("b0", "model-b", Completion(text="y"))
    cache.close()
    st = json.loads(cli("cache", "stats", "--cache", str(path), "--json").stdout)
    assert st["entries"] == 4 and st["models"] == {"model-a": 3, "model-b": 1}
    assert "deleted 3" in cli("cache", "clear", "--cache", str(path), "--model", "model-a", "--yes").stdout
    assert json.loads(cli("cache", "stats", "--cache", str(path), "--json").stdout)["entries"] == 1


def test_interrupted_asyncio_run_keeps_finished_work(tmp_path):
    """In-process: cancelling a run mid-way (Ctrl-C) leaves finished samples and cache entries usable."""
    from climedbench.run.driver import run_plan

    data = make_items(tmp_path / "items.jsonl", 300)
    with instant_server(model="instant-test") as url:
        from climedbench.models.registry import ModelOptions

        opts = RunOptions(data=str(data), model="openai:instant-test", cache=str(tmp_path / "c.sqlite"),
                          out=str(tmp_path / "run"), max_tokens=8,
                          model_options=ModelOptions(base_url=url, max_concurrency=4))

        async def interrupted():
            task = asyncio.ensure_future(run_plan(plan_run(opts)))
            while not (tmp_path / "run" / "samples.jsonl").exists() or \
                    (tmp_path / "run" / "samples.jsonl").read_text().count("\n") < 50:
                await asyncio.sleep(0.001)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        partial = samples(tmp_path / "run")
        assert 50 <= len(partial) < 300
        reset_stats(url)
        _, results, stats = asyncio.run(run_plan(plan_run(opts)))
        assert results.run.items == 300 and stats.resumed == len(partial)
        assert get_stats(url)["requests"] <= 300 - len(partial)  # none of the finished items asked again
