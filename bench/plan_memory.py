"""Peak memory of a whole `climedbench run` against the number of items (issue 24, 4c): is the plan streamed?

    python bench/plan_memory.py [--items 1800 18000 36000] [--src PATH] [--keep DIR]

For each N it writes N synthetic BKT items in the official format (tests/support/synthetic.py `bkt_items`, one
JSON line per item) into a temporary folder, starts the instant OpenAI-compatible server on 127.0.0.1
(tests/support/instant_server.py: it answers at once, so only the harness is measured) and runs the CLI in a
child process:

    climedbench run --data ITEMS --model openai:instant-test --base-url URL --no-cache --max-tokens 16 --out DIR

It prints the child's peak resident memory (ru_maxrss from os.wait4: that process alone, not the server), its
wall time (start-up to exit) and the items per second while sending (items / results.json's run.wall_seconds,
the time from the first request to the last sample). `--src` runs another checkout's source (e.g. a `git
archive` of the commit before a change) for a before/after comparison. Target: peak memory flat in N.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.instant_server import instant_server  # noqa: E402
from tests.support.synthetic import bkt_items  # noqa: E402

CLI = "import sys; from climedbench.cli import main; sys.argv[0] = 'climedbench'; sys.exit(main())"


def run_once(src: Path, url: str, data: Path, out: Path, concurrency: int) -> tuple[float, float, dict]:
    """Peak RSS (MiB), wall seconds and results.json of one CLI run in a child process."""
    cmd = [sys.executable, "-c", CLI, "run", "--data", str(data), "--model", "openai:instant-test",
           "--base-url", url, "--no-cache", "--max-tokens", "16", "--max-concurrency", str(concurrency),
           "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    err = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"run failed ({os.waitstatus_to_exitcode(status)}): {err[-2000:]}")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return usage.ru_maxrss / 1024, wall, results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, nargs="+", default=[1800, 18000, 36000])
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="The climedbench source to run (PYTHONPATH).")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--keep", type=Path, help="Keep each run directory under this folder (to compare outputs).")
    args = ap.parse_args()
    print(f"source {args.src}; load {os.getloadavg()[0]:.2f}")
    print(f"{'items':>7} {'peak MiB':>9} {'wall s':>7} {'sending items/s':>16}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="plan-memory-") as d, instant_server(model="instant-test") as url:
        tmp = Path(d)
        for n in args.items:
            data = bkt_items(tmp / f"items{n}.jsonl", n)
            out = (args.keep or tmp) / f"run{n}"
            peak, wall, results = run_once(args.src, url, data, out, args.concurrency)
            run = results["run"]
            if run["items"] != n:
                raise SystemExit(f"{n} items planned, {run['items']} answered")
            rate = n / run["wall_seconds"] if run["wall_seconds"] else float("nan")
            rows.append((n, peak))
            print(f"{n:>7} {peak:>9.1f} {wall:>7.2f} {rate:>16.0f}", flush=True)
    if len(rows) > 1:
        (n0, p0), (n1, p1) = rows[0], rows[-1]
        print(f"growth {n0} -> {n1} items: {p1 - p0:+.1f} MiB ({(p1 - p0) * 1024 / (n1 - n0):.2f} KiB per item)")


if __name__ == "__main__":
    main()
