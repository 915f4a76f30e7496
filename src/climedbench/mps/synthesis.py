"""Multi-agent participant synthesis (MPS, the paper's Algorithm 1): generation → debate → reflection.

For each question, agent 1 answers (G), agent 2 reviews that answer and argues (D), agent 1 reflects
and gives a final answer (R). Every ordered pair of distinct models, under every role persona, is one
synthetic examinee whose response to the item is R scored by the item's metric; the first-pass answer
G of each (model, role) is an examinee too. The response matrix feeds `climedbench irt fit`.

All requests go through the run engine: the same backends, response cache, rate limits and retries as
`climedbench run`. Identical generation prompts are asked once (the cache serves every pairing).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from climedbench.cache import default_cache_path
from climedbench.core.suite import Names, Suite
from climedbench.core.types import Item
from climedbench.errors import ConfigError
from climedbench.executors import ExecutorOptions
from climedbench.irt.binarize import binarize_scores, write_item_map
from climedbench.irt.matrix import ResponseMatrix, write_matrix
from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.base import Backend, Completion, GenParams, Message
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.prompts import PromptSettings, user_message
from climedbench.run.engine import Engine, RunStats, open_cache
from climedbench.run.plan import RunOptions, plan_run
from climedbench.rundir import write_json_atomic
from climedbench.scoring import Scorer

# The three turns of Algorithm 1, in the suite's language.
PROMPTS: dict[str, dict[str, str]] = {
    "zh": {
        "debate": ("以下是一道医学题目，以及一位{role}给出的回答。请你作为另一位专家，仔细审查这个回答："
                   "指出其中的错误或不足，说明理由，并给出你认为正确的答案。\n\n【题目】\n{question}\n\n【该回答】\n{answer}\n\n"
                   "请给出你的质疑与理由，并按题目要求的格式给出你认为正确的答案。"),
        "reflect": ("另一位专家对你的回答提出了如下意见：\n{debate}\n\n"
                    "请认真反思这些意见是否正确，坚持正确的判断、纠正错误的判断，并按题目要求的格式给出你的最终答案。"),
        "persona": "你是一名{role}。请以{role}的专业知识和视角回答问题。",
    },
    "en": {
        "debate": ("Below are a medical question and the answer a {role} gave. As another expert, review the answer "
                   "carefully: point out its errors or gaps, explain why, and give the answer you think is correct."
                   "\n\n[Question]\n{question}\n\n[The answer]\n{answer}\n\n"
                   "Give your objections and reasons, and your answer in the format the question asks for."),
        "reflect": ("Another expert commented on your answer:\n{debate}\n\nReflect on whether the comments are right: "
                    "keep what is correct, correct what is wrong, and give your final answer in the format the "
                    "question asks for."),
        "persona": "You are a {role}. Answer with a {role}'s expertise and point of view.",
    },
}
# Roles for suites that define none (ClinicBench): the Who roles of CliMedBench's taxonomy.
DEFAULT_ROLES: dict[str, Names] = {
    "doctor": Names(zh="医生", en="doctor"), "pharmacist": Names(zh="药师", en="pharmacist"),
    "patient": Names(zh="患者", en="patient"), "student": Names(zh="医学生", en="medical student"),
}


def _lang(suite: Suite) -> str:
    return "zh" if suite.language == "zh" else "en"


def _roles(suite: Suite) -> dict[str, Names]:
    return dict(suite.roles) or DEFAULT_ROLES


@dataclass
class Examinee:
    """One synthetic examinee."""

    id: str
    generator: str
    debater: str | None
    role: str


@dataclass
class MpsResult:
    """The response matrix, the transcripts file and counts."""

    matrix: ResponseMatrix
    out: Path
    examinees: list[Examinee]
    cache_hits: int
    failed: int
    seconds: float
    thresholds: dict[str, float] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)  # scenarios left out of the matrix, with why


def _role_name(suite: Suite, role: str) -> str:
    return _roles(suite)[role].text(_lang(suite))


def _persona(suite: Suite, role: str) -> Message:
    return {"role": "system", "content": PROMPTS[_lang(suite)]["persona"].format(role=_role_name(suite, role))}


@dataclass
class _Prebuilt:
    """A request whose messages are already built."""

    msgs: list[Message]
    params: GenParams

    def messages(self, suite: Suite) -> list[Message]:
        return self.msgs


Ask = Callable[[str, list[Message]], Awaitable[tuple[Completion | None, str | None]]]


async def _ask(engine: Engine, messages: list[Message], params: GenParams) -> tuple[Completion | None, str | None]:
    """One request through the engine (cache, limits, retries)."""
    result = await engine.answer(_Prebuilt(messages, params))
    if result is None:  # pragma: no cover - mps sets no budget
        raise ConfigError("budget reached during participant synthesis")
    _, _, completion, error = result
    return completion, error


@dataclass
class Conversation:
    """One item × generator × role: its examinees' scores and its transcript records."""

    item_index: int
    uid: str  # item uid, generator and role: the unit's key
    scores: list[tuple[str, float]]  # (examinee id, raw score)
    transcripts: list[dict[str, Any]]


