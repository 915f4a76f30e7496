"""Request and token rate limits (--rpm, --tpm) and the spending limit (--max-cost)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from climedbench.prompts import Message


def estimate_prompt_tokens(messages: list[Message]) -> int:
    """An upper-bound token estimate without the model's tokenizer: one token per character.

    CJK text runs about 1–1.5 characters per token and English about 4, so this over-counts, which is
    the safe side for rate and cost limits; actual usage from the server corrects it afterwards.
    """
    return sum(len(m.get("content") or "") for m in messages) + 4 * len(messages)


# A bucket holds this many seconds' worth: providers often enforce per-minute limits over shorter
# windows, so a full minute's burst at start-up could itself be refused.
BURST_SECONDS = 10.0


class _Bucket:
    """A token bucket refilled continuously at `per_minute` per minute, holding BURST_SECONDS' worth."""

    def __init__(self, per_minute: float) -> None:
        self.capacity = max(1.0, per_minute * BURST_SECONDS / 60.0)
        self.level = self.capacity
        self.rate = per_minute / 60.0
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def wait_for(self, amount: float) -> float:
        """Seconds until `amount` is available (0 when it is now); never more than the bucket can hold."""
        self._refill()
        amount = min(amount, self.capacity)
        return 0.0 if self.level >= amount else (amount - self.level) / self.rate

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount  # may go negative after a correction: later requests wait longer


class RateLimiter:
    """Waits so that requests per minute and tokens per minute stay under their limits."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None) -> None:
        self._rpm = _Bucket(rpm) if rpm else None
        self._tpm = _Bucket(tpm) if tpm else None
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return bool(self._rpm or self._tpm)

    async def acquire(self, tokens: float) -> None:
        """Block until one request of about `tokens` tokens may be sent."""
        if not self.active:
            return
        async with self._lock:  # first come, first served
            while True:
                wait = max(self._rpm.wait_for(1) if self._rpm else 0.0,
                           self._tpm.wait_for(tokens) if self._tpm else 0.0)
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            if self._rpm:
                self._rpm.take(1)
            if self._tpm:
                self._tpm.take(tokens)

    def correct(self, estimated: float, actual: float) -> None:
        """Replace an estimate by the tokens actually used, once the server has said."""
        if self._tpm:
            self._tpm.level += estimated - actual


@dataclass
class Prices:
    """USD per million prompt and completion tokens."""

    prompt: float = 0.0
    completion: float = 0.0

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6

    @property
    def set(self) -> bool:
        return self.prompt > 0 or self.completion > 0


@dataclass
class Budget:
    """Stops new requests before the spend, counting what is in flight at its worst case, could pass the limit."""

    prices: Prices
    limit: float | None = None
    spent: float = 0.0
    reserved: float = 0.0
    exhausted: bool = field(default=False)

    def reserve(self, prompt_tokens: float, max_tokens: float) -> float | None:
        """Reserve the worst-case cost of a request; None (and exhausted) when it would not fit."""
        worst = self.prices.cost(prompt_tokens, max_tokens)
        if self.limit is not None and self.spent + self.reserved + worst > self.limit:
            self.exhausted = True
            return None
        self.reserved += worst
        return worst

    def settle(self, reservation: float, prompt_tokens: float, completion_tokens: float) -> None:
        """Release a reservation and add what the request really cost."""
        self.reserved -= reservation
        self.spent += self.prices.cost(prompt_tokens, completion_tokens)
