"""Rate limits and budget: pure logic, with a fake clock standing in for time (not for a component)."""

import asyncio

import pytest

from climedbench import limits
from climedbench.limits import Budget, Prices, RateLimiter


class FakeClock:
    def __init__(self):
        self.now = 1000.0
        self.slept = []

    def monotonic(self):
        return self.now

    async def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(limits.time, "monotonic", c.monotonic)
    monkeypatch.setattr(limits.asyncio, "sleep", c.sleep)
    return c


def test_rpm_allows_a_short_burst_then_paces(clock):
    lim = RateLimiter(rpm=60)  # 1 per second, bursts of 10 seconds' worth

    async def go():
        for _ in range(25):
            await lim.acquire(10)

    asyncio.run(go())
    assert clock.now - 1000.0 == pytest.approx(15.0, abs=0.01)  # 10 at once, then 15 at one per second
    # Over any 60 s window no more than 60 + burst requests: here 25 requests in 15 s, never faster than 1/s after the burst.


def test_tpm_waits_for_tokens_and_is_corrected_by_actual_usage(clock):
    lim = RateLimiter(tpm=6000)  # 100 tokens/s, bucket of 1000

    async def go():
        await lim.acquire(1000)      # the whole bucket
        start = clock.now
        await lim.acquire(500)       # must wait 5 s
        waited = clock.now - start
        lim.correct(500, 100)        # the request used 100 tokens: 400 come back
        start = clock.now
        await lim.acquire(400)
        return waited, clock.now - start

    waited, after_refund = asyncio.run(go())
    assert waited == pytest.approx(5.0, abs=0.01)
    assert after_refund == pytest.approx(0.0, abs=0.01)


def test_no_limits_never_wait(clock):
    asyncio.run(RateLimiter().acquire(10**9))
    assert clock.slept == []


def test_budget_reserves_worst_case_and_settles_actual():
    b = Budget(Prices(prompt=2.0, completion=10.0), limit=0.01)  # USD per million tokens
    r1 = b.reserve(1000, 500)  # worst case 0.002 + 0.005 = 0.007
    assert r1 == pytest.approx(0.007)
    assert b.reserve(1000, 500) is None and b.exhausted  # 0.014 > 0.01 with the first in flight
    b.settle(r1, 1000, 100)  # actual 0.002 + 0.001
    assert b.spent == pytest.approx(0.003) and b.reserved == pytest.approx(0.0)
    assert Budget(Prices(), limit=None).reserve(10**9, 10**9) == 0.0
