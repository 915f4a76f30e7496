"""Re-extract and re-score a run directory from its raw responses: no model is called."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from climedbench.core.suite import Suite, load_suite
from climedbench.core.types import Item, Results, RunSpec, Sample
from climedbench.data.hashing import data_hash
from climedbench.data.loaders import DEMO_NAME, load_items
from climedbench.errors import DataError
from climedbench.gold import target_hash
from climedbench.results import build_results
from climedbench.rundir import RunDir, scan_samples, write_jsonl_atomic
from climedbench.scoring import Scorer


def suite_of_run(spec: RunSpec) -> Suite:
    """The suite a run was made with (the plug-ins of the run's --include-path folders imported first)."""
    include_run_plugins(spec)
    return load_suite(spec.suite_source or spec.suite)


def include_run_plugins(spec: RunSpec) -> None:
    """Import the plug-ins of the folders run.json's `include_path` records, so later commands on the run need no
    --include-path. A recorded folder that is gone is an error, unless this command was given include folders of
    its own (the plug-ins moved: they are imported from there)."""
    from climedbench.core.plugins import include, include_dirs

    given = bool(include_dirs())
    recorded = [d for d in spec.include_path or [] if not given or Path(d).is_dir()]
    include(recorded, "run.json include_path")


def items_of_run(spec: RunSpec, suite: Suite, *, check: bool = True) -> dict[str, Item]:
    """The run's items by uid, read again from its data; with `check`, refused when the data changed since the
    run (its content hash differs from run.json's data_sha256)."""
    report = load_items(None if spec.data == DEMO_NAME else spec.data, suite, spec.tasks or None)
    if check and spec.data_sha256:
        now = data_hash(report.items)
        if now != spec.data_sha256:
            raise DataError(f"{spec.data}: the data changed since the run (content sha256 {now}, the run was made "
                            f"on {spec.data_sha256}); re-scoring would score answers against different items")
    return {i.uid: i for i in report.items}


def rescore(path: str | Path, *, tokenizer: str | None = None, embedder: str | None = None,
            similarity: str | None = None, judge: str | None = None, base_url: str | None = None,
            notice: Callable[[str], None] | None = None) -> tuple[Results, Suite]:
    """Recompute every sample's extraction and score, then results.json; returns (results, suite).

    Holds the run directory's lock throughout (refused while a run or another score writes it). The new
    samples.jsonl is written to a temporary file and renamed over the old one only when complete. A cut-off last
    record (a run killed mid-write) is kept as it is, after the re-scored ones, and its item counts as missing
    (the run's command asks it again); `notice` gets one line about it."""
    rd = RunDir(path)
    spec = rd.read_spec()  # before the lock: a folder that is no run directory is left untouched
    with rd.lock("score"):
        return _rescore(rd, spec, tokenizer, embedder, similarity, judge, base_url, notice)


def _rescore(rd: RunDir, spec: RunSpec, tokenizer: str | None, embedder: str | None, similarity: str | None,
             judge: str | None, base_url: str | None, notice: Callable[[str], None] | None) -> tuple[Results, Suite]:
    suite = suite_of_run(spec)
    items = items_of_run(spec, suite)
    scorer = Scorer(tokenizer=tokenizer or spec.metrics.get("rouge_tokenizer", "jieba"),  # type: ignore[arg-type]
                    embedder_spec=embedder or spec.metrics.get("embedder", "e5"),
                    similarity=similarity or spec.metrics.get("similarity", "raw"),  # type: ignore[arg-type]
                    language=suite.language)
    records, cut = scan_samples(rd.samples_file)
    samples = list({s.key: s for _, s in records}.values())
    if not samples:
        raise DataError(f"{rd.samples_file}: no samples to score")
    for s in samples:
        item = items.get(s.uid)
        if item is None:
            raise DataError(f"{rd.samples_file}: item {s.uid} is not in {spec.data} any more "
                            "(the data changed since the run)")
        task = suite.task(item.task)
        scored = scorer.score(task, item, s.raw, s.logprobs,
                              "logprob" if s.variant == "logprob" else spec.mc_mode, s.finish_reason)
        s.extracted = scored.extracted
        s.extraction_method = scored.method
        s.extraction_failure = scored.extraction_failure if s.error is None else False
        s.score = scored.score
        s.stats = list(scored.stats) if scored.stats is not None else None
        s.flags = dict(scored.flags) if s.error is None else {}
        s.alternatives = scored.alternatives or None
        s.secondary = scored.secondary or None
        s.extraction_failure_reason = scored.method if s.extraction_failure else None
        s.judge_raw = s.judge_error = None
        s.gold = item.gold
        s.target_hash = target_hash(item.gold)
        s.cluster = item.cluster
    if judge:
        cache = spec.cache if spec.cache not in (None, "default") else None
        asyncio.run(_judge(samples, items, suite, scorer, judge, base_url, cache))
    write_jsonl_atomic(rd.samples_file, samples, tail=cut.data if cut is not None else b"")
    if cut is not None and notice is not None:
        notice(f"{rd.samples_file}:{cut.line}: the last record is cut off (a run stopped while writing it); it is "
               "kept as it is, not scored, and its item counts as missing: re-run the run's command to answer it "
               "again")
    results = build_results(samples, suite, spec.model_name, spec.seed, similarity=scorer.similarity,
                            planned=spec.items_by_task, reducer=spec.epoch_reducer)
    if rd.results_file.exists():
        results.run = rd.read_results().run
    if results.run is not None:
        planned = spec.n_items or results.run.planned
        results.run = results.run.model_copy(update={"items": len(samples), "planned": planned,
                                                     "missing": max(0, planned - len(samples)),
                                                     "failed": sum(1 for s in samples if s.error)})
    results.rescored = {**scorer.describe(), "extractor": f"judge:{judge}" if judge else "rules"}
    rd.write_results(results)
    return results, suite


async def _judge(samples: list[Sample], items: dict[str, Item], suite: Suite, scorer: Scorer, spec: str,
                 base_url: str | None, cache_path: str | None) -> None:
    """The judge pass of `score --extractor judge:SPEC`, through the run's response cache."""
    from climedbench.judge import judge_samples
    from climedbench.limits import Budget, Prices, RateLimiter
    from climedbench.models.registry import ModelOptions, open_backend
    from climedbench.run.engine import Engine, RunStats, open_cache
    from climedbench.run.plan import RunOptions

    backend = await open_backend(spec, ModelOptions(base_url=base_url))
    cache = open_cache(RunOptions(cache=cache_path))
    try:
        engine = Engine(backend, suite, cache, RateLimiter(), Budget(Prices()), RunStats())
        await judge_samples(samples, items, suite, engine, scorer, backend.name)
    finally:
        if cache is not None:
            cache.close()
        await backend.aclose()
