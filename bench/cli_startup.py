"""Start-up time of the command line: every `--help` and `list`, best (minimum) wall time of N runs each.

    python bench/cli_startup.py [--runs 7]

Each command runs in a fresh interpreter (`climedbench ...` from the same environment), output discarded; the
minimum over runs is the figure least disturbed by other load on the machine, the median is printed beside it.
Target (issue 9): every figure ≤ 0.3 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def commands() -> list[list[str]]:
    """`--help` of the root and of every command and sub-command, plus `list`."""
    base = [["--help"], ["list"], ["list", "--suite", "clinicbench"]]
    import typer.main

    from climedbench.cli import app

    group = typer.main.get_command(app)
    for name, cmd in sorted(group.commands.items()):  # type: ignore[attr-defined]
        base.append([name, "--help"])
        for sub in sorted(getattr(cmd, "commands", {}) or {}):
            base.append([name, sub, "--help"])
    return base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    exe = shutil.which("climedbench", path=str(Path(sys.executable).parent)) or "climedbench"
    worst = 0.0
    for argv in commands():
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([exe, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - t0)
        best = min(times)
        worst = max(worst, best)
        print(f"{best:6.3f} s  (median {statistics.median(times):.3f})  climedbench {' '.join(argv)}")
    print(f"slowest command: {worst:.3f} s (target ≤ 0.3 s)")


if __name__ == "__main__":
    main()
