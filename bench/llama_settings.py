"""llama.cpp settings for the embedded model on the demo's own requests: speed, and whether any output changes.

    python bench/llama_settings.py [--settings default,fa-on,...] [--items N] [--copies N] [--suite S] [--breakdown]

In one process, for each setting (see SETTINGS): load the copies the demo uses (one one-thread copy per core) and
answer the default demo's requests (`climedbench run`'s 28 items, their real chat prompts and max tokens; --items N:
the first N) with the copies side by side. The settings take turns, a group of `copies` requests each, so that every
setting meets the same machine load. The table: each setting's wall time, tokens/s, speed relative to the default,
and how many outputs differ from the default's bytes; the default answers in plan order, every other setting in the
reverse order, so "0 differ" also means "not order-dependent".

With --breakdown, the default then answers the whole demo freely (each copy takes the next request when free, plan
order) and the script shows where its time went: llama.cpp's own prompt and generation time, the time in a call
outside it (chat template, tokenising), the copies' idle tail, and what a longest-first order would have taken.

Determinism is the constraint, speed the objective: a setting that changes any output stays off.
The machine may be shared: quote the load averages printed at the start and end.
"""

from __future__ import annotations

import argparse
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import xllamacpp as xlc

from climedbench.models import default_model
from climedbench.models.base import chat_request
from climedbench.models.llamacpp import LlamaCppBackend, layout
from climedbench.run.plan import RunOptions, plan_run

FA = xlc.llama_flash_attn_type
LOAD = xlc.llama_load_mode
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "fa-on": {"flash_attn_type": FA.LLAMA_FLASH_ATTN_TYPE_ENABLED},
    "fa-off": {"flash_attn_type": FA.LLAMA_FLASH_ATTN_TYPE_DISABLED},
    "ubatch-128": {"n_ubatch": 128},
    "ubatch-256": {"n_ubatch": 256},
    "batch-ubatch-1024": {"n_batch": 1024, "n_ubatch": 1024},
    "no-mmap": {"load_mode": LOAD.LLAMA_LOAD_MODE_NONE},
    "mlock": {"load_mode": LOAD.LLAMA_LOAD_MODE_MMAP_MLOCK},
    "ctx-2048": {"n_ctx": 2048},
    "no-cont-batching": {"cont_batching": False},
    "kv-q8_0": {"cache_type_k": xlc.ggml_type.GGML_TYPE_Q8_0, "cache_type_v": xlc.ggml_type.GGML_TYPE_Q8_0,
                "flash_attn_type": FA.LLAMA_FLASH_ATTN_TYPE_ENABLED},
    "poll-0": {"cpuparams.poll": 0, "cpuparams_batch.poll": 0},
}


@dataclass
class Done:
    """One answered request."""

    index: int
    copy: int
    text: str
    start: float
    end: float
    timings: dict[str, Any] = field(default_factory=dict)


def answer(servers: list[Any], bodies: list[dict[str, Any]], order: list[int]) -> tuple[list[Done], float]:
    """Every request, taken in `order` by whichever copy is free (as the harness's workers do); the wall seconds."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for i in order:
        todo.put(i)
    done: list[Done] = []
    lock = threading.Lock()
    t0 = time.perf_counter()

    def work(copy: int) -> None:
        while True:
            try:
                i = todo.get_nowait()
            except queue.Empty:
                return
            start = time.perf_counter() - t0
            r = servers[copy].handle_chat_completions(bodies[i])
            if "error" in r:
                raise RuntimeError(str(r["error"]))
            with lock:
                done.append(Done(i, copy, r["choices"][0]["message"].get("content") or "", start,
                                 time.perf_counter() - t0, r.get("timings") or {}))

    threads = [threading.Thread(target=work, args=(c,)) for c in range(len(servers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if len(done) != len(order):
        raise RuntimeError("a request failed")
    return sorted(done, key=lambda d: d.index), wall


def longest_first_makespan(durations: list[float], copies: int) -> float:
    """Wall time of greedy longest-first list scheduling of these durations on `copies` copies."""
    free = [0.0] * copies
    for d in sorted(durations, reverse=True):
        k = free.index(min(free))
        free[k] += d
    return max(free)


def breakdown(done: list[Done], wall: float, copies: int) -> None:
    """Where the default's wall time went."""
    pp_ms = sum(d.timings.get("prompt_ms", 0.0) for d in done)
    tg_ms = sum(d.timings.get("predicted_ms", 0.0) for d in done)
    pp_n = sum(d.timings.get("prompt_n", 0) for d in done)
    tg_n = sum(d.timings.get("predicted_n", 0) for d in done)
    inside = sum(d.end - d.start for d in done)
    outside = inside - (pp_ms + tg_ms) / 1000
    last_start = max(d.start for d in done)
    per_copy_end = [max((d.end for d in done if d.copy == c), default=0.0) for c in range(copies)]
    idle_tail = sum(wall - e for e in per_copy_end)
    print(f"\nwhere the default's {wall:.1f} s went ({copies} copies, {copies * wall:.1f} copy-seconds):")
    print(f"  llama.cpp prompt processing {pp_ms / 1000:7.1f} copy-s  ({pp_n} tokens, {1000 * pp_n / pp_ms:.1f} tok/s "
          "per copy)")
    print(f"  llama.cpp generation        {tg_ms / 1000:7.1f} copy-s  ({tg_n} tokens, {1000 * tg_n / tg_ms:.2f} tok/s "
          "per copy)")
    print(f"  in the call, outside those  {outside:7.1f} copy-s  ({1000 * outside / len(done):.0f} ms per request: "
          "chat template, tokenising, sampler set-up, response)")
    print(f"  copies idle at the tail     {idle_tail:7.1f} copy-s  (last request started at {last_start:.1f} s; "
          f"copies finished at {', '.join(f'{e:.1f}' for e in per_copy_end)} s)")
    print(f"  between calls               {copies * wall - inside - idle_tail:7.1f} copy-s")
    lpt = longest_first_makespan([d.end - d.start for d in done], copies)
    print(f"  longest-first order of these durations would take {lpt:.1f} s (the plan order took {wall:.1f} s)")


