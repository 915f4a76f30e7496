"""What a run reports about itself: items, tokens, time, retries, failures, cost, per-endpoint rates."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from climedbench.core.types import EndpointStats, RunAccounting
from climedbench.limits import Prices
from climedbench.run.engine import RunStats
from climedbench.rundir import Summary


@dataclass
class SampleTally:
    """What run accounting needs of a run's samples, counted as they are read (none of them is held)."""

    items: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def count(self, rows: Iterable[Summary]) -> Iterator[Summary]:
        """`rows` passed through, each one counted."""
        for s in rows:
            self.items += 1
            self.failed += bool(s.error)
            self.prompt_tokens += s.prompt_tokens or 0
            self.completion_tokens += s.completion_tokens or 0
            yield s


def finish_endpoint_stats(stats: list[EndpointStats], wall_seconds: float, prices: Prices) -> list[EndpointStats]:
    """Per-endpoint counters with their rates: requests per second of the run, mean latency, cost."""
    out = []
    for e in stats:
        e = e.model_copy(deep=True)
        e.requests_per_second = round(e.ok / wall_seconds, 3) if wall_seconds > 0 else None
        e.mean_latency = round(e.latency_sum / e.ok, 4) if e.ok else None
        e.latency_sum = round(e.latency_sum, 3)
        if prices.set:
            e.cost_usd = round(prices.cost(e.prompt_tokens, e.completion_tokens), 6)
        out.append(e)
    return out


def run_accounting(tally: SampleTally, stats: RunStats, planned: int, prices: Prices) -> RunAccounting:
    """Items, tokens, time, retries, failures and (with prices) cost, for results.json."""
    prompt, completion = tally.prompt_tokens, tally.completion_tokens
    out = RunAccounting(
        items=tally.items, planned=planned, missing=planned - tally.items,
        answered_now=stats.done, resumed=stats.resumed, cache_hits=stats.cache_hits,
        failed=tally.failed, retried_now=stats.retried,
        wall_seconds=round(stats.wall_seconds, 3), model_seconds=round(stats.model_seconds, 3),
        prompt_tokens=prompt, completion_tokens=completion,
        prompt_tokens_now=stats.prompt_tokens, completion_tokens_now=stats.completion_tokens,
        stopped=stats.stopped,
    )
    if prices.set:
        out.cost_usd = round(prices.cost(prompt, completion), 6)
        out.cost_usd_now = round(stats.spent, 6)
        out.prices_per_mtok = {"prompt": prices.prompt, "completion": prices.completion}
    return out