async def converse(ask: Ask, suite: Suite, scorer: Scorer, j: int, item: Item, gen: str, role: str,
                   models: list[str]) -> Conversation:
    """Generation by `gen`, then for every other model a debate and `gen`'s reflection (Algorithm 1)."""
    prompts = PROMPTS[_lang(suite)]
    sc = suite.task(item.task)
    out = Conversation(j, unit_key(item.uid, gen, role), [], [])

    def score(c: Completion | None) -> tuple[float, Any]:
        s = scorer.score(sc, item, c.text if c else None)
        return s.score, s.extracted

    question = user_message(sc, item, PromptSettings(), suite)
    base = [_persona(suite, role), {"role": "user", "content": question}]
    g, g_err = await ask(gen, base)
    g_score, g_ext = score(g)
    if g is not None:
        out.scores.append((f"{gen}@{role}:first", g_score))
    for deb in (d for d in models if d != gen):
        record: dict[str, Any] = {"item": item.uid, "task": item.task, "generator": gen, "debater": deb,
                                  "role": role, "generation": g.text if g else None, "generation_error": g_err,
                                  "generation_extracted": g_ext, "generation_score": g_score}
        if g is None:
            record["error"] = g_err
            out.transcripts.append(record)
            continue
        debate_msgs = [_persona(suite, role), {"role": "user", "content": prompts["debate"].format(
            role=_role_name(suite, role), question=question, answer=g.text)}]
        d, d_err = await ask(deb, debate_msgs)
        if d is None:
            record.update(error=d_err)
            out.transcripts.append(record)
            continue
        reflect_msgs = [*base, {"role": "assistant", "content": g.text},
                        {"role": "user", "content": prompts["reflect"].format(debate=d.text)}]
        r, r_err = await ask(gen, reflect_msgs)
        r_score, r_ext = score(r)
        if r is not None:
            out.scores.append((f"{gen}>{deb}@{role}", r_score))
        record.update(debate=d.text, reflection=r.text if r else None, error=r_err, extracted=r_ext,
                      score=r_score if r else None)
        out.transcripts.append(record)
    return out


def unit_key(uid: str, gen: str, role: str) -> str:
    return f"{uid}|{gen}|{role}"


@dataclass(frozen=True)
class MpsJob:
    """Participant synthesis on Ray workers: a unit is (item index, item, generator, role)."""

    job_id: str
    suite: Suite
    specs: dict[str, str]  # examinee model name → model spec (the worker's engines are keyed by spec)
    params: GenParams

    async def run(self, env: Any, unit: tuple[int, Item, str, str]) -> Conversation:
        j, item, gen, role = unit
        engines = {name: env.engines[spec] for name, spec in self.specs.items()}

        async def ask(name: str, messages: list[Message]) -> tuple[Completion | None, str | None]:
            return await _ask(engines[name], messages, self.params)

        return await converse(ask, self.suite, _scorer(self.suite.language), j, item, gen, role, list(self.specs))


