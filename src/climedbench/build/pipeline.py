"""The whole build: notes → preprocess → segments → candidates (rules; LLM1 optional), resumable.

Units are (scenario, record) pairs, done in a fixed order (scenario, then record hash): with --per-scenario N the
first N items of each task in that order are made. Each finished unit is recorded (state.py) right after its
candidate is written (candidates.py), so a kill at any point loses at most the units in progress. With an LLM1
generator, `--max-concurrency N` keeps up to N units' rewrites in flight; units are still written in their order,
so the candidates are the same as with N = 1.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from climedbench.build.candidates import BUILD_DIR, Candidate, append_candidate, load_candidates
from climedbench.build.generate import Skip, key_of
from climedbench.build.kinds import POOLED, build_unit, pool_of
from climedbench.build.preprocess import QualityRules, drops_json, preprocess
from climedbench.build.records import read_notes
from climedbench.build.scenarios import Scenario, load_scenarios, select
from climedbench.build.segments import Guideline, load_guideline
from climedbench.build.state import BuildState
from climedbench.errors import ConfigError


@dataclass
class BuildOptions:
    source: Path
    out: Path
    scenarios: list[str] | None = None
    per_scenario: int | None = None
    generator: str | None = None
    already_deidentified: bool = False
    guideline_zh: Path | None = None
    guideline_en: Path | None = None
    templates: Path | None = None
    embedder: str = "e5"
    cache: Path | None = None  # the response cache (None: the default one)
    no_cache: bool = False
    rules: QualityRules = field(default_factory=QualityRules)
    text_column: str = "text"
    max_concurrency: int = 1  # LLM1 requests in flight at once (the candidates are written in the same order)
    executor: Any = None  # ExecutorOptions: with kind 'ray' (and a generator), LLM1 runs on Ray workers (ray_llm1.py)
    distractors: str = "records"  # 'model': single-choice distractors written by the generator (llm_distractors.py)


def _settings(opts: BuildOptions, scenarios: list[Scenario], guidelines: dict[str, Guideline]) -> dict[str, Any]:
    return {"source": str(opts.source.resolve()), "scenarios": [s.template_id for s in scenarios],
            "per_scenario": opts.per_scenario, "generator": opts.generator, "embedder": opts.embedder,
            "templates": str(opts.templates.resolve()) if opts.templates else None,
            "guidelines": {k: f"{g.source}@{g.digest}" for k, g in guidelines.items()},
            "rules": vars(opts.rules) if not hasattr(opts.rules, "__dataclass_fields__") else
            {k: getattr(opts.rules, k) for k in opts.rules.__dataclass_fields__},
            # only when not the default, so the settings of a records build (and its resumption) are unchanged
            **({"distractors": opts.distractors} if opts.distractors != "records" else {})}


def run_build(opts: BuildOptions, progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Build (or resume) the candidates of SUITE_DIR; returns a summary (counts, drops, skips)."""
    from climedbench.deid.pipeline import require_deidentified

    if opts.distractors not in ("records", "model"):
        raise ConfigError(f"--distractors {opts.distractors!r}: use 'records' or 'model'")
    if opts.distractors == "model" and not opts.generator:
        raise ConfigError("--distractors model: the distractors are written by the --generator model; name one")
    require_deidentified(opts.source if opts.source.is_dir() else opts.source.parent, opts.already_deidentified)
    guidelines = {"zh": load_guideline("zh", opts.guideline_zh), "en": load_guideline("en", opts.guideline_en)}
    scenarios = select(load_scenarios(opts.templates), opts.scenarios)
    state = BuildState(opts.out)
    state.check_settings(_settings(opts, scenarios, guidelines))
    notes = read_notes(opts.source, text_column=opts.text_column)
    kept, drops = preprocess(notes, guidelines, opts.rules)
    state.write_drops(drops_json(drops))
    kept.sort(key=lambda k: k.note.record)
    return asyncio.run(_generate_all(opts, scenarios, guidelines, kept, state, progress,
                                     {"notes_read": len(notes), "notes_kept": len(kept), "dropped": len(drops)}))


