"""Robustness to character perturbations (the paper's Fig. 7): clean vs perturbed runs, paired per task.

Each perturbed run answers a copy of the clean data made by `climedbench perturb` (same items, same ids),
so every item is paired with itself. Per perturbation and task: the clean and perturbed scores, the
difference perturbed − clean with a paired 95% interval, the paired test, and Holm-adjusted p-values over
every row of the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from climedbench.analyses.figures import score_floor
from climedbench.analyses.paired import PairedRow, drop_notes, paired_comparison, small_n_note
from climedbench.analyses.readability import mark, unreadable_counts
from climedbench.analyses.record import AnalysisRecord, Table, fmt_p
from climedbench.analyses.runs import Run
from climedbench.analyses.stats import holm
from climedbench.errors import ConfigError

TITLE = "Robustness to character perturbations"
MANIFEST = ".perturbation.json"


def perturbation_of(run: Run) -> dict[str, Any] | None:
    """The manifest `climedbench perturb` left beside the data the run read, if any."""
    data = run.spec.data
    if not data:
        return None
    p = Path(data)
    for folder in (p, p.parent):
        f = folder / MANIFEST
        if f.is_file():
            try:
                return dict(json.loads(f.read_text(encoding="utf-8")))
            except (OSError, json.JSONDecodeError, TypeError, ValueError):
                return None
    return None


def label_of(run: Run) -> str:
    m = perturbation_of(run)
    if m:
        return f"{m.get('kind')} {float(m.get('rate', 0)):.0%}"
    return run.path.name


def analyze_robustness(clean: Run, perturbed: list[Run], *, seed: int = 0,
                       replicates: int = 2000) -> tuple[AnalysisRecord, Any]:
    if not perturbed:
        raise ConfigError("give a clean run and at least one perturbed run")
    results: list[tuple[str, list[PairedRow]]] = []
    manifests: dict[str, Any] = {}
    notes: list[str] = []
    for run in perturbed:
        if run.model != clean.model:
            notes.append(f"{run.path.name} is a run of {run.model}, the clean run of {clean.model}: the difference "
                         "mixes model and perturbation.")
        rows, _ = paired_comparison(clean, run, seed=seed, replicates=replicates)
        if not rows:
            raise ConfigError(f"{clean.path} and {run.path} share no answered items (the perturbed data must "
                              "keep the item ids; run both with the same --tasks, --limit and --seed)")
        label = label_of(run)
        manifests[label] = perturbation_of(run)
        if manifests[label] is None:
            notes.append(f"{run.path.name}: no perturbation manifest beside its data; labelled by folder name.")
        results.append((label, rows))
    every = [r for _, rows in results for r in rows]
    for row, adj in zip(every, holm([r.p for r in every]), strict=True):
        row.p_holm = adj
    columns = ["perturbation", "task", "n", "clean", "perturbed", "difference", "lower", "upper", "p", "p_holm",
               "test"]
    body = [[label, r.key, r.n, r.a, r.b, r.difference, r.lower, r.upper, fmt_p(r.p), fmt_p(r.p_holm), r.test]
            for label, rows in results for r in rows]
    for label, rows in results:
        overall = next((r for r in rows if r.key == "overall"), rows[0])
        m = manifests.get(label) or {}
        achieved = m.get("achieved_rate")
        notes.append(f"{label}: {overall.key} {overall.a:.1f} → {overall.b:.1f} ({overall.difference:+.1f} "
                     f"[{overall.lower:+.1f}, {overall.upper:+.1f}], n={overall.n})"
                     + (f"; {achieved:.1%} of the eligible Han characters were changed" if achieved is not None
                        else "") + ".")
    notes.append("difference = perturbed − clean (×100); p_holm adjusts every row of this table together.")
    notes += small_n_note(every) + drop_notes(every)
    record = AnalysisRecord(
        analysis="robustness", title=TITLE, suite=clean.suite.suite,
        inputs=[str(clean.path)] + [str(r.path) for r in perturbed], table=Table(columns=columns, rows=body),
        notes=notes, data={"model": clean.model, "perturbations": manifests},
    )
    fig = _figure(results, score_floor(clean.suite.task(r.key) for r in every if r.level == "task"))
    mark(record, fig, unreadable_counts([clean, *perturbed], {r.key for r in every if r.level == "task"}))
    return record, fig


def _figure(results: list[tuple[str, list[PairedRow]]], floor: float = 0.0) -> Any:
    from climedbench.analyses.figures import forest, grouped_bars, pyplot

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [3, 2]})
    first = [r for r in results[0][1] if r.level == "task"]
    labels = [r.key for r in first]
    series: dict[str, tuple[list[float], list[float | None], list[float | None]]] = {
        "clean": ([r.a for r in first], [r.a_ci[0] if r.a_ci else None for r in first],
                  [r.a_ci[1] if r.a_ci else None for r in first])}
    for label, rows in results:
        by = {r.key: r for r in rows}
        got = [by.get(k) for k in labels]
        series[label] = ([r.b if r else 0.0 for r in got], [r.b_ci[0] if r and r.b_ci else None for r in got],
                         [r.b_ci[1] if r and r.b_ci else None for r in got])
    grouped_bars(left, labels, series, "Score, clean and perturbed (95% intervals)", "score (×100)", floor)
    summary = [(label, next((r for r in rows if r.key == "overall"), rows[0])) for label, rows in results]
    forest(right, [f"{lab} (n={r.n})" for lab, r in summary], [r.difference for _, r in summary],
           [r.lower for _, r in summary], [r.upper for _, r in summary], "Perturbed − clean (overall)",
           "difference (points)")
    fig.tight_layout()
    return fig
