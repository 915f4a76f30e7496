"""The Ray executor serves the commands that multiply requests: `analyze all` (vanilla, CoT, perturbed and
none-of-the-above runs) and `mps` (generation → debate → reflection over model pairs), with the same outputs
as locally."""

from __future__ import annotations

import asyncio
import json

from climedbench.analyses.pipeline import PipelineOptions, run_pipeline
from climedbench.executors import ExecutorOptions
from climedbench.models.registry import ModelOptions
from climedbench.mps.synthesis import run_mps
from tests.distributed.conftest import comparable, figures, samples
from tests.support.instant_server import get_stats, instant_server


def test_analyze_all_on_ray_makes_the_same_runs_and_analyses(ray_address, tmp_path, monkeypatch):
    with instant_server() as url:
        def pipeline(out: str, kind: str) -> dict:
            monkeypatch.setenv("CLIMEDBENCH_CACHE", str(tmp_path / f"{out}.sqlite"))  # each really asks
            opts = PipelineOptions(out=tmp_path / out, tasks=["BKT"], model="openai:instant-test",
                                   model_options=ModelOptions(base_url=url), limit=1, max_tokens=8, kinds=["symbol"],
                                   executor=ExecutorOptions(kind=kind, workers=2))  # type: ignore[arg-type]
            return asyncio.run(run_pipeline(opts))

        local = pipeline("local", "local")
        asked = get_stats(url)["requests"]
        ray = pipeline("ray", "ray")
        asked_ray = get_stats(url)["requests"] - asked
    runs = ["vanilla", "cot", "symbol", "nota"]
    assert asked == asked_ray == 4  # one BKT item (single-answer, with a CoT prompt) × 4 runs
    for name in runs:
        a, b = tmp_path / "local" / "runs" / name, tmp_path / "ray" / "runs" / name
        assert comparable(samples(a)) == comparable(samples(b)) and samples(a)
        assert figures(a) == figures(b)
        assert json.loads((b / "results.json").read_text())["run"]["executor"] == "ray (2 workers)"
    assert [e["kind"] for e in local["analyses"]] == [e["kind"] for e in ray["analyses"]]
    for entry in ray["analyses"]:
        x = json.loads((tmp_path / "local" / entry["json"]).read_text())
        y = json.loads((tmp_path / "ray" / entry["json"]).read_text())
        assert x["table"] == y["table"], entry["kind"]


def test_mps_on_ray_gives_the_same_response_matrix(ray_address, tmp_path):
    with instant_server(model="model-a", letters="ABCD") as a, instant_server(model="model-b", letters="AB") as b:
        def mps(out: str, kind: str):
            return asyncio.run(run_mps([f"openai:model-a@{a}", f"openai:model-b@{b}"], None, ["BKT", "ID#1"], 2,
                                       ["doctor", "student"], tmp_path / out, ModelOptions(), 16, None, True, 0, 4,
                                       executor=ExecutorOptions(kind=kind, workers=2)))  # type: ignore[arg-type]

        local = mps("local", "local")
        ray = mps("ray", "ray")
    # 4 items; examinees: (2 first-pass + 2 ordered pairs) × 2 roles.
    assert ray.matrix.n_items == 4 and ray.matrix.n_examinees == 8
    for name in ("matrix.csv", "items.csv"):
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()

    def transcripts(out: str) -> list[str]:
        return sorted((tmp_path / out / "transcripts.jsonl").read_text().splitlines())

    # One record per conversation: 4 items × 2 generators × 2 roles, each with the one other model as debater.
    assert transcripts("ray") == transcripts("local") and len(transcripts("ray")) == 16
    assert local.failed == ray.failed == 0
