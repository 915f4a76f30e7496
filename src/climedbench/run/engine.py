"""Answer items: one request → cache → budget → rate limit → backend → extraction and score → its sample.

The per-item path every executor (local or a Ray worker) imports; it knows nothing of executors or of the
run directory."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from climedbench.cache import ResponseCache, default_cache_path, request_key
from climedbench.core.suite import Suite
from climedbench.core.types import Sample
from climedbench.gold import target_hash
from climedbench.limits import Budget, RateLimiter, estimate_prompt_tokens
from climedbench.models.base import Backend, Completion, GenParams, Message, RequestFailed
from climedbench.prompts import (
    messages_hash,
)
from climedbench.run.plan import Request, RunOptions
from climedbench.scoring import Scorer, shown_answer_of


def make_sample(req: Request, messages: list[Message], key: str, completion: Completion | None,
                error: str | None, scorer: Scorer, mc_mode: str, log_prompts: bool) -> Sample:
    """The samples.jsonl record of one item."""
    item, task = req.item, req.task
    raw = completion.text if completion else None
    scored = scorer.score(task, item, raw, completion.first_token_logprobs if completion else None,
                          "logprob" if req.variant == "logprob" else mc_mode,
                          completion.finish_reason if completion else None)
    flags = dict(scored.flags) if error is None else {}
    return Sample(
        uid=item.uid,
        item_id=item.id,
        task=item.task,
        prompt_hash=messages_hash(messages),
        request_key=key[:16],
        variant=req.variant,
        raw=raw,
        gold=item.gold,
        extracted=scored.extracted,
        extraction_method=scored.method,
        extraction_failure=scored.extraction_failure if error is None else False,
        extraction_failure_reason=scored.method if scored.extraction_failure and error is None else None,
        score=scored.score,
        stats=list(scored.stats) if scored.stats is not None else None,
        flags=flags,
        alternatives=scored.alternatives or None,
        secondary=scored.secondary or None,
        **shown_answer_of(task, item),
        prompt_tokens=completion.prompt_tokens if completion else None,
        completion_tokens=completion.completion_tokens if completion else None,
        latency=round(completion.latency, 4) if completion else None,
        finish_reason=completion.finish_reason if completion else None,
        attempts=completion.attempts if completion else None,
        cached=completion.cached if completion else False,
        error=error,
        input_chars=len(item.input),
        logprobs=completion.first_token_logprobs if completion and req.variant == "logprob" else None,
        messages=messages if log_prompts else None,
        epoch=req.epoch,
        cluster=item.cluster,
        target_hash=target_hash(item.gold),
    )


@dataclass
class RunStats:
    """Counters a run reports at the end."""

    done: int = 0
    resumed: int = 0
    cache_hits: int = 0
    requested: int = 0  # requests sent to the model (not served by the cache)
    model_seconds: float = 0.0
    wall_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retried: int = 0
    spent: float = 0.0
    stopped: str | None = None

    def add(self, other: RunStats) -> None:
        """Add another worker's counters of the model calls it made (cache hits, requests, tokens, time)."""
        self.cache_hits += other.cache_hits
        self.requested += other.requested
        self.model_seconds += other.model_seconds
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.retried += other.retried
        self.spent += other.spent


class Askable(Protocol):
    """What the engine needs of a request: its parameters and, when asked, its messages."""

    params: GenParams

    def messages(self, suite: Suite) -> list[Message]: ...


