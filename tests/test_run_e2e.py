"""`climedbench run` end to end with the real in-process model on the bundled demo set."""

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli as cli

pytestmark = pytest.mark.model

SCENARIOS = "ID#1,CPR,KE,WTD"
ARGS = ["--scenarios", SCENARIOS, "--limit", "1", "--max-tokens", "24", "--quiet"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, model_path) -> Path:
    out = tmp_path_factory.mktemp("e2e") / "run"
    proc = cli("run", *ARGS, "--out", str(out))
    assert "ID#1" in proc.stdout and "mean of task scores (4 of 14 tasks)" in proc.stdout
    assert "Run directory:" in proc.stderr
    return out


def test_run_directory_contents(run_dir):
    spec = json.loads((run_dir / "run.json").read_text())
    assert spec["model"]["backend"] == "llamacpp" and len(spec["model"]["sha256"]) == 64
    assert spec["tasks"] == SCENARIOS.split(",") and spec["limit"] == 1 and spec["seed"] == 0
    assert spec["prompt"] == {"variant": "vanilla", "shots": 0, "item_prompts": False}
    assert spec["generation"]["max_tokens"] == 24 and spec["versions"]["xllamacpp"]
    assert spec["data"] == "bundled demo set" and spec["suite_version"] == "1.0.0"
    samples = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert [s["task"] for s in samples] == SCENARIOS.split(",")
    for s in samples:
        assert s["raw"] and s["error"] is None and s["prompt_tokens"] > 0 and s["completion_tokens"] > 0
        assert len(s["prompt_hash"]) == 16 and s["latency"] > 0 and "extracted" in s and "gold" in s
        assert -1.0 <= s["score"] <= 1.0
    results = json.loads((run_dir / "results.json").read_text())
    assert set(results["tasks"]) == set(SCENARIOS.split(","))
    for fig in results["tasks"].values():
        assert set(fig) >= {"score", "ci", "n", "metric", "extraction_failures"} and fig["n"] == 1
    assert set(results["groups"]) == {"clinical_qa", "reasoning", "information_retrieval", "toxicity"}
    assert results["overall"]["score"] == pytest.approx(
        sum(f["score"] for f in results["tasks"].values()) / 4, abs=0.02)
    assert results["run"]["answered_now"] == 4 and results["run"]["failed"] == 0


def test_rerun_resumes_without_asking_again(run_dir):
    before = (run_dir / "samples.jsonl").read_text()
    cli("run", *ARGS, "--out", str(run_dir))
    results = json.loads((run_dir / "results.json").read_text())
    assert results["run"]["answered_now"] == 0 and results["run"]["resumed"] == 4
    assert (run_dir / "samples.jsonl").read_text() == before


