"""Merge the shards of one plan (`climedbench run --shard I/N`, each its own run directory, possibly made on
different machines) into one ordinary run directory: `climedbench merge SHARD_DIR... --out DIR`.

Checks, each a one-line error naming the directory: every directory is a finished shard; all describe the same
plan (model fingerprint, suite and its version, data hash, tasks, limit, seed, prompt, generation parameters,
metrics, and the plan's item order); every shard 1..N is there exactly once; each holds exactly its items,
none twice; and the shards' items, in shard order, are the plan's items in plan order (sha256 of the uids).
The merged directory is what one unsharded run would have written (same samples, same figures), and a
`climedbench run` with the same options resumes it (retrying items that failed).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from climedbench.core.suite import Suite
from climedbench.core.types import EndpointStats, Results, RunAccounting, RunSpec, merge_endpoint_stats
from climedbench.errors import ConfigError, DataError
from climedbench.limits import Prices
from climedbench.reaggregate import PLAN_KEYS
from climedbench.rescore import suite_of_run
from climedbench.results import build_results
from climedbench.run.accounting import finish_endpoint_stats
from climedbench.run.plan import plan_sha256
from climedbench.rundir import LOCK_FILE, RunDir, Summary, parse_sample, summarize, write_json_atomic


def _shards(dirs: list[Path]) -> tuple[list[tuple[Path, RunSpec]], RunSpec]:
    """The shards in index order, checked to be one plan's, complete and each once; and the first spec."""
    if not dirs:
        raise ConfigError("give the run directories of every shard")
    specs = [(d, RunDir(d).read_spec()) for d in dirs]
    first_dir, first = specs[0]
    for d, s in specs:
        if s.shard is None:
            raise DataError(f"{d}: not a shard (its run.json has no 'shard'; make shards with "
                            "`climedbench run --shard I/N`)")
        if s.finished_at is None:
            raise DataError(f"{d}: shard {s.shard.index}/{s.shard.count} did not finish (re-run its command to "
                            "complete it, then merge)")
    assert first.shard is not None
    a = first.model_dump(mode="json")
    for d, s in specs[1:]:
        assert s.shard is not None
        b = s.model_dump(mode="json")
        diff = [k for k in PLAN_KEYS if a.get(k) != b.get(k)]
        if (s.shard.count, s.shard.plan_items, s.shard.plan_sha256) != (
                first.shard.count, first.shard.plan_items, first.shard.plan_sha256):
            diff.append("shard (the plan's items or the number of shards)")
        if diff:
            hint = ""
            if "model" in diff and "base_url" in (first.model or {}) and "base_url" in (s.model or {}):
                hint = ("; each shard was fingerprinted by its server's URL: run every shard with the same "
                        "--deployment LABEL so the fingerprint names the model, not the server")
            raise DataError(f"{d} is not a shard of the same plan as {first_dir} (its run.json differs in: "
                            f"{', '.join(diff)}){hint}")
    by_index: dict[int, tuple[Path, RunSpec]] = {}
    for d, s in specs:
        assert s.shard is not None
        if s.shard.index in by_index:
            raise DataError(f"{d} and {by_index[s.shard.index][0]} are both shard {s.shard.index}/{s.shard.count}")
        by_index[s.shard.index] = (d, s)
    missing = [str(i) for i in range(1, first.shard.count + 1) if i not in by_index]
    if missing:
        raise DataError(f"shard(s) {', '.join(missing)} of {first.shard.count} missing: give the run directory of "
                        "every shard")
    return [by_index[i] for i in range(1, first.shard.count + 1)], first


def merge_shards(dirs: list[Path], out: Path) -> tuple[RunDir, Results]:
    """Check the shards and write the merged run directory; returns it and its results."""
    paths = [Path(d) for d in dirs]
    for d in paths:
        if not d.is_dir():
            raise DataError(f"{d}: not a folder (give the run directory of every shard)")
    target = RunDir(out)
    if any(p.resolve() == target.path.resolve() for p in paths):
        raise ConfigError(f"--out {out} is one of the shards; choose a new --out for the merged run")
    if target.path.exists() and any(p.name != LOCK_FILE for p in target.path.iterdir()):
        raise ConfigError(f"{target.path} exists and is not empty; choose a new --out for the merged run")
    _shards(paths)  # checked before anything is locked or created
    created = not target.path.exists()
    with contextlib.ExitStack() as held:
        # Every shard is locked too: none may be re-run (written) while it is read.
        for d in paths:
            held.enter_context(RunDir(d).lock("merge"))
        held.enter_context(target.lock("merge"))
        try:
            shards, first = _shards(paths)
            assert first.shard is not None
            suite = suite_of_run(first)
            return _write(shards, first, suite, target)
        except BaseException:
            for f in target.path.glob(".*.tmp-*"):
                f.unlink()
            held.close()
            if created:
                with contextlib.suppress(FileNotFoundError):
                    target.lock_file.unlink()
                if target.path.exists() and not any(target.path.iterdir()):
                    target.path.rmdir()
            raise