def interleaved(backends: dict[str, Any], bodies: list[dict[str, Any]], copies: int
                ) -> dict[str, tuple[list[Done], float]]:
    """Each setting answers the requests `copies` at a time, the settings taking turns group by group, so that
    every setting meets the same machine load; the default in plan order, the others in reverse order."""
    n = len(bodies)
    forward, backward = list(range(n)), list(reversed(range(n)))
    out: dict[str, tuple[list[Done], float]] = {name: ([], 0.0) for name in backends}
    for g in range(0, n, copies):
        for name, servers in backends.items():
            order = (forward if name == "default" else backward)[g:g + copies]
            done, wall = answer(servers, bodies, order)
            prev, total = out[name]
            out[name] = (prev + done, total + wall)
    return {name: (sorted(done, key=lambda d: d.index), wall) for name, (done, wall) in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--settings", default=",".join(SETTINGS), help=f"comma-separated, of: {', '.join(SETTINGS)}")
    ap.add_argument("--items", type=int, default=0, help="only the first N demo requests (0: all)")
    ap.add_argument("--copies", type=int, default=None, help="model copies (default: the demo's)")
    ap.add_argument("--suite", default=None, help="the demo of this suite (default: climedbench)")
    ap.add_argument("--breakdown", action="store_true",
                    help="then answer the whole demo freely with the default and show where its time went")
    args = ap.parse_args()
    plan = plan_run(RunOptions(suite=args.suite))
    reqs = plan.requests[: args.items or None]
    bodies = [chat_request(r.messages(plan.suite), r.params) for r in reqs]
    path = default_model.default_model_path()
    threads, copies = layout(path, None, args.copies)
    names = ["default"] + [n.strip() for n in args.settings.split(",") if n.strip() and n.strip() != "default"]
    print(f"{len(bodies)} demo requests, {copies} copies x {threads} thread(s); load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    backends: dict[str, Any] = {}
    for name in names:
        backend = LlamaCppBackend(path=path, n_ctx=8192, threads=threads, replicas=copies,
                                  known_sha256=default_model.SHA256, settings=SETTINGS[name])
        backends[name] = backend._servers
        answer(backend._servers, [chat_request([{"role": "user", "content": "hi"}], reqs[0].params)] * copies,
               list(range(copies)))  # warm-up: the first request after loading pages the weights in
    results = interleaved(backends, bodies, copies)
    base_done, base_wall = results["default"]
    reference = [d.text for d in base_done]
    print(f"{'setting':20s} {'order':8s} {'wall s':>7s} {'tok/s':>7s} {'vs default':>10s} {'outputs differ':>15s}")
    for name, (done, wall) in results.items():
        tokens = sum(d.timings.get("prompt_n", 0) + d.timings.get("predicted_n", 0) for d in done)
        differ = [d.index for d, ref in zip(done, reference, strict=True) if d.text != ref]
        print(f"{name:20s} {'plan' if name == 'default' else 'reverse':8s} {wall:7.1f} {tokens / wall:7.1f} "
              f"{base_wall / wall:10.2f} {len(differ):>8d} of {len(done)}"
              + (f"  (requests {', '.join(map(str, differ))})" if differ else ""), flush=True)
    if args.breakdown:
        print("\nthe default answered freely (each copy takes the next request when free), plan order:")
        done, wall = answer(backends["default"], bodies, list(range(len(bodies))))
        breakdown(done, wall, copies)
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
