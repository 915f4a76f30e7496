"""One model served by several OpenAI-compatible endpoints (vLLM replicas, several API keys), balanced.

Each request goes to an endpoint with a free slot (its own `max_concurrency`), the least loaded for its
weight. A failed attempt (timeout, reset, 429, 5xx, malformed body) takes that endpoint out of rotation for
a while (exponential backoff, or the server's Retry-After) and the request goes to another endpoint at once,
so nothing is lost while any endpoint works; only after `max_retries + 1` attempts in all is it recorded as
failed (and retried by the next run, like any failure). An endpoint much slower than the fastest one (mean
latency over 4×) is held to one request in flight until it recovers. An endpoint that rejects its key
mid-run is dropped; the run stops only when none is left.

What identifies the model is its served name, plus the deployment label when one is given: the replicas are
interchangeable, so which one answered a request (and which URLs a run used) is not part of the fingerprint,
the cache key or the run's identity. Use a new deployment label (or model name) when the weights change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

from climedbench.core.types import EndpointStats
from climedbench.errors import AuthError, ModelError
from climedbench.limits import RateLimiter, estimate_prompt_tokens
from climedbench.models.base import Backend, Completion, GenParams, Message, RequestFailed, parse_chat_response
from climedbench.models.endpoints import EndpointSpec
from climedbench.models.openai_compat import OpenAIBackend, Retryable, public_url
from climedbench.secrets import api_key_from_env, redact

log = logging.getLogger(__name__)

SLOW_FACTOR = 4.0  # an endpoint this many times slower than the fastest is held to one request in flight
RECOVER_FACTOR = 2.0  # ... until it is within this factor again
MIN_OBSERVATIONS = 5  # successful requests before an endpoint's latency is judged
EWMA_ALPHA = 0.2


@dataclass
class Member:
    """One endpoint of the pool and its health."""

    index: int
    spec: EndpointSpec
    backend: OpenAIBackend
    limiter: RateLimiter
    slots: int
    inflight: int = 0
    failures: int = 0  # consecutive failed attempts
    until: float = 0.0  # out of rotation until this time.monotonic()
    ewma: float | None = None
    observed: int = 0
    slow: bool = False
    disabled: str | None = None
    stats: EndpointStats = field(init=False)

    def __post_init__(self) -> None:
        self.stats = self.backend.stats
        self.stats.endpoint = self.spec.name or public_url(self.spec.url)
        self.stats.weight = self.spec.weight
        self.stats.max_concurrency = self.slots

    def capacity(self) -> int:
        return 1 if self.slow else self.slots


@dataclass
class PooledBackend(Backend):
    """Chat completions spread over several endpoints of one model."""

    model: str = ""
    endpoints: list[EndpointSpec] = field(default_factory=list)
    deployment: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 5
    default_concurrency: int = 8
    backoff_initial: float = 0.5
    backoff_max: float = 30.0

    def __post_init__(self) -> None:
        if not self.model:
            raise ModelError("openai:NAME needs a model name, e.g. --model openai:qwen2.5-7b-instruct")
        if not self.endpoints:
            raise ModelError("give at least one endpoint (--base-url or --endpoints FILE)")
        self.members: list[Member] = []
        for i, spec in enumerate(self.endpoints):
            slots = spec.max_concurrency or self.default_concurrency
            backend = OpenAIBackend(model=self.model, base_url=spec.url,
                                    api_key=api_key_from_env(spec.api_key_env or self.api_key_env),
                                    timeout=self.timeout, max_retries=0, max_concurrency=slots)
            self.members.append(Member(i, spec, backend, RateLimiter(spec.rpm, spec.tpm), slots))
        names = [m.stats.endpoint for m in self.members]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ModelError(f"endpoint {dup} is given twice")
        self.max_concurrency = sum(m.slots for m in self.members)
        self.fingerprint = {"backend": "openai", "model": self.model}
        if self.deployment:
            self.fingerprint["deployment"] = self.deployment
        self._changed: asyncio.Condition | None = None

    @property
    def urls(self) -> list[str]:
        """The endpoints' public URLs."""
        return [public_url(m.spec.url) for m in self.members]

    async def check(self) -> None:
        """Every endpoint must accept its key and serve the model; an unreachable one is backed off (it may come
        up later) as long as one is reachable."""
        results = await asyncio.gather(*(m.backend.check(retry=False) for m in self.members), return_exceptions=True)
        unreachable: list[BaseException] = []
        for m, r in zip(self.members, results, strict=True):
            if isinstance(r, AuthError) or (isinstance(r, ModelError) and "does not serve model" in str(r)):
                raise r
            if isinstance(r, BaseException):
                if not isinstance(r, ModelError):
                    raise r
                unreachable.append(r)
                self._back_off(m, None)
                log.warning("%s; it is out of rotation until it answers", redact(str(r)))
        if len(unreachable) == len(self.members):
            raise unreachable[0]

    def _cond(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    def _pick(self, avoid: set[int]) -> Member | None:
        now = time.monotonic()
        ready = [m for m in self.members if not m.disabled and m.until <= now and m.inflight < m.capacity()]
        if not ready:
            return None
        fresh = [m for m in ready if m.index not in avoid] or ready
        return min(fresh, key=lambda m: ((m.inflight + 1) / m.spec.weight, m.index))

    async def _acquire(self, avoid: set[int]) -> Member:
        """The endpoint to send to: one with a free slot, preferring those this request has not failed on."""
        cond = self._cond()
        async with cond:
            while True:
                live = [m for m in self.members if not m.disabled]
                if not live:
                    raise AuthError("every endpoint was dropped: " + "; ".join(
                        f"{m.stats.endpoint}: {m.disabled}" for m in self.members))
                m = self._pick(avoid)
                if m is not None:
                    m.inflight += 1
                    return m
                now = time.monotonic()
                later = [x.until for x in live if x.until > now]
                with contextlib.suppress(TimeoutError):  # a backed-off endpoint is due back
                    await asyncio.wait_for(cond.wait(), timeout=min(later) - now if later else None)

    async def _release(self, m: Member, notify_all: bool = False) -> None:
        cond = self._cond()
        async with cond:
            m.inflight -= 1
            if notify_all:
                cond.notify_all()
            else:
                cond.notify(1)

    def _back_off(self, m: Member, retry_after: float | None) -> None:
        m.failures += 1
        delay = retry_after if retry_after is not None else self.backoff_initial * 2 ** (m.failures - 1)
        m.until = time.monotonic() + min(max(delay, 0.0), self.backoff_max)
        m.stats.backoffs += 1

    def _observe(self, m: Member, latency: float) -> None:
        m.failures = 0
        m.observed += 1
        m.ewma = latency if m.ewma is None else EWMA_ALPHA * latency + (1 - EWMA_ALPHA) * m.ewma
        judged = [x.ewma for x in self.members if not x.disabled and x.ewma is not None
                  and x.observed >= MIN_OBSERVATIONS]
        if len(judged) < 2 or m.observed < MIN_OBSERVATIONS or m.ewma is None:
            return
        fastest = min(judged)
        if not m.slow and m.ewma > SLOW_FACTOR * fastest:
            m.slow = True
            m.stats.slowdowns += 1
            log.warning("endpoint %s is %.1fx slower than the fastest; one request at a time until it recovers",
                        m.stats.endpoint, m.ewma / fastest)
        elif m.slow and m.ewma <= RECOVER_FACTOR * fastest:
            m.slow = False

    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        body = self.members[0].backend.request_body(messages, params)
        tokens = estimate_prompt_tokens(messages) + params.max_tokens
        attempts = 0
        avoid: set[int] = set()
        reason = "no attempt made"
        while attempts < self.max_retries + 1:
            m = await self._acquire(avoid)
            state = m.slow
            try:
                await m.limiter.acquire(tokens)
                attempts += 1
                data, latency = await m.backend.attempt(body)
            except Retryable as e:
                self._back_off(m, e.retry_after)
                avoid.add(m.index)
                reason = f"{m.stats.endpoint}: {e.reason}"
                await self._release(m, notify_all=True)
                continue
            except (AuthError, ModelError) as e:  # a revoked key, a model no longer served: drop the endpoint
                m.disabled = redact(str(e))
                log.warning("dropping endpoint %s: %s", m.stats.endpoint, m.disabled)
                avoid.add(m.index)
                reason = m.disabled
                await self._release(m, notify_all=True)
                if all(x.disabled for x in self.members):
                    raise
                continue
            except BaseException:
                await self._release(m)
                raise
            self._observe(m, latency)
            await self._release(m, notify_all=m.slow != state)
            usage = data.get("usage") or {}
            m.limiter.correct(tokens, int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
                              if usage else tokens)
            return parse_chat_response(data, latency, params, attempts)
        raise RequestFailed(f"{reason} (gave up after {attempts} attempts on {len(avoid)} endpoint(s))", attempts)

    def endpoint_stats(self) -> list[EndpointStats]:
        return [m.stats.model_copy(deep=True) for m in self.members]

    async def aclose(self) -> None:
        for m in self.members:
            await m.backend.aclose()
