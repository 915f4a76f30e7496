"""A run whose plan holds a task scored by similarity loads the sentence embedder (and the unrelated-text baseline
vectors) in a background thread from its start, while the model answers; a plan without one never loads it
(issue 24: the load came after the model was done, on the wall after the last answer)."""

import asyncio
import time

from climedbench.metrics import item as item_metrics
from climedbench.models.registry import ModelOptions
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from tests.support.instant_server import instant_server

WAIT = 90.0  # seconds the test gives the background load (about 3.4 CPU-s on an idle machine)


def _forget_loaded() -> None:
    """As in a fresh process: neither the embedder nor any baseline vectors loaded."""
    item_metrics._embedder.cache_clear()
    item_metrics._baseline.cache_clear()


def _run(tmp_path, tasks, progress):
    with instant_server(model="instant-test") as url:
        opts = RunOptions(model="openai:instant-test", tasks=tasks, limit=2, no_cache=True, out=str(tmp_path / "run"),
                          max_tokens=8, model_options=ModelOptions(base_url=url, max_concurrency=1))
        return asyncio.run(run_plan(plan_run(opts), progress=progress))


def test_a_run_with_a_similarity_task_loads_the_embedder_while_the_model_answers(tmp_path):
    _forget_loaded()
    seen: list[tuple[str, int, int]] = []

    def progress(done: int, total: int, code: str) -> None:
        if done != 1:
            return
        # The first answer (a choice task, first in plan order) is written; the event loop waits here, so no
        # further answer is taken in and none of the similarity task's is scored until the wait ends.
        deadline = time.monotonic() + WAIT
        while item_metrics._baseline.cache_info().currsize == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.append((code, item_metrics._embedder.cache_info().currsize, item_metrics._baseline.cache_info().currsize))

    _, results, _ = _run(tmp_path, ["BKT", "WTD"], progress)
    assert results.run is not None and results.run.items == 4
    # loaded (embedder and baseline) with 3 of the 4 answers still to come in
    assert seen == [("BKT", 1, 1)]
    assert results.tasks["WTD"].n == 2  # and the similarity answers were scored with it


def test_a_run_without_a_similarity_task_never_loads_the_embedder(tmp_path):
    _forget_loaded()
    _, results, _ = _run(tmp_path, ["BKT", "CPR"], None)
    assert results.run is not None and results.run.items == 4
    assert item_metrics._embedder.cache_info().misses == 0
    assert item_metrics._baseline.cache_info().misses == 0
