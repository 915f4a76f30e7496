"""A run's plan is a stream (issue 24, 4c): planning holds no test item, and a run sends its first requests while
most of its items are still unread from the spool, so its memory does not grow with the number of items."""

import asyncio
import gc
import json

from climedbench.core.types import Item
from climedbench.models.registry import ModelOptions
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from tests.support.instant_server import instant_server
from tests.support.synthetic import bkt_items

N = 2000


def items_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Item)  # not isinstance: torch objects warn when probed


def test_a_plan_holds_no_test_item_and_streams_the_same_requests_each_time(tmp_path):
    data = bkt_items(tmp_path / "items.jsonl", N)
    before = items_alive()
    plan = plan_run(RunOptions(data=str(data), model="openai:instant-test", limit=1500, seed=3, max_tokens=8))
    assert items_alive() - before == 0
    assert len(plan.requests) == 1500 == plan.spec.n_items
    first = [(r.index, r.key, r.item.input) for r in plan.requests]
    assert first == [(r.index, r.key, r.item.input) for r in plan.requests]
    assert len(first) == 1500 == len({k for _, k, _ in first})
    assert [i for i, _, _ in first] == list(range(1500))


def test_a_run_sends_its_first_requests_before_building_the_rest(tmp_path):
    data = bkt_items(tmp_path / "items.jsonl", N)
    seen: list[int] = []

    def progress(done: int, total: int, code: str) -> None:
        if done == 1:
            seen.append(items_alive())

    with instant_server(model="instant-test") as url:
        opts = RunOptions(data=str(data), model="openai:instant-test", no_cache=True, out=str(tmp_path / "run"),
                          max_tokens=8, model_options=ModelOptions(base_url=url, max_concurrency=8))
        plan = plan_run(opts)
        _, results, _ = asyncio.run(run_plan(plan, progress=progress))
    # when the first sample is written, at most the in-flight (8), queued (16) and just-built items are alive
    assert len(seen) == 1 and seen[0] <= 40
    assert results.run is not None and results.run.items == N
    keys = [json.loads(line)["uid"] for line in (tmp_path / "run" / "samples.jsonl").open(encoding="utf-8")]
    assert keys == [f"BKT/test/q{i}" for i in range(N)]
