"""What a run reports about itself: items, tokens, time, retries, failures, cost, per-endpoint rates."""

from __future__ import annotations

from climedbench.core.types import EndpointStats, RunAccounting
from climedbench.limits import Prices
from climedbench.run.engine import RunStats
from climedbench.rundir import Summary


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


def run_accounting(summaries: list[Summary], stats: RunStats, planned: int, prices: Prices) -> RunAccounting:
    """Items, tokens, time, retries, failures and (with prices) cost, for results.json."""
    prompt = sum(s.prompt_tokens or 0 for s in summaries)
    completion = sum(s.completion_tokens or 0 for s in summaries)
    out = RunAccounting(
        items=len(summaries), planned=planned, missing=planned - len(summaries),
        answered_now=stats.done, resumed=stats.resumed, cache_hits=stats.cache_hits,
        failed=sum(1 for s in summaries if s.error), retried_now=stats.retried,
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
