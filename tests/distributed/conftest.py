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

# Sample fields that differ between two runs of the same plan however they are executed: timing, and how many
# HTTP attempts an answer took (a request retried on a loaded machine: 2 where the other run had 1).
TIMING = ("latency", "attempts")


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


def _alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def shard_worker_pids() -> list[int]:
    """Processes of Ray actors running climedbench's ShardWorker (Ray titles them `ray::ShardWorker…`)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::ShardWorker") and _alive(int(entry.name)):
                pids.append(int(entry.name))
    return pids


def wait_until_gone(pids: list[int] | None = None, timeout: float = 60.0) -> None:
    """Block until the given processes (default: every ShardWorker actor) have ended; fail after `timeout`."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if _alive(p)] if pids is not None else shard_worker_pids()
        if not left:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"processes still running after {timeout} s: {left}")
        time.sleep(0.02)
