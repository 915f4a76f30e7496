"""The in-process model's greedy outputs do not depend on how requests are scheduled: the same bytes for a fixed set
of demo prompts with one copy of the model answering one request at a time as with one copy per core answering
side by side (the default on a machine with several cores), in three request orders (plan, reverse, and the
costliest-first order a run sends them in).

llama.cpp's batched slots (n_parallel > 1) do change outputs (2 of 8 demo answers, differently in each order,
measured with bench/llama_limit.py's machinery), and prompt-prefix reuse did (models/llamacpp.py); so both
are off, and the copies, which decode each sequence alone, are checked here, not assumed. The thread count changes
outputs too, so it is part of the model's fingerprint."""

from __future__ import annotations

import asyncio
import os

import pytest

from climedbench.cache import request_key
from climedbench.core.suite import Suite
from climedbench.models import default_model
from climedbench.models.base import GenParams, Message
from climedbench.models.llamacpp import LlamaCppBackend
from climedbench.run.engine import longest_first
from climedbench.run.plan import Request, RunOptions, plan_run

pytestmark = pytest.mark.model

PROMPTS = 6
MAX_TOKENS = 48  # long enough for near-ties to appear, short enough to keep the test to a few minutes


def _chosen() -> tuple[Suite, list[Request]]:
    """Six demo requests spread over the demo's tasks."""
    plan = plan_run(RunOptions())
    step = max(1, len(plan.requests) // PROMPTS)
    return plan.suite, plan.requests[::step][:PROMPTS]


@pytest.fixture(scope="module")
def prompts() -> list[tuple[list[Message], GenParams]]:
    """The six demo prompts, with the demo's generation parameters (shorter answers)."""
    suite, chosen = _chosen()
    return [(r.messages(suite), GenParams(max_tokens=min(MAX_TOKENS, r.params.max_tokens),
                                          temperature=r.params.temperature, seed=r.params.seed))
            for r in chosen]


async def _answers(backend: LlamaCppBackend, prompts: list[tuple[list[Message], GenParams]], order: list[int]
                   ) -> list[str]:
    """Every prompt in flight at once (the backend answers `replicas` of them at a time), sent in `order`."""
    out: dict[int, str] = {}

    async def one(i: int) -> None:
        out[i] = (await backend.chat(*prompts[i])).text

    await asyncio.gather(*(one(i) for i in order))
    return [out[i] for i in range(len(prompts))]


def _load(path, threads: int, replicas: int) -> LlamaCppBackend:
    return LlamaCppBackend(path=path, n_ctx=2048, threads=threads, replicas=replicas,
                           known_sha256=default_model.SHA256)


@pytest.fixture(scope="module")
def reference(model_path, prompts) -> list[str]:
    """One copy, one thread, one request at a time."""
    backend = _load(model_path, 1, 1)
    try:
        return asyncio.run(_answers(backend, prompts, list(range(len(prompts)))))
    finally:
        asyncio.run(backend.aclose())


def test_copies_side_by_side_give_the_same_bytes_in_any_order(model_path, prompts, reference):
    backend = _load(model_path, 1, max(2, os.cpu_count() or 2))
    try:
        forward = asyncio.run(_answers(backend, prompts, list(range(len(prompts)))))
        backward = asyncio.run(_answers(backend, prompts, list(reversed(range(len(prompts))))))
        # the order a run sends them in (run/engine.py's longest_first)
        suite, chosen = _chosen()
        costliest = [chosen.index(r) for r in longest_first(chosen, suite)]
        scheduled = asyncio.run(_answers(backend, prompts, costliest))
    finally:
        asyncio.run(backend.aclose())
    assert all(reference)  # the model said something for every prompt
    assert costliest not in (list(range(len(prompts))), list(reversed(range(len(prompts)))))
    assert forward == reference
    assert backward == reference
    assert scheduled == reference


def test_the_thread_count_is_part_of_the_identity(model_path):
    """Threads do change outputs (measured: 1 of these 6 answers differs between 1 and 2 threads), so two thread
    counts never share a cache entry or a resumed run; the number of copies does not, so it is not recorded."""
    fingerprints = []
    for threads, replicas in ((1, 1), (2, 1), (1, 2)):
        backend = _load(model_path, threads, replicas)
        fingerprints.append(backend.fingerprint)
        asyncio.run(backend.aclose())
    one, two_threads, two_copies = fingerprints
    assert one["threads"] == 1 and two_threads["threads"] == 2
    # every other setting that could change an output is recorded too (run.json's "model" is this fingerprint)
    assert one["n_parallel"] == 1 and one["prefix_cache"] is False
    assert one["n_batch"] > 0 and one["n_ubatch"] > 0 and one["flash_attn"] in ("auto", "on", "off")
    messages, params = [{"role": "user", "content": "hi"}], GenParams(max_tokens=1)
    assert request_key(one, messages, params) != request_key(two_threads, messages, params)
    assert two_copies == one
