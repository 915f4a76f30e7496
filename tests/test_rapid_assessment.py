"""Rapid assessment end to end with real servers: full runs → matrix → MPS → calibration → CAT → compare."""

from __future__ import annotations

import csv
import json
import subprocess

import numpy as np
import pytest

from climedbench.irt.binarize import binarize, mean_preserving_threshold, rescale, unscale
from climedbench.irt.matrix import read_matrix
from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, check=check, timeout=900)


def test_mean_preserving_threshold_preserves_the_mean():
    rng = np.random.default_rng(0)
    for _ in range(20):
        tau = rng.choice([-1, -1 / 3, 0, 1 / 3, 2 / 3, 1], size=500, p=[0.1, 0.1, 0.2, 0.2, 0.2, 0.2])
        scaled = [rescale(x, "tau") for x in tau]
        t = mean_preserving_threshold(scaled)
        binary = np.array([binarize(x, "tau", t) for x in tau])
        # The binary mean tracks the graded mean within the granularity of the observed values.
        assert abs(binary.mean() - np.mean(scaled)) <= 0.2
        assert unscale(float(np.mean(scaled)), "tau") == pytest.approx(tau.mean())
    assert binarize(1.0, "identity", 0.5) == 1.0 and binarize(0.0, "identity", 0.5) == 0.0


@pytest.fixture(scope="module")
def servers():
    with instant_server(model="model-a", letters="ABCD") as a, instant_server(model="model-b", letters="AB") as b:
        yield a, b


