"""Distributed evaluation at scale: the Ray executor against several endpoints that are the bottleneck.

    python bench/ray_scale.py [--items 34000] [--baseline-items 6000] [--endpoints 4] [--workers 2]
        [--latency 0.05] [--slots 4]

Every endpoint is an instant OpenAI-compatible server (tests/support/instant_server.py) that answers each chat
completion after `latency` seconds and works on at most `slots` at once, so it serves at most slots / latency
requests per second: the endpoints, not the harness, limit throughput. Items are synthetic (BKT-style, five
options). Prints:

- throughput (items/s) with 1 endpoint and with N endpoints, for the local executor and for Ray with W workers
  (steady rate, between 5% and 95% of the items; single-endpoint runs use --baseline-items: a rate needs no
  34,000 items to measure; target with 4 endpoints: >= 3x the single-endpoint throughput);
- the driver's resident memory along the N-endpoint runs (target: flat), beside what the run directory's index
  of finished items alone keeps per item (a local run keeps the same);
- killing a Ray worker a quarter of the way through: how long until its restarted process sends results again,
  the run's total time, and how many requests were sent twice (those in flight at the kill);
- killing the driver (`climedbench run --executor ray`, SIGKILL) a quarter of the way through and re-running the
  same command: how long until the re-run writes its first new sample, how long it takes to finish, how many
  requests were sent twice.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
# Ray workers and the CLI child import the same sources.
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

from climedbench.executors import ExecutorOptions, make_executor  # noqa: E402
from climedbench.executors.ray_driver import RayExecutor  # noqa: E402
from climedbench.models.endpoints import EndpointSpec  # noqa: E402
from climedbench.models.registry import ModelOptions  # noqa: E402
from climedbench.run.driver import run_plan  # noqa: E402
from climedbench.run.plan import RunOptions, plan_run  # noqa: E402
from tests.support.instant_server import get_stats, instant_server  # noqa: E402
from tests.support.synthetic import bkt_items as make_items  # noqa: E402
from tests.support.synthetic import rss_mb  # noqa: E402


class RssSampler:
    """The driver's resident memory every `every` seconds, with the number of items done at that time."""

    def __init__(self, every: float = 1.0) -> None:
        self.every, self.done, self.marks = every, 0, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.marks.append((self.done, rss_mb()))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.marks.append((self.done, rss_mb()))

    def summary(self, total: int) -> str:
        picks = []
        for frac in (0.1, 0.25, 0.5, 0.75, 0.95):
            mark = next((m for m in self.marks if m[0] >= frac * total), self.marks[-1])
            picks.append(mark)
        growth = picks[-1][1] - picks[0][1]
        per_item = growth * 1024 / max(1, picks[-1][0] - picks[0][0])
        return (", ".join(f"{n} items {mb:.0f} MB" for n, mb in picks)
                + f"; {growth:+.1f} MB from {picks[0][0]} to {picks[-1][0]} items ({per_item:.2f} KB per item); "
                f"{self.marks[-1][1]:.0f} MB once the log is closed")


def index_cost(n: int = 30000) -> float:
    """KB of resident memory per finished item kept by the run directory's log index alone (SampleStore)."""
    from climedbench.core.types import Sample
    from climedbench.rundir import SampleStore

    with tempfile.TemporaryDirectory() as d, SampleStore(Path(d) / "samples.jsonl", sync_every=1e9) as store:
        base = rss_mb()
        for i in range(n):
            store.write(Sample(uid=f"BKT/test/q{i}", item_id=f"q{i}", task="BKT", prompt_hash="0" * 16,
                               request_key="0" * 16, raw="答案：B", gold="B", extracted="B",
                               extraction_method="final_answer_line", score=1.0,
                               flags={"follows_format": True, "wrong_option": False}, prompt_tokens=120,
                               completion_tokens=3, latency=0.05, attempts=1, input_chars=150))
        return (rss_mb() - base) * 1024 / n


def requests_sent(urls: list[str]) -> tuple[int, int]:
    """Chat completions received by all the servers, and how many of them repeated a body already received."""
    bodies: Counter[str] = Counter()
    for u in urls:
        bodies.update(get_stats(u)["by_body"])
    return sum(bodies.values()), sum(c - 1 for c in bodies.values())


def options(data: Path, urls: list[str], out: Path, concurrency: int, cache: Path | None = None) -> RunOptions:
    specs = tuple(EndpointSpec(url=u, max_concurrency=concurrency) for u in urls)
    return RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, out=str(out),
                      no_cache=cache is None, cache=str(cache) if cache else None,
                      model_options=ModelOptions(endpoints=specs, deployment="bench", max_concurrency=concurrency))


def timed_run(opts: RunOptions, executor: Any, sampler: RssSampler | None = None,
              progress: Any = None) -> tuple[float, int, float]:
    """Wall seconds (with start-up), items, and the steady rate: items/s between 5% and 95% of the items."""
    plan = plan_run(opts)
    marks: dict[str, float] = {}

    def tick(done: int, total: int, code: str) -> None:
        if sampler is not None:
            sampler.done = done
        if progress is not None:
            progress(done, total)
        if done >= 0.05 * total and "a" not in marks:
            marks["a"], marks["na"] = time.perf_counter(), done
        if done >= 0.95 * total and "b" not in marks:
            marks["b"], marks["nb"] = time.perf_counter(), done

    start = time.perf_counter()
    _, results, _ = asyncio.run(run_plan(plan, executor=executor, progress=tick))
    assert results.run is not None and results.run.failed == 0 and results.run.missing == 0
    steady = (marks["nb"] - marks["na"]) / (marks["b"] - marks["a"])
    return time.perf_counter() - start, results.run.items, steady