@dataclass
class Engine:
    """Everything between a task and its sample: cache, rate limits, budget, backend."""

    backend: Backend
    suite: Suite
    cache: ResponseCache | None
    limiter: RateLimiter
    budget: Budget
    stats: RunStats

    async def answer(self, task: Askable) -> tuple[list[Message], str, Completion | None, str | None] | None:
        """Messages, request key, completion or error; None when the budget stops the run."""
        messages = task.messages(self.suite)
        key = request_key(self.backend.fingerprint, messages, task.params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return messages, key, hit, None
        estimate = estimate_prompt_tokens(messages)
        reservation = self.budget.reserve(estimate, task.params.max_tokens)
        if reservation is None:
            return None
        await self.limiter.acquire(estimate + task.params.max_tokens)
        self.stats.requested += 1
        try:
            completion = await self.backend.chat(messages, task.params)
        except RequestFailed as e:
            self.budget.settle(reservation, 0, 0)
            self.stats.retried += max(0, e.attempts - 1)
            return messages, key, None, e.reason
        used_in = completion.prompt_tokens if completion.prompt_tokens is not None else estimate
        used_out = completion.completion_tokens or 0
        self.budget.settle(reservation, used_in, used_out)
        self.limiter.correct(estimate + task.params.max_tokens, used_in + used_out)
        self.stats.retried += max(0, completion.attempts - 1)
        self.stats.model_seconds += completion.latency
        self.stats.prompt_tokens += used_in
        self.stats.completion_tokens += used_out
        if self.cache is not None:
            self.cache.put(key, self.backend.name, completion)
        return messages, key, completion, None


async def answer_item(engine: Engine, req: Request, scorer: Scorer, mc_mode: str, log_prompts: bool) -> Sample | None:
    """One item, start to finish: cache → budget → rate limit → backend → extraction and score → its sample.

    The one per-item code path of every executor (local or a Ray worker); None when the budget stops the run.
    """
    result = await engine.answer(req)
    if result is None:
        return None
    return make_sample(req, *result, scorer, mc_mode, log_prompts)


# A generated token costs about four prompt tokens on CPU (bench/llama_limit.py: 38 vs 9 tokens/s per copy).
GENERATED_TOKEN_COST = 4
# Requests reordered at a time: the order's memory stays flat in the number of items.
LONGEST_FIRST_WINDOW = 512


def request_cost(req: Request, suite: Suite) -> int:
    """A request's cost in prompt-token equivalents, as far as it is known before asking: its prompt (estimated
    from its characters) and its answer's token cap."""
    return estimate_prompt_tokens(req.messages(suite)) + GENERATED_TOKEN_COST * req.params.max_tokens


def longest_first(tasks: Iterable[Request], suite: Suite, window: int = LONGEST_FIRST_WINDOW) -> Iterator[Request]:
    """The requests `window` at a time, the costliest of each window first (ties in plan order).

    With a few model copies each answering one request at a time, the last requests decide when the run ends: in
    plan order one copy may still be on a long request while the others have nothing left to do. An order never
    changes an answer (each copy decodes alone; tests/test_llama_determinism.py), and samples.jsonl is rewritten
    in plan order at the end."""
    it = iter(tasks)
    while chunk := list(itertools.islice(it, window)):
        yield from sorted(chunk, key=lambda r: -request_cost(r, suite))


async def execute(engine: Engine, tasks: Iterable[Request], write: Callable[[Sequence[Sample]], None],
                  scorer: Scorer, mc_mode: str, log_prompts: bool, concurrency: int) -> None:
    """Answer items with at most `concurrency` in flight (a fixed worker pool: memory stays flat).

    answer_item's two steps, split: the workers only ask (cache → budget → rate limit → backend) and send their next
    request as soon as an answer is in; one consumer takes every answer waiting, extracts and scores them in one
    thread hop (the first similarity item loads the embedder, which took seconds, and the event loop must keep the
    model busy meanwhile) and writes them with one call (samples.jsonl: one write and flush per batch)."""
    it = longest_first(tasks, engine.suite) if engine.backend.longest_first else iter(tasks)
    answered: asyncio.Queue[tuple[Request, tuple[list[Message], str, Completion | None, str | None]] | None]
    answered = asyncio.Queue(maxsize=2 * max(1, concurrency))
    running = max(1, concurrency)

    async def worker() -> None:
        nonlocal running
        for task in it:
            result = await engine.answer(task)
            if result is None:  # over budget: stop taking new tasks; in-flight ones finish
                break
            await answered.put((task, result))
        running -= 1
        if running == 0:  # the last worker out tells the consumer
            await answered.put(None)

    def samples(batch: list[tuple[Request, tuple[list[Message], str, Completion | None, str | None]]]) -> list[Sample]:
        return [make_sample(req, *result, scorer, mc_mode, log_prompts) for req, result in batch]

    async def consumer() -> None:
        # every answer waiting is extracted and scored in one thread hop (one hop costs 0.05-0.14 ms) and written
        # in one call, in the order answered
        while True:
            batch = [await answered.get()]
            while batch[-1] is not None and not answered.empty():
                batch.append(answered.get_nowait())
            todo = [got for got in batch if got is not None]
            if todo:
                write(await asyncio.to_thread(samples, todo))
            if batch[-1] is None:
                return

    async with asyncio.TaskGroup() as tg:
        tg.create_task(consumer())
        for _ in range(running):
            tg.create_task(worker())


def open_cache(opts: RunOptions) -> ResponseCache | None:
    """The response cache the options ask for (None with --no-cache)."""
    if opts.no_cache:
        return None
    return ResponseCache(opts.cache or default_cache_path())


def make_scorer(opts: RunOptions, suite: Suite) -> Scorer:
    """The scorer a run's options ask for."""
    return Scorer(tokenizer=opts.tokenizer, embedder_spec=opts.embedder, similarity=opts.similarity,
                  language=suite.language)
