"""A fault-injecting HTTP/1.1 reverse proxy, to put in front of a real OpenAI-compatible server.

Plain asyncio, standard library only; upstream connections are kept alive and reused. Each request whose
"METHOD /path" matches `only_paths` (default: only POST /v1/chat/completions) may get one fault:

    429       answer 429 with 'Retry-After: <retry_after>' and an OpenAI-style JSON error, not forwarded
    500, 503  answer that status with a JSON error, not forwarded
    drop      close the connection without any response (drop_mode='reset': send a TCP RST), not forwarded
    stall     sleep `stall_seconds`, then forward and answer normally; if the client gave up meanwhile the
              request is not forwarded (counted as 'stall_abandoned')
    truncate  forward, then send half of the upstream body; truncate_mode='cut': with a Content-Length that
              matches the cut body (the connection stays usable), 'short': with the full Content-Length,
              then close the connection

The fault is chosen before forwarding (truncation is applied after) from a uniform draw that depends only on
(seed, sha256 of the body, how many times this body was seen), so a run is reproducible whatever the
concurrency: probabilities are cumulative in the order above and must sum to at most 1. After
`max_faults_per_body` faults for one body that body is always forwarded untouched, so a client with a large
enough retry budget is guaranteed to succeed.

Control endpoints (never forwarded): GET /proxy/stats, POST /proxy/stats/reset (also restarts the per-body
draws), GET /proxy/config, POST /proxy/config (JSON object: change any option except the upstream).
Paths under /v1 map to the upstream base URL's path; other paths go to the upstream origin as they are.

Run as a script it prints its base URL ('http://127.0.0.1:PORT/v1') as the first stdout line:
    python -m tests.support.fault_proxy --upstream URL [--seed S] [--p-429 0.1] [--p-500 P] [--p-503 P]
        [--p-drop P] [--p-stall P] [--p-truncate P] [--stall-seconds S] [--retry-after V]
        [--max-faults-per-body N] [--only-path 'POST /v1/chat/completions' ...] [--truncate-mode cut|short]
        [--drop-mode close|reset] [--port 0]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import signal
import socket
import struct
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import urlsplit

from tests.support.instant_server import (
    HOP_BY_HOP,
    MAX_HEAD,
    BadRequest,
    body_hash,
    content_length,
    dumps,
    error_body,
    header_map,
    http_json,
    keep_alive,
    origin,
    parse_head,
    response_bytes,
    run_child,
)

FAULTS = ("429", "500", "503", "drop", "stall", "truncate")
PROB_FIELDS = ("p_429", "p_500", "p_503", "p_drop", "p_stall", "p_truncate")
DEFAULT_ONLY_PATHS = ("POST /v1/chat/completions",)
MAX_IDLE_UPSTREAM = 128


@dataclass
class FaultConfig:
    """Everything the proxy does; see the module docstring."""

    upstream: str
    seed: int = 0
    p_429: float = 0.0
    p_500: float = 0.0
    p_503: float = 0.0
    p_drop: float = 0.0
    p_stall: float = 0.0
    p_truncate: float = 0.0
    stall_seconds: float = 5.0
    retry_after: str = "0"
    max_faults_per_body: int | None = None
    # "METHOD /path" or "/path" (any method); the path is a glob, "*" matches every path.
    only_paths: tuple[str, ...] = DEFAULT_ONLY_PATHS
    truncate_mode: str = "cut"
    drop_mode: str = "close"
    upstream_timeout: float = 600.0
    _rules: list[tuple[str | None, str]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.only_paths = tuple(self.only_paths)
        self.validate()

    def validate(self) -> None:
        for name in PROB_FIELDS:
            p = float(getattr(self, name))
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], not {p}")
            setattr(self, name, p)
        if sum(getattr(self, n) for n in PROB_FIELDS) > 1.0 + 1e-9:
            raise ValueError("the fault probabilities must sum to at most 1")
        if self.truncate_mode not in ("cut", "short"):
            raise ValueError("truncate_mode must be 'cut' or 'short'")
        if self.drop_mode not in ("close", "reset"):
            raise ValueError("drop_mode must be 'close' or 'reset'")
        if self.max_faults_per_body is not None and int(self.max_faults_per_body) < 0:
            raise ValueError("max_faults_per_body must be >= 0")
        if float(self.stall_seconds) < 0:
            raise ValueError("stall_seconds must be >= 0")
        self.seed = int(self.seed)
        self.stall_seconds = float(self.stall_seconds)
        self.retry_after = str(self.retry_after)
        self._rules = []
        for rule in self.only_paths:
            method, sep, path = rule.strip().partition(" ")
            self._rules.append((method.upper(), path.strip()) if sep else (None, method))
        parts = urlsplit(self.upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"upstream must be an http:// URL, not {self.upstream!r}")

    def public(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if not f.name.startswith("_")}
        d["only_paths"] = list(self.only_paths)
        return d

    def faultable(self, method: str, path: str) -> bool:
        return any((m is None or m == method) and fnmatchcase(path, p) for m, p in self._rules)

    def choose(self, digest: str, seen: int) -> str | None:
        """The fault for the `seen`-th sighting (0-based) of the body with sha256 `digest`, or None."""
        h = hashlib.sha256(f"{self.seed}:{digest}:{seen}".encode()).digest()
        u = int.from_bytes(h[:8], "big") / 2.0**64
        acc = 0.0
        for kind, name in zip(FAULTS, PROB_FIELDS, strict=True):
            acc += getattr(self, name)
            if u < acc:
                return kind
        return None


class UpstreamError(Exception):
    """The upstream could not be reached or answered something unreadable."""


class _Stale(Exception):
    """A reused upstream connection closed before sending a byte: safe to resend on a new one."""


class _Upstream:
    """One kept-alive upstream connection."""

    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.close()


async def _read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The head up to the blank line, or None on a clean EOF before any byte."""
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial:
            return None
        raise BadRequest("connection closed inside the head") from e
    except asyncio.LimitOverrunError as e:
        raise BadRequest("head too large", 431) from e


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        line = await reader.readuntil(b"\r\n")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError as e:
            raise BadRequest("bad chunk size") from e
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


