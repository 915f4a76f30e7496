"""Any OpenAI-compatible chat server: vLLM, SGLang, Ollama, llama.cpp server, commercial APIs.

Transient faults (timeouts, connection resets, 429 with Retry-After, 5xx, malformed or truncated
bodies) are retried with exponential backoff and jitter; authentication errors stop the run at once.

The HTTP client is aiohttp rather than httpx: with httpx (httpcore 1.0.9) the harness managed about
350 requests/s at 64 connections on two cores — its pool bookkeeping grows with the number of
connections (encode/httpcore#1035) — while aiohttp keeps up (bench/harness_throughput.py).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from climedbench.core.types import EndpointStats
from climedbench.errors import AuthError, ModelError
from climedbench.models.base import (
    Backend,
    Completion,
    GenParams,
    Message,
    RequestFailed,
    chat_request,
    parse_chat_response,
)
from climedbench.secrets import redact


class Retryable(Exception):
    """A fault worth another attempt; `retry_after` is the server's requested delay, if any; `kind` names the
    fault for per-endpoint statistics (timeout, connection, http_429, http_5xx, malformed)."""

    def __init__(self, reason: str, retry_after: float | None = None, kind: str = "error") -> None:
        super().__init__(reason)
        self.reason, self.retry_after, self.kind = reason, retry_after, kind


def _retry_after(headers: Any) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def public_url(url: str) -> str:
    """The URL without user:password and query string (which may hold credentials)."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _error_text(body: bytes) -> str:
    try:
        data = json.loads(body)
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
    except (json.JSONDecodeError, ValueError, UnicodeDecodeError):
        msg = body[:200].decode("utf-8", "replace")
    return redact(str(msg))[:300]


