"""A third suite, written only as YAML, data and a plug-in metric (tests/fixtures/suites/third), goes through every command with real
OpenAI-compatible servers: run, score, report --html, analyze, irt matrix/fit, cat and rate create. Nothing in the
package knows it; its CoT tasks and its shown-answer flag (FIT's logic, generalised) are suite data."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.cli import run_cli
from tests.support.instant_server import instant_server

from .conftest import FIXTURES

SUITE = FIXTURES / "suites" / "third"
SPEC = yaml.safe_load((SUITE / "suite.yaml").read_text(encoding="utf-8"))
CODES = [t["code"] for t in SPEC["tasks"]]
REPLY_B = "Answer: A (bed 4, aged 81, sats 93% on 2 L)"  # model-b's one reply to every prompt


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, check=check, timeout=900)


def _records(code: str) -> list[dict]:
    lines = (SUITE / "demo" / f"{code}.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r.get("split", "test") == "test"]


def _samples(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two full runs on the suite's demo set: model-a answers by a hash of the prompt, model-b always 'A'."""
    root = tmp_path_factory.mktemp("third")
    out: dict[str, Path] = {}
    with instant_server(model="model-a") as a, instant_server(model="model-b", reply=REPLY_B) as b:
        for name, url in (("model-a", a), ("model-b", b)):
            out[name] = root / name
            cli("run", "--suite", str(SUITE), "--limit", "0", "--model", f"openai:{name}", "--base-url", url,
                "--out", str(out[name]), "--no-cache", "--quiet")
        # The CoT comparison of the analyses: the suite's cot_tasks, vanilla and CoT by the same model.
        out["cot"] = root / "cot"
        cli("run", "--suite", str(SUITE), "--limit", "0", "--tasks", ",".join(SPEC["analyses"]["cot_tasks"]),
            "--cot", "--model", "openai:model-a", "--base-url", a, "--out", str(out["cot"]), "--no-cache", "--quiet")
        # Adaptive testing needs a live model: calibrate on the two runs, then test model-a.
        matrix = root / "m.csv"
        cli("irt", "matrix", str(out["model-a"]), str(out["model-b"]), "--out", str(matrix))
        out["matrix"] = matrix
        out["bank"] = root / "bank.json"
        cli("irt", "fit", str(matrix), "--items-scenarios", str(root / "m.items.csv"), "--out", str(out["bank"]))
        out["cat"] = root / "cat"
        cli("cat", "--suite", str(SUITE), "--model", "openai:model-a", "--base-url", a, "--bank", str(out["bank"]),
            "--item-map", str(root / "m.items.csv"), "--max-items", "8", "--out", str(out["cat"]), "--no-cache")
    return out


def test_run_scores_every_task_of_the_suite(runs):
    res = json.loads((runs["model-b"] / "results.json").read_text())
    assert res["suite"] == SPEC["suite"] and list(res["tasks"]) == CODES
    gold_a = [r["answer"] == "A" for r in _records("acute-mcq")]
    assert res["tasks"]["acute-mcq"]["score"] == pytest.approx(100 * sum(gold_a) / len(gold_a), abs=0.01)
    for run in (runs["model-a"], runs["model-b"]):
        res = json.loads((run / "results.json").read_text())
        samples = _samples(run)
        for code in CODES:
            scores = [s["score"] for s in samples if s["task"] == code]
            assert len(scores) == len(_records(code))
            assert res["tasks"][code]["score"] == pytest.approx(100 * sum(scores) / len(scores), abs=0.01)


def test_the_suites_plugin_metric_scores_the_handovers(runs):
    # numbers_kept, registered by the suite's plug-in: the share of the notes' distinct numbers the handover repeats
    import re

    said = set(re.findall(r"\d+(?:\.\d+)?", REPLY_B))
    expected = {}
    for r in _records("handover-note"):
        wanted = set(re.findall(r"\d+(?:\.\d+)?", r["input"]))
        expected[r["id"]] = len(wanted & said) / len(wanted)
    got = {s["item_id"]: s["score"] for s in _samples(runs["model-b"]) if s["task"] == "handover-note"}
    assert got == pytest.approx(expected) and any(v > 0 for v in expected.values())


