"""The `ratings` analysis record (docs/ANALYSES.md): expert-rating bars like CliMedBench's Fig. 4 (answers) and
Fig. 9a (items), agreement per aspect, and human vs automatic scores per task, for the HTML report.

The table is long: one row per statistic — `alpha` (per aspect), `mean` (per aspect and model, or task for
item reviews) and `spearman` (per aspect and task, human vs automatic) — with its 95% interval and n.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from climedbench.analyses.record import AnalysisRecord, Table
from climedbench.apps.rater.analysis import (
    ALL_ASPECTS,
    HumanAuto,
    by_aspect,
    domain_of,
    group_means,
    grouping,
    krippendorff_alpha,
)
from climedbench.apps.rater.rubric import Level, Rubric
from climedbench.core.types import Rating

KIND = "ratings"
TITLE = "Clinician ratings: mean rating per aspect, agreement (Krippendorff's α) and human vs automatic scores"
COLUMNS = ["aspect", "statistic", "group", "value", "lower", "upper", "n"]


def _r(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else round(float(x), digits)


def ratings_record(ratings: Sequence[Rating], *, rubric: Rubric | None, level: Level | None = None,
                   correlations: Sequence[HumanAuto] = (), inputs: Sequence[str] = (), replicates: int = 2000,
                   seed: int = 0, suite: str | None = None) -> tuple[AnalysisRecord, Any]:
    """The record and its figure (bars with intervals; a forest of ρ when correlations are given)."""
    level = level or (rubric.level if rubric is not None else "ordinal")
    groups = by_aspect(ratings)
    order = [a.key for a in rubric.aspects if a.key in groups] if rubric is not None else []
    order += [a for a in groups if a not in order]
    kind, key = grouping(ratings)
    rows: list[list[Any]] = []
    bars: dict[str, dict[str, tuple[float, float, float]]] = {}
    scales: dict[str, tuple[float, float]] = {}
    alphas: dict[str, Any] = {}
    for aspect in order:
        rs = groups[aspect]
        domain = domain_of(rs, rubric, aspect)
        scales[aspect] = (domain[0], domain[-1])
        a = krippendorff_alpha(rs, domain, level, replicates=replicates, seed=seed)
        alphas[aspect] = a.model_dump()
        rows.append([aspect, "alpha", "", _r(a.alpha), _r(a.lower), _r(a.upper), a.n_items])
        for m in sorted(group_means(rs, key, domain[0], domain[-1]), key=lambda m: m.group):
            rows.append([aspect, "mean", m.group, _r(m.mean, 2), _r(m.lower, 2), _r(m.upper, 2), m.n])
            bars.setdefault(m.group, {})[aspect] = (m.mean, m.lower, m.upper)
    for c in correlations:
        rows.append([c.aspect, "spearman", c.task, _r(c.rho), _r(c.lower), _r(c.upper), c.n])
    raters = sorted({r.rater for r in ratings})
    notes = [
        f"{len(ratings)} ratings by {len(raters)} rater(s) of {len({r.unit for r in ratings})} unit(s) "
        f"({'answers to items' if any(r.answer for r in ratings) else 'items'}); means are grouped by {kind}.",
        f"alpha: Krippendorff's α ({level}) over the units with two or more ratings (n); 95% interval from "
        f"{replicates} bootstrap resamples of those units. Krippendorff suggests α ≥ 0.8 for firm conclusions "
        "and ≥ 0.667 for tentative ones.",
        "mean: per unit the mean over its raters, then the mean over units (n), with a 95% t interval bounded "
        "to the scale (the graded-score interval of results.json).",
    ]
    notes += [f"alpha of {aspect}: {v['reason']}." for aspect, v in alphas.items() if v["reason"]]
    if rubric is not None and rubric.acceptable is not None:
        notes.append(f"The rubric counts {rubric.acceptable} or more as acceptable (dashed line in the figure).")
    if correlations:
        notes.append(f"spearman: per task, Spearman's ρ between an answer's mean human rating ('{ALL_ASPECTS}': "
                     "over every aspect) and the automatic score of the same item and model; 95% interval from "
                     "resampling the pairs. With fewer than about 10 pairs the interval says little.")
    record = AnalysisRecord(
        analysis=KIND, title=TITLE, suite=suite, inputs=list(inputs), table=Table(columns=COLUMNS, rows=rows),
        notes=notes,
        data={"rubric": rubric.rubric if rubric is not None else None, "level": level, "grouped_by": kind,
              "raters": raters, "alpha": alphas, "scales": {k: list(v) for k, v in scales.items()},
              "correlations": [c.model_dump() for c in correlations]})
    figure = draw(order, bars, scales, correlations, rubric, kind,
                  {k: v["alpha"] for k, v in alphas.items()})
    return record, figure


def draw(aspects: list[str], bars: dict[str, dict[str, tuple[float, float, float]]],
         scales: dict[str, tuple[float, float]], correlations: Sequence[HumanAuto], rubric: Rubric | None,
         kind: str, alphas: dict[str, float | None]) -> Any:
    """Bars of mean rating per aspect and group with 95% intervals, α under each aspect; beside them ρ per
    task when given."""
    import numpy as np

    from climedbench.analyses.figures import check_labels, error_bars, forest, pyplot

    plt = pyplot()
    shown = [c for c in correlations if c.rho is not None]
    ncols = 2 if shown else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.5 + 4.5 * (ncols - 1), 3.8), squeeze=False,
                             gridspec_kw={"width_ratios": [1.4, 1] if ncols == 2 else [1]})
    ax = axes[0][0]
    names = [_label(a, rubric) for a in aspects]
    check_labels(names + list(bars))
    labels = [f"{n}\nα = {alphas[a]:.2f}" if alphas.get(a) is not None else f"{n}\nα —" for n, a in
              zip(names, aspects, strict=True)]
    series = sorted(bars)
    k = max(1, len(series))
    width = 0.8 / k
    x = np.arange(len(aspects))
    low = min((lo for lo, _ in scales.values()), default=0.0)
    high = max((hi for _, hi in scales.values()), default=1.0)
    for i, name in enumerate(series):
        vals = [bars[name].get(a, (np.nan, None, None))[0] for a in aspects]
        lows = [bars[name].get(a, (np.nan, None, None))[1] for a in aspects]
        highs = [bars[name].get(a, (np.nan, None, None))[2] for a in aspects]
        heights = [v - low if v == v else 0.0 for v in vals]
        ax.bar(x + (i - (k - 1) / 2) * width, heights, width, bottom=low, label=name,
               yerr=error_bars([v if v == v else low for v in vals], lows, highs), capsize=2,
               error_kw={"elinewidth": 0.8})
    if rubric is not None and rubric.acceptable is not None:
        ax.axhline(rubric.acceptable, color="#888888", lw=0.8, ls="--")
    ax.set_ylim(low, high + 0.05 * (high - low))
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel(f"mean rating ({low:g}–{high:g})")
    ax.set_title("Expert ratings")
    if len(series) > 1 or kind != "all":
        ax.legend(frameon=False, title=kind, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                  ncol=min(3, len(series)), fontsize=8)
    if shown:
        forest(axes[0][1], [f"{c.task} · {c.aspect}" for c in shown], [float(c.rho or 0) for c in shown],
               [float(c.lower) if c.lower is not None else float(c.rho or 0) for c in shown],
               [float(c.upper) if c.upper is not None else float(c.rho or 0) for c in shown],
               "Human vs automatic (Spearman ρ)", "ρ")
        axes[0][1].set_xlim(-1.05, 1.05)
    fig.tight_layout()
    return fig


def _label(aspect: str, rubric: Rubric | None) -> str:
    found = rubric.aspect(aspect) if rubric is not None else None
    return found.name.text("en") if found is not None else aspect
