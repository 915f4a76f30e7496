"""One local Ray cluster for every distributed test (Ray takes seconds to start), items, CLI and sample helpers."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Sample fields that differ between two runs of the same plan however they are executed: timing only.
TIMING = ("latency",)


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """A private local Ray cluster (4 logical CPUs: two executors of 2 workers may overlap), no dashboard, no
    usage reporting; its GCS address lets a CLI child process join it."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    import ray

    ray.init(address="local", num_cpus=4, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def make_items(path: Path, n: int, task: str = "BKT") -> Path:
    """n distinct four-option items of one task."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            opts = "\n".join(f"{x}. 方案{x}{i}" for x in "ABCD")
            fh.write(json.dumps({"id": f"q{i:05d}", "scenario": task, "input": f"## 问题: 第{i}题，患者{i}号首选？\n"
                                 f"## 选项: {opts}", "reference": "ABCD"[i % 4]}, ensure_ascii=False) + "\n")
    return path


def samples(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Samples without their timing fields."""
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def figures(run: Path) -> dict[str, Any]:
    """The task, group and overall figures of results.json."""
    res = json.loads((run / "results.json").read_text(encoding="utf-8"))
    return {k: res[k] for k in ("tasks", "groups", "overall")}


def cli(*args: str, env: dict[str, str] | None = None, check: bool = True, timeout: int = 300
        ) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc
