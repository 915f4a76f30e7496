"""`climedbench build --generator … --executor ray`: the LLM1 rewrites are made by Ray workers, and the build
writes the same candidates, byte for byte, as a local one, asking the server each request once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.distributed.conftest import cli
from tests.support.instant_server import get_stats, instant_server, reset_stats

FIX = Path(__file__).parent.parent / "fixtures" / "build"
QUESTION = json.dumps({"question": "该患者最可能的主要诊断是什么？"}, ensure_ascii=False)


@pytest.fixture(scope="module")
def notes(build_notes: Path) -> Path:
    return build_notes


def test_llm1_on_ray_writes_the_candidates_of_a_local_build(notes, ray_address, tmp_path):
    def build(out: str, *executor: str, cache: str = "") -> str:
        cli("build", str(notes), "--out", str(tmp_path / out), "--generator", "openai:instant-test", "--base-url",
            url, "--cache", str(tmp_path / f"{cache or out}.sqlite"), "--scenarios", "ID#2,ID#4", *executor)
        return (tmp_path / out / ".build" / "candidates.jsonl").read_text("utf-8")

    with instant_server(reply=QUESTION) as url:
        local = build("local")
        reset_stats(url)
        ray = build("ray", "--executor", "ray", "--ray-address", ray_address, "--workers", "2")
        asked = get_stats(url)
        reset_stats(url)  # a new build with the workers' cache: every rewrite comes from it
        again = build("again", "--executor", "ray", "--ray-address", ray_address, "--workers", "2", cache="ray")
        asked_again = get_stats(url)["requests"]
    rewritten = local.count("## 问题: 该患者最可能的主要诊断是什么？") + local.count("## Question: 该患者")
    assert rewritten >= 2 and ray == local
    assert asked["requests"] == rewritten and set(asked["by_body"].values()) == {1}
    assert again == local and asked_again == 0
