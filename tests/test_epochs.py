"""`climedbench run --epochs K`: each item asked K times, reduced per item, resumed per (item, epoch); target_hash.

Real parts: the real CLI in a child process and the instant OpenAI-compatible server on 127.0.0.1, whose answer
letter here hashes the request's seed too (`vary_by_seed`), so the K answers to an item differ as a sampling model's
do. Expected figures are computed in the tests from samples.jsonl read as plain JSON, never by the aggregation code.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats
from tests.support.synthetic import short_items

K = 3


def args_for(url: str, data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--no-cache", "--quiet",
            "--out", str(out), *extra]


def samples(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))


def by_item(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: (r["uid"], r["epoch"])):
        out[r["uid"]].append(r)
    return out


def reduced(rows: list[dict], reducer: str) -> float:
    """One item's score under `reducer`, computed here from its K samples."""
    scores = [r["score"] for r in rows]
    if reducer == "mean":
        return sum(scores) / len(scores)
    if reducer == "pass_at_k":
        return max(scores)
    if reducer == "all_correct":
        return min(scores)
    votes = Counter(r["extracted"] for r in rows)
    top = max(votes.values())
    return next(r["score"] for r in rows if votes[r["extracted"]] == top)


@pytest.fixture(scope="module")
def epoch_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("epochs")
    data = short_items(tmp / "items.jsonl", 30)
    out = tmp / "run"
    with instant_server(vary_by_seed=True) as url:
        run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7"))
        asked = get_stats(url)
        yield url, data, out, asked


def test_each_item_is_asked_k_times_as_its_own_sample(epoch_run):
    _, _, out, asked = epoch_run
    rows = samples(out)
    items = by_item(rows)
    assert len(items) == 30 and len(rows) == 30 * K
    assert all([r["epoch"] for r in group] == list(range(1, K + 1)) for group in items.values())
    assert asked["requests"] == 30 * K and set(asked["by_body"].values()) == {1}  # K distinct requests per item
    assert all(len({r["request_key"] for r in group}) == K for group in items.values())  # distinct cache keys
    # the server answers differently per request: some items got different answers across epochs
    assert sum(len({r["extracted"] for r in group}) > 1 for group in items.values()) >= 5
    spec = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert spec["epochs"] == K and spec["epoch_reducer"] == "mean"


@pytest.mark.parametrize("reducer", ["mean", "majority", "pass_at_k", "all_correct"])
def test_reduced_scores_match_an_independent_computation(epoch_run, reducer):
    url, data, out, _ = epoch_run
    reset_stats(url)
    # the same run directory: nothing is asked again, the figures are recomputed with this reducer
    run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--epoch-reducer", reducer))
    assert get_stats(url)["requests"] == 0
    items = by_item(samples(out))
    expected = sum(reduced(group, reducer) for group in items.values()) / len(items)
    res = results(out)
    fig = res["tasks"]["BKT"]
    assert fig["score"] == round(100 * expected, 2)
    assert fig["n"] == 30 and res["epochs"] == {"k": K, "reducer": reducer}
    within = statistics.mean(statistics.variance([r["score"] for r in g]) for g in items.values())
    assert fig["generation_noise"]["within_item_var"] == round(within, 6)
    varying = sum(len({r["score"] for r in g}) > 1 for g in items.values()) / len(items)
    assert fig["generation_noise"]["items_varying"] == round(varying, 4)


def test_the_interval_is_per_item_not_per_answer(epoch_run):
    """K answers are not K items: the interval is at least as wide as a one-epoch run's Jeffreys interval on the
    same number of items, wider than the one that treats the 3 × 30 answers as independent."""
    from scipy import stats

    url, data, out, _ = epoch_run
    run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--epoch-reducer", "mean"))
    rows = samples(out)
    ci = results(out)["tasks"]["BKT"]["ci"]
    x = sum(r["score"] for r in rows)
    n = len(rows)
    naive = stats.beta.ppf([0.025, 0.975], x + 0.5, n - x + 0.5) * 100
    assert ci[1] - ci[0] > naive[1] - naive[0]