@dataclass
class OpenAIBackend(Backend):
    """Chat completions over HTTP."""

    model: str = ""
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0

    def __post_init__(self) -> None:
        if not self.model:
            raise ModelError("openai:NAME needs a model name, e.g. --model openai:qwen2.5-7b-instruct")
        self.base_url = self.base_url.rstrip("/")
        self._headers = {"Content-Type": "application/json"}
        if self.api_key:
            self._headers["Authorization"] = f"Bearer {self.api_key}"
        self._timeout = aiohttp.ClientTimeout(total=self.timeout, connect=min(10.0, self.timeout))
        self._session: aiohttp.ClientSession | None = None
        self._wait_backoff = wait_exponential_jitter(multiplier=self.backoff_initial, max=self.backoff_max,
                                                     jitter=self.backoff_initial)
        self.fingerprint = {"backend": "openai", "model": self.model, "base_url": public_url(self.base_url)}
        self.retried = 0
        self.stats = EndpointStats(endpoint=public_url(self.base_url), max_concurrency=self.max_concurrency)

    def endpoint_stats(self) -> list[EndpointStats]:
        """What this endpoint served so far (counters only)."""
        return [self.stats.model_copy(deep=True)]

    @property
    def session(self) -> aiohttp.ClientSession:
        """One session per backend, created inside the running event loop."""
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=max(1, self.max_concurrency), ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector, headers=self._headers,
                                                  timeout=self._timeout, raise_for_status=False)
        return self._session

    async def check(self, retry: bool = True) -> None:
        """Fail fast on an unreachable server, a wrong key or an unknown model (GET /models).

        Transient faults (timeouts, resets, 429, 5xx) are retried under the same policy as every request; the
        run stops only when the last attempt fails too. `retry=False`: one attempt (a pool backs off an
        unreachable endpoint itself and starts with the others)."""
        where = public_url(self.base_url)
        attempts = 0
        try:
            async for attempt in self._retrying(1 if not retry else None):
                with attempt:
                    attempts += 1
                    status, body = await self._get_models()
        except Retryable as e:
            raise ModelError(f"cannot reach server at {where}: {e.reason} (GET /models, gave up after {attempts} "
                             "attempts)") from e
        if status in (401, 403):
            raise AuthError(f"server at {where} rejected the API key (HTTP {status}: "
                            f"{_error_text(body)}); check the variable named by --api-key-env")
        if status == 200:
            try:
                ids = [m.get("id") for m in json.loads(body).get("data", [])]
            except (ValueError, AttributeError):
                ids = []
            # Servers that serve one model under any name (llama.cpp, some proxies) are not refused.
            if ids and self.model not in ids and len(ids) > 1:
                raise ModelError(f"server at {where} does not serve model {self.model!r}; it serves: "
                                 + ", ".join(str(i) for i in ids[:10]))

    async def _get_models(self) -> tuple[int, bytes]:
        """One GET /models: status and body, or Retryable for a transient fault."""
        try:
            async with self.session.get(self.base_url + "/models") as resp:
                status, headers, body = resp.status, resp.headers, await resp.read()
        except TimeoutError as e:
            raise Retryable(f"no answer within {self.timeout:g}s", kind="timeout") from e
        except (aiohttp.ClientError, ConnectionError) as e:
            raise Retryable(f"cannot connect: {redact(str(e)) or type(e).__name__}", kind="connection") from e
        if status == 429:
            raise Retryable(f"rate limited (HTTP 429: {_error_text(body)})", _retry_after(headers), kind="http_429")
        if status >= 500:
            raise Retryable(f"server error HTTP {status}: {_error_text(body)}", _retry_after(headers),
                            kind="http_5xx")
        return status, body

    def _retrying(self, attempts: int | None = None) -> AsyncRetrying:
        """The retry policy of every call: Retryable faults, backoff (or Retry-After), max_retries + 1 attempts."""
        return AsyncRetrying(stop=stop_after_attempt(attempts or self.max_retries + 1), wait=self._wait,
                             retry=retry_if_exception_type(Retryable), reraise=True)

    def _payload(self, messages: list[Message], params: GenParams) -> dict[str, Any]:
        return {"model": self.model, **chat_request(messages, params)}

    async def attempt(self, body: bytes) -> tuple[dict[str, Any], float]:
        """One POST of a request body, no retry: the response and its latency, or the fault (counted per kind)."""
        self.stats.requests += 1
        try:
            data, latency = await self._once(body)
        except Retryable as e:
            self._count_error(e.kind)
            raise
        except AuthError:
            self._count_error("auth")
            raise
        except ModelError:
            self._count_error("http_404")
            raise
        except RequestFailed:
            self._count_error("http_4xx")
            raise
        self.stats.ok += 1
        self.stats.latency_sum += latency
        usage = data.get("usage") or {}
        self.stats.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.stats.completion_tokens += int(usage.get("completion_tokens") or 0)
        return data, latency

    def _count_error(self, kind: str) -> None:
        self.stats.errors += 1
        self.stats.error_kinds[kind] = self.stats.error_kinds.get(kind, 0) + 1

    async def _once(self, body: bytes) -> tuple[dict[str, Any], float]:
        start = time.perf_counter()
        try:
            async with self.session.post(self.base_url + "/chat/completions", data=body) as resp:
                status, headers = resp.status, resp.headers
                raw = await resp.read()
        except TimeoutError as e:
            raise Retryable(f"timeout after {self.timeout:g}s", kind="timeout") from e
        except (aiohttp.ClientError, ConnectionError) as e:  # resets, refused, truncated payloads
            raise Retryable(f"connection error: {redact(str(e)) or type(e).__name__}", kind="connection") from e
        latency = time.perf_counter() - start
        if status in (401, 403):
            raise AuthError(f"server at {public_url(self.base_url)} rejected the API key "
                            f"(HTTP {status}: {_error_text(raw)})")
        if status == 429:
            raise Retryable(f"rate limited (HTTP 429: {_error_text(raw)})", _retry_after(headers), kind="http_429")
        if status >= 500:
            raise Retryable(f"server error HTTP {status}: {_error_text(raw)}", _retry_after(headers),
                            kind="http_5xx")
        if status == 404:
            raise ModelError(f"server at {public_url(self.base_url)} answered 404 for /chat/completions "
                             f"(model {self.model!r} unknown or wrong --base-url): {_error_text(raw)}")
        if status >= 400:
            raise RequestFailed(f"HTTP {status}: {_error_text(raw)}")
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            _ = choice["message"]["content"]  # a body without it is malformed
        except (json.JSONDecodeError, ValueError, KeyError, IndexError, TypeError) as e:
            raise Retryable(f"malformed response body ({type(e).__name__}: {raw[:80]!r})", kind="malformed") from e
        return data, latency

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, Retryable) and exc.retry_after is not None:
            return min(max(exc.retry_after, 0.0), self.backoff_max * 4)
        return float(self._wait_backoff(state))

    def request_body(self, messages: list[Message], params: GenParams) -> bytes:
        """The exact bytes POSTed for a request."""
        return json.dumps(self._payload(messages, params), ensure_ascii=False, separators=(",", ":")).encode()

    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        """One request under the retry policy (`_retrying`'s: Retryable faults, its backoff or Retry-After,
        max_retries + 1 attempts). A plain loop rather than tenacity's iterator: that one cost ~6% of the event
        loop's time per request (docs/PERFORMANCE.md); tenacity still computes each wait, from the same state."""
        body = self.request_body(messages, params)
        attempts = 0
        while True:
            attempts += 1
            if attempts > 1:
                self.retried += 1
            try:
                data, latency = await self.attempt(body)
            except Retryable as e:
                if attempts >= self.max_retries + 1:
                    raise RequestFailed(f"{e.reason} (gave up after {attempts} attempts)", attempts) from e
                await asyncio.sleep(self._wait(self._failed_state(e, attempts)))
                continue
            return parse_chat_response(data, latency, params, attempts)

    def _failed_state(self, error: Retryable, attempts: int) -> RetryCallState:
        """tenacity's state after `attempts` attempts, the last failing with `error` (what `_wait` reads)."""
        state = RetryCallState(self._retrying(), None, (), {})
        state.attempt_number = attempts
        state.set_exception((type(error), error, error.__traceback__))
        return state

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
            await asyncio.sleep(0)  # let the connector close its sockets
