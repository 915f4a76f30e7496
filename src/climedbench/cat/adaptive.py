"""An adaptive test of a real model: the CAT chooses items from a calibrated bank, the model answers them.

Only the chosen items are asked, through the same engine as `climedbench run` (cache, retries, rate
limits). Each answer is extracted and scored by its scenario's metric, binarised with the item map's
threshold, and recorded; the run directory holds run.json, samples.jsonl (the items asked),
cat_log.jsonl (every step: item, information, θ and SE) and results.json (θ ± SE and the predicted
full-benchmark scores with 95% intervals, per scenario and overall).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from climedbench import __version__
from climedbench.cat.engine import CATConfig
from climedbench.cat.session import CATResult, CATSession
from climedbench.core.suite import load_suite
from climedbench.core.types import Figure, Results, RunAccounting, RunSpec
from climedbench.data.loaders import DEMO_NAME, load_items
from climedbench.errors import ConfigError, DataError, ModelError
from climedbench.irt.bank import ItemBank
from climedbench.irt.binarize import binarize, read_transforms, transform_of
from climedbench.limits import Budget, Prices, RateLimiter
from climedbench.models.base import GenParams
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.prompts import PromptSettings
from climedbench.run.engine import Engine, RunStats, make_sample, open_cache
from climedbench.run.plan import Request, RunOptions, default_out_dir
from climedbench.runcheck import checked_results
from climedbench.rundir import RunDir, SampleStore, write_json_atomic
from climedbench.scoring import Scorer

CAT_IDENTITY = ("bank_sha256", "data", "model", "seed", "cat", "generation")


@dataclass
class CatOptions:
    """What `climedbench cat --model ...` was asked to do."""

    bank: str
    model: str = "default"
    data: str | None = None
    suite: str | None = None
    item_map: str | None = None
    config: CATConfig = field(default_factory=CATConfig)
    seed: int = 0
    max_tokens: int = 512
    out: str | None = None
    cache: str | None = None
    no_cache: bool = False
    model_options: ModelOptions = field(default_factory=ModelOptions)


def tau_transforms(bank: ItemBank, transforms: dict[str, tuple[str, float]]) -> dict[str, tuple[float, float]]:
    """Scenario → (scale, offset) for scenarios binarised from Kendall's τ: report 2·score − 100."""
    out: dict[str, tuple[float, float]] = {}
    for item, scenario in zip(bank.ids, bank.scenarios or [], strict=False):
        if scenario and transforms.get(item, ("identity", 0.5))[0] == "tau":
            out[scenario] = (2.0, -100.0)
    return out


def as_results(model: str, result: CATResult, suite_codes: list[str], suite: str) -> Results:
    """The CAT's predictions in the results.json shape (predicted scores with their 95% intervals)."""
    def fig(d: dict[str, float], metric: str) -> Figure:
        return Figure(score=round(d["score"], 2), ci=(round(d["lower"], 2), round(d["upper"], 2)), metric=metric,
                      predicted=True)

    tasks = {c: fig(result.scenarios[c], "predicted") for c in suite_codes if c in result.scenarios}
    return Results(model=model, suite=suite, adaptive=True, tasks=tasks,
                   overall=fig(result.overall, "predicted mean of task scores"),
                   theta=result.theta, se=result.se, n_items=result.n_items)


