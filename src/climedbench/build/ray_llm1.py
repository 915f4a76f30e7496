"""LLM1 rewrites of a build on Ray workers (`climedbench build --generator MODEL --executor ray`).

The driver makes every unit's rule-built candidate itself (no model: fast), then hands the candidates that LLM1
rewrites to the workers of the Ray executor (executors/ray_driver.py) as units of a `Job`. Each worker opens the
generator once and asks through the same response cache and the same `llm1.rewrite` as a local build, so a
rewrite is the same wherever it is made. Results come back in any order; the driver writes each unit as soon as
every unit before it is written, so candidates.jsonl is the same, byte for byte, as a local build's, and a kill
loses at most the units not yet written (their finished rewrites are in the response cache).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.build.candidates import Candidate
from climedbench.build.llm1 import LLM1Prompt, rewrite
from climedbench.executors.options import ExecutorOptions

# One unit of a build, in order: its name, its candidate (or Skip), and (task name, key text) when LLM1 rewrites it.
Unit = tuple[str, Any, "tuple[str, str] | None"]


@dataclass(frozen=True)
class BuildJob:
    """LLM1 on Ray workers: a unit is (position, candidate, task name, key text); the answer (position, candidate)."""

    job_id: str
    spec: str  # the generator's model spec (the worker's engines are keyed by spec)
    prompt: LLM1Prompt

    async def run(self, env: Any, unit: tuple[int, Candidate, str, str]) -> tuple[int, Candidate]:
        i, cand, task_name, key_text = unit
        engine = env.engines[self.spec]
        return i, await rewrite(cand, engine.backend, engine.cache, self.prompt, task_name, key_text)


async def rewrite_on_ray(executor: ExecutorOptions, generator: str, cache: Path | None, no_cache: bool,
                         max_concurrency: int, units: list[Unit], write: Callable[[str, Any], None]) -> None:
    """Rewrite the units that need LLM1 on Ray workers; `write` every unit, in order, as soon as it can be."""
    from climedbench.cache import default_cache_path
    from climedbench.executors import make_executor
    from climedbench.executors.ray_driver import RayExecutor, shard_size
    from climedbench.models.registry import ModelOptions

    todo = [(i, u[1], *u[2]) for i, u in enumerate(units) if u[2] is not None]
    done: dict[int, Candidate] = {}
    written = 0

    def flush() -> None:
        nonlocal written
        while written < len(units) and (units[written][2] is None or written in done):
            name, result, _ = units[written]
            write(name, done.pop(written, result))
            written += 1

    flush()
    if not todo:
        return
    ray_exec = make_executor(executor)
    assert isinstance(ray_exec, RayExecutor)
    try:
        base = ModelOptions()
        # The driver's $OPENAI_BASE_URL (--base-url) travels with the options: a remote cluster's workers lack it.
        options = ModelOptions(base_url=os.environ.get("OPENAI_BASE_URL"),
                               max_concurrency=max(base.max_concurrency, max_concurrency))
        await ray_exec.workers([generator], options, None if no_cache else str(cache or default_cache_path()),
                               concurrency=max_concurrency)
        job = ray_exec._ray.put(BuildJob(uuid.uuid4().hex, generator, LLM1Prompt.bundled()))

        def on_batch(batch: Any, worker: int) -> None:
            for i, cand in batch.results:
                done[i] = cand
            flush()

        def submit(actor: Any, chunk: list[Any]) -> Any:
            return actor.run_units.options(num_returns="streaming").remote(job, chunk)

        size = shard_size(len(todo), executor.workers, executor.shard_size)
        await ray_exec.stream(todo, lambda x: str(x[0]), submit, on_batch, size=size)
        flush()
    finally:
        ray_exec.close()