def test_rescoring_and_reaggregating_keep_every_epoch(epoch_run, tmp_path):
    url, data, out, _ = epoch_run
    run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--epoch-reducer", "pass_at_k"))
    before = samples(out)
    run_cli("score", str(out))
    after = samples(out)
    assert [(s["uid"], s["epoch"], s["score"]) for s in after] == [(s["uid"], s["epoch"], s["score"]) for s in before]
    items = by_item(after)
    expected = round(100 * sum(reduced(g, "pass_at_k") for g in items.values()) / len(items), 2)
    assert results(out)["tasks"]["BKT"]["score"] == expected
    agg = json.loads(run_cli("aggregate", str(out / "samples.jsonl"), "--json").stdout)
    assert agg["tasks"]["BKT"]["score"] == expected


def test_analyses_read_one_reduced_sample_per_item(epoch_run):
    from climedbench.analyses.runs import load_run

    url, data, out, _ = epoch_run
    run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--epoch-reducer", "all_correct"))
    items = by_item(samples(out))
    run = load_run(out)
    assert {u: s.score for u, s in run.samples.items()} == {u: reduced(g, "all_correct") for u, g in items.items()}


def test_greedy_epochs_are_refused_without_the_flag(tmp_path):
    data = short_items(tmp_path / "items.jsonl", 4)
    with instant_server() as url:
        proc = run_cli(*args_for(url, data, tmp_path / "r", "--epochs", "3"), check=False)
        assert proc.returncode == 2
        assert "--epochs 3 at --temperature 0" in proc.stderr and "--greedy-epochs" in proc.stderr
        assert get_stats(url)["requests"] == 0
        run_cli(*args_for(url, data, tmp_path / "g", "--epochs", "3", "--greedy-epochs"))
        st = get_stats(url)
    assert st["requests"] == 12 and set(st["by_body"].values()) == {1}  # sent, each epoch its own request
    assert len(samples(tmp_path / "g")) == 12


def test_a_one_epoch_run_cannot_be_resumed_as_three(tmp_path):
    data = short_items(tmp_path / "items.jsonl", 4)
    out = tmp_path / "run"
    with instant_server() as url:
        run_cli(*args_for(url, data, out, "--temperature", "0.7"))
        proc = run_cli(*args_for(url, data, out, "--temperature", "0.7", "--epochs", "3"), check=False)
    assert proc.returncode == 2 and "differs in: epochs" in proc.stderr
    assert all("epoch" not in s for s in samples(out))


