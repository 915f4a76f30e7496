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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from climedbench.core.suite import Names, Suite, Task
from climedbench.core.types import Item
from climedbench.errors import ConfigError
from climedbench.irt.binarize import binarize_matrix, write_item_map
from climedbench.irt.matrix import ResponseMatrix, write_matrix
from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.base import Backend, Completion, GenParams, Message
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.prompts import PromptSettings, user_message
from climedbench.rundir import write_json_atomic
from climedbench.runner import Engine, RunOptions, RunStats, open_cache, plan_run
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


async def _ask(engine: Engine, messages: list[Message], params: GenParams) -> tuple[Completion | None, str | None]:
    """One request through the engine (cache, limits, retries)."""
    result = await engine.answer(_Prebuilt(messages, params))
    if result is None:  # pragma: no cover - mps sets no budget
        raise ConfigError("budget reached during participant synthesis")
    _, _, completion, error = result
    return completion, error


async def synthesize(items: list[Item], suite: Suite, backends: dict[str, Backend], roles: list[str], *,
                     out: Path, params: GenParams, cache_path: str | None, no_cache: bool, scorer: Scorer,
                     concurrency: int = 4, progress: Any = None) -> MpsResult:
    """Run generation–debate–reflection for every item × ordered model pair × role; write matrix + transcripts."""
    if len(backends) < 2:
        raise ConfigError("mps needs at least two models (--models A,B): a debate needs a second agent")
    known = _roles(suite)
    for r in roles:
        if r not in known:
            raise ConfigError(f"unknown role {r!r}; the suite's roles: {', '.join(known)}")
    prompts = PROMPTS[_lang(suite)]
    out.mkdir(parents=True, exist_ok=True)
    cache = open_cache(RunOptions(cache=cache_path, no_cache=no_cache))
    stats = RunStats()
    engines = {name: Engine(b, suite, cache, RateLimiter(), Budget(Prices()), stats) for name, b in backends.items()}
    scenario = {t.code: t for t in suite.tasks}
    pairs = list(itertools.permutations(backends, 2))
    examinees = [Examinee(f"{g}@{r}:first", g, None, r) for g in backends for r in roles]
    examinees += [Examinee(f"{g}>{d}@{r}", g, d, r) for g, d in pairs for r in roles]
    col = {e.id: i for i, e in enumerate(examinees)}
    raw_scores = np.full((len(examinees), len(items)), np.nan)
    transcripts = (out / "transcripts.jsonl").open("w", encoding="utf-8")
    sem = asyncio.Semaphore(max(1, concurrency))
    start = time.perf_counter()
    total = len(items) * len(backends) * len(roles)
    done = 0

    def score(sc: Task, item: Item, c: Completion | None) -> tuple[float, Any]:
        s = scorer.score(sc, item, c.text if c else None)
        return s.score, s.extracted

    async def one(j: int, item: Item, gen: str, role: str) -> None:
        nonlocal done
        sc = scenario[item.task]
        question = user_message(sc, item, PromptSettings(), suite)
        base = [_persona(suite, role), {"role": "user", "content": question}]
        async with sem:
            g, g_err = await _ask(engines[gen], base, params)
        g_score, g_ext = score(sc, item, g)
        if g is not None:
            raw_scores[col[f"{gen}@{role}:first"], j] = g_score
        for deb in (d for d in backends if d != gen):
            record: dict[str, Any] = {"item": item.uid, "task": item.task, "generator": gen, "debater": deb,
                                      "role": role, "generation": g.text if g else None, "generation_error": g_err,
                                      "generation_extracted": g_ext, "generation_score": g_score}
            if g is None:
                record["error"] = g_err
                transcripts.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            debate_msgs = [_persona(suite, role), {"role": "user", "content": prompts["debate"].format(
                role=_role_name(suite, role), question=question, answer=g.text)}]
            async with sem:
                d, d_err = await _ask(engines[deb], debate_msgs, params)
            if d is None:
                record.update(error=d_err)
                transcripts.write(json.dumps(record, ensure_ascii=False) + "\n")
                continue
            reflect_msgs = [*base, {"role": "assistant", "content": g.text},
                            {"role": "user", "content": prompts["reflect"].format(debate=d.text)}]
            async with sem:
                r, r_err = await _ask(engines[gen], reflect_msgs, params)
            r_score, r_ext = score(sc, item, r)
            if r is not None:
                raw_scores[col[f"{gen}>{deb}@{role}"], j] = r_score
            record.update(debate=d.text, reflection=r.text if r else None, error=r_err, extracted=r_ext,
                          score=r_score if r else None)
            transcripts.write(json.dumps(record, ensure_ascii=False) + "\n")
        done += 1
        if progress:
            progress(done, total, item.task)

    try:
        if progress:
            progress(0, total, "")
        await asyncio.gather(*(one(j, item, gen, role) for j, item in enumerate(items)
                               for gen in backends for role in roles))
    finally:
        transcripts.close()
        if cache is not None:
            cache.close()
    matrix, thresholds = binarize_matrix(raw_scores, [i.task for i in items], suite)
    ids = [e.id for e in examinees]
    result_matrix = ResponseMatrix(ids, [i.uid for i in items], matrix)
    write_matrix(out / "matrix.csv", result_matrix)
    write_item_map(out / "items.csv", [(i.uid, i.task, len(i.options)) for i in items], suite, thresholds)
    write_json_atomic(out / "mps.json", {
        "models": {n: b.fingerprint for n, b in backends.items()}, "roles": roles,
        "examinees": [e.__dict__ for e in examinees], "items": len(items), "generation": params.as_dict(),
        "suite": suite.suite, "requests_sent": stats.requested, "cache_hits": stats.cache_hits,
        "seconds": round(time.perf_counter() - start, 2)})
    return MpsResult(result_matrix, out, examinees, stats.cache_hits, int(np.count_nonzero(np.isnan(raw_scores))),
                     time.perf_counter() - start, thresholds)


async def run_mps(models: list[str], data: str | None, tasks: list[str] | None, limit: int | None,
                  roles: list[str] | None, out: Path, model_options: ModelOptions, max_tokens: int,
                  cache: str | None, no_cache: bool, seed: int, concurrency: int,
                  progress: Any = None, suite: str | None = None) -> MpsResult:
    """Load items and models, then synthesize."""
    plan = plan_run(RunOptions(data=data, suite=suite, tasks=tasks, limit=limit, seed=seed, max_tokens=max_tokens))
    items = [r.item for r in plan.requests]
    backends: dict[str, Backend] = {}
    try:
        for spec in models:
            b = await open_backend(spec, model_options)
            name = b.name
            n = 2
            while name in backends:
                name, n = f"{b.name}#{n}", n + 1
            backends[name] = b
        return await synthesize(items, plan.suite, backends, roles or list(_roles(plan.suite)), out=out,
                                params=GenParams(max_tokens=max_tokens, seed=seed), cache_path=cache,
                                no_cache=no_cache, scorer=Scorer(), concurrency=concurrency, progress=progress)
    finally:
        for b in backends.values():
            await b.aclose()
