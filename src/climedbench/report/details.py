"""Run details: the reproducibility block (run.json), cost and token accounting, cache hits and errors."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from climedbench.analyses.runs import Run
from climedbench.core.types import Results
from climedbench.report.page import ErrorCount, RunDetails, RunInfo
from climedbench.secrets import redact

MAX_ERROR_KINDS = 20
MAX_ERROR_ITEMS = 10


def _num(value: float | int | None, unit: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}{unit}"
    return f"{int(value):,}{unit}"


def accounting(results: Results | None, run: Run) -> list[tuple[str, str]]:
    """Items, tokens, time, retries, failures, cache hits and cost, as label → text."""
    acc = results.run if results is not None else None
    samples = list(run.samples.values())
    rows = [("items answered", _num(sum(1 for s in samples if not s.error))),
            ("items with a request error", _num(sum(1 for s in samples if s.error))),
            ("items without a usable answer", _num(sum(1 for s in samples if s.extraction_failure and not s.error))),
            ("cache hits (in samples.jsonl)", _num(sum(1 for s in samples if s.cached)))]
    if acc is None:
        prompt = sum(s.prompt_tokens or 0 for s in samples)
        completion = sum(s.completion_tokens or 0 for s in samples)
        rows += [("prompt tokens", _num(prompt)), ("completion tokens", _num(completion))]
        return rows
    rows += [
        ("items planned", _num(acc.planned)),
        ("items missing", _num(acc.missing)),
        ("answered in the last session", _num(acc.answered_now)),
        ("resumed from earlier sessions", _num(acc.resumed)),
        ("cache hits (last session)", _num(acc.cache_hits)),
        ("failed requests", _num(acc.failed)),
        ("retries (last session)", _num(acc.retried_now)),
        ("prompt tokens", _num(acc.prompt_tokens)),
        ("completion tokens", _num(acc.completion_tokens)),
        ("wall time", _num(acc.wall_seconds, " s")),
        ("model time", _num(acc.model_seconds, " s")),
        ("cost", "—" if acc.cost_usd is None else f"${acc.cost_usd:,.4f}"),
    ]
    if acc.prices_per_mtok:
        rows.append(("prices per million tokens", ", ".join(f"{k} ${v:g}" for k, v in acc.prices_per_mtok.items())))
    if acc.stopped:
        rows.append(("stopped", acc.stopped))
    return rows


def errors(run: Run) -> list[ErrorCount]:
    """Request errors grouped by message (secrets redacted), most frequent first."""
    by_message: dict[str, list[str]] = defaultdict(list)
    for s in run.samples.values():
        if s.error:
            by_message[redact(s.error)].append(s.uid)
    counts = Counter({k: len(v) for k, v in by_message.items()})
    return [ErrorCount(message=m, count=n, items=by_message[m][:MAX_ERROR_ITEMS])
            for m, n in counts.most_common(MAX_ERROR_KINDS)]


def run_details(run: Run, info: RunInfo, results: Results | None, notes: list[str]) -> RunDetails:
    from climedbench.rundir import RunDir

    spec = json.dumps(run.spec.model_dump(mode="json", exclude_none=True), ensure_ascii=False, indent=2)
    skipped_file = RunDir(run.path).skipped_file
    skipped = sum(1 for line in skipped_file.read_text(encoding="utf-8").splitlines() if line.strip()) \
        if skipped_file.exists() else 0
    return RunDetails(run=info, spec_json=redact(spec), accounting=accounting(results, run), errors=errors(run),
                      skipped=skipped, notes=notes)
