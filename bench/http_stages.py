"""CPU and wall time of a climedbench HTTP run by stage: start-up, sending, tail (issue 24, part 4).

    python bench/http_stages.py --src /work/main/src --src src [--items 1800] [--repeats 4]

Each run is `climedbench run` (N synthetic BKT items written by us, `--no-cache`, concurrency 64, max tokens 16)
against the instant bench server (bench/lmeval_server.py, a child process on 127.0.0.1), in a child process that
wraps the local executor's `execute` with timers: start-up is launch to the first request handed to the engine
(imports, loading and checking the items, the plan, opening the backend and its GET /models), sending is
`execute` (every request answered, scored and written), the tail is what follows (finalizing samples.jsonl, the
results with their intervals, the table). The source trees alternate (A, B, B, A, ...); medians per tree. CPU
seconds (this process's user + system, threads included) compare better than wall seconds on a loaded machine.
The tree's bytecode is compiled first (with PYTHONDONTWRITEBYTECODE set, an uncompiled tree pays ~0.3 s a run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lmeval_compare import start_server, uptime  # noqa: E402
from tests.support.synthetic import bkt_items  # noqa: E402

WRAPPER = """
import atexit, sys, time
t0 = (time.process_time(), time.perf_counter())
marks = {}
import climedbench.executors.local as local
inner = local.execute
async def timed(*a, **k):
    marks["send"] = (time.process_time(), time.perf_counter())
    try:
        return await inner(*a, **k)
    finally:
        marks["tail"] = (time.process_time(), time.perf_counter())
local.execute = timed
def report():
    end = (time.process_time(), time.perf_counter())
    s, t = marks["send"], marks["tail"]
    print("STAGES", *(f"{x:.3f}" for x in (s[0] - t0[0], s[1] - t0[1], t[0] - s[0], t[1] - s[1], end[0] - t[0],
                                           end[1] - t[1])), file=sys.stderr)
atexit.register(report)
from climedbench.cli import main
sys.argv = ["climedbench", *sys.argv[1:]]
main()
"""
FIELDS = ("start-up cpu", "start-up wall", "sending cpu", "sending wall", "tail cpu", "tail wall")


def one(src: Path, items: Path, url: str, out: Path) -> list[float]:
    cmd = [sys.executable, "-c", WRAPPER, "run", "--data", str(items), "--model", "openai:instant-test", "--base-url",
           url, "--no-cache", "--out", str(out), "--max-tokens", "16", "--max-concurrency", "64", "--quiet"]
    done = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True,
                          check=False)
    line = [x for x in done.stderr.splitlines() if x.startswith("STAGES")]
    if done.returncode != 0 or not line:
        raise SystemExit(f"{src}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return [float(x) for x in line[0].split()[1:]]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, action="append", required=True, help="a source tree (repeat to compare)")
    ap.add_argument("--items", type=int, default=1800)
    ap.add_argument("--repeats", type=int, default=4)
    args = ap.parse_args(argv)
    for src in args.src:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, capture_output=True)
    server, url = start_server(0.0, 8.0)
    got: dict[Path, list[list[float]]] = {src: [] for src in args.src}
    try:
        with tempfile.TemporaryDirectory(prefix="http-stages-") as tmp:
            items = bkt_items(Path(tmp) / "items.jsonl", args.items)
            print(f"{args.items} items, server {url}; {uptime()}")
            for k in range(args.repeats):
                for src in args.src if k % 2 == 0 else args.src[::-1]:
                    got[src].append(one(src, items, url, Path(tmp) / f"out-{k}-{args.src.index(src)}"))
                    print(f"  {src}: " + ", ".join(f"{f} {v:.2f}" for f, v in zip(FIELDS, got[src][-1], strict=True)),
                          flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"medians over {args.repeats} runs each ({uptime()}):")
    for src, runs in got.items():
        print(f"  {src}: " + ", ".join(f"{f} {statistics.median(r[i] for r in runs):.3f} s"
                                       for i, f in enumerate(FIELDS)))


if __name__ == "__main__":
    main()
