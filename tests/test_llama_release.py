"""Closing the in-process model does not hang: two copies loaded side by side are loaded and closed over and over
in a child process, which must finish, while two busy processes load the machine. Before models/llamacpp.py freed the
copies from a thread of their own, this hung in xllamacpp's server shutdown within five cycles in 3 of 3 tries (a join
that never returned). With that, it still hung at the first cycle on a loaded machine (2 of 2 parallel test runs, then
2 of 2 runs beside two busy processes): a copy closed before its task loop had started lost its terminate(); since
each copy answers a request before use (llamacpp.wait_for_loop), 16 cycles finished in 3 of 3 runs under load
(the old code hung at the first cycle every time, so 8 cycles are run).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Alone, after the parallel run: it brings its own load (two busy processes), which is what made the hang show.
pytestmark = [pytest.mark.model, pytest.mark.solo]

CYCLES = 8

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


BUSY = "while True: pass"


def test_two_copies_load_and_close_again_and_again_without_hanging():
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"loading and closing the model hung after cycles {e.stdout!r}")
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(i) for i in range(CYCLES)]
