"""The most items per second any aiohttp client can send on this machine: a bare loop against the instant bench server.

    python bench/http_ceiling.py [--items 1800] [--concurrency 64] [--repeats 3]

The loop does nothing but send (one small chat request per item, 64 in flight, the answer's JSON read): no prompt is
built, nothing is extracted, scored or written. It is the ceiling for issue 24's "sending rate ≥ lm-eval's" on the
same server (bench/lmeval_server.py, a child process on 127.0.0.1, as in bench/lmeval_compare.py): a client that also
builds its prompts and scores its answers while it sends cannot pass it, and lm-eval reaches it because it builds every
prompt before its first request and scores after its last. Prints items/s and this process's CPU seconds per run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lmeval_compare import start_server, uptime  # noqa: E402


async def send_all(url: str, items: int, concurrency: int) -> tuple[float, float]:
    import aiohttp

    gate = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one(i: int) -> str:
            body = {"model": "instant-test", "messages": [{"role": "user", "content": f"问题 {i}：选项 A B C D"}],
                    "max_tokens": 16, "temperature": 0}
            async with gate, session.post(url + "/chat/completions", json=body) as resp:
                return str((await resp.json())["choices"][0]["message"]["content"])

        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(items)))
        return items / (time.perf_counter() - wall), time.process_time() - cpu


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=1800)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    server, url = start_server(0.0, 8.0)
    try:
        print(f"{args.items} items, concurrency {args.concurrency}, {url}; {uptime()}")
        for _ in range(args.repeats):
            rate, cpu = asyncio.run(send_all(url, args.items, args.concurrency))
            print(f"  bare aiohttp loop: {rate:7.0f} items/s, {cpu:.2f} CPU s")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