async def run_cat(opts: CatOptions, progress: Any = None) -> tuple[RunDir, Results]:
    """Administer the adaptive test to the model and write the run directory."""
    bank = ItemBank.load(opts.bank)
    suite = load_suite(opts.suite)
    report = load_items(opts.data, suite)
    items = {i.uid: i for i in report.items}
    missing = [i for i in bank.ids if i not in items]
    if missing:
        raise DataError(f"{len(missing)} bank item(s) are not in {opts.data or DEMO_NAME} (first: {missing[0]}); "
                        "give the --data the bank was calibrated on")
    graded = {t.code for t in suite.tasks if transform_of(t.metric) != "identity"}
    needs_map = any(sc in graded for sc in (bank.scenarios or []))
    transforms = read_transforms(opts.item_map) if opts.item_map else {}
    if needs_map and not opts.item_map:
        raise ConfigError("the bank holds graded items (Kendall's τ, ROUGE, F1, similarity): give --item-map, the "
                          ".items.csv written by `climedbench irt matrix` or `climedbench mps`")
    backend = await open_backend(opts.model, opts.model_options)
    cache = open_cache(RunOptions(cache=opts.cache, no_cache=opts.no_cache))
    lock = None
    try:
        spec = RunSpec(
            kind="adaptive", climedbench_version=__version__, suite=suite.suite, suite_version=suite.version,
            suite_source=suite.source, data=opts.data or DEMO_NAME, model_spec=opts.model, model=backend.fingerprint,
            seed=opts.seed, generation=GenParams(max_tokens=opts.max_tokens, seed=opts.seed).as_dict(),
            bank=str(opts.bank), bank_sha256=_sha(Path(opts.bank)),
            cat={k: v for k, v in opts.config.__dict__.items() if k != "sh_parameters"},
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        rundir = RunDir(opts.out or default_out_dir(f"cat-{backend.name}"))
        lock = rundir.lock("cat run")
        lock.acquire()  # one writer per run directory
        # Re-running the same command replays the test: same seed, same choices, answers from the cache.
        rundir.prepare(spec, CAT_IDENTITY)
        session = CATSession(bank, opts.config, seed=opts.seed, transforms=tau_transforms(bank, transforms))
        stats = RunStats()
        engine = Engine(backend, suite, cache, RateLimiter(), Budget(Prices()), stats)
        scorer = Scorer(language=suite.language)
        params = GenParams(max_tokens=opts.max_tokens, seed=opts.seed)
        start = time.perf_counter()
        log = (rundir.path / "cat_log.jsonl").open("w", encoding="utf-8")
        with SampleStore(rundir.samples_file) as store, log:
            while not session.done:
                uid = session.next_item()
                item = items[uid]
                task = Request(session.n_items, item, suite.task(item.task), [], PromptSettings(), params)
                answered = await engine.answer(task)
                assert answered is not None  # no budget is set
                messages, key, completion, error = answered
                if completion is None:
                    raise ModelError(f"item {uid} failed after retries ({error}); re-run the same command to "
                                     "continue (answers so far are cached)")
                sample = make_sample(task, messages, key, completion, None, scorer, "generate", False)
                store.write(sample)
                transform, threshold = transforms.get(uid, ("identity", 0.5))
                session.record(uid, binarize(sample.score, transform, threshold))
                log.write(json.dumps(session.log[-1], ensure_ascii=False) + "\n")
                if progress:
                    progress(session.n_items, opts.config.max_items, item.task)
            store.finalize(session.result().items)
        result = session.result()
        results = as_results(backend.name, result, suite.codes, suite.suite)
        results.run = RunAccounting(items=result.n_items, planned=opts.config.max_items, missing=0,
                                    cache_hits=stats.cache_hits, wall_seconds=round(time.perf_counter() - start, 3),
                                    prompt_tokens_now=stats.prompt_tokens,
                                    completion_tokens_now=stats.completion_tokens)
        results.cat = {k: v for k, v in result.to_dict().items() if k != "log"}
        rundir.write_results(results)
        spec.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
        write_json_atomic(rundir.run_file, spec)
        return rundir, results
    finally:
        if lock is not None:
            lock.release()
        if cache is not None:
            cache.close()
        await backend.aclose()


def _sha(path: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError as e:
        raise ConfigError(f"cannot read bank {path}: {e.strerror}") from e


def compare_runs(run_dirs: list[Path]) -> dict[str, Any]:
    """Full-benchmark and adaptive runs side by side (score errors, coverage, Spearman), and for every pair of
    adaptive runs whether the short tests separate the two models."""
    import itertools

    from scipy.stats import spearmanr

    from climedbench.cat.session import compare

    full: dict[str, Results] = {}
    adaptive: dict[str, Results] = {}
    for d in run_dirs:
        res = checked_results(d)
        (adaptive if res.adaptive else full)[res.model] = res
    pairs = []
    for a, b in itertools.combinations(adaptive, 2):
        verdict = compare(CATResult.from_dict(adaptive[a].cat or {}), CATResult.from_dict(adaptive[b].cat or {}))
        pairs.append({"a": a, "b": b, **verdict})
    # A full run with no score (no item answered) has nothing to compare with.
    models = [m for m in full if m in adaptive and (o := full[m].overall) is not None and o.score is not None]
    if not models and not pairs:
        raise DataError("give a full run and an adaptive (cat) run of the same model, or two adaptive runs")
    rows: list[dict[str, Any]] = []
    for m in models:
        fo, ao = full[m].overall, adaptive[m].overall
        assert fo is not None and fo.score is not None and ao is not None and ao.score is not None and ao.ci is not None
        rows.append({"model": m, "full": fo.score, "adaptive": ao.score, "ci": list(ao.ci),
                     "error": round(ao.score - fo.score, 2), "covered": ao.ci[0] <= fo.score <= ao.ci[1],
                     "items_asked": adaptive[m].n_items})
    out: dict[str, Any] = {"models": rows, "pairs": pairs}
    if rows:
        out["mean_abs_error"] = round(sum(abs(r["error"]) for r in rows) / len(rows), 3)
        out["coverage"] = sum(r["covered"] for r in rows) / len(rows)
    if len(rows) >= 3:
        rho = spearmanr([r["full"] for r in rows], [r["adaptive"] for r in rows]).statistic
        out["spearman"] = round(float(rho), 4)
    return out
