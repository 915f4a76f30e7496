"""Do two source trees give the same results on the HTTP path? (issue 24, part 4: speed without changing a result)

    python bench/http_same_results.py --base /work/main/src [--new src] [--items 1800]

Runs `climedbench run` from each tree (PYTHONPATH) against the instant bench server (bench/lmeval_server.py, a
child process on 127.0.0.1: deterministic answers), on the same inputs: N synthetic BKT items (written by us) and
the bundled demo sets of both suites (every task, all their prompt templates), with `--log-prompts`. It then
compares, byte for byte, results.json without its `run` block's times and its `integrity` digests (which hash the
timings), and samples.jsonl with each line's `latency` left out; it prints the first difference and exits 1 if
there is one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lmeval_compare import start_server  # noqa: E402
from tests.support.synthetic import bkt_items  # noqa: E402

TIMES = {"wall_seconds", "model_seconds", "latency_sum", "requests_per_second", "mean_latency"}


def run(src: Path, url: str, out: Path, extra: list[str]) -> None:
    cmd = [sys.executable, "-m", "climedbench.cli", "run", "--model", "openai:instant-test", "--base-url", url,
           "--no-cache", "--out", str(out), "--max-concurrency", "64", "--log-prompts", "--quiet", *extra]
    done = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{src}: {' '.join(extra)} exited {done.returncode}:\n{done.stderr[-2000:]}")


def untimed(value: Any) -> Any:
    """The value without its time-valued keys (at any depth)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def comparable(out: Path) -> tuple[str, list[str]]:
    results = json.loads((out / "results.json").read_text("utf-8"))
    results.pop("integrity", None)
    results["run"] = untimed(results.get("run"))
    samples = []
    for line in (out / "samples.jsonl").read_text("utf-8").splitlines():
        sample = json.loads(line)
        sample.pop("latency", None)
        samples.append(json.dumps(sample, ensure_ascii=False))
    return json.dumps(results, ensure_ascii=False, indent=1), samples


def compare(name: str, a: Path, b: Path) -> bool:
    (ra, sa), (rb, sb) = comparable(a), comparable(b)
    same = ra == rb and sa == sb
    print(f"{name}: {len(sa)} samples; results.json {'identical' if ra == rb else 'DIFFERENT'}; samples.jsonl "
          f"{'identical' if sa == sb else 'DIFFERENT'} (latency and run times left out)")
    if ra != rb:
        diff = next(i for i, (x, y) in enumerate(zip(ra.splitlines(), rb.splitlines(), strict=False)) if x != y)
        print(f"  results.json line {diff + 1}: {ra.splitlines()[diff]!r} vs {rb.splitlines()[diff]!r}")
    if sa != sb:
        k = next((i for i, (x, y) in enumerate(zip(sa, sb, strict=False)) if x != y), min(len(sa), len(sb)))
        print(f"  samples.jsonl line {k + 1} differs")
    return same


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the reference tree's src (e.g. /work/main/src)")
    ap.add_argument("--new", type=Path, default=ROOT / "src", help="the tree under test's src (default: this one)")
    ap.add_argument("--items", type=int, default=1800, help="synthetic BKT items")
    ap.add_argument("--faults", type=float, default=0.0, help="share of attempts the server fails (retries)")
    args = ap.parse_args(argv)
    server, url = start_server(args.faults, 8.0)
    ok = True
    try:
        with tempfile.TemporaryDirectory(prefix="http-same-") as tmp:
            work = Path(tmp)
            items = bkt_items(work / "items.jsonl", args.items)
            inputs = {"synthetic BKT": ["--data", str(items), "--max-tokens", "16"],
                      "climedbench demo": ["--suite", "climedbench"],
                      "clinicbench demo": ["--suite", "clinicbench"]}
            for name, extra in inputs.items():
                slug = name.replace(" ", "-")
                run(args.base, url, work / f"base-{slug}", extra)
                run(args.new, url, work / f"new-{slug}", extra)
                ok &= compare(name, work / f"base-{slug}", work / f"new-{slug}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