@contextlib.contextmanager
def servers(n: int, latency: float, slots: int) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(instant_server(latency=latency, slots=slots)) for _ in range(n)]


def lines(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return sum(1 for _ in fh)
    except FileNotFoundError:
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=34000)
    ap.add_argument("--baseline-items", type=int, default=6000)
    ap.add_argument("--endpoints", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: local,ray,kill-worker,kill-driver")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    conc = 2 * args.slots  # requests in flight per endpoint: enough to keep every slot busy
    cap = args.slots / args.latency
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; endpoints serve at most {cap:.0f} "
          f"requests/s each ({args.slots} slots × {args.latency * 1000:.0f} ms); {conc} requests in flight per "
          f"endpoint", flush=True)
    import ray

    print(f"the run directory's index of finished items alone keeps {index_cost():.2f} KB per item in memory "
          "(30,000 samples written to a SampleStore)", flush=True)
    ray.init(address="local", num_cpus=max(4, args.workers), include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    address = ray.get_runtime_context().gcs_address
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        big, small = tmp / "items.jsonl", tmp / "baseline.jsonl"
        make_items(big, args.items)
        make_items(small, args.baseline_items)
        rates: dict[tuple[str, int], float] = {}
        for kind in ("local", "ray"):
            if kind in skip:
                continue
            executor = make_executor(ExecutorOptions(kind=kind, workers=args.workers))  # type: ignore[arg-type]
            try:
                for n, data in ((1, small), (args.endpoints, big)):
                    with servers(n, args.latency, args.slots) as urls, RssSampler() as sampler:
                        secs, done, steady = timed_run(options(data, urls, tmp / f"{kind}-{n}", conc), executor,
                                                       sampler)
                    rates[(kind, n)] = steady
                    label = kind if kind == "local" else f"ray ({args.workers} workers)"
                    print(f"{label:<17} {n} endpoint(s): {steady:6.1f} items/s between 5% and 95% of the items "
                          f"(endpoints' ceiling {n * cap:.0f}/s); all {done} items in {secs:6.1f} s with start-up",
                          flush=True)
                    if n > 1:
                        print(f"  driver memory: {sampler.summary(done)}", flush=True)
            finally:
                executor.close()
            ratio = rates[(kind, args.endpoints)] / rates[(kind, 1)]
            print(f"  {args.endpoints} endpoints vs 1: {ratio:.2f}x (target >= 3x: {'PASS' if ratio >= 3 else 'FAIL'})",
                  flush=True)

        if "kill-worker" not in skip:
            executor = RayExecutor(ExecutorOptions(kind="ray", workers=args.workers))
            marks: dict[str, float] = {}

            def progress(done: int, total: int) -> None:
                now = time.perf_counter()
                if "kill" not in marks and done >= total // 4:
                    marks["kill"] = now
                    marks["pid"] = executor.worker_pids[0]
                    os.kill(executor.worker_pids[0], signal.SIGKILL)
                elif "kill" in marks and "back" not in marks and executor.latest_pid[0] != marks["pid"]:
                    marks["back"] = now

            try:
                with servers(args.endpoints, args.latency, args.slots) as urls:
                    secs, done, _ = timed_run(options(big, urls, tmp / "kill-worker", conc, tmp / "kw.sqlite"),
                                              executor, progress=progress)
                    sent, twice = requests_sent(urls)
            finally:
                executor.close()
            back = (f"its restarted process sent results {marks['back'] - marks['kill']:.1f} s later"
                    if "back" in marks else "the run ended before its restarted process sent results (too few items)")
            print(f"worker killed at 25%: {back}; all {done} items in {secs:.1f} s with start-up "
                  f"({done / secs:.1f} items/s); {sent} requests for {done} items ({twice} repeated); "
                  f"shards cut short: {executor.shards_interrupted}", flush=True)

        if "kill-driver" not in skip:
            out = tmp / "kill-driver"
            with servers(args.endpoints, args.latency, args.slots) as urls:
                cmd = [sys.executable, "-m", "climedbench.cli", "run", "--data", str(big), "--model",
                       "openai:instant-test", "--deployment", "bench", "--max-tokens", "8", "--max-concurrency",
                       str(conc), "--cache", str(tmp / "kd.sqlite"), "--out", str(out), "--quiet", "--executor", "ray",
                       "--ray-address", address, "--workers", str(args.workers)]
                for u in urls:
                    cmd += ["--base-url", u]
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                while lines(out / "samples.jsonl") < args.items // 4:
                    time.sleep(0.05)
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                saved = lines(out / "samples.jsonl")
                time.sleep(1)  # Ray stops the dead driver's workers
                start = time.perf_counter()
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                first = None
                while proc.poll() is None:
                    if first is None and lines(out / "samples.jsonl") > saved:
                        first = time.perf_counter() - start
                    time.sleep(0.05)
                total = time.perf_counter() - start
                if proc.returncode != 0:
                    raise SystemExit(f"the re-run failed: {proc.stderr.read() if proc.stderr else ''}")
                sent, twice = requests_sent(urls)
            res = json.loads((out / "results.json").read_text())
            print(f"driver killed at {saved} items: the re-run (process start, Ray connect, workers) wrote its first "
                  f"new sample after {first:.1f} s and finished the other {args.items - saved} items in {total:.1f} s;"
                  f" {res['run']['resumed']} resumed, {res['run']['cache_hits']} from the cache; {sent} requests for "
                  f"{args.items} items ({twice} repeated)", flush=True)
    ray.shutdown()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
