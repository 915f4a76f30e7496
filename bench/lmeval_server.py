"""The instant server of bench/lmeval_compare.py: answers at once, logs every chat request, may inject faults.

The answers are those of tests/support/instant_server.py ("答案：X", X a hash of the messages), so two tools that
send the same messages get the same answers. On top of it this server records, for every POST to
/v1/chat/completions (or /chat/completions), the wall-clock time (time.time()) it was read, the sha256 of the
canonical messages, the attempt number of these messages and the outcome ('ok', '500', 'stall'); and it keeps
the canonical messages of each digest, so the driver can compare what two tools sent.

With --fault-rate P, an attempt fails with probability P, drawn from (seed, messages digest, attempt) so a run is
reproducible whatever the order: two thirds of the faults answer 500, one third stall (no answer; the connection
is closed after --stall-seconds, so a client whose timeout is shorter sees a timeout). After
--max-faults-per-prompt faults the same messages are always answered, so a client that retries enough finishes.

    python bench/lmeval_server.py [--port 0] [--fault-rate 0.3] [--stall-seconds 8] [--seed 0]

It prints its base URL ('http://127.0.0.1:PORT/v1') as the first stdout line and serves until SIGTERM/SIGINT.
Extra endpoints: GET /bench/log {"chat": [[t, digest, attempt, outcome], ...]}, GET /bench/prompts
{digest: canonical messages JSON}, POST /bench/reset.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.instant_server import (  # noqa: E402
    MAX_HEAD,
    BadRequest,
    InstantApp,
    canonical_messages,
    content_length,
    dumps,
    error_body,
    header_map,
    keep_alive,
    parse_head,
    response_bytes,
)

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


class BenchApp:
    """The instant app plus the request log and the fault draws."""

    def __init__(self, fault_rate: float, seed: int, stall_seconds: float, max_faults: int) -> None:
        self.app = InstantApp(open_models=True)
        self.fault_rate, self.seed, self.stall_seconds, self.max_faults = fault_rate, seed, stall_seconds, max_faults
        self.reset()

    def reset(self) -> None:
        self.log: list[tuple[float, str, int, str]] = []
        self.prompts: dict[str, str] = {}
        self.attempts: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.app.reset()

    def fault_for(self, digest: str, attempt: int) -> str | None:
        if self.fault_rate <= 0 or self.faults[digest] >= self.max_faults:
            return None
        draw = hashlib.sha256(f"{self.seed}\0{digest}\0{attempt}".encode()).digest()
        u = int.from_bytes(draw[:8], "big") / 2**64
        if u >= self.fault_rate:
            return None
        self.faults[digest] += 1
        return "500" if u < self.fault_rate * 2 / 3 else "stall"

    def chat(self, body: bytes) -> tuple[str, str]:
        """Log one chat request; its digest and what to do ('ok', '500' or 'stall')."""
        now = time.time()
        try:
            messages = json.loads(body).get("messages")
            canon = canonical_messages(messages).decode()
        except (ValueError, AttributeError, UnicodeDecodeError):
            canon = "<unreadable body>"
        digest = hashlib.sha256(canon.encode()).hexdigest()
        self.prompts.setdefault(digest, canon)
        self.attempts[digest] += 1
        attempt = self.attempts[digest]
        outcome = self.fault_for(digest, attempt) or "ok"
        self.log.append((now, digest, attempt, outcome))
        return digest, outcome

    def control(self, method: str, path: str) -> tuple[int, bytes] | None:
        if path == "/bench/log" and method == "GET":
            return 200, dumps({"chat": self.log})
        if path == "/bench/prompts" and method == "GET":
            return 200, dumps(self.prompts)
        if path == "/bench/reset" and method == "POST":
            self.reset()
            return 200, dumps({"reset": True})
        return None


class BenchProtocol(asyncio.Protocol):
    """One keep-alive connection; requests answered in order (a stalled one holds the connection)."""

    def __init__(self, bench: BenchApp) -> None:
        self.bench = bench
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.stalled = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.stalled:
            return  # a stalled connection reads nothing more until it is closed
        self.buf += data
        try:
            self._process()
        except BadRequest as e:
            assert self.transport is not None
            self.transport.write(response_bytes(e.status, error_body(str(e), "invalid_request_error"), keep=False))
            self.transport.close()

    def _process(self) -> None:
        transport = self.transport
        assert transport is not None
        while self.buf and not transport.is_closing() and not self.stalled:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEAD:
                    raise BadRequest("request head too large", 431)
                return
            method, target, version, fields = parse_head(bytes(self.buf[:end]))
            headers = header_map(fields)
            total = end + 4 + content_length(headers)
            if len(self.buf) < total:
                return
            body = bytes(self.buf[end + 4:total])
            del self.buf[:total]
            keep = keep_alive(version, headers)
            self._answer(method, target, headers, body, keep)
            if not keep:
                transport.close()
                return

    def _answer(self, method: str, target: str, headers: dict[str, str], body: bytes, keep: bool) -> None:
        assert self.transport is not None
        path = target.split("?", 1)[0]
        control = self.bench.control(method, path)
        if control is not None:
            self.transport.write(response_bytes(control[0], control[1], keep=keep))
            return
        if method == "POST" and path in CHAT_PATHS:
            _, outcome = self.bench.chat(body)
            if outcome == "500":
                payload = error_body("injected fault", "server_error")
                self.transport.write(response_bytes(500, payload, keep=keep))
                return
            if outcome == "stall":
                self.stalled = True
                asyncio.get_running_loop().call_later(self.bench.stall_seconds, self.transport.close)
                return
        status, payload, extra = self.bench.app.handle(method, target, headers, body)
        self.transport.write(response_bytes(status, payload, extra, keep=keep))

    def connection_lost(self, exc: Exception | None) -> None:
        self.buf.clear()


async def serve(args: argparse.Namespace) -> None:
    bench = BenchApp(args.fault_rate, args.seed, args.stall_seconds, args.max_faults_per_prompt)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: BenchProtocol(bench), args.host, args.port, backlog=2048)
    port = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"http://{args.host}:{port}/v1", flush=True)
    async with server:
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fault-rate", type=float, default=0.0, help="share of attempts that fail (default 0)")
    ap.add_argument("--stall-seconds", type=float, default=8.0, help="how long a stalled request is held")
    ap.add_argument("--max-faults-per-prompt", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not 0 <= args.fault_rate < 1:
        ap.error("--fault-rate must be in [0, 1)")
    asyncio.run(serve(args))


def log_of(base_url: str) -> list[Any]:
    """The chat log of a running bench server."""
    from tests.support.instant_server import http_json, origin
    return list(http_json(origin(base_url) + "/bench/log", timeout=60)["chat"])


if __name__ == "__main__":
    main()
