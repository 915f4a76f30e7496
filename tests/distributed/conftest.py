"""One local Ray cluster for every distributed test (Ray takes seconds to start), items, CLI and sample helpers."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli

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
    return run_cli(*args, env=env, check=check, timeout=timeout)
