"""A user's own benchmark (docs/examples/hospital): a suite YAML plus data in the documented record format."""

import json

import pytest

from tests.support.cli import run_cli as cli

from .conftest import ROOT

SUITE = ROOT / "docs" / "examples" / "hospital" / "suite.yaml"
DATA = ROOT / "docs" / "examples" / "hospital" / "data"


def test_validate_and_list_the_example_suite():
    report = json.loads(cli("validate", "--suite", str(SUITE), str(DATA), "--json").stdout)
    assert report["valid"] == {"ward-mcq": 5, "discharge-safe": 4, "plain-summary": 3}
    assert report["invalid"] == [] and report["splits"]["ward-mcq"] == {"test": 4, "dev": 1}
    listed = json.loads(cli("list", "--suite", str(SUITE), "--json").stdout)["st-elsewhere-ward-exam"]
    assert [t["metric"] for t in listed["tasks"]] == ["accuracy", "accuracy", "rougeL"]
    assert [t["extractor"] for t in listed["tasks"]] == ["choice", "label", "text"]


def test_bad_records_name_file_line_and_field(tmp_path):
    bad = tmp_path / "ward-mcq.jsonl"
    bad.write_text('{"id": "x", "question": "q", "options": ["a", "b"], "answer": "E"}\n'
                   '{"id": "y", "question": "q", "options": ["a", "b"], "answer": "B"}\n', "utf-8")
    (tmp_path / "discharge-safe.jsonl").write_text('{"id": "z", "input": "plan", "answer": "perhaps"}\n', "utf-8")
    proc = cli("validate", "--suite", str(SUITE), str(tmp_path), "--json", check=False)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["valid"] == {"ward-mcq": 1}
    got = {(p["file"].split("/")[-1], p["line"], p["field"]) for p in report["invalid"]}
    assert got == {("ward-mcq.jsonl", 1, "answer"), ("discharge-safe.jsonl", 1, "answer")}
    reasons = " ".join(p["reason"] for p in report["invalid"])
    assert "not one of the option letters A/B" in reasons and "not one of the labels yes, no" in reasons


@pytest.mark.model
def test_run_the_example_suite_with_shots(tmp_path, model_path):
    out = tmp_path / "run"
    res = json.loads(cli("run", "--suite", str(SUITE), "--data", str(DATA), "--limit", "1", "--max-tokens", "24",
                         "--shots", "1", "--out", str(out), "--quiet", "--json", "--log-prompts").stdout)
    assert set(res["tasks"]) == {"ward-mcq", "discharge-safe", "plain-summary"}
    assert res["suite"] == "st-elsewhere-ward-exam" and set(res["groups"]) == {"knowledge", "communication"}
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    mcq = next(s for s in samples if s["task"] == "ward-mcq")
    assert [m["role"] for m in mcq["messages"]] == ["user", "assistant", "user"]
    assert mcq["messages"][1]["content"] == "Answer: B"  # the dev example's demonstration
    assert "A. " in mcq["messages"][-1]["content"] and "'Answer: X'" in mcq["messages"][-1]["content"]


def test_irt_matrix_from_runs_of_a_user_suite(tmp_path):
    """Rapid assessment reads any suite: a response matrix from two runs of the example suite."""
    import csv

    from climedbench.irt.matrix import read_matrix

    from .support.instant_server import instant_server

    runs = []
    # model-a's replies share words with the summaries' references, model-b's do not: plain-summary is graded.
    for name, extra in (("model-a", " You had a small heart attack; take the antibiotic tablets."), ("model-b", "")):
        with instant_server(model=name, extra_text=extra) as url:
            out = tmp_path / name
            cli("run", "--suite", str(SUITE), "--data", str(DATA), "--model", f"openai:{name}", "--base-url", url,
                "--out", str(out), "--quiet", "--no-cache")
            runs.append(out)
    matrix = tmp_path / "m.csv"
    cli("irt", "matrix", *map(str, runs), "--out", str(matrix))
    header = next(csv.reader(matrix.open()))
    assert len(header) == 1 + 4 + 3 + 2  # examinee column + every test item of the three tasks
    with (tmp_path / "m.items.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["scenario"] for r in rows} == {"ward-mcq", "discharge-safe", "plain-summary"}
    assert {r["scenario"]: r["transform"] for r in rows} == {"ward-mcq": "identity", "discharge-safe": "identity",
                                                             "plain-summary": "clip"}
    m = read_matrix(matrix)
    summary = [j for j, item in enumerate(m.item_ids) if item.startswith("plain-summary/")]
    assert m.data[1, summary].tolist() == [0.0, 0.0]  # model-b shared no word: never 'correct'
    assert m.data[0, summary].max() == 1.0
