"""`--max-concurrency N` for the model calls of a build: LLM1 (`climedbench build --generator`) and LLM2 (`build
audit --auditor`) keep up to N requests in flight at once on a real OpenAI-compatible server (its count of
completions under way at the same time shows it), write exactly what they write with N = 1, and go through the
response cache (a re-run sends nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats

FIX = Path(__file__).parent / "fixtures" / "build"
QUESTION = json.dumps({"question": "该患者最可能的主要诊断是什么？"}, ensure_ascii=False)
VERDICT = json.dumps({"verdict": "pass", "problems": [], "reason": "ok"})


@pytest.fixture(scope="module")
def notes(build_notes: Path) -> Path:
    return build_notes


def _build(notes: Path, out: Path, url: str, cache: Path, n: int) -> None:
    run_cli("build", str(notes), "--out", str(out), "--generator", "openai:instant-test", "--base-url", url,
            "--cache", str(cache), "--scenarios", "ID#2,ID#4", "--max-concurrency", str(n))


def test_llm1_requests_overlap_and_the_items_are_those_of_one_at_a_time(notes, tmp_path):
    with instant_server(reply=QUESTION, latency=0.2) as url:
        _build(notes, tmp_path / "one", url, tmp_path / "c1.sqlite", 1)
        one = get_stats(url)
        reset_stats(url)
        _build(notes, tmp_path / "four", url, tmp_path / "c4.sqlite", 4)
        four = get_stats(url)
        reset_stats(url)
        _build(notes, tmp_path / "again", url, tmp_path / "c4.sqlite", 4)
        again = get_stats(url)
    text = (tmp_path / "one" / ".build" / "candidates.jsonl").read_text("utf-8")
    assert "## 问题: 该患者最可能的主要诊断是什么？" in text
    assert (tmp_path / "four" / ".build" / "candidates.jsonl").read_text("utf-8") == text
    assert (tmp_path / "again" / ".build" / "candidates.jsonl").read_text("utf-8") == text
    assert one["max_in_flight"] == 1 and 2 <= four["max_in_flight"] <= 4
    assert one["requests"] == four["requests"] == text.count("## 问题:") + text.count("## Question:")
    assert set(four["by_body"].values()) == {1} and again["requests"] == 0


def test_llm2_requests_overlap_and_the_audit_is_that_of_one_at_a_time(notes, tmp_path):
    suite = tmp_path / "suite"
    run_cli("build", str(notes), "--out", str(suite), "--scenarios", "ID#2,ID#4")
    audits = {}
    with instant_server(reply=VERDICT, latency=0.2) as url:
        for n in (1, 4):
            reset_stats(url)
            run_cli("build", "audit", str(suite), "--phi", "off", "--auditor", "openai:instant-test", "--base-url",
                    url, "--max-concurrency", str(n), "--cache", str(tmp_path / f"c{n}.sqlite"))
            audits[n] = ((suite / ".build" / "audit.jsonl").read_text("utf-8"), get_stats(url))
    (one, s1), (four, s4) = audits[1], audits[4]
    assert four == one and '"verdict": "pass"' in one
    assert s1["max_in_flight"] == 1 and 2 <= s4["max_in_flight"] <= 4
    assert s1["requests"] == s4["requests"] == len(one.splitlines())