def test_the_shown_answer_is_logged_and_counted_as_the_suite_declares(runs):
    hints = {r["id"]: r["hint"] for r in _records("hinted-mcq")}
    samples = _samples(runs["model-b"])  # model-b always answers A
    hinted = [s for s in samples if s["task"] == "hinted-mcq"]
    assert {s["item_id"]: s["hint"] for s in hinted} == hints
    assert {s["item_id"]: s["flags"]["repeated_hint"] for s in hinted} == {k: v == "A" for k, v in hints.items()}
    assert all("hint" not in s and "repeated_hint" not in s["flags"] for s in samples if s["task"] != "hinted-mcq")
    res = json.loads((runs["model-b"] / "results.json").read_text())
    assert res["tasks"]["hinted-mcq"]["counts"]["repeated_hint"] == sum(v == "A" for v in hints.values())


def test_score_reproduces_the_run(runs):
    before = json.loads((runs["model-a"] / "results.json").read_text())
    again = json.loads(cli("score", str(runs["model-a"]), "--json").stdout)
    assert {c: again["tasks"][c]["score"] for c in CODES} == {c: before["tasks"][c]["score"] for c in CODES}


def test_report_html_shows_the_suites_tasks(runs, tmp_path):
    html = tmp_path / "report.html"
    cli("report", str(runs["model-a"]), str(runs["model-b"]), "--html", str(html))
    text = html.read_text(encoding="utf-8")
    assert SPEC["title"] in text
    for task in SPEC["tasks"]:
        assert task["code"] in text and task["name"]["en"] in text


def test_analyze_cot_compares_the_suites_cot_tasks(runs, tmp_path):
    from climedbench.analyses.pipeline import cot_tasks
    from climedbench.core.suite import load_suite

    assert cot_tasks(load_suite(str(SUITE)), CODES) == SPEC["analyses"]["cot_tasks"]
    cli("analyze", "cot", str(runs["model-a"]), str(runs["cot"]), "--out", str(tmp_path))
    record = json.loads((tmp_path / "cot.json").read_text())
    assert record["suite"] == SPEC["suite"]
    rows = [dict(zip(record["table"]["columns"], row, strict=True)) for row in record["table"]["rows"]]
    assert [r["task"] for r in rows] == SPEC["analyses"]["cot_tasks"]
    assert rows[0]["n"] == len(_records("acute-mcq"))


def test_irt_matrix_and_cat_read_the_suite(runs):
    from climedbench.irt.matrix import read_matrix

    m = read_matrix(runs["matrix"])
    assert m.examinee_ids == ["model-a", "model-b"] and m.n_items == sum(len(_records(c)) for c in CODES)
    bank = json.loads(runs["bank"].read_text())
    assert len(bank["items"]) == m.n_items
    res = json.loads((runs["cat"] / "results.json").read_text())
    log = [json.loads(x) for x in (runs["cat"] / "cat_log.jsonl").read_text().splitlines()]
    assert res["adaptive"] and res["suite"] == SPEC["suite"] and set(res["tasks"]) <= set(CODES)
    assert len(log) == 8 and len({x["item"] for x in log}) == 8
    assert {x["item"].split("/")[0] for x in log} <= set(CODES)


def test_rate_create_draws_the_free_text_answers(runs, tmp_path):
    db = tmp_path / "study.sqlite"
    proc = cli("rate", "create", str(runs["model-a"]), str(runs["model-b"]), "--db", str(db), "--raters", "2",
               "--per-item", "2")
    n = len(_records("handover-note"))
    assert f"handover-note: {n} of {n} drawn" in proc.stdout
    with sqlite3.connect(db) as con:
        cases = con.execute("SELECT COUNT(*) FROM cases").fetchone()[0]
        raters = con.execute("SELECT COUNT(*) FROM raters").fetchone()[0]
    assert (cases, raters) == (n, 2)
