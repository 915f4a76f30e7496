"""An OpenAI-compatible chat server that answers at once, so only the client harness is timed.

Plain asyncio (a Protocol, HTTP/1.1 keep-alive, Content-Length bodies), standard library only. Replies are
deterministic: the content is "答案：X" with X = letters[sha256(canonical messages JSON) % len(letters)], see
`answer_letter`. With `logprobs` requested the reply starts with the letter itself (like a model asked for one
token) and carries top_logprobs in which X is the most likely token. Every POST /v1/chat/completions is
counted per sha256 of its raw body, so a test can assert that no request was sent twice:

    GET  /v1/models             {"object": "list", "data": [{"id": MODEL, ...}]}
    POST /v1/chat/completions   a chat.completion
    GET  /stats                 {"requests": N, "by_body": {sha256: count}, "connections": ..., "max_in_flight":
                                 the most delayed completions at once, ...}
    POST /stats/reset           zero every counter
    GET  /health                {"status": "ok"}

With `replies` (a JSON file {sha256 of the last user message's text: reply}, see `user_digest`) a prompt found
there gets its given reply, e.g. each item's gold answer.

With `latency` (seconds) every chat completion is answered after that delay, and with `slots` at most that many
are worked on at once (the others wait their turn, like a GPU server's batch slots): such a server serves at most
slots / latency requests per second, so it, not the client, is the bottleneck of a throughput measurement.

Run as a script it prints its base URL ('http://127.0.0.1:PORT/v1') as the first stdout line and serves until
SIGTERM/SIGINT:
    python -m tests.support.instant_server [--port 0] [--api-key KEY] [--model NAME] [--extra-text TEXT]
        [--latency SECONDS] [--slots N] [--open-models] [--vary-by-seed]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = "instant-test"

# --------------------------------------------------------------------------------------------------------------
# Minimal HTTP/1.1 pieces, shared with tests/support/fault_proxy.py.

MAX_HEAD = 64 * 1024
MAX_BODY = 32 * 1024 * 1024
REASONS = {
    100: "Continue", 200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
    405: "Method Not Allowed", 411: "Length Required", 413: "Payload Too Large",
    429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
    501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
}
# Headers that describe one connection, never forwarded by a proxy (RFC 9110 §7.6.1).
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                        "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"})


class BadRequest(Exception):
    """The peer sent something that is not HTTP/1.1 we understand; answer `status` and close."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def parse_head(head: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    """The start line's three parts and the header fields (names as sent) of a request or response head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) != 3:
        raise BadRequest(f"malformed start line {lines[0][:80]!r}")
    fields: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(f"malformed header line {line[:80]!r}")
        fields.append((name, value.strip()))
    return parts[0], parts[1], parts[2], fields


def header_map(fields: list[tuple[str, str]]) -> dict[str, str]:
    """Lower-cased names; repeated fields joined with ', ' (a repeated Content-Length is refused later)."""
    out: dict[str, str] = {}
    for name, value in fields:
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def content_length(headers: dict[str, str]) -> int:
    value = headers.get("content-length")
    if value is None:
        return 0
    if not value.isdigit():
        raise BadRequest(f"bad Content-Length {value[:40]!r}")
    n = int(value)
    if n > MAX_BODY:
        raise BadRequest("body too large", 413)
    return n


def keep_alive(version: str, headers: dict[str, str]) -> bool:
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    if version == "HTTP/1.1":
        return "close" not in tokens
    return "keep-alive" in tokens


