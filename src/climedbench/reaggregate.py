"""Re-aggregate per-sample records into results: `climedbench aggregate SAMPLES.jsonl|RUN_DIR ...`.

The files may be one run's samples.jsonl or shards of one run (written on different machines): every
file's run.json (when it sits next to it) must describe the same plan, and an item answered in two shards
must carry the same answer. Samples are merged by uid and aggregated exactly as `climedbench run` does, so
the task, group and overall figures equal those of the run's results.json.
"""

from __future__ import annotations

from pathlib import Path

from climedbench.core.suite import Suite, load_suite
from climedbench.core.types import Results, RunAccounting, RunSpec, Sample
from climedbench.errors import DataError
from climedbench.limits import Prices
from climedbench.results import build_results
from climedbench.rundir import RUN_FILE, SAMPLES_FILE, RunDir, iter_samples

# run.json fields that must agree for files to be shards of one run.
PLAN_KEYS = ("suite", "suite_version", "data_sha256", "tasks", "limit", "seed", "prompt", "mc_mode", "generation",
             "model", "metrics", "epochs")


def _resolve(path: Path) -> tuple[Path, RunSpec | None]:
    """The samples file and the run.json beside it (if any)."""
    samples = path / SAMPLES_FILE if path.is_dir() else path
    if not samples.exists():
        raise DataError(f"{samples}: no such file (give samples.jsonl files or run directories)")
    spec_file = samples.parent / RUN_FILE
    return samples, RunDir(samples.parent).read_spec() if spec_file.exists() else None


def merge_samples(paths: list[Path]) -> tuple[list[Sample], RunSpec | None]:
    """The union of the samples of one run's files (last answer of an item wins), and its run spec."""
    if not paths:
        raise DataError("give at least one samples.jsonl file or run directory")
    spec: RunSpec | None = None
    spec_from: Path | None = None
    merged: dict[str, tuple[Sample, Path]] = {}
    for path in paths:
        samples_file, this = _resolve(path)
        if this is not None:
            if spec is None:
                spec, spec_from = this, samples_file
            else:
                a, b = spec.model_dump(mode="json"), this.model_dump(mode="json")
                diff = [k for k in PLAN_KEYS if a.get(k) != b.get(k)]
                if diff:
                    raise DataError(f"{samples_file} is not a shard of the same run as {spec_from} (its run.json "
                                    f"differs in: {', '.join(diff)}); aggregate them separately")
        for s in iter_samples(samples_file):
            old = merged.get(s.key)
            if old is not None and not old[0].error and not s.error and old[0].raw != s.raw:
                raise DataError(f"{samples_file}: item {s.uid} has a different answer than in {old[1]} "
                                "(two shards answered it differently)")
            if old is None or not s.error or old[0].error:
                merged[s.key] = (s, samples_file)
    if not merged:
        raise DataError(f"{', '.join(map(str, paths))}: no samples")
    return [s for s, _ in merged.values()], spec


def aggregate_files(paths: list[Path], suite: str | None = None, seed: int | None = None,
                    model: str | None = None, similarity: str | None = None) -> tuple[Results, Suite]:
    """results.json figures from sample files (with a run block of what the samples record); `similarity`
    ('raw' or 'rescaled') picks which similarity the samples' alternatives give for similarity tasks."""
    samples, spec = merge_samples(paths)
    if spec is not None:
        from climedbench.rescore import include_run_plugins

        include_run_plugins(spec)
    s = load_suite(suite or (spec.suite_source or spec.suite if spec else None))
    unknown = sorted({x.task for x in samples if s.lookup(x.task) is None})
    if unknown:
        raise DataError(f"tasks {', '.join(unknown)} are not in suite {s.suite} (pass --suite)")
    mode = similarity or (spec.metrics.get("similarity", "raw") if spec else "raw")
    if similarity is not None:
        samples = [_with_similarity(x, similarity, s) for x in samples]
    name = model or (spec.model_name if spec else "model")
    # One run's (not a shard's) plan says how many items each task planned: items never asked are unanswered.
    per_task = spec.items_by_task if spec is not None and spec.shard is None and len(paths) == 1 else None
    results = build_results(samples, s, name, seed if seed is not None else (spec.seed if spec else 0),
                            similarity=mode, planned=per_task, reducer=spec.epoch_reducer if spec else None)
    # Shards of one plan: the plan's items, not the first shard's, are what is planned.
    planned = (spec.shard.plan_items if spec and spec.shard else spec.n_items if spec and spec.n_items
               else len(samples))
    prompt = sum(x.prompt_tokens or 0 for x in samples)
    completion = sum(x.completion_tokens or 0 for x in samples)
    run = RunAccounting(items=len(samples), planned=planned, missing=max(0, planned - len(samples)),
                        cache_hits=sum(1 for x in samples if x.cached), failed=sum(1 for x in samples if x.error),
                        prompt_tokens=prompt, completion_tokens=completion)
    if spec is not None:
        prices = Prices(float(spec.limits.get("price_in_per_mtok") or 0), float(spec.limits.get("price_out_per_mtok")
                                                                                or 0))
        if prices.set:
            run.cost_usd = round(prices.cost(prompt, completion), 6)
            run.prices_per_mtok = {"prompt": prices.prompt, "completion": prices.completion}
    results.run = run
    return results, s


def _with_similarity(sample: Sample, mode: str, suite: Suite) -> Sample:
    """The sample scored by the other similarity variant it recorded (similarity tasks only)."""
    if mode not in ("raw", "rescaled"):
        raise DataError(f"--similarity must be 'raw' or 'rescaled', not {mode!r}")
    task = suite.lookup(sample.task)
    if task is None or task.metric != "similarity" or sample.error:
        return sample
    key = f"similarity_{mode}"
    if not sample.alternatives or key not in sample.alternatives:
        raise DataError(f"sample {sample.uid} records no {key} (scored by an older climedbench?): run "
                        "`climedbench score RUN --similarity ...` instead, which re-embeds the answers")
    return sample.model_copy(update={"score": sample.alternatives[key]})
