"""Per-test wall and CPU seconds, for finding where the suite's time goes on a shared, loaded machine.

Wall time there mostly measures the other users; CPU time (this process plus the child processes it has waited for:
the CLI runs, llama.cpp servers once stopped) does not. Opt-in:

    PYTHONPATH=src python -m pytest -p tests.support.cputiming [PATHS]

writes one JSON line per test phase (setup, call, teardown) to $CPUTIMING_OUT (default test-timing.jsonl) with
`wall`, `self` and `children` seconds and the 1-minute load average at its start, and ends with the 30 test phases
that took the most CPU. Not counted: Ray workers and other processes this one does not reap.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest

OUT = os.environ.get("CPUTIMING_OUT", "test-timing.jsonl")
_rows: list[dict[str, Any]] = []


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def _timed(item: pytest.Item, phase: str) -> Iterator[None]:
    wall0, (own0, kids0), load = time.perf_counter(), _cpu(), os.getloadavg()[0]
    yield
    wall1, (own1, kids1) = time.perf_counter(), _cpu()
    row = {"id": item.nodeid, "phase": phase, "wall": round(wall1 - wall0, 3), "self": round(own1 - own0, 3),
           "children": round(kids1 - kids0, 3), "load": round(load, 2)}
    _rows.append(row)
    with open(OUT, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _timed(item, "teardown")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    top = sorted(_rows, key=lambda r: -(r["self"] + r["children"]))[:30]
    terminalreporter.section(f"most CPU (self + children; all phases in {OUT})")
    for r in top:
        terminalreporter.write_line(f"{r['self'] + r['children']:8.1f}s cpu {r['wall']:8.1f}s wall "
                                    f"load {r['load']:5.1f}  {r['phase']:8s} {r['id']}")