def response_bytes(status: int, body: bytes, headers: list[tuple[str, str]] | None = None,
                   keep: bool = True, content_type: str | None = "application/json") -> bytes:
    """A complete HTTP/1.1 response with a Content-Length body."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    for name, value in headers or ():
        lines.append(f"{name}: {value}")
    lines.append(f"Content-Length: {len(body)}")
    if not keep:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def error_body(message: str, type_: str, code: str | None = None) -> bytes:
    err: dict[str, Any] = {"message": message, "type": type_}
    if code is not None:
        err["code"] = code
    return dumps({"error": err})


def body_hash(body: bytes) -> str:
    """The key of the per-body counters of both test servers: sha256 hex of the raw request body."""
    return hashlib.sha256(body).hexdigest()


def origin(base_url: str) -> str:
    """'http://127.0.0.1:PORT' from 'http://127.0.0.1:PORT/v1'."""
    base = base_url.rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


def http_json(url: str, method: str = "GET", payload: Any = None, timeout: float = 10.0) -> Any:
    """A small stdlib JSON request, for the stats endpoints of the test servers."""
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read() or b"null")


# --------------------------------------------------------------------------------------------------------------
# The deterministic model.

def canonical_messages(messages: Any) -> bytes:
    """The messages as sorted-key, compact, UTF-8 JSON: what the answer letter is hashed from."""
    return json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def user_digest(messages: Any) -> str:
    """sha256 (hex) of the last user message's text: the key of a `--replies` file."""
    last = next((m.get("content") for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"),
                "")
    return hashlib.sha256(str(last).encode("utf-8")).hexdigest()


def answer_letter(messages: Any, letters: str = "ABCD", seed: Any = None) -> str:
    """The letter the instant server answers for these messages (with `--vary-by-seed`: and this request seed)."""
    salt = b"" if seed is None else b"\0seed=" + str(seed).encode()
    digest = hashlib.sha256(canonical_messages(messages) + salt).digest()
    return letters[int.from_bytes(digest, "big") % len(letters)]


def reply_tokens(messages: Any, letters: str = "ABCD", extra_text: str = "", letter_first: bool = False,
                 seed: Any = None) -> list[str]:
    """The full reply, as tokens, before max_tokens and stop sequences: "答案", "：", X, then extra text by
    character; with `letter_first` (logprobs requested) X comes first."""
    x = answer_letter(messages, letters, seed)
    head = [x] if letter_first else ["答案", "：", x]
    return head + list(extra_text)


def _message_chars(messages: list[Any]) -> int:
    n = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            n += len(content)
        elif isinstance(content, list):  # content parts
            n += sum(len(p.get("text", "")) for p in content if isinstance(p, dict))
    return n


def _token_logprobs(token: str, k: int, letters: str, salt: bytes) -> dict[str, Any]:
    """A deterministic logprobs entry: `token` most likely, then the other letters, then fillers."""
    chosen = -0.01 - (salt[0] % 50) / 1000.0
    alts = [c for c in letters if c != token] + [f"<alt{i}>" for i in range(k)]
    top = [{"token": token, "logprob": chosen, "bytes": list(token.encode())}]
    for i, alt in enumerate(alts[: max(0, k - 1)]):
        lp = -2.0 - i - (salt[(i + 1) % len(salt)] % 100) / 100.0
        top.append({"token": alt, "logprob": lp, "bytes": list(alt.encode())})
    return {"token": token, "logprob": chosen, "bytes": list(token.encode()), "top_logprobs": top[:k]}


class InstantApp:
    """Routes and counters; `handle` maps one request to one response, synchronously."""

    def __init__(self, model: str = DEFAULT_MODEL, api_key: str | None = None, extra_text: str = "",
                 letters: str = "ABCD", reply: str | None = None, latency: float = 0.0, slots: int = 0,
                 replies: dict[str, str] | None = None, open_models: bool = False, vary_by_seed: bool = False) -> None:
        if not letters:
            raise ValueError("letters must not be empty")
        if latency < 0 or slots < 0:
            raise ValueError("latency and slots must not be negative")
        self.model, self.api_key, self.extra_text, self.letters = model, api_key, extra_text, letters
        self.reply = reply  # a fixed reply for every request, instead of "答案：X"
        # {sha256 of the last user message's text: reply}: a given answer per prompt (e.g. each item's gold)
        self.replies = replies or {}
        self.latency, self.slots = latency, slots
        self.open_models = open_models  # GET /v1/models needs no key (llama.cpp's server: a public endpoint)
        # the answer letter hashes the request's seed too: a sampling model whose answer changes with the seed
        self.vary_by_seed = vary_by_seed
        self._slots: asyncio.Semaphore | None = None
        self.created = int(time.time())
        self.in_flight = 0  # chat completions waiting their delay right now (delayed apps only)
        self.reset()

    def reset(self) -> None:
        self.requests = 0  # POST /v1/chat/completions received, whatever the outcome
        self.ok = 0
        self.by_body: Counter[str] = Counter()
        self.unauthorized = 0
        self.bad_requests = 0
        self.models = 0
        self.connections = 0
        self.max_in_flight = 0  # the most chat completions waiting their delay at once (delayed apps only)

    def stats(self) -> dict[str, Any]:
        return {"requests": self.requests, "by_body": dict(self.by_body), "ok": self.ok,
                "unauthorized": self.unauthorized, "bad_requests": self.bad_requests, "models": self.models,
                "connections": self.connections, "max_in_flight": self.max_in_flight}

    @property
    def delayed(self) -> bool:
        """Whether chat completions wait (a latency or a limited number of slots)."""
        return self.latency > 0 or self.slots > 0

    async def wait_turn(self, target: str) -> None:
        """For a chat completion: wait for a free slot, then `latency` seconds (the slot is held meanwhile)."""
        if target.split("?", 1)[0] not in ("/v1/chat/completions", "/chat/completions"):
            return
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.slots <= 0:
                await asyncio.sleep(self.latency)
                return
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.slots)
            async with self._slots:
                await asyncio.sleep(self.latency)
        finally:
            self.in_flight -= 1

    def _authorized(self, headers: dict[str, str]) -> bool:
        return self.api_key is None or headers.get("authorization") == f"Bearer {self.api_key}"

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes
               ) -> tuple[int, bytes, list[tuple[str, str]]]:
        path = target.split("?", 1)[0]
        if path in ("/v1/chat/completions", "/chat/completions"):
            if method != "POST":
                return 405, error_body("use POST", "invalid_request_error"), [("Allow", "POST")]
            self.requests += 1
            self.by_body[body_hash(body)] += 1
            if not self._authorized(headers):
                self.unauthorized += 1
                return 401, error_body("Invalid API Key", "authentication_error"), []
            return self._chat(body)
        if path in ("/v1/models", "/models"):
            if method != "GET":
                return 405, error_body("use GET", "invalid_request_error"), [("Allow", "GET")]
            self.models += 1
            if not self.open_models and not self._authorized(headers):
                self.unauthorized += 1
                return 401, error_body("Invalid API Key", "authentication_error"), []
            return 200, dumps({"object": "list", "data": [
                {"id": self.model, "object": "model", "created": self.created, "owned_by": "instant-server"}]}), []
        if path in ("/stats", "/v1/stats") and method == "GET":
            return 200, dumps(self.stats()), []
        if path in ("/stats/reset", "/v1/stats/reset") and method == "POST":
            self.reset()
            return 200, dumps({"reset": True}), []
        if path == "/health" and method == "GET":
            return 200, dumps({"status": "ok"}), []
        return 404, error_body(f"no route for {method} {path}", "invalid_request_error"), []

    def _bad(self, message: str) -> tuple[int, bytes, list[tuple[str, str]]]:
        self.bad_requests += 1
        return 400, error_body(message, "invalid_request_error"), []

    def _chat(self, body: bytes) -> tuple[int, bytes, list[tuple[str, str]]]:
        try:
            req = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return self._bad("request body is not valid JSON")
        if not isinstance(req, dict):
            return self._bad("request body must be a JSON object")
        messages = req.get("messages")
        if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str) and "content" in m for m in messages):
            return self._bad("'messages' must be a non-empty list of {role, content} objects")
        if req.get("stream"):
            return self._bad("stream=true is not supported by the instant server")
        max_tokens = req.get("max_tokens", req.get("max_completion_tokens"))
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int)
                                       or max_tokens < 1):
            return self._bad("'max_tokens' must be a positive integer")
        want_lp = bool(req.get("logprobs"))
        k = req.get("top_logprobs") or 0
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 20:
            return self._bad("'top_logprobs' must be an integer between 0 and 20")
        stop = req.get("stop") or []
        if isinstance(stop, str):
            stop = [stop]
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            return self._bad("'stop' must be a string or a list of strings")

        given = self.replies.get(user_digest(messages)) if self.replies else None
        tokens = (list(given) if given is not None else list(self.reply) if self.reply is not None
                  else reply_tokens(messages, self.letters, self.extra_text, letter_first=want_lp,
                                    seed=req.get("seed") if self.vary_by_seed else None))
        finish = "stop"
        if max_tokens is not None and len(tokens) > max_tokens:
            tokens, finish = tokens[:max_tokens], "length"
        text = "".join(tokens)
        stops = [text.find(s) for s in stop if s and s in text]
        if stops:  # cut at the earliest stop sequence; count the tokens needed to reach it
            cut = min(stops)
            text, finish = text[:cut], "stop"
            n, used = 0, 0
            while used < cut:
                used += len(tokens[n])
                n += 1
            tokens = tokens[:n]
        digest = hashlib.sha256(canonical_messages(messages)).digest()
        logprobs = None
        if want_lp:
            logprobs = {"content": [_token_logprobs(t, k, self.letters, digest[i % 32:] + digest[:i % 32])
                                    for i, t in enumerate(tokens)], "refusal": None}
        prompt_tokens = max(1, (_message_chars(messages) + 1) // 2)
        resp = {
            "id": "chatcmpl-" + digest.hex()[:24],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "system_fingerprint": "instant-server",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "logprobs": logprobs, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(tokens),
                      "total_tokens": prompt_tokens + len(tokens)},
        }
        self.ok += 1
        return 200, dumps(resp), []