def _write(shards: list[tuple[Path, RunSpec]], first: RunSpec, suite: Suite, target: RunDir
           ) -> tuple[RunDir, Results]:
    assert first.shard is not None
    seen: dict[str, Path] = {}
    order: list[str] = []
    summaries: list[Summary] = []
    tmp = target.samples_file.with_name(f".{target.samples_file.name}.tmp-{os.getpid()}")
    with tmp.open("wb") as dst:
        for d, s in shards:
            assert s.shard is not None
            src = RunDir(d).samples_file
            n = 0
            with src.open("rb") as fh:
                for line_no, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    sample = parse_sample(line, f"{src}:{line_no}")
                    if sample.key in seen:
                        where = "twice in it" if seen[sample.key] == d else f"also in {seen[sample.key]}"
                        raise DataError(f"{src}:{line_no}: item {sample.key} is {where}")
                    seen[sample.key] = d
                    order.append(sample.key)
                    summaries.append(summarize(sample))
                    dst.write(line if line.endswith(b"\n") else line + b"\n")
                    n += 1
            if n != s.shard.items:
                raise DataError(f"{d}: shard {s.shard.index}/{s.shard.count} holds {n} of its {s.shard.items} items "
                                "(re-run its command to complete it, then merge)")
        dst.flush()
        os.fsync(dst.fileno())
    if plan_sha256(order) != first.shard.plan_sha256:
        raise DataError("the shards' items, in shard order, are not the plan's items (sha256 of the item order "
                        f"differs from {first.shard.plan_sha256[:16]}…); were the shards made from the same data?")
    os.replace(tmp, target.samples_file)

    olds = [RunDir(d).read_results() for d, _ in shards]
    results = build_results(summaries, suite, first.model_name, first.seed,
                            similarity=str(first.metrics.get("similarity", "raw")), reducer=first.epoch_reducer)
    prices = Prices(float(first.limits.get("price_in_per_mtok") or 0),
                    float(first.limits.get("price_out_per_mtok") or 0))
    results.run = _accounting(summaries, [r.run for r in olds if r.run is not None], first.shard.plan_items, prices)
    results.run.merged_from = [str(d) for d, _ in shards]
    target.write_results(results)
    skipped = RunDir(shards[0][0]).skipped_file
    if skipped.exists():
        shutil.copyfile(skipped, target.skipped_file)
    sources = sorted({src for _, s in shards for src in s.data_sources})
    urls = sorted({u for _, s in shards for u in (s.endpoints or [])})
    spec = first.model_copy(update={
        "shard": None, "n_items": first.shard.plan_items, "data_sources": sources, "endpoints": urls or None,
        "executor": f"merged from {len(shards)} shards",
        "started_at": min((s.started_at for _, s in shards if s.started_at), default=None),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "status": "complete" if results.run.failed == 0 else "incomplete"})
    write_json_atomic(target.run_file, spec)
    return target, results


def _accounting(summaries: list[Summary], runs: list[RunAccounting], planned: int, prices: Prices) -> RunAccounting:
    """The merged run's accounting: items, failures and tokens from the samples; what each shard did this
    time summed; wall time the longest shard's (shards run side by side)."""
    prompt = sum(s.prompt_tokens or 0 for s in summaries)
    completion = sum(s.completion_tokens or 0 for s in summaries)
    wall = max((r.wall_seconds for r in runs), default=0.0)
    out = RunAccounting(
        items=len(summaries), planned=planned, missing=planned - len(summaries),
        answered_now=sum(r.answered_now for r in runs), resumed=sum(r.resumed for r in runs),
        cache_hits=sum(r.cache_hits for r in runs), failed=sum(1 for s in summaries if s.error),
        retried_now=sum(r.retried_now for r in runs), wall_seconds=wall,
        model_seconds=round(sum(r.model_seconds for r in runs), 3), prompt_tokens=prompt,
        completion_tokens=completion, prompt_tokens_now=sum(r.prompt_tokens_now for r in runs),
        completion_tokens_now=sum(r.completion_tokens_now for r in runs),
        executor=f"merged from {len(runs)} shards")
    if prices.set:
        out.cost_usd = round(prices.cost(prompt, completion), 6)
        out.cost_usd_now = round(sum(r.cost_usd_now or 0 for r in runs), 6)
        out.prices_per_mtok = {"prompt": prices.prompt, "completion": prices.completion}
    endpoints: list[list[EndpointStats]] = [r.endpoints for r in runs if r.endpoints]
    if endpoints:
        out.endpoints = finish_endpoint_stats(merge_endpoint_stats(endpoints), wall, prices)
    return out