@cache
def _scorer(language: str) -> Scorer:
    return Scorer(language=language)


async def synthesize(items: list[Item], suite: Suite, backends: Mapping[str, Backend | Model], roles: list[str], *,
                     out: Path, params: GenParams, cache_path: str | None, no_cache: bool, scorer: Scorer,
                     concurrency: int = 4, progress: Any = None, executor: Any = None,
                     specs: dict[str, str] | None = None) -> MpsResult:
    """Run generation–debate–reflection for every item × ordered model pair × role; write matrix + transcripts.

    With a Ray `executor` (and `specs`: model name → spec) the conversations are held by its workers, which
    open the models themselves; `backends` then only names the models (their fingerprints)."""
    if len(backends) < 2:
        raise ConfigError("mps needs at least two models (--models A,B): a debate needs a second agent")
    known = _roles(suite)
    for r in roles:
        if r not in known:
            raise ConfigError(f"unknown role {r!r}; the suite's roles: {', '.join(known)}")
    out.mkdir(parents=True, exist_ok=True)
    stats = RunStats()
    pairs = list(itertools.permutations(backends, 2))
    examinees = [Examinee(f"{g}@{r}:first", g, None, r) for g in backends for r in roles]
    examinees += [Examinee(f"{g}>{d}@{r}", g, d, r) for g, d in pairs for r in roles]
    col = {e.id: i for i, e in enumerate(examinees)}
    raw_scores = np.full((len(examinees), len(items)), np.nan)
    transcripts = (out / "transcripts.jsonl").open("w", encoding="utf-8")
    start = time.perf_counter()
    total = len(items) * len(backends) * len(roles)
    done = 0
    units = [(j, item, gen, role) for j, item in enumerate(items) for gen in backends for role in roles]

    def record(conv: Conversation) -> None:
        nonlocal done
        for examinee, value in conv.scores:
            raw_scores[col[examinee], conv.item_index] = value
        for rec in conv.transcripts:
            transcripts.write(json.dumps(rec, ensure_ascii=False) + "\n")
        done += 1
        if progress:
            progress(done, total, items[conv.item_index].task)

    try:
        if progress:
            progress(0, total, "")
        if executor is not None:
            assert specs is not None
            await _on_workers(executor, units, record, suite, specs, params, stats)
        else:
            cache = open_cache(RunOptions(cache=cache_path, no_cache=no_cache))
            try:
                engines = {name: Engine(b, suite, cache, RateLimiter(), Budget(Prices()), stats)
                           for name, b in backends.items() if isinstance(b, Backend)}
                sem = asyncio.Semaphore(max(1, concurrency))

                async def ask(name: str, messages: list[Message]) -> tuple[Completion | None, str | None]:
                    async with sem:
                        return await _ask(engines[name], messages, params)

                async def one(unit: tuple[int, Item, str, str]) -> None:
                    record(await converse(ask, suite, scorer, *unit, list(backends)))

                await asyncio.gather(*(one(u) for u in units))
            finally:
                if cache is not None:
                    cache.close()
    finally:
        transcripts.close()
    binary = binarize_scores(raw_scores, [i.task for i in items], suite)
    thresholds = binary.thresholds
    kept = [items[j] for j in binary.keep]
    ids = [e.id for e in examinees]
    result_matrix = ResponseMatrix(ids, [i.uid for i in kept], binary.data)
    write_matrix(out / "matrix.csv", result_matrix)
    write_item_map(out / "items.csv", [(i.uid, i.task, len(i.options)) for i in kept], suite, thresholds)
    write_json_atomic(out / "mps.json", {
        "models": {n: b.fingerprint for n, b in backends.items()}, "roles": roles,
        "examinees": [e.__dict__ for e in examinees], "items": len(kept), "left_out": binary.left_out,
        "generation": params.as_dict(),
        "suite": suite.suite, "requests_sent": stats.requested, "cache_hits": stats.cache_hits,
        "seconds": round(time.perf_counter() - start, 2)})
    return MpsResult(result_matrix, out, examinees, stats.cache_hits, int(np.count_nonzero(np.isnan(raw_scores))),
                     time.perf_counter() - start, thresholds, binary.left_out)