def test_sigkill_then_resume_asks_only_the_missing_epochs(tmp_path):
    n_items = 12
    data = short_items(tmp_path / "items.jsonl", n_items)
    out = tmp_path / "run"
    with instant_server(vary_by_seed=True, latency=0.05, slots=1) as url:
        args = args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--max-concurrency", "1")
        proc = subprocess.Popen([sys.executable, "-m", "climedbench.cli", *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=os.environ.copy())
        deadline = time.time() + 120
        f = out / "samples.jsonl"
        while time.time() < deadline and not (f.exists() and f.read_bytes().count(b"\n") >= 14):
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = [json.loads(line) for line in f.read_bytes().split(b"\n")[:-1] if line.strip()]
        assert 14 <= len(before) < n_items * K  # killed part-way, some epochs of some items done
        reset_stats(url)
        run_cli(*args)
        again = get_stats(url)
    after = samples(out)
    keys = [(s["uid"], s["epoch"]) for s in after]
    assert len(keys) == len(set(keys)) == n_items * K
    assert again["requests"] == n_items * K - len(before)  # only the missing (item, epoch) pairs were asked
    old = {(s["uid"], s["epoch"]): s["raw"] for s in before}
    assert all(s["raw"] == old[(s["uid"], s["epoch"])] for s in after if (s["uid"], s["epoch"]) in old)


def canonical_sha(gold: object) -> str:
    return hashlib.sha256(json.dumps(gold, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                          .encode("utf-8")).hexdigest()


def test_target_hash_proves_shared_gold(tmp_path):
    data = short_items(tmp_path / "items.jsonl", 6)
    changed = tmp_path / "changed.jsonl"
    lines = data.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[2])
    rec["reference"] = "ABCD"[("ABCD".index(rec["reference"]) + 1) % 4]  # one gold answer changed
    changed.write_text("\n".join([*lines[:2], json.dumps(rec, ensure_ascii=False), *lines[3:]]) + "\n", "utf-8")
    with instant_server() as url:
        run_cli(*args_for(url, data, tmp_path / "a"))
        run_cli(*args_for(url, data, tmp_path / "b", "--seed", "1"))
        run_cli(*args_for(url, changed, tmp_path / "c"))
    a, b, c = samples(tmp_path / "a"), samples(tmp_path / "b"), samples(tmp_path / "c")
    assert [s["target_hash"] for s in a] == [canonical_sha(s["gold"]) for s in a]
    assert [s["target_hash"] for s in a] == [s["target_hash"] for s in b]
    differ = [x["uid"] for x, y in zip(a, c, strict=True) if x["target_hash"] != y["target_hash"]]
    assert differ == [f"BKT/test/{rec['id']}"]
    same = run_cli("report", str(tmp_path / "a"), str(tmp_path / "b"), "--check-gold")
    assert "same gold" in same.stdout and "all 6 shared" in same.stdout
    bad = run_cli("report", str(tmp_path / "a"), str(tmp_path / "c"), "--check-gold", check=False)
    assert bad.returncode == 2
    assert f"DIFFERS from {tmp_path / 'a'} on 1 of 6" in bad.stdout and differ[0] in bad.stdout


def test_shards_of_an_epoch_run_merge_into_the_unsharded_run(tmp_path):
    """--shard cuts the plan of (item, epoch) requests anywhere, even between an item's epochs; merge joins them."""
    data = short_items(tmp_path / "items.jsonl", 5)
    with instant_server(vary_by_seed=True) as url:
        for out, extra in (("whole", ()), ("s1", ("--shard", "1/2")), ("s2", ("--shard", "2/2"))):
            run_cli(*args_for(url, data, tmp_path / out, "--epochs", str(K), "--temperature", "0.7", *extra))
    run_cli("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged"))
    whole, merged = samples(tmp_path / "whole"), samples(tmp_path / "merged")
    assert len(samples(tmp_path / "s1")) == 7  # 15 answers in two shards: item 3's epochs are split
    strip = [{k: v for k, v in s.items() if k != "latency"} for s in whole]
    assert strip == [{k: v for k, v in s.items() if k != "latency"} for s in merged]
    a, b = results(tmp_path / "whole"), results(tmp_path / "merged")
    assert a["tasks"] == b["tasks"] and a["epochs"] == b["epochs"] == {"k": K, "reducer": "mean"}


def test_the_table_and_the_report_say_how_much_of_the_variance_is_generation_noise(epoch_run, tmp_path):
    """`score` prints, and the HTML report's notes carry, each task's share of items whose K answers varied and the
    share of the item means' variance the generation noise accounts for — computed here from samples.jsonl."""
    url, data, out, _ = epoch_run
    run_cli(*args_for(url, data, out, "--epochs", str(K), "--temperature", "0.7", "--epoch-reducer", "mean"))
    items = by_item(samples(out))
    scores = [[r["score"] for r in g] for g in items.values()]
    varying = sum(len(set(s)) > 1 for s in scores) / len(scores)
    within = statistics.mean(statistics.variance(s) for s in scores)
    share = min(1.0, within / K / statistics.variance([statistics.mean(s) for s in scores]))
    line = (f"generation noise ({K} answers per item): BKT {100 * varying:.0f}% of items varied, "
            f"noise share {100 * share:.0f}%")
    assert 0 < varying < 1 and share > 0
    printed = " ".join(run_cli("score", str(out)).stdout.split())
    assert f"This run: {line}" in printed
    html = tmp_path / "r.html"
    run_cli("report", str(out), "--html", str(html), "--no-samples")
    assert line in html.read_text(encoding="utf-8")
