"""Closing the in-process model does not hang: two copies loaded side by side are loaded and closed over and over
in a child process, which must finish. Before models/llamacpp.py freed the copies from a thread of their own, this
hung in xllamacpp's server shutdown within five cycles in 3 of 3 tries (a join that never returned)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Alone, after the parallel run: with a pytest-xdist worker beside it, xllamacpp's shutdown hung at the first
# load/close cycle (2 of 2 parallel runs, 2026-11-29; threads stuck joining inside Server's destructor, which holds
# the GIL, so `release`'s time limit cannot help). In a pytest of its own it has passed in every run so far.
pytestmark = [pytest.mark.model, pytest.mark.solo]

CYCLES = 16

SCRIPT = textwrap.dedent(f"""
    import asyncio
    from climedbench.models import default_model
    from climedbench.models.llamacpp import LlamaCppBackend
    path = default_model.default_model_path()
    for i in range({CYCLES}):
        backend = LlamaCppBackend(path=path, n_ctx=2048, threads=1, replicas=2, known_sha256=default_model.SHA256)
        asyncio.run(backend.aclose())
        print(i, flush=True)
""")


def test_two_copies_load_and_close_again_and_again_without_hanging():
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"loading and closing the model hung after cycles {e.stdout!r}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(i) for i in range(CYCLES)]
