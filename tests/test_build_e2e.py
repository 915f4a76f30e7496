"""climedbench build end to end through the real command line: `deid` → `build` → `validate` / `run --suite` on a
real OpenAI-compatible server / `audit-items`; a kill in the middle of a build and the re-run lose nothing and ask
the generator nothing twice; the optional LLM1 step with a JSON reply; the embedded model honours a JSON schema."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from climedbench.build.candidates import candidates_path, load_candidates
from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats

FIX = Path(__file__).parent / "fixtures" / "build"
NAMES = ["张建国", "李秀英", "王强", "赵丽", "陈明", "刘芳", "John Miller", "Sarah Jones", "Robert Brown", "Linda Davis"]


@pytest.fixture(scope="module")
def deidentified(build_notes: Path) -> Path:
    return build_notes


def test_deid_build_validate_run_and_audit_items(deidentified, tmp_path):
    suite = tmp_path / "suite"
    proc = run_cli("build", str(deidentified), "--out", str(suite), "--json")
    summary = json.loads(proc.stdout)
    assert summary["notes_read"] == 14 and summary["notes_kept"] == 10 and summary["dropped"] == 4
    items = "".join(p.read_text("utf-8") for p in (suite / "demo").glob("*.jsonl"))
    for name in NAMES:  # de-identified before anything was built from the notes
        assert name not in items, name
    card = json.loads((suite / "card.json").read_text("utf-8"))
    assert card["deidentification"]["notes"] == 14 and card["deidentification"]["totals"]["NAME"] >= len(NAMES)
    status = json.loads(run_cli("build", "status", "--out", str(suite), "--json").stdout)
    assert status["units_done"] == 10 * 10 and status["dropped"] == {"too_short": 1, "garbled": 1,
                                                                    "template_only": 1, "near_duplicate": 1}
    run_cli("validate", "--suite", str(suite))
    listed = run_cli("list", "--suite", str(suite))
    assert "ID#2-en" in listed.stdout and "CPR" in listed.stdout
    n_test = sum(v["test"] for v in card["tasks"].values())
    with instant_server() as url:
        run_cli("run", "--suite", str(suite), "--model", "openai:instant-test", "--base-url", url,
                "--limit", "0", "--out", str(tmp_path / "run"))
        assert get_stats(url)["requests"] == n_test
    results = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    assert set(results["tasks"]) == set(card["tasks"])
    assert all(t["n"] == card["tasks"][code]["test"] and t["complete"] for code, t in results["tasks"].items())
    audit = json.loads(run_cli("audit-items", "--suite", str(suite), "--json").stdout)
    assert {t["task"] for t in audit["tasks"]} >= {"ID#1", "ID#2", "ID#3", "ID#4"}


def test_build_refuses_notes_that_were_not_deidentified(tmp_path):
    proc = run_cli("build", str(FIX), "--out", str(tmp_path / "suite"), check=False)
    assert proc.returncode == 2
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "did not go through `climedbench deid`" in lines[0] and str(FIX) in lines[0]


def _build_cmd(notes: Path, out: Path, url: str, cache: Path) -> list[str]:
    return [sys.executable, "-m", "climedbench.cli", "build", str(notes), "--out", str(out), "--generator",
            "openai:instant-test", "--base-url", url, "--cache", str(cache), "--scenarios", "ID#2,ID#4"]


def test_a_killed_build_resumes_without_losing_or_repeating_anything(deidentified, tmp_path):
    with instant_server(latency=0.4) as url:
        subprocess.run(_build_cmd(deidentified, tmp_path / "whole", url, tmp_path / "c1.sqlite"), check=True,
                       capture_output=True, timeout=600)
        whole = {c.candidate_id: c for c in load_candidates(tmp_path / "whole")}
        reset_stats(url)
        out = tmp_path / "killed"
        proc = subprocess.Popen(_build_cmd(deidentified, out, url, tmp_path / "c2.sqlite"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 300
        while len(load_candidates(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = len(load_candidates(out))
        assert 3 <= partial < len(whole)
        run_cli("build", str(deidentified), "--out", str(out), "--generator", "openai:instant-test", "--base-url",
                url, "--cache", str(tmp_path / "c2.sqlite"), "--scenarios", "ID#2,ID#4")
        stats = get_stats(url)
    resumed = {c.candidate_id: c for c in load_candidates(out)}
    assert resumed.keys() == whole.keys()
    for cid, c in resumed.items():
        assert c.item == whole[cid].item and c.provenance == whole[cid].provenance
    assert stats["requests"] == len(whole)  # one request per item over both runs: none repeated
    assert set(stats["by_body"].values()) == {1}


def test_llm1_writes_the_question_from_a_json_reply_and_keeps_the_stem_otherwise(deidentified, tmp_path):
    reply = json.dumps({"question": "该患者最可能的主要诊断是什么？"}, ensure_ascii=False)
    with instant_server(reply=reply) as url:
        run_cli("build", str(deidentified), "--out", str(tmp_path / "s"), "--generator", "openai:instant-test",
                "--base-url", url, "--scenarios", "ID#2", "--cache", str(tmp_path / "c.sqlite"))
    cands = load_candidates(tmp_path / "s")
    zh = [c for c in cands if c.lang == "zh"]
    assert zh and all("## 问题: 该患者最可能的主要诊断是什么？\n## 选项" in c.item["input"] for c in zh)
    assert all(c.provenance.generator == "instant-test" and len(c.provenance.prompt_hash or "") == 16 for c in cands)
    run_cli("validate", "--suite", str(tmp_path / "s"))
    with instant_server() as url:  # replies '答案：X', not JSON: the rule-built stem stays, with the reason
        run_cli("build", str(deidentified), "--out", str(tmp_path / "t"), "--generator", "openai:instant-test",
                "--base-url", url, "--scenarios", "ID#2", "--cache", str(tmp_path / "c2.sqlite"))
    for c in load_candidates(tmp_path / "t"):
        assert "## 问题" not in c.item["input"] and "LLM1 reply not used: reply is not JSON" in c.provenance.notes
    assert candidates_path(tmp_path / "t").exists()


SCHEMA = {"type": "object", "properties": {"zqx": {"type": "integer"}}, "required": ["zqx"],
          "additionalProperties": False}
FORMAT = json.dumps({"type": "json_schema", "json_schema": {"name": "x", "strict": True, "schema": SCHEMA}})
HELLO = [{"role": "user", "content": "Say hello to me in one sentence."}]  # no JSON unless constrained


@pytest.mark.model
def test_the_embedded_model_answers_inside_a_json_schema(model_path):
    import asyncio

    from climedbench.models.base import GenParams
    from climedbench.models.llamacpp import LlamaCppBackend

    backend = LlamaCppBackend(path=model_path, threads=1, replicas=1)
    reply = asyncio.run(backend.chat(HELLO, GenParams(max_tokens=40, response_format=FORMAT))).text
    assert list(json.loads(reply)) == ["zqx"] and isinstance(json.loads(reply)["zqx"], int)


@pytest.mark.model
def test_a_llama_cpp_server_answers_inside_a_json_schema(server_url):
    import asyncio

    from climedbench.models.base import GenParams
    from climedbench.models.registry import ModelOptions, open_backend

    async def ask() -> str:
        backend = await open_backend("openai:qwen-test", ModelOptions(base_url=server_url, api_key_env="NO_KEY"))
        try:
            return (await backend.chat(HELLO, GenParams(max_tokens=40, response_format=FORMAT))).text
        finally:
            await backend.aclose()

    reply = asyncio.run(ask())
    assert list(json.loads(reply)) == ["zqx"] and isinstance(json.loads(reply)["zqx"], int)


def test_demo_deidentifies_the_bundled_records_before_building(tmp_path):
    bundled = Path(__file__).parents[1] / "src" / "climedbench" / "build" / "demo"
    files = sorted(bundled.glob("records_*.jsonl")) or [FIX / "records.jsonl", FIX / "unusable_records.jsonl"]
    records = [json.loads(x) for f in files for x in f.read_text("utf-8").splitlines() if x.strip()]
    proc = run_cli("build", "--demo", "--out", str(tmp_path / "demo"), "--scenarios", "CPR", "--json")
    summary = json.loads(proc.stdout)
    assert summary["notes_read"] == len(records)
    assert (tmp_path / "demo" / ".build" / "deid-notes" / "deid_manifest.json").exists()
    items = "".join(p.read_text("utf-8") for p in (tmp_path / "demo" / "demo").glob("*.jsonl"))
    assert items and not any(name in items for name in NAMES)
    run_cli("validate", "--suite", str(tmp_path / "demo"))