def test_pipeline(servers, tmp_path):
    a, b = servers
    common = ["--limit", "6", "--max-tokens", "16", "--quiet", "--cache", str(tmp_path / "c.sqlite")]
    runs = []
    for name, url in (("model-a", a), ("model-b", b)):
        out = tmp_path / f"full-{name}"
        cli("run", *common, "--model", f"openai:{name}", "--base-url", url, "--out", str(out))
        runs.append(out)

    # One examinee per run; graded scenarios binarised with their thresholds written to the item map.
    m_path = tmp_path / "runs.csv"
    made = cli("irt", "matrix", *map(str, runs), "--out", str(m_path))
    m = read_matrix(m_path)
    # A graded scenario whose every answer (both runs) scored the same is left out, with a line saying so.
    metric = {t["code"]: t["metric"] for t in json.loads(cli("list", "--json").stdout)["climedbench"]["tasks"]}
    seen: dict[str, set[float]] = {}
    for run in runs:
        for line in (run / "samples.jsonl").read_text().splitlines():
            s = json.loads(line)
            seen.setdefault(s["task"], set()).add(s["score"])
    constant = {c for c, v in seen.items() if metric[c] != "accuracy" and len(v) == 1}
    assert m.examinee_ids == ["model-a", "model-b"] and m.n_items == (14 - len(constant)) * 6
    assert {c for c in metric if f"scenario {c} left out" in made.stderr} == constant
    assert set(np.unique(m.data[~np.isnan(m.data)])) <= {0.0, 1.0}
    with (tmp_path / "runs.items.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    by = {r["scenario"]: r for r in rows}
    assert set(by) == set(metric) - constant
    expected = {c: "identity" if metric[c] == "accuracy" else "tau" if metric[c] == "kendall_tau" else "clip"
                for c in by}
    assert {c: r["transform"] for c, r in by.items()} == expected and by["BKT"]["k"] == "5"
    assert by["ID#1"]["transform"] == "identity" and by["WTD"]["k"] == ""

    # Participant synthesis over both models and two roles: (2 first-pass + 2 ordered pairs) × 2 roles.
    mps = tmp_path / "mps"
    reset_stats(a)
    cli("mps", "--models", f"openai:model-a@{a},openai:model-b@{b}", "--limit", "6", "--roles", "doctor,student",
        "--max-tokens", "16", "--out", str(mps), "--cache", str(tmp_path / "c.sqlite"), "--quiet")
    mm = read_matrix(mps / "matrix.csv")
    left = json.loads((mps / "mps.json").read_text())["left_out"]
    assert set(left) <= {c for c in metric if metric[c] != "accuracy"}
    kept = (14 - len(left)) * 6
    assert mm.n_examinees == 8 and mm.n_items == kept and mm.n_responses == 8 * kept
    assert set(mm.examinee_ids) >= {"model-a>model-b@doctor", "model-b>model-a@student", "model-a@doctor:first"}
    transcripts = [json.loads(x) for x in (mps / "transcripts.jsonl").read_text().splitlines()]
    assert len(transcripts) == 84 * 2 * 2  # item × ordered pair × role
    t = transcripts[0]
    assert t["generation"] and t["debate"] and t["reflection"] and t["generator"] != t["debater"]
    # model-a generates (84 × 2 roles) and reflects (same); debates for model-b (84 × 2): 3 × 168 requests.
    assert get_stats(a)["requests"] == 3 * 168

    # Calibrate on the synthetic examinees (few: falls back to 2PL) and test a model adaptively.
    bank = tmp_path / "bank.json"
    proc = cli("irt", "fit", str(mps / "matrix.csv"), "--items-scenarios", str(mps / "items.csv"), "--out", str(bank))
    assert "wrote" in proc.stdout
    cat_out = tmp_path / "cat-a"
    res = json.loads(cli("cat", "--model", "openai:model-a", "--base-url", a, "--bank", str(bank), "--item-map",
                         str(mps / "items.csv"), "--max-items", "20", "--out", str(cat_out), "--cache",
                         str(tmp_path / "c.sqlite"), "--json").stdout)
    assert res["adaptive"] and res["n_items"] == 20 and res["model"] == "model-a"
    lo, hi = res["overall"]["ci"]
    assert lo <= res["overall"]["score"] <= hi and set(res["tasks"]) <= {s for s in by}
    log = [json.loads(x) for x in (cat_out / "cat_log.jsonl").read_text().splitlines()]
    assert len(log) == 20 and [x["step"] for x in log] == list(range(1, 21))
    assert len({x["item"] for x in log}) == 20  # never the same item twice
    asked = [json.loads(x)["uid"] for x in (cat_out / "samples.jsonl").read_text().splitlines()]
    assert asked == [x["item"] for x in log]
    # Seeded: the same command makes the same choices (and its answers come from the cache).
    again = json.loads(cli("cat", "--model", "openai:model-a", "--base-url", a, "--bank", str(bank), "--item-map",
                           str(mps / "items.csv"), "--max-items", "20", "--out", str(tmp_path / "cat-a2"), "--cache",
                           str(tmp_path / "c.sqlite"), "--json").stdout)
    assert again["cat"]["items"] == res["cat"]["items"] and again["run"]["cache_hits"] == 20

    cat_b = tmp_path / "cat-b"
    cli("cat", "--model", "openai:model-b", "--base-url", b, "--bank", str(bank), "--item-map", str(mps / "items.csv"),
        "--max-items", "20", "--out", str(cat_b), "--cache", str(tmp_path / "c.sqlite"))
    report = json.loads(cli("cat", "compare", str(runs[0]), str(cat_out), str(cat_b), "--json").stdout)
    (pair,) = report["pairs"]
    assert {pair["a"], pair["b"]} == {"model-a", "model-b"} and pair["lower"] <= pair["difference"] <= pair["upper"]
    assert 0 <= pair["p_a_better"] <= 1
    assert pair["separated"] == (pair["lower"] > 0 or pair["upper"] < 0)  # the verdict is the interval's
    assert pair["verdict"] == ("separated at 95%" if pair["separated"] else "not separated at 95%")
    assert "separated" in cli("cat", "compare", str(cat_out), str(cat_b)).stdout
    row = report["models"][0]
    assert row["model"] == "model-a" and row["items_asked"] == 20
    full = json.loads((runs[0] / "results.json").read_text())["overall"]["score"]
    assert row["full"] == full and row["error"] == pytest.approx(res["overall"]["score"] - full, abs=0.01)


def test_cat_refuses_graded_items_without_an_item_map(tmp_path):
    from climedbench.irt.bank import ItemBank

    bank = ItemBank(ids=["CPR/test/CPR-001", "BKT/test/BKT-001"], a=[1.0, 1.0], b=[0.0, 0.0], c=[0.0, 0.2],
                    scenarios=["CPR", "BKT"])
    bank.save(tmp_path / "bank.json")
    proc = cli("cat", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--bank",
               str(tmp_path / "bank.json"), check=False)
    assert proc.returncode == 2 and "give --item-map" in proc.stderr and "Traceback" not in proc.stderr
    bad = ItemBank(ids=["NOPE/test/1"], a=[1.0], b=[0.0], c=[0.0], scenarios=["BKT"])
    bad.save(tmp_path / "bad.json")
    proc = cli("cat", "--model", "openai:x", "--bank", str(tmp_path / "bad.json"), check=False)
    assert proc.returncode == 2 and "not in bundled demo set" in proc.stderr
