"""`climedbench analyze all` end to end with the real in-process model (2 tasks, 1 item each, 16 tokens)."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.model


def test_analyze_all_writes_every_analysis_the_runs_support(tmp_path, model_path):
    out = tmp_path / "all"
    # Two single-answer tasks with a CoT prompt and short demo prompts (ID#1's are about twice as long).
    args = [sys.executable, "-m", "climedbench.cli", "analyze", "all", "--tasks", "BKT,FTT", "--limit", "1",
            "--max-tokens", "16", "--kinds", "glyph", "--out", str(out), "--quiet"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    index = json.loads((out / "index.json").read_text())
    kinds = [a["kind"] for a in index["analyses"]]
    assert kinds == ["cot", "length", "robustness", "nota", "instruction"]
    for entry in index["analyses"]:
        for key in ("json", "csv", "png", "svg"):
            assert (out / entry[key]).stat().st_size > 0
        record = json.loads((out / entry["json"]).read_text())
        assert record["analysis"] == entry["kind"] and record["table"]["rows"]
    assert any(s.startswith("toxicity:") for s in index["skipped"])
    assert any(s.startswith("compare, ranks:") for s in index["skipped"])
    # Every run answered the same two items (one per task).
    uids = {}
    for name in ("vanilla", "cot", "glyph", "nota"):
        samples = [json.loads(x) for x in (out / "runs" / name / "samples.jsonl").read_text().splitlines()]
        uids[name] = sorted(s["uid"] for s in samples)
    assert [u.split("/")[0] for u in uids["vanilla"]] == ["BKT", "FTT"]
    assert uids["cot"] == uids["glyph"] == uids["nota"] == uids["vanilla"]
    robustness = json.loads((out / "robustness.json").read_text())
    assert robustness["table"]["rows"][0][0] == "glyph 12%"
    # A second call answers nothing again: every run resumes from its directory.
    again = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    results = json.loads((out / "runs" / "glyph" / "results.json").read_text())
    assert results["run"]["answered_now"] == 0 and results["run"]["resumed"] == 2