async def _on_workers(executor: Any, units: list[tuple[int, Item, str, str]], record: Callable[[Conversation], None],
                      suite: Suite, specs: dict[str, str], params: GenParams, stats: RunStats) -> None:
    """The conversations on the Ray executor's workers (already started with every model open)."""
    import uuid

    from climedbench.executors.ray_driver import shard_size, snapshot

    job = executor._ray.put(MpsJob(uuid.uuid4().hex, suite, specs, params))
    snapshots: dict[tuple[int, int], Any] = {}

    def on_batch(batch: Any, worker: int) -> None:
        for conv in batch.results:
            record(conv)
        snapshot(snapshots, batch, worker)

    def key(x: Any) -> str:
        return x.uid if isinstance(x, Conversation) else unit_key(x[1].uid, x[2], x[3])

    def submit(actor: Any, chunk: list[Any]) -> Any:
        return actor.run_units.options(num_returns="streaming").remote(job, chunk)

    size = shard_size(len(units), executor.opts.workers, executor.opts.shard_size)
    await executor.stream(units, key, submit, on_batch, size=size)
    for b in snapshots.values():
        stats.add(b.stats)


async def run_mps(models: list[str], data: str | None, tasks: list[str] | None, limit: int | None,
                  roles: list[str] | None, out: Path, model_options: ModelOptions, max_tokens: int,
                  cache: str | None, no_cache: bool, seed: int, concurrency: int,
                  progress: Any = None, suite: str | None = None, executor: ExecutorOptions | None = None
                  ) -> MpsResult:
    """Load items and models (here, or on Ray workers), then synthesize."""
    plan = plan_run(RunOptions(data=data, suite=suite, tasks=tasks, limit=limit, seed=seed, max_tokens=max_tokens))
    items = [r.item for r in plan.requests]
    roles = roles or list(_roles(plan.suite))
    scorer = Scorer(language=plan.suite.language)
    params = GenParams(max_tokens=max_tokens, seed=seed)
    if executor is not None and executor.kind == "ray":
        from climedbench.executors import make_executor
        from climedbench.executors.ray_driver import RayExecutor

        ray_exec = make_executor(executor)
        assert isinstance(ray_exec, RayExecutor)
        try:
            hellos = await ray_exec.workers(models, model_options, None if no_cache else cache or str(
                default_cache_path()), concurrency=concurrency)
            named: dict[str, Model] = {}
            specs: dict[str, str] = {}
            for spec, name, fp in zip(models, hellos[0].names, hellos[0].fingerprints, strict=True):
                unique = _unique(named, name)
                named[unique], specs[unique] = Model(fp), spec
            return await synthesize(items, plan.suite, named, roles, out=out, params=params, cache_path=cache,
                                    no_cache=no_cache, scorer=scorer, concurrency=concurrency, progress=progress,
                                    executor=ray_exec, specs=specs)
        finally:
            ray_exec.close()
    backends: dict[str, Backend] = {}
    try:
        for spec in models:
            b = await open_backend(spec, model_options)
            backends[_unique(backends, b.name)] = b
        return await synthesize(items, plan.suite, backends, roles, out=out, params=params, cache_path=cache,
                                no_cache=no_cache, scorer=scorer, concurrency=concurrency, progress=progress)
    finally:
        for b in backends.values():
            await b.aclose()


def _unique(taken: Mapping[str, Any], name: str) -> str:
    """name, or name#2, name#3 … when two models share a name."""
    out, n = name, 2
    while out in taken:
        out, n = f"{name}#{n}", n + 1
    return out


@dataclass(frozen=True)
class Model:
    """A model opened elsewhere (on Ray workers): what synthesis needs of it here, its fingerprint."""

    fingerprint: dict[str, Any]
