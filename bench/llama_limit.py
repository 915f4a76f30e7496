"""How close the harness gets to llama.cpp's own throughput for the embedded model on this machine.

    python bench/llama_limit.py [--threads 1,2] [--parallel 1,2,4,8] [--replicas 2] [--pp 512] [--tg 64]
                                     [--tg-context 480] [--demo | --no-demo] [--demo-threads T]
                                     [--demo-replicas N] [--model PATH]

In one process:
1. llama.cpp alone (xllamacpp's in-process server, fixed synthetic token counts, no chat template, no
   harness): prompt processing (--pp tokens per request, one token generated) and generation (--tg tokens
   generated after a --tg-context-token prompt, end-of-text ignored) tokens/s, for every thread count × parallel
   sequences (n_parallel slots, continuous batching, as many requests in flight as slots) and for replicas
   (several one-thread copies of the model, one request each at a time).
2. The harness: `climedbench run` on the default demo (28 items) with its default settings (one one-thread
   model copy per core, see models/llamacpp.py), its wall time (model loaded beforehand, as in
   bench/run_demo.py) and its prompt and completion tokens; `--demo-replicas/--demo-threads` change them.
3. The ratio: the time llama.cpp's best measured rates would need for the demo's token mix
   (prompt tokens / best pp rate + completion tokens / best tg rate) over the demo's wall time.
   Target: >= 0.90. Then the best configurations again, after the demo and at its mean prompt length, and the
   ratio against the mean of the rates before and after (on a shared machine the load moves between the two).

On a shared machine, quote the load average printed at the start and end; `nice -n -20` (as root) keeps
other processes from distorting the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


@dataclass
class Rate:
    """Aggregate tokens per second of one configuration."""

    threads: int
    parallel: int
    replicas: int
    pp: float  # prompt tokens per second
    tg: float  # generated tokens per second

    @property
    def label(self) -> str:
        return f"threads={self.threads} parallel={self.parallel} replicas={self.replicas}"


def make_server(path: str, threads: int, parallel: int, n_ctx: int) -> Any:
    """An xllamacpp server as the harness configures it (no prompt cache), with `parallel` slots."""
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = path
    p.n_ctx = n_ctx * parallel  # llama.cpp divides the context among the slots
    p.n_parallel = parallel
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.verbosity = -1
    p.cache_prompt = False
    p.hostnames = ["127.0.0.1"]
    p.port = 0
    return xlc.Server(p)


def blast(servers: list[Any], per_server: int, prompt_len: int, n_predict: int, seed: int
          ) -> tuple[list[dict[str, Any]], float]:
    """`per_server` requests in flight on each server at once: llama.cpp's timings of each, and the wall seconds."""
    rng = random.Random(seed)
    results: list[dict[str, Any]] = []
    lock = threading.Lock()

    def one(server: Any, prompt: list[int]) -> None:
        r = server.handle_completions({"prompt": prompt, "n_predict": n_predict, "ignore_eos": True,
                                       "temperature": 0.0, "cache_prompt": False})
        if "error" in r:
            raise RuntimeError(str(r["error"]))
        with lock:
            results.append(r["timings"])

    jobs = [threading.Thread(target=one, args=(s, [rng.randrange(1000, 30000) for _ in range(prompt_len)]))
            for s in servers for _ in range(per_server)]
    start = time.perf_counter()
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
    wall = time.perf_counter() - start
    if len(results) != len(jobs):
        raise RuntimeError("a request failed")
    return results, wall


def measure(path: str, threads: int, parallel: int, replicas: int, pp: int, tg: int, context: int) -> Rate:
    servers = [make_server(path, threads, parallel, max(pp, context) + tg + 16) for _ in range(replicas)]
    try:
        blast(servers, parallel, 16, 2, seed=0)  # warm-up
        prompts, p_wall = blast(servers, parallel, pp, 1, seed=1)
        # Generation after a `context`-token prompt, as in a real request: the generation phases of the requests
        # run side by side, so the rate is all generated tokens over the longest generation phase.
        gens, _ = blast(servers, parallel, context, tg, seed=2)
        tg_rate = sum(g["predicted_n"] for g in gens) / (max(g["predicted_ms"] for g in gens) / 1000)
        return Rate(threads, parallel, replicas, sum(p["prompt_n"] for p in prompts) / p_wall, tg_rate)
    finally:
        servers.clear()
        gc.collect()


