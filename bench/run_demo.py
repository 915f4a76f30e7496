"""Time the default demo (`climedbench run` with no arguments) and split it into model and harness time.

    python bench/run_demo.py [--limit N] [--max-tokens N] [--scenarios CODES] [--suite S] [--plan-order]

Prints wall time, items per second, model load time, time with a model call in flight, the copies' idle tail (the
last request answered while the other copies had nothing left), the time after the last answer, and the harness's own
overhead (the time with no model call in flight: data loading, prompts, extraction, scoring, embeddings,
writing) as a share of wall time; with several model copies, also how many were busy on average during the run.
Target for the overhead: under 5%.

Then a table per task (`--no-table` leaves it out): items, max tokens, prompt and completion tokens (llama.cpp's
counts), the answers stopped by the token cap (finish_reason 'length'), the seconds inside the model's calls (their
sum: with several copies they overlap) and each task's share of those seconds. The time after the last answer is
also given in this process's CPU seconds (`time.process_time`, every thread: after the last answer the model is
idle, so it is the harness's own work), which a loaded machine does not inflate as it does wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from climedbench.models.registry import ModelOptions, open_backend
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run


class TimedBackend:
    """Wraps a backend and adds up the time inside its calls: their sum, and the time with at least one in flight
    (with several model copies answering side by side the calls overlap)."""

    def __init__(self, inner):
        self.inner, self.seconds, self.calls = inner, 0.0, 0
        self.busy, self._in_flight, self._since = 0.0, 0, 0.0
        self.spans: list[tuple[float, float]] = []  # (start, end) of every call
        self.last_cpu = 0.0  # this process's CPU seconds when the last call ended

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def chat(self, messages, params):
        start = time.perf_counter()
        if self._in_flight == 0:
            self._since = start
        self._in_flight += 1
        try:
            return await self.inner.chat(messages, params)
        finally:
            end = time.perf_counter()
            self._in_flight -= 1
            if self._in_flight == 0:
                self.busy += end - self._since
            self.seconds += end - start
            self.calls += 1
            self.spans.append((start, end))
            self.last_cpu = time.process_time()

    def tail(self, copies: int) -> tuple[float, float, float]:
        """(copy-seconds idle from the last call's start to the last call's end, seconds after the last call's end
        until now, CPU seconds of this process in that time): the copies' idle tail and the harness's own tail
        (scoring and writing the last answers)."""
        last_start = max(s for s, _ in self.spans)
        last_end = max(e for _, e in self.spans)
        used = sum(min(e, last_end) - max(s, last_start) for s, e in self.spans if e > last_start)
        idle = copies * (last_end - last_start) - used
        return idle, time.perf_counter() - last_end, time.process_time() - self.last_cpu


def task_table(samples_file: Path, max_tokens: dict[str, int]) -> list[str]:
    """Per task, in plan order: items, max tokens, prompt and completion tokens, answers cut at the cap, model
    seconds (the sum of the calls' latencies) and its share."""
    rows: dict[str, list[float]] = {code: [0, 0, 0, 0, 0.0] for code in max_tokens}
    with samples_file.open(encoding="utf-8") as fh:
        for line in fh:
            s = json.loads(line)
            r = rows[s["task"]]
            r[0] += 1
            r[1] += s.get("prompt_tokens") or 0
            r[2] += s.get("completion_tokens") or 0
            r[3] += s.get("finish_reason") == "length"
            r[4] += s.get("latency") or 0.0
    total = [sum(r[i] for r in rows.values()) for i in range(5)]
    out = ["| task | items | max tokens | prompt tokens | completion tokens | cut at max tokens | model s | share |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for code, r in [*((c, r) for c, r in rows.items() if r[0]), ("all", total)]:
        cap = str(max_tokens[code]) if code in max_tokens else ""
        out.append(f"| {code} | {r[0]:.0f} | {cap} | {r[1]:,.0f} | {r[2]:,.0f} | {r[3]:.0f} | {r[4]:.1f} | "
                   f"{100 * r[4] / max(total[4], 1e-9):.0f}% |")
    return out


async def main() -> None:
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="items per task (default: the demo's)")
    ap.add_argument("--max-tokens", type=int, default=None)
    ap.add_argument("--tasks", "--scenarios", default=None)
    ap.add_argument("--suite", default=None, help="climedbench (default) or clinicbench")
    ap.add_argument("--plan-order", action="store_true",
                    help="send the requests in plan order, not costliest first (run/engine.py's longest_first)")
    ap.add_argument("--no-table", action="store_true", help="leave out the per-task table")
    args = ap.parse_args()
    wall_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        opts = RunOptions(limit=args.limit, max_tokens=args.max_tokens, out=str(Path(tmp) / "run"), no_cache=True,
                          suite=args.suite, tasks=args.tasks.split(",") if args.tasks else None)
        plan = plan_run(opts)
        load_start = time.perf_counter()
        backend = await open_backend(opts.model, ModelOptions())
        load = time.perf_counter() - load_start
        if args.plan_order:
            backend.longest_first = False  # type: ignore[misc]
        timed = TimedBackend(backend)
        try:
            rundir, results, _ = await run_plan(plan, backend=timed)  # type: ignore[arg-type]
            idle_tail, harness_tail, harness_tail_cpu = timed.tail(getattr(backend, "replicas", 1))
            caps = {code: tp.params.max_tokens for code, tp in plan.task_plans.items()}
            table = [] if args.no_table else task_table(rundir.samples_file, caps)
        finally:
            await backend.aclose()
    wall = time.perf_counter() - wall_start
    harness = wall - load - timed.busy
    assert results.run is not None and results.overall is not None
    n = results.run.items
    print(f"items                 {n} ({len(results.tasks)} tasks of {plan.suite.title}, "
          f"{plan.spec.generation['max_tokens']} max tokens)")
    print(f"wall time             {wall:8.1f} s   (target for the default demo: < 600 s)")
    print(f"items per second      {n / wall:8.3f}")
    print(f"model load            {load:8.1f} s   ({100 * load / wall:.1f}% of wall)")
    print(f"model call in flight  {timed.busy:8.1f} s   ({100 * timed.busy / wall:.1f}% of wall)")
    copies = getattr(backend, "replicas", 1)
    print(f"copies busy           {timed.seconds / max(wall - load, 1e-9):8.2f}     (mean over the run, of {copies})")
    print(f"copies idle at the end {idle_tail:7.1f} copy-s (while the last request was answered)")
    print(f"after the last answer {harness_tail:8.1f} s   (scoring and writing the last answers, results; "
          f"{harness_tail_cpu:.2f} CPU-s)")
    print(f"harness overhead      {harness:8.2f} s   ({100 * harness / wall:.2f}% of wall; target < 5%)")
    print(f"tokens                {results.run.prompt_tokens} prompt, {results.run.completion_tokens} completion")
    print(f"overall score         {results.overall.score:.1f}  {results.overall.ci}")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n".join(table))
    sys.exit(0 if harness / wall < 0.05 else 1)


if __name__ == "__main__":
    asyncio.run(main())
