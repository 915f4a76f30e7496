"""Harness throughput against a local OpenAI-compatible endpoint that answers instantly.

    python bench/harness_throughput.py [--items 3000] [--memory-items 34000]

Only the harness is timed: prompts, HTTP client, extraction, scoring, sample log, cache. Prints
requests per second at concurrency 1, 8 and 64 (targets: >= 500/s at 64), the cache's hit-path cost
per item (target: <= 1 ms), and resident memory along a long run (target: flat).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from climedbench.cache import ResponseCache, request_key  # noqa: E402
from climedbench.models.base import Completion, GenParams  # noqa: E402
from climedbench.models.registry import ModelOptions  # noqa: E402
from climedbench.run.driver import run_plan  # noqa: E402
from climedbench.run.plan import RunOptions, plan_run  # noqa: E402
from tests.support.instant_server import instant_server  # noqa: E402
from tests.support.synthetic import bkt_items as make_items  # noqa: E402
from tests.support.synthetic import rss_mb  # noqa: E402


async def throughput(base_url: str, data: Path, concurrency: int, tmp: Path) -> tuple[float, int]:
    opts = RunOptions(data=str(data), model="openai:instant-test", no_cache=True, out=str(tmp / f"c{concurrency}"),
                      max_tokens=16, model_options=ModelOptions(base_url=base_url, max_concurrency=concurrency))
    plan = plan_run(opts)
    start = time.perf_counter()
    _, results, _ = await run_plan(plan)
    return time.perf_counter() - start, results.run.items if results.run else 0


async def memory_run(base_url: str, n: int, tmp: Path) -> list[tuple[int, float]]:
    data = tmp / "mem.jsonl"
    make_items(data, n)
    opts = RunOptions(data=str(data), model="openai:instant-test", no_cache=True, out=str(tmp / "mem"),
                      max_tokens=16, model_options=ModelOptions(base_url=base_url, max_concurrency=64))
    plan = plan_run(opts)
    marks: list[tuple[int, float]] = []

    def progress(done: int, total: int, code: str) -> None:
        if done in (1000, total // 4, total // 2, 3 * total // 4, total):
            marks.append((done, rss_mb()))

    await run_plan(plan, progress=progress)
    return marks


def cache_cost(tmp: Path, n: int = 20000) -> tuple[float, float]:
    """Seconds per lookup (hit) and per insert, including key hashing of realistic messages."""
    cache = ResponseCache(tmp / "bench.sqlite")
    fp = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1/v1"}
    params = GenParams(max_tokens=512)
    msgs = [[{"role": "user", "content": f"问题{i}：" + "患者男，65岁，胸痛3小时。" * 40}] for i in range(n)]
    comp = Completion(text="答案：B\n理由：" + "因为……" * 50, prompt_tokens=600, completion_tokens=120)
    start = time.perf_counter()
    for m in msgs:
        cache.put(request_key(fp, m, params), "m", comp)
    put = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for m in msgs:
        assert cache.get(request_key(fp, m, params)) is not None
    get = (time.perf_counter() - start) / n
    cache.close()
    return get, put


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=3000)
    ap.add_argument("--memory-items", type=int, default=34000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d, instant_server(model="instant-test") as url:
        tmp = Path(d)
        data = tmp / "items.jsonl"
        make_items(data, args.items)
        print(f"instant endpoint {url}; {args.items} items per measurement")
        for c in (1, 8, 64):
            secs, n = await throughput(url, data, c, tmp)
            mark = "PASS" if c != 64 or n / secs >= 500 else "FAIL"
            print(f"concurrency {c:3d}: {n / secs:8.1f} requests/s  ({n} in {secs:.2f} s)"
                  + (f"   target >= 500/s: {mark}" if c == 64 else ""))
        get, put = cache_cost(tmp)
        print(f"cache hit path: {get * 1e3:.3f} ms/item (target <= 1 ms: {'PASS' if get <= 1e-3 else 'FAIL'}); "
              f"insert {put * 1e3:.3f} ms/item")
        if args.memory_items:
            marks = await memory_run(url, args.memory_items, tmp)
            print("resident memory during a long run: " + ", ".join(f"{n} items {mb:.0f} MB" for n, mb in marks))
            growth = marks[-1][1] - marks[0][1]
            print(f"growth from item {marks[0][0]} to {marks[-1][0]}: {growth:+.1f} MB")


if __name__ == "__main__":
    asyncio.run(main())
