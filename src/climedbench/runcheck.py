"""A run's figures as every reader shows them: results.json only when it still describes samples.jsonl.

results.json records the sha256 of samples.jsonl and of its own content when it is written (RunDir.write_results).
`checked_results` compares both: when results.json was edited, is stale (the samples changed after it was written,
e.g. by a run still going), was written by an older climedbench without the digests, or is missing, the figures are
recomputed from samples.jsonl exactly as the run computes them, and one warning line says so. An edited or stale
results.json therefore never reaches report, leaderboard or the HTML page. Adaptive (cat) runs, whose figures come
from an IRT ability estimate and cannot be recomputed from the samples, are refused on a mismatch instead (shown with
a warning when they predate the digests).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from climedbench.core.suite import Suite
from climedbench.core.types import Results, RunSpec, Sample
from climedbench.errors import DataError
from climedbench.rundir import RunDir, file_sha256, iter_samples, results_sha256

log = logging.getLogger(__name__)


def mismatch(rd: RunDir, stored: Results) -> str | None:
    """Why results.json no longer describes samples.jsonl (None when it does)."""
    integrity = stored.integrity or {}
    if "samples_sha256" not in integrity or "results_sha256" not in integrity:
        return "has no digest of samples.jsonl (written by an older climedbench)"
    if results_sha256(stored) != integrity["results_sha256"]:
        return "was changed after it was written (its content does not match its digest)"
    if (file_sha256(rd.samples_file) or "") != integrity["samples_sha256"]:
        return "does not describe samples.jsonl as it is now (the samples changed after it was written)"
    return None


def checked_results(path: str | Path, *, spec: RunSpec | None = None, suite: Suite | None = None,
                    samples: Iterable[Sample] | None = None) -> Results:
    """The run's results: results.json when its digests match, else the figures recomputed from samples.jsonl
    (with one warning line). `spec`, `suite` and `samples` save reading them again when the caller has them."""
    rd = RunDir(path)
    spec = spec or rd.read_spec()
    stored = rd.read_results() if rd.results_file.exists() else None
    if stored is None:
        problem = "is missing (the run has not finished)"
    else:
        found = mismatch(rd, stored)
        if found is None:
            return stored
        problem = found
    if stored is not None and stored.adaptive and not stored.integrity:
        log.warning("%s %s; an adaptive run's figures cannot be recomputed, so they are shown unchecked",
                    rd.results_file, problem)
        return stored
    if stored is not None and stored.adaptive:
        raise DataError(f"{rd.results_file} {problem}; an adaptive run's figures cannot be recomputed from its "
                        "samples: re-run its `climedbench cat run` command")
    results = recompute(rd, spec, stored, suite, samples)
    log.warning("%s %s; showing the figures recomputed from %s", rd.results_file, problem, rd.samples_file.name)
    return results


def recompute(rd: RunDir, spec: RunSpec, stored: Results | None, suite: Suite | None = None,
              samples: Iterable[Sample] | None = None) -> Results:
    """Task, group and overall figures from samples.jsonl as the run computes them (its seed, its similarity
    variant); the run accounting of results.json is kept, with the item counts taken from the samples."""
    from climedbench.rescore import suite_of_run
    from climedbench.results import build_results

    suite = suite or suite_of_run(spec)
    rows = list(samples) if samples is not None else list({s.key: s for s in iter_samples(rd.samples_file)}.values())
    if not rows:
        raise DataError(f"{rd.samples_file}: no samples (the run has not answered any item yet)")
    similarity = ((stored.rescored or {}).get("similarity") if stored is not None else None) or str(
        spec.metrics.get("similarity", "raw"))
    results = build_results(rows, suite, stored.model if stored is not None else spec.model_name, spec.seed,
                            similarity=similarity, planned=spec.items_by_task, reducer=spec.epoch_reducer)
    if stored is not None:
        results.rescored = stored.rescored
        results.model_meta = stored.model_meta
        if stored.run is not None:
            items = len(rows)
            results.run = stored.run.model_copy(update={
                "items": items, "failed": sum(1 for s in rows if s.error),
                "missing": max(0, stored.run.planned - items)})
    return results