async def demo_run(threads: int | None, replicas: int | None) -> tuple[float, int, int, int]:
    """The default demo's run through the harness: (wall seconds without model load, items, prompt, completion)."""
    from climedbench.models.registry import ModelOptions, open_backend
    from climedbench.run.driver import run_plan
    from climedbench.run.plan import RunOptions, plan_run

    with tempfile.TemporaryDirectory() as tmp:
        opts = RunOptions(out=str(Path(tmp) / "run"), no_cache=True)
        plan = plan_run(opts)
        backend = await open_backend(opts.model, ModelOptions(threads=threads, replicas=replicas))
        print(f"demo model: {getattr(backend, 'replicas', '?')} copies x {getattr(backend, 'threads', '?')} "
              "threads", flush=True)
        try:
            start = time.perf_counter()
            _, results, _ = await run_plan(plan, backend=backend)
            wall = time.perf_counter() - start
        finally:
            await backend.aclose()
    assert results.run is not None
    return wall, results.run.items, results.run.prompt_tokens, results.run.completion_tokens


def main() -> None:
    cores = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="GGUF file (default: the embedded model)")
    ap.add_argument("--threads", default=",".join(str(t) for t in range(1, cores + 1)))
    ap.add_argument("--parallel", default="1,2,4,8")
    ap.add_argument("--replicas", default=",".join(str(r) for r in range(2, cores + 1)),
                    help="one-thread model copies, one request each (in addition to the grid)")
    ap.add_argument("--pp", type=int, default=512,
                    help="prompt tokens per request in the prompt test (the demo averages about 480)")
    ap.add_argument("--tg", type=int, default=64, help="generated tokens per request in the generation test")
    ap.add_argument("--tg-context", type=int, default=480,
                    help="prompt tokens before the generation test's tokens (the demo's mean prompt)")
    ap.add_argument("--demo", action=argparse.BooleanOptionalAction, default=True,
                    help="also time `climedbench run` on the default demo and print the ratio")
    ap.add_argument("--demo-threads", type=int, default=None, help="threads per model copy in the demo run")
    ap.add_argument("--demo-replicas", type=int, default=None, help="model copies in the demo run")
    args = ap.parse_args()
    if args.model is None:
        from climedbench.models.default_model import default_model_path

        args.model = str(default_model_path())
    print(f"cores {cores}, load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}", flush=True)
    rates: list[Rate] = []
    configs = [(t, p, 1) for t in _ints(args.threads) for p in _ints(args.parallel)]
    configs += [(1, 1, r) for r in _ints(args.replicas) if r > 1]
    print(f"{'configuration':40s} {'prompt tok/s':>12s} {'gen tok/s':>10s}", flush=True)
    for t, p, r in configs:
        rate = measure(args.model, t, p, r, args.pp, args.tg, args.tg_context)
        rates.append(rate)
        print(f"{rate.label:40s} {rate.pp:12.1f} {rate.tg:10.2f}", flush=True)
    best_pp = max(rates, key=lambda x: x.pp)
    best_tg = max(rates, key=lambda x: x.tg)
    print(f"best prompt processing {best_pp.pp:.1f} tok/s ({best_pp.label})")
    print(f"best generation        {best_tg.tg:.2f} tok/s ({best_tg.label})")
    if args.demo:
        wall, items, prompt, completion = asyncio.run(demo_run(args.demo_threads, args.demo_replicas))
        print(f"demo: {items} items, {prompt} prompt + {completion} completion tokens in {wall:.1f} s "
              f"(model loaded beforehand)")
        ideal = prompt / best_pp.pp + completion / best_tg.tg
        print(f"llama.cpp's best rates would need {ideal:.1f} s for that token mix")
        print(f"ratio {ideal / wall:.2f} (target >= 0.90)")
        # Again after the demo, at the demo's own mean prompt length, so that a change in the machine's load
        # between the two measurements, and the prompt length, are seen: the ratio against the mean of both.
        mean_prompt = max(1, round(prompt / items))
        after_pp = measure(args.model, best_pp.threads, best_pp.parallel, best_pp.replicas, mean_prompt, 1, 16)
        after_tg = measure(args.model, best_tg.threads, best_tg.parallel, best_tg.replicas, 16, args.tg, mean_prompt)
        print(f"after the demo, at its mean prompt of {mean_prompt} tokens: prompt {after_pp.pp:.1f} tok/s "
              f"({best_pp.label}), generation {after_tg.tg:.2f} tok/s ({best_tg.label})")
        both = prompt / ((best_pp.pp + after_pp.pp) / 2) + completion / ((best_tg.tg + after_tg.tg) / 2)
        print(f"ratio against the mean of the rates before and after: {both / wall:.2f}")
    print(f"load average at the end {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    sys.exit(0)


if __name__ == "__main__":
    main()
