"""The code stays ruff- and mypy-clean (the project's conventions, checked in CI)."""

import subprocess
import sys

from .conftest import ROOT


def test_ruff():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "bench", "scripts"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy():
    proc = subprocess.run([sys.executable, "-m", "mypy", "src"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