async def _generate_all(opts: BuildOptions, scenarios: list[Scenario], guidelines: dict[str, Guideline],
                        kept: list[Any], state: BuildState, progress: Callable[[str, int, int], None] | None,
                        summary: dict[str, Any]) -> dict[str, Any]:
    from climedbench.build.distractors import EmbeddingStore

    store = None
    if any(s.answer in POOLED for s in scenarios):
        from climedbench.embeddings import load_embedder

        store = EmbeddingStore(opts.out / BUILD_DIR / "embeddings.sqlite", load_embedder(opts.embedder))
    # --distractors model runs locally this round (its requests are not sent to Ray workers)
    on_ray = bool(opts.generator) and opts.executor is not None and opts.executor.kind == "ray" \
        and opts.distractors == "records"
    llm = await _open_generator(opts) if opts.generator and not on_ray else None
    later: list[Any] = []  # on Ray: every unit in order, rewritten on the workers at the end (ray_llm1.py)
    made: Counter[str] = Counter(c.task for c in load_candidates(opts.out))
    skipped: Counter[str] = Counter()
    resumed = len(state.units)
    # Units in order, each with its LLM1 rewrite under way (at most --max-concurrency at once); written in order.
    window: deque[tuple[str, asyncio.Future[Any]]] = deque()
    rank = {lang: {k.note.record: i for i, k in enumerate(x for x in kept if x.note.lang == lang)}
            for lang in ("zh", "en")}
    try:
        for sc in scenarios:
            pools = {lang: pool_of(sc, kept, guidelines, lang) if sc.answer in POOLED else []
                     for lang in ("zh", "en")}
            for i, k in enumerate(kept, start=1):
                spec = sc.languages.get(k.note.lang)
                unit = f"{sc.scenario}|{k.note.record}"
                if progress is not None:
                    progress(sc.scenario, i, len(kept))
                if state.done(unit):
                    continue
                if spec is not None and opts.per_scenario is not None and made[spec.task] >= opts.per_scenario:
                    continue
                g = guidelines[k.note.lang]
                result = build_unit(sc, k, g, pools[k.note.lang], store,  # type: ignore[arg-type]
                                  rank[k.note.lang][k.note.record])
                if isinstance(result, Skip):
                    skipped[f"{sc.scenario}: {result.reason}"] += 1
                else:
                    made[result.task] += 1
                cand = None if isinstance(result, Skip) else result
                llm1 = opts.generator is not None and cand is not None and sc.answer == "single"
                if on_ray:
                    later.append((unit, result, _rewrite_args(cand, sc, k, g) if llm1 and cand is not None else None))
                    continue
                job = _rewrite(llm, cand, sc, k, g) if llm is not None and llm1 and cand is not None else _ready(result)
                window.append((unit, asyncio.ensure_future(job)))
                await _drain(window, opts.max_concurrency - 1, opts.out, state)
            await _drain(window, 0, opts.out, state)
        if on_ray:
            from climedbench.build.ray_llm1 import rewrite_on_ray

            assert opts.generator is not None
            await rewrite_on_ray(opts.executor, opts.generator, opts.cache, opts.no_cache, opts.max_concurrency,
                                 later, lambda unit, result: _write(unit, result, opts.out, state))
    finally:
        for _, fut in window:
            fut.cancel()
        await asyncio.gather(*(fut for _, fut in window), return_exceptions=True)
        if store is not None:
            store.close()
        if llm is not None:
            await llm[0].aclose()
            if llm[1] is not None:
                llm[1].close()
    return {**summary, "units_resumed": resumed, "candidates": dict(made),
            "skipped": dict(skipped), "embedded": store.computed if store else 0}


async def _ready(result: Any) -> Any:
    return result


async def _drain(window: deque[tuple[str, asyncio.Future[Any]]], keep: int, out: Path, state: BuildState) -> None:
    """Write the oldest units of the window, in order, until at most `keep` are left under way."""
    while len(window) > keep:
        unit, job = window.popleft()
        _write(unit, await job, out, state)


def _write(unit: str, result: Any, out: Path, state: BuildState) -> None:
    """Record a finished unit: its candidate first, then the unit as done."""
    if isinstance(result, Skip):
        state.finish(unit, skipped=result.reason)
    else:
        append_candidate(out, result)
        state.finish(unit, candidate=result.candidate_id)


async def _open_generator(opts: BuildOptions) -> tuple[Any, Any, Any, Any]:
    from climedbench.build.llm1 import LLM1Prompt
    from climedbench.cache import ResponseCache, default_cache_path
    from climedbench.models.registry import ModelOptions, open_backend

    base = ModelOptions()
    backend = await open_backend(opts.generator or "default", replace(base, max_concurrency=max(
        base.max_concurrency, opts.max_concurrency)))
    cache = None if opts.no_cache else ResponseCache(opts.cache or default_cache_path())
    distractor_prompt = None
    if opts.distractors == "model":
        from climedbench.build.llm_distractors import bundled_prompt

        distractor_prompt = bundled_prompt()
    return backend, cache, LLM1Prompt.bundled(), distractor_prompt


def _rewrite_args(cand: Candidate, sc: Scenario, kept: Any, g: Guideline) -> tuple[str, str]:
    """What LLM1 is told besides the candidate: the task's name and the key's text."""
    from climedbench.core.suite import load_suite

    got = key_of(sc, kept, g)
    task = load_suite("climedbench").lookup(sc.scenario)
    name = task.name.text(cand.lang) if task is not None else sc.scenario
    return name, got[0] if got else ""


async def _rewrite(llm: tuple[Any, Any, Any, Any], cand: Candidate, sc: Scenario, kept: Any, g: Guideline
                   ) -> Candidate:
    """LLM1 on one single-choice candidate: model-written distractors first (--distractors model), then the
    question (its request shows the case only, so it is the same either way)."""
    from climedbench.build.llm1 import rewrite

    args = _rewrite_args(cand, sc, kept, g)
    if llm[3] is not None:
        from climedbench.build.llm_distractors import model_distractors

        cand = await model_distractors(cand, sc, llm[0], llm[1], llm[3], *args)
    return await rewrite(cand, llm[0], llm[1], llm[2], *args)
