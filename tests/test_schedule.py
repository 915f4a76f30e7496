"""The order requests are sent in: the costliest first for the in-process model's copies, plan order otherwise.

A few one-request-at-a-time model copies end a run when the last of them finishes; in plan order one copy could be
left on a long request while the others idle (bench/llama_settings.py measures it). The order never changes an
answer: tests/test_llama_determinism.py checks the copies' bytes in this order too. The backend here is a test double
that records the order it is asked in (scheduling is pure logic)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.base import Backend, Completion, GenParams, Message
from climedbench.models.llamacpp import LlamaCppBackend
from climedbench.run.engine import Engine, RunStats, execute, longest_first, make_scorer, request_cost
from climedbench.run.plan import RunOptions, plan_run


@dataclass
class Recorder(Backend):
    """Answers "A" and remembers the order of the prompts it was asked."""

    asked: list[str] = field(default_factory=list)

    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        self.asked.append(messages[-1]["content"])
        await asyncio.sleep(0)
        return Completion(text="A", prompt_tokens=1, completion_tokens=1)


class CostliestFirst(Recorder):
    longest_first = True


def _choice_plan():
    """The default demo's single-answer items (scored without the embedder)."""
    plan = plan_run(RunOptions())
    return plan, [r for r in plan.requests if r.task.answer == "single"]


def _sent(backend: Recorder) -> list[str]:
    plan, reqs = _choice_plan()
    engine = Engine(backend, plan.suite, None, RateLimiter(None, None), Budget(Prices()), RunStats())
    written: list[str] = []
    asyncio.run(execute(engine, reqs, lambda batch: written.extend(s.uid for s in batch),
                        make_scorer(plan.options, plan.suite), "generate", False, 1))
    assert sorted(written) == sorted(r.item.uid for r in reqs)  # every item answered once, whatever the order
    return backend.asked


def test_the_in_process_model_is_sent_the_costliest_request_first():
    plan, reqs = _choice_plan()
    costs = {r.messages(plan.suite)[-1]["content"]: request_cost(r, plan.suite) for r in reqs}
    asked = _sent(CostliestFirst())
    assert [costs[p] for p in asked] == sorted(costs.values(), reverse=True)
    assert asked != [r.messages(plan.suite)[-1]["content"] for r in reqs]  # not the plan order
    assert LlamaCppBackend.longest_first is True


def test_other_backends_are_sent_the_plan_order():
    plan, reqs = _choice_plan()
    assert _sent(Recorder()) == [r.messages(plan.suite)[-1]["content"] for r in reqs]


def test_each_window_is_ordered_on_its_own():
    """Memory stays flat: only `window` requests are held and reordered at a time."""
    plan = plan_run(RunOptions())
    order = list(longest_first(plan.requests, plan.suite, window=10))
    assert sorted(r.key for r in order) == sorted(r.key for r in plan.requests)
    for lo in range(0, len(order), 10):
        assert {r.key for r in order[lo:lo + 10]} == {r.key for r in plan.requests[lo:lo + 10]}
        costs = [request_cost(r, plan.suite) for r in order[lo:lo + 10]]
        assert costs == sorted(costs, reverse=True)
