"""Instruction following: how often responses use the requested answer format, and how often they give no
usable answer at all.

Per task and run, over the items answered without a request error:
- follows_format: the response has a line in the task's answer format (its `prompt.format` pattern, e.g.
  "答案：X"), so the answer was read without any fallback extraction (results.json counts these per task
  as `counts.follows_format`);
- no_answer: the extractor found no usable answer (`extraction_failures` in results.json) — the item
  scores as wrong;
- fallback: a usable answer found only by a fallback reading (a bare letter, the option's text, …).
Shares are ×100 with Wilson 95% intervals. Tasks whose suite gives no format pattern show only no_answer.
"""

from __future__ import annotations

from typing import Any

from climedbench.analyses.readability import mark, unreadable_counts
from climedbench.analyses.record import AnalysisRecord, Table
from climedbench.analyses.runs import Run
from climedbench.analyses.stats import wilson

TITLE = "Instruction following"


def _pct(k: int, n: int) -> tuple[float | None, float | None, float | None]:
    if n == 0:
        return None, None, None
    lo, hi = wilson(k, n)
    return round(100 * k / n, 1), round(100 * lo, 1), round(100 * hi, 1)


def analyze_instruction(runs: list[Run]) -> tuple[AnalysisRecord, Any]:
    columns = ["model", "task", "n", "follows_format", "ff_lower", "ff_upper", "fallback", "no_answer",
               "na_lower", "na_upper"]
    body: list[list[Any]] = []
    summary: dict[str, dict[str, Any]] = {}
    for run in runs:
        name = run.label if sum(r.model == run.model for r in runs) > 1 else run.model
        total = {"n": 0, "follows": 0, "checked": 0, "no_answer": 0}
        for code in run.tasks:
            task = run.suite.task(code)
            samples = [s for s in run.task_samples(code).values() if not s.error]
            n = len(samples)
            no_answer = sum(1 for s in samples if s.extraction_failure)
            checked = task.prompt.format is not None and any("follows_format" in s.flags for s in samples)
            follows = sum(1 for s in samples if s.flags.get("follows_format")) if checked else None
            ff = _pct(follows, n) if follows is not None else (None, None, None)
            na = _pct(no_answer, n)
            fallback = round(100 * (n - no_answer - follows) / n, 1) if follows is not None and n else None
            body.append([name, code, n, *ff, fallback, *na])
            total["n"] += n
            total["no_answer"] += no_answer
            if follows is not None:
                total["follows"] += follows
                total["checked"] += n
        summary[name] = {"n": total["n"], "follows_format": _pct(total["follows"], total["checked"])[0],
                         "n_checked": total["checked"], "no_answer": _pct(total["no_answer"], total["n"])[0]}
    notes = [f"{name}: {s['follows_format']}% of {s['n_checked']} responses followed the answer format; "
             f"{s['no_answer']}% of {s['n']} gave no usable answer." for name, s in summary.items()]
    notes.append("follows_format: a line in the requested format (read without fallback); fallback: an answer "
                 "read only by a fallback rule; no_answer: nothing usable (scored wrong). ×100, Wilson 95% "
                 "intervals; responses with a request error are left out.")
    record = AnalysisRecord(analysis="instruction", title=TITLE, suite=runs[0].suite.suite,
                            inputs=[str(r.path) for r in runs], table=Table(columns=columns, rows=body),
                            notes=notes, data={"summary": summary})
    logprob = [r.path.name for r in runs if r.spec.mc_mode == "logprob"]
    if logprob:
        record.notes.append(f"{', '.join(logprob)}: single-answer items were read from first-token "
                            "log-probabilities (--mc-mode logprob), so no answer format was asked of them: only "
                            "no_answer is shown there.")
    fig = _figure(body)
    mark(record, fig, unreadable_counts(runs))
    return record, fig


def _figure(body: list[list[Any]]) -> Any:
    from climedbench.analyses.figures import grouped_bars, pyplot

    plt = pyplot()
    tasks = list(dict.fromkeys(r[1] for r in body))
    models = list(dict.fromkeys(r[0] for r in body))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(6, 0.8 * len(tasks) * max(1, len(models)) + 2), 6),
                                      sharex=True)
    for ax, col, lo, hi, title in ((top, 3, 4, 5, "Follows the answer format (%)"),
                                   (bottom, 7, 8, 9, "No usable answer (%)")):
        series = {}
        for m in models:
            by = {r[1]: r for r in body if r[0] == m}
            series[m] = ([float(by[t][col] or 0) if t in by else 0.0 for t in tasks],
                         [by[t][lo] if t in by else None for t in tasks],
                         [by[t][hi] if t in by else None for t in tasks])
        grouped_bars(ax, tasks, series, title, "%")
    fig.tight_layout()
    return fig