def test_partial_samples_are_completed(run_dir, tmp_path):
    part = tmp_path / "part"
    part.mkdir()
    for name in ("run.json", "samples.jsonl"):
        (part / name).write_bytes((run_dir / name).read_bytes())
    lines = (part / "samples.jsonl").read_text().splitlines(keepends=True)
    # Keep two samples and a half-written third line, as a crash mid-write leaves it.
    (part / "samples.jsonl").write_text(lines[0] + lines[2] + lines[1][:40])
    cli("run", *ARGS, "--out", str(part))
    results = json.loads((part / "results.json").read_text())
    assert results["run"]["answered_now"] == 2 and results["run"]["resumed"] == 2
    redone = [json.loads(x) for x in (part / "samples.jsonl").read_text().splitlines()]
    original = [json.loads(x) for x in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert [s["uid"] for s in redone] == [s["uid"] for s in original]  # plan order restored
    assert [s["raw"] for s in redone] == [s["raw"] for s in original]  # greedy: the same answers


def test_different_options_refuse_the_same_out(run_dir):
    proc = cli("run", *ARGS[:-1], "--seed", "5", "--out", str(run_dir), check=False)
    assert proc.returncode == 2 and "holds a different run (differs in: seed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_report_score_and_leaderboard(run_dir):
    proc = cli("report", str(run_dir), "--json")
    data = json.loads(proc.stdout)
    assert list(data) == [str(run_dir)]  # keyed by run directory: two runs of one model stay two
    assert data[str(run_dir)]["model"] == "qwen2.5-coder-0.5b-instruct-q4_k_m"
    assert set(data[str(run_dir)]["tasks"]) == set(SCENARIOS.split(","))
    before = json.loads((run_dir / "results.json").read_text())
    cli("score", str(run_dir), "--tokenizer", "char")
    after = json.loads((run_dir / "results.json").read_text())
    assert after["rescored"]["rouge_tokenizer"] == "char"
    for code in ("ID#1", "CPR", "WTD"):  # not ROUGE-scored: unchanged
        assert after["tasks"][code]["score"] == before["tasks"][code]["score"]
    lb = json.loads(cli("leaderboard", "--paper", str(run_dir), "--json").stdout)
    assert "GPT-4" in lb and "qwen2.5-coder-0.5b-instruct-q4_k_m" in lb
    assert round(lb["GPT-4"]["overall"]["score"], 1) == 68.5
    text = cli("leaderboard", "--paper", str(run_dir)).stdout
    assert "Overall" in text and "68.5" in text


def test_bad_input_ends_with_one_clear_line(tmp_path):
    bad = tmp_path / "mine.jsonl"
    bad.write_text('{"scenario": "BKT", "input": "## 问题: x\\n## 选项: A. 甲\\nB. 乙", "reference": "C"}\n'
                   '{"scenario": "BKT", "input": "## 问题: y\\n## 选项: A. 甲\\nB. 乙", "reference": "A"}\n', "utf-8")
    proc = cli("run", "--data", str(bad), "--out", str(tmp_path / "r"), check=False)
    assert proc.returncode == 2 and f"{bad}:1: field 'reference'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists()
    proc = cli("validate", str(bad), "--json", check=False)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["valid"] == {"BKT": 1}
    assert report["invalid"][0]["line"] == 1 and report["invalid"][0]["field"] == "reference"
    proc = cli("run", "--scenarios", "ID#9", check=False)
    assert proc.returncode == 2 and "unknown task 'ID#9'" in proc.stderr.splitlines()[-1]
    proc = cli("run", "--model", "gguf:/nonexistent/model.gguf", "--scenarios", "BKT", "--out",
               str(tmp_path / "r2"), check=False)
    assert proc.returncode == 3 and "model file /nonexistent/model.gguf does not exist" in proc.stderr
    proc = cli("--debug", "run", "--scenarios", "ID#9", check=False)
    assert "Traceback" in proc.stderr


def test_skip_invalid_runs_the_rest_and_lists_the_skipped(tmp_path, model_path):
    data = tmp_path / "BKT.jsonl"
    data.write_text('{"id": "ok", "input": "## 问题: 人体最大的器官\\n## 选项: A. 肝\\nB. 皮肤\\nC. 心\\nD. 肺", "reference": "B"}\n'
                    '{"id": "bad", "input": "## 问题: y", "reference": "A"}\n', "utf-8")
    out = tmp_path / "r"
    proc = cli("run", "--data", str(data), "--skip-invalid", "--max-tokens", "8", "--out", str(out), "--json",
               "--quiet")
    assert json.loads(proc.stdout)["tasks"]["BKT"]["n"] == 1
    skipped = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
    assert [(s["line"], s["field"], s["id"]) for s in skipped] == [(2, "input", "bad")]


def test_logprob_mode_and_cot_with_shots(tmp_path, model_path):
    out = tmp_path / "lp"
    proc = cli("run", "--scenarios", "BKT,CPR", "--limit", "1", "--mc-mode", "logprob", "--out", str(out),
               "--json", "--quiet", "--max-tokens", "8")
    res = json.loads(proc.stdout)
    bkt, cpr = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    assert bkt["variant"] == "logprob" and bkt["logprobs"] and bkt["extraction_method"].startswith("logprob")
    assert bkt["completion_tokens"] == 1 and cpr["variant"] == "vanilla"  # orders are still generated
    assert res["tasks"]["BKT"]["n"] == 1
    out2 = tmp_path / "cot"
    cli("run", "--scenarios", "FIT", "--limit", "1", "--cot", "--shots", "2", "--max-tokens", "16", "--out",
        str(out2), "--log-prompts", "--quiet")
    (s,) = [json.loads(x) for x in (out2 / "samples.jsonl").read_text().splitlines()]
    assert s["variant"] == "cot" and [m["role"] for m in s["messages"]] == ["user", "assistant"] * 2 + ["user"]
    spec = json.loads((out2 / "run.json").read_text())
    assert spec["prompt"] == {"variant": "cot", "shots": 2, "item_prompts": False, "shot_source": "dev"}
    proc = cli("run", "--mc-mode", "logprob", "--cot", "--scenarios", "BKT", check=False)
    assert proc.returncode == 2 and "cannot be combined with --cot" in proc.stderr


def test_aggregate_recomputes_results_from_samples_and_shards(run_dir, tmp_path):
    results = json.loads((run_dir / "results.json").read_text())
    again = json.loads(cli("aggregate", str(run_dir), "--json").stdout)
    for key in ("tasks", "groups", "overall"):
        assert again[key] == results[key], key
    assert again["run"]["items"] == 4 and again["run"]["failed"] == 0
    assert results["tasks"]["WTD"]["variant"] == "raw"
    rescaled = json.loads(cli("aggregate", str(run_dir), "--similarity", "rescaled", "--json").stdout)
    assert rescaled["tasks"]["WTD"]["variant"] == "rescaled"
    assert rescaled["tasks"]["WTD"]["score"] < results["tasks"]["WTD"]["score"]  # (s − b)/(1 − b) < s for s < 1
    assert rescaled["tasks"]["ID#1"] == results["tasks"]["ID#1"]
    # Two shards of the same run, each with its run.json: the same figures.
    lines = (run_dir / "samples.jsonl").read_text().splitlines(keepends=True)
    for k, part in enumerate((lines[:2], lines[2:])):
        shard = tmp_path / f"shard{k}"
        shard.mkdir()
        (shard / "run.json").write_bytes((run_dir / "run.json").read_bytes())
        (shard / "samples.jsonl").write_text("".join(reversed(part)))
    merged = json.loads(cli("aggregate", str(tmp_path / "shard0"), str(tmp_path / "shard1"), "--json").stdout)
    assert {k: merged[k] for k in ("tasks", "groups", "overall")} == {k: results[k] for k in
                                                                       ("tasks", "groups", "overall")}
    # A shard of another run is refused, naming what differs.
    other = json.loads((run_dir / "run.json").read_text())
    other["seed"] = 9
    (tmp_path / "shard1" / "run.json").write_text(json.dumps(other))
    proc = cli("aggregate", str(tmp_path / "shard0"), str(tmp_path / "shard1"), check=False)
    assert proc.returncode == 2 and "not a shard of the same run" in proc.stderr and "seed" in proc.stderr


def test_score_refuses_changed_data(tmp_path, model_path):
    data = tmp_path / "BKT.jsonl"
    data.write_text('{"id": "ok", "input": "## 问题: 人体最大的器官\\n## 选项: A. 肝\\nB. 皮肤\\nC. 心\\nD. 肺", "reference": "B"}\n',
                    "utf-8")
    out = tmp_path / "r"
    cli("run", "--data", str(data), "--max-tokens", "8", "--out", str(out), "--quiet")
    cli("score", str(out))  # unchanged data: fine
    data.write_text(data.read_text("utf-8").replace('"reference": "B"', '"reference": "C"'), "utf-8")
    proc = cli("score", str(out), check=False)
    assert proc.returncode == 2 and "the data changed since the run" in proc.stderr