class FaultProxy:
    def __init__(self, config: FaultConfig) -> None:
        self.config = config
        up = urlsplit(config.upstream)
        self.up_host = up.hostname or "127.0.0.1"
        self.up_port = up.port or 80
        self.up_hostport = up.netloc.rsplit("@", 1)[-1]
        self.up_path = up.path.rstrip("/")
        self.idle: list[_Upstream] = []
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.faultable = 0
        self.forwarded = 0
        self.forwarded_by_body: Counter[str] = Counter()
        self.forwarded_by_path: Counter[str] = Counter()
        self.faults: Counter[str] = Counter({k: 0 for k in FAULTS})
        self.faults_by_body: defaultdict[str, list[str]] = defaultdict(list)
        self.seen: Counter[str] = Counter()
        self.stall_abandoned = 0
        self.upstream_errors = 0
        self.connections = 0
        self.upstream_connections = 0

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.requests, "faultable": self.faultable, "forwarded": self.forwarded,
            "forwarded_by_body": dict(self.forwarded_by_body), "forwarded_by_path": dict(self.forwarded_by_path),
            "faults": dict(self.faults), "faults_by_body": dict(self.faults_by_body),
            "stall_abandoned": self.stall_abandoned, "upstream_errors": self.upstream_errors,
            "connections": self.connections, "upstream_connections": self.upstream_connections,
        }

    # ---- client side -----------------------------------------------------------------------------------------

    async def handle_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        state = {"counted": False}
        try:
            while await self._one(reader, writer, state):
                pass
        except BadRequest as e:
            with suppress(ConnectionError):
                writer.write(response_bytes(e.status, error_body(str(e), "invalid_request_error"), keep=False))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, state: dict[str, bool]) -> bool:
        """Serve one request; False when the connection must end."""
        head = await _read_head(reader)
        if head is None:
            return False
        method, target, version, fields = parse_head(head[:-4])
        if not version.startswith("HTTP/1."):
            raise BadRequest(f"unsupported protocol {version[:20]!r}")
        headers = header_map(fields)
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunked(reader)
        else:
            n = content_length(headers)
            if n and headers.get("expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = await reader.readexactly(n) if n else b""
        keep = keep_alive(version, headers)
        path = target.split("?", 1)[0]

        if path.startswith(("/proxy/", "/v1/proxy/")):
            status, payload = self._control(method, path.removeprefix("/v1"), body)
            writer.write(response_bytes(status, payload, keep=keep))
            await writer.drain()
            return keep

        self.requests += 1
        if not state["counted"]:  # connections that carried proxied traffic (control calls are not counted)
            state["counted"] = True
            self.connections += 1
        cfg = self.config
        digest = body_hash(body)
        kind = None
        if cfg.faultable(method, path):
            self.faultable += 1
            seen = self.seen[digest]
            self.seen[digest] = seen + 1
            if cfg.max_faults_per_body is None or len(self.faults_by_body[digest]) < cfg.max_faults_per_body:
                kind = cfg.choose(digest, seen)
        if kind is not None and kind != "stall":
            self._record(kind, digest)
        if kind in ("429", "500", "503"):
            writer.write(self._error_response(kind, keep))
            await writer.drain()
            return keep
        if kind == "drop":
            if cfg.drop_mode == "reset":
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
            return False
        if kind == "stall":
            self._record(kind, digest)
            await asyncio.sleep(cfg.stall_seconds)
            if reader.at_eof() or writer.is_closing():  # the client gave up: a real server would not answer
                self.stall_abandoned += 1
                return False

        try:
            status, rfields, rbody = await self._forward(method, target, fields, body)
        except UpstreamError as e:
            self.upstream_errors += 1
            timed_out = isinstance(e.__cause__, TimeoutError)
            writer.write(response_bytes(504 if timed_out else 502,
                                        error_body(f"fault_proxy: upstream failed: {e}", "upstream_error"),
                                        keep=keep))
            await writer.drain()
            return keep
        self.forwarded += 1
        self.forwarded_by_body[digest] += 1
        self.forwarded_by_path[path] += 1
        if kind == "truncate":
            cut = rbody[: len(rbody) // 2]
            marked = [*rfields, ("X-Fault-Proxy", "truncate")]
            if cfg.truncate_mode == "cut":
                writer.write(response_bytes(status, cut, marked, keep=keep, content_type=None))
                await writer.drain()
                return keep
            full = response_bytes(status, rbody, marked, keep=False, content_type=None)
            writer.write(full[: len(full) - len(rbody) + len(cut)])
            await writer.drain()
            return False
        writer.write(response_bytes(status, rbody, rfields, keep=keep, content_type=None))
        await writer.drain()
        return keep

    def _record(self, kind: str, digest: str) -> None:
        self.faults[kind] += 1
        self.faults_by_body[digest].append(kind)

    def _error_response(self, kind: str, keep: bool) -> bytes:
        marker = ("X-Fault-Proxy", kind)
        if kind == "429":
            body = error_body("Rate limit exceeded (injected by fault_proxy)", "rate_limit_error",
                              "rate_limit_exceeded")
            return response_bytes(429, body, [("Retry-After", self.config.retry_after), marker], keep=keep)
        if kind == "500":
            body = error_body("Internal server error (injected by fault_proxy)", "server_error")
            return response_bytes(500, body, [marker], keep=keep)
        body = error_body("Service unavailable (injected by fault_proxy)", "server_error", "overloaded")
        return response_bytes(503, body, [marker], keep=keep)

    def _control(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        if path == "/proxy/stats" and method == "GET":
            return 200, dumps(self.stats())
        if path == "/proxy/stats/reset" and method == "POST":
            self.reset()
            return 200, dumps({"reset": True})
        if path == "/proxy/config" and method == "GET":
            return 200, dumps(self.config.public())
        if path == "/proxy/config" and method == "POST":
            try:
                changes = json.loads(body or b"{}")
                if not isinstance(changes, dict):
                    raise ValueError("a JSON object of options is expected")
                unknown = set(changes) - set(self.config.public()) | ({"upstream"} & set(changes))
                if unknown:
                    raise ValueError(f"cannot set {sorted(unknown)}")
                merged = {**self.config.public(), **changes}
                self.config = FaultConfig(**merged)
            except (ValueError, TypeError) as e:
                return 400, error_body(str(e), "invalid_request_error")
            return 200, dumps(self.config.public())
        return 404, error_body(f"no control route {method} {path}", "invalid_request_error")

    # ---- upstream side ---------------------------------------------------------------------------------------

    def _upstream_target(self, target: str) -> str:
        if target == "/v1" or target.startswith(("/v1/", "/v1?")):
            return self.up_path + target[3:]
        return target

    async def _connect(self) -> _Upstream:
        reader, writer = await asyncio.open_connection(self.up_host, self.up_port, limit=MAX_HEAD)
        self.upstream_connections += 1
        return _Upstream(reader, writer)

    async def _forward(self, method: str, target: str, fields: list[tuple[str, str]], body: bytes
                       ) -> tuple[int, list[tuple[str, str]], bytes]:
        lines = [f"{method} {self._upstream_target(target)} HTTP/1.1", f"Host: {self.up_hostport}"]
        lines += [f"{k}: {v}" for k, v in fields
                  if k.lower() not in HOP_BY_HOP and k.lower() not in ("host", "content-length", "expect")]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        try:
            async with asyncio.timeout(self.config.upstream_timeout):
                while True:
                    conn, reused = None, False
                    while self.idle:
                        candidate = self.idle.pop()
                        if candidate.usable():
                            conn, reused = candidate, True
                            break
                        candidate.close()
                    if conn is None:
                        conn = await self._connect()
                    try:
                        return await self._exchange(conn, method, request)
                    except _Stale:
                        conn.close()
                        if not reused:
                            raise UpstreamError("upstream closed the connection without answering") from None
                    except BaseException:
                        conn.close()
                        raise
        except TimeoutError as e:
            raise UpstreamError(f"no answer within {self.config.upstream_timeout:g}s") from e
        except (OSError, ValueError, asyncio.IncompleteReadError, BadRequest) as e:
            raise UpstreamError(f"{type(e).__name__}: {e}") from e

    async def _exchange(self, conn: _Upstream, method: str, request: bytes
                        ) -> tuple[int, list[tuple[str, str]], bytes]:
        try:
            conn.writer.write(request)
            await conn.writer.drain()
            head = await _read_head(conn.reader)
        except ConnectionError as e:
            raise _Stale from e
        if head is None:
            raise _Stale
        while True:
            version, code, _reason, fields = parse_head(head[:-4])
            status = int(code)
            if status >= 200 or status == 101:
                break
            head = await _read_head(conn.reader)  # skip '100 Continue' and other interim answers
            if head is None:
                raise UpstreamError("upstream closed after an interim response")
        headers = header_map(fields)
        reuse = keep_alive(version, headers)
        if method == "HEAD" or status in (204, 304):
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunked(conn.reader)
        elif "content-length" in headers:
            body = await conn.reader.readexactly(content_length(headers))
        else:  # delimited by the end of the connection
            body, reuse = await conn.reader.read(), False
        if reuse and len(self.idle) < MAX_IDLE_UPSTREAM:
            self.idle.append(conn)
        else:
            conn.close()
        kept = [(k, v) for k, v in fields if k.lower() not in HOP_BY_HOP and k.lower() != "content-length"]
        return status, kept, body

    async def aclose(self) -> None:
        for conn in self.idle:
            conn.close()
        self.idle.clear()


async def start(config: FaultConfig, host: str = "127.0.0.1", port: int = 0
                ) -> tuple[asyncio.Server, FaultProxy]:
    """Serve the proxy on the running loop; the caller owns the returned server."""
    proxy = FaultProxy(config)
    server = await asyncio.start_server(proxy.handle_client, host, port, limit=MAX_HEAD, backlog=2048)
    return server, proxy


async def _serve(config: FaultConfig, host: str, port: int) -> None:
    server, proxy = await start(config, host, port)
    bound = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"http://{host}:{bound}/v1", flush=True)
    async with server:
        await stop.wait()
    await proxy.aclose()


def _cli_args(options: dict[str, Any]) -> list[str]:
    """CLI flags for FaultConfig options (the inverse of `main`'s parser)."""
    out: list[str] = []
    for name, value in options.items():
        if value is None:
            continue
        if name == "only_paths":
            out += [f"--only-path={p}" for p in value] or ["--no-faultable-paths"]
            continue
        out.append(f"--{name.replace('_', '-')}={value}")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="A fault-injecting reverse proxy for OpenAI-compatible servers.")
    ap.add_argument("--upstream", required=True, help="upstream base URL, e.g. http://127.0.0.1:8080/v1")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = any free port (default)")
    ap.add_argument("--seed", type=int, default=0)
    for name in PROB_FIELDS:
        ap.add_argument(f"--{name.replace('_', '-')}", type=float, default=0.0, help="probability per request")
    ap.add_argument("--stall-seconds", type=float, default=5.0)
    ap.add_argument("--retry-after", default="0", help="Retry-After header value of injected 429s")
    ap.add_argument("--max-faults-per-body", type=int, default=None)
    ap.add_argument("--only-path", action="append", dest="only_paths", default=None,
                    help="'METHOD /glob' or '/glob' eligible for faults (repeatable; default "
                         "'POST /v1/chat/completions'; '*' = every path)")
    ap.add_argument("--no-faultable-paths", action="store_true", help="never inject faults")
    ap.add_argument("--truncate-mode", choices=("cut", "short"), default="cut")
    ap.add_argument("--drop-mode", choices=("close", "reset"), default="close")
    ap.add_argument("--upstream-timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    only = () if args.no_faultable_paths else tuple(args.only_paths or DEFAULT_ONLY_PATHS)
    try:
        config = FaultConfig(
            upstream=args.upstream, seed=args.seed, stall_seconds=args.stall_seconds,
            retry_after=args.retry_after, max_faults_per_body=args.max_faults_per_body, only_paths=only,
            truncate_mode=args.truncate_mode, drop_mode=args.drop_mode, upstream_timeout=args.upstream_timeout,
            **{name: getattr(args, name) for name in PROB_FIELDS})
    except ValueError as e:
        ap.error(str(e))
    asyncio.run(_serve(config, args.host, args.port))


@contextmanager
def fault_proxy(upstream_base_url: str, seed: int = 0, *, port: int = 0, p_429: float = 0.0,
                p_500: float = 0.0, p_503: float = 0.0, p_drop: float = 0.0, p_stall: float = 0.0,
                p_truncate: float = 0.0, stall_seconds: float = 5.0, retry_after: float | str = 0,
                max_faults_per_body: int | None = None, only_paths: tuple[str, ...] | list[str] | None = None,
                truncate_mode: str = "cut", drop_mode: str = "close", upstream_timeout: float = 600.0
                ) -> Iterator[str]:
    """Run the proxy in a child process in front of `upstream_base_url`; yield its base URL
    ('http://127.0.0.1:PORT/v1'). Options as FaultConfig; they are checked here before the child starts."""
    options: dict[str, Any] = dict(
        seed=seed, p_429=p_429, p_500=p_500, p_503=p_503, p_drop=p_drop, p_stall=p_stall, p_truncate=p_truncate,
        stall_seconds=stall_seconds, retry_after=retry_after, max_faults_per_body=max_faults_per_body,
        only_paths=DEFAULT_ONLY_PATHS if only_paths is None else tuple(only_paths),
        truncate_mode=truncate_mode, drop_mode=drop_mode, upstream_timeout=upstream_timeout)
    FaultConfig(upstream=upstream_base_url, **options)  # fail here, not in the child
    cmd = [sys.executable, "-m", "tests.support.fault_proxy", f"--upstream={upstream_base_url}",
           f"--port={port}", *_cli_args(options)]
    with run_child(cmd, "fault proxy", "/proxy/stats") as url:
        yield url


def proxy_stats(base_url: str) -> dict[str, Any]:
    """GET /proxy/stats, given the proxy's base URL."""
    return http_json(origin(base_url) + "/proxy/stats")


def reset_proxy_stats(base_url: str) -> None:
    """POST /proxy/stats/reset: zero the counters and restart every body's fault sequence."""
    http_json(origin(base_url) + "/proxy/stats/reset", method="POST", payload={})


def configure_proxy(base_url: str, **changes: Any) -> dict[str, Any]:
    """POST /proxy/config: change options of a running proxy (e.g. p_500=1.0); returns the new config."""
    if "only_paths" in changes:
        changes["only_paths"] = list(changes["only_paths"])
    return http_json(origin(base_url) + "/proxy/config", method="POST", payload=changes)


if __name__ == "__main__":
    main()