class _InstantProtocol(asyncio.Protocol):
    """One connection: parse requests from the buffer (pipelining allowed) and answer each in order."""

    def __init__(self, app: InstantApp) -> None:
        self.app = app
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.continued = False  # '100 Continue' already sent for the request being read
        # With a delayed app, requests of this connection are answered in order by one task.
        self.waiting: asyncio.Queue[tuple[str, str, dict[str, str], bytes, bool]] | None = None
        self.answering: asyncio.Task[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.app.connections += 1

    def data_received(self, data: bytes) -> None:
        self.buf += data
        try:
            self._process()
        except BadRequest as e:
            self._fail(e.status, str(e))

    def _fail(self, status: int, message: str) -> None:
        assert self.transport is not None
        self.app.bad_requests += 1
        self.transport.write(response_bytes(status, error_body(message, "invalid_request_error"), keep=False))
        self.transport.close()
        self.buf.clear()

    def _process(self) -> None:
        transport = self.transport
        assert transport is not None
        while self.buf and not transport.is_closing():
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEAD:
                    raise BadRequest("request head too large", 431)
                return
            method, target, version, fields = parse_head(bytes(self.buf[:end]))
            if not version.startswith("HTTP/1."):
                raise BadRequest(f"unsupported protocol {version[:20]!r}")
            headers = header_map(fields)
            if "transfer-encoding" in headers:
                raise BadRequest("chunked request bodies are not supported; send Content-Length", 411)
            n = content_length(headers)
            total = end + 4 + n
            if len(self.buf) < total:
                if not self.continued and headers.get("expect", "").lower() == "100-continue":
                    self.continued = True
                    transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                return
            body = bytes(self.buf[end + 4:total])
            del self.buf[:total]
            self.continued = False
            keep = keep_alive(version, headers)
            if self.app.delayed:
                if self.waiting is None:
                    self.waiting = asyncio.Queue()
                    self.answering = asyncio.get_running_loop().create_task(self._answer_in_turn())
                self.waiting.put_nowait((method, target, headers, body, keep))
                if not keep:
                    return
                continue
            status, payload, extra = self.app.handle(method, target, headers, body)
            transport.write(response_bytes(status, payload, extra, keep=keep))
            if not keep:
                transport.close()
                return

    async def _answer_in_turn(self) -> None:
        """Answer this connection's requests in order, each after its wait (delayed apps only)."""
        assert self.waiting is not None and self.transport is not None
        while True:
            method, target, headers, body, keep = await self.waiting.get()
            await self.app.wait_turn(target)
            if self.transport.is_closing():
                return
            status, payload, extra = self.app.handle(method, target, headers, body)
            self.transport.write(response_bytes(status, payload, extra, keep=keep))
            if not keep:
                self.transport.close()
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self.buf.clear()
        if self.answering is not None:
            self.answering.cancel()


async def start(app: InstantApp, host: str = "127.0.0.1", port: int = 0) -> asyncio.Server:
    """Serve `app` on the running loop; the caller owns the returned server."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: _InstantProtocol(app), host, port, backlog=2048)


async def _serve(args: argparse.Namespace) -> None:
    app = InstantApp(model=args.model, api_key=args.api_key, extra_text=args.extra_text, letters=args.letters,
                     reply=args.reply, latency=args.latency, slots=args.slots,
                     replies=json.loads(Path(args.replies).read_text("utf-8")) if args.replies else None,
                     open_models=args.open_models, vary_by_seed=args.vary_by_seed)
    server = await start(app, args.host, args.port)
    port = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"http://{args.host}:{port}/v1", flush=True)
    async with server:
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="An instant, deterministic OpenAI-compatible chat server.")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = any free port (default)")
    ap.add_argument("--api-key", default=None, help="require 'Authorization: Bearer KEY'")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the id served by /v1/models")
    ap.add_argument("--extra-text", default="", help="appended to every reply after '答案：X'")
    ap.add_argument("--letters", default="ABCD", help="the answer alphabet (default ABCD)")
    ap.add_argument("--reply", default=None, help="reply this fixed text to every chat request")
    ap.add_argument("--replies", default=None,
                    help="a JSON file {sha256 of the last user message: reply}; other prompts get the usual reply")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each chat completion is answered")
    ap.add_argument("--slots", type=int, default=0, help="chat completions worked on at once (0 = no limit)")
    ap.add_argument("--open-models", action="store_true", help="GET /v1/models without the key (as llama.cpp)")
    ap.add_argument("--vary-by-seed", action="store_true",
                    help="the answer letter also hashes the request's seed (answers differ between seeds)")
    args = ap.parse_args(argv)
    asyncio.run(_serve(args))


def wait_ready(url: str, proc: subprocess.Popen[str], what: str, timeout: float = 15.0) -> None:
    """Poll `url` until it answers 200, or raise if the child died or time ran out."""
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode}")
        if time.time() > deadline:
            raise RuntimeError(f"{what} never became ready")
        time.sleep(0.05)


@contextmanager
def run_child(cmd: list[str], what: str, ready_path: str, timeout: float = 15.0) -> Iterator[str]:
    """Start `python -m ...` from the repository root, yield the base URL it prints, stop it afterwards."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().strip()
        if not address.startswith("http"):
            raise RuntimeError(f"{what} did not start (exit code {proc.poll()})")
        wait_ready(origin(address) + ready_path, proc, what, timeout)
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def instant_server(port: int = 0, api_key: str | None = None, model: str = DEFAULT_MODEL,
                   extra_text: str = "", letters: str = "ABCD", reply: str | None = None, latency: float = 0.0,
                   slots: int = 0, replies: str | Path | None = None, open_models: bool = False,
                   vary_by_seed: bool = False) -> Iterator[str]:
    """Start the instant server in a child process, yield its base URL ('http://127.0.0.1:PORT/v1'); `replies`: a
    JSON file {sha256 of the last user message (`user_digest`): reply}."""
    cmd = [sys.executable, "-m", "tests.support.instant_server", "--port", str(port), "--model", model,
           "--letters", letters, "--latency", repr(latency), "--slots", str(slots)]
    if api_key:
        cmd += ["--api-key", api_key]
    if extra_text:
        cmd.append(f"--extra-text={extra_text}")
    if reply is not None:
        cmd.append(f"--reply={reply}")
    if replies is not None:
        cmd += ["--replies", str(replies)]
    if open_models:
        cmd.append("--open-models")
    if vary_by_seed:
        cmd.append("--vary-by-seed")
    with run_child(cmd, "instant server", "/health") as url:
        yield url


def get_stats(base_url: str) -> dict[str, Any]:
    """GET /stats of an instant server, given its base URL."""
    return http_json(origin(base_url) + "/stats")


def reset_stats(base_url: str) -> None:
    """POST /stats/reset of an instant server."""
    http_json(origin(base_url) + "/stats/reset", method="POST", payload={})


if __name__ == "__main__":
    main()
