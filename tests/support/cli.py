"""The real command line in a child process, as a user runs it (exit codes, output, one-line errors)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_cli(*args: str, env: dict[str, str] | None = None, check: bool = True, timeout: int = 600
            ) -> subprocess.CompletedProcess[str]:
    """`python -m climedbench.cli ARGS` with the test's interpreter; `env` adds to the environment; with `check`, a
    non-zero exit fails the test, showing both streams."""
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc
