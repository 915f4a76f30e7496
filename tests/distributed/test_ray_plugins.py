"""Plug-ins reach the Ray workers: a suite whose metric and extractor come from `--include-path DIR` (or from the
suite's own `plugins:` list) is scored on the workers exactly as in a local run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.distributed.conftest import cli, comparable, figures, samples
from tests.support.instant_server import instant_server

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hospital_metric"
REPLY = "Each dose is 0.25 g."


def test_include_path_plugins_score_on_ray_workers_as_locally(ray_address, tmp_path):
    folder = tmp_path / "hospital"
    folder.mkdir()
    shutil.copy(EXAMPLE / "src" / "hospital_dose" / "__init__.py", folder / "dose.py")
    shutil.copy(EXAMPLE / "suite.yaml", folder / "dosing.yaml")
    with instant_server(model="dose", reply=REPLY) as url:
        base = ("run", "--include-path", str(folder), "--suite", "dosing", "--data", str(EXAMPLE / "data"),
                "--model", "openai:dose", "--base-url", url, "--quiet", "--no-cache")
        cli(*base, "--out", str(tmp_path / "local"))
        cli(*base, "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-address", ray_address,
            "--workers", "2")
    local, ray = samples(tmp_path / "local"), samples(tmp_path / "ray")
    assert len(ray) == len(local) > 0
    assert {s["extracted"] for s in ray} == {"250 mg"}  # the plug-in's extractor ran on the workers
    assert comparable(local) == comparable(ray)
    assert figures(tmp_path / "local") == figures(tmp_path / "ray")
    res = json.loads((tmp_path / "ray" / "results.json").read_text(encoding="utf-8"))
    assert res["run"]["executor"] == "ray (2 workers)"
