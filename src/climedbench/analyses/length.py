"""Score by input length (the paper's Fig. 6): items in equal-count length segments, and a trend test.

Each run's answered items are sorted by the length of their input (characters of the item text, as
`input_chars` in samples.jsonl) and cut into `segments` groups of (almost) equal size, 1 = shortest.
Per segment: the mean item score ×100 with the bounded-mean (shrunk-t) interval. Segments mix tasks, and long inputs
come from a few tasks (the in-hospital records), so the trend is tested twice: the slope of item score
on log2(length) pooled (what the figure shows), and within tasks (one intercept per task), which is the
one that says whether length itself matters. Slopes are points per doubling of the input, with
HC1-robust 95% intervals.

Model groups (e.g. general vs medical) come from `--group RUN=NAME`; a group's curve is the mean of its
models' segment scores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from climedbench.analyses.record import AnalysisRecord, Table, fmt_p
from climedbench.analyses.runs import Run
from climedbench.analyses.stats import ols_slope
from climedbench.errors import ConfigError
from climedbench.metrics import intervals

TITLE = "Score by input length"


def segments_of(run: Run, k: int) -> list[list[tuple[int, float, str]]]:
    """The run's answered items as (input_chars, score, task), sorted by length (ties by uid) and cut into
    k equal-count segments."""
    rows = sorted((s.input_chars, s.uid, s.score, s.task) for s in run.samples.values()
                  if not s.error and s.input_chars is not None)
    if len(rows) < k:
        raise ConfigError(f"{run.path}: {len(rows)} answered item(s) cannot fill {k} length segments; "
                          "use --segments with a smaller number or a larger run")
    parts = np.array_split(np.arange(len(rows)), k)
    return [[(rows[i][0], rows[i][2], rows[i][3]) for i in part] for part in parts]


def analyze_length(runs: list[Run], *, segments: int = 10, groups: dict[str, str] | None = None,
                   seed: int = 0, replicates: int = 2000) -> tuple[AnalysisRecord, Any]:
    if segments < 2:
        raise ConfigError("--segments must be at least 2")
    groups = groups or {}
    columns = ["model", "group", "segment", "n", "chars_min", "chars_max", "score", "lower", "upper"]
    body: list[list[Any]] = []
    curves: dict[str, list[float]] = {}
    bands: dict[str, tuple[list[float], list[float]]] = {}  # per model: the segments' interval ends (×100)
    group_of: dict[str, str] = {}
    trends: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for run in runs:
        segs = segments_of(run, segments)
        name = run.label if sum(r.model == run.model for r in runs) > 1 else run.model
        group = groups.get(str(run.path)) or groups.get(run.path.name) or ""
        curve: list[float] = []
        band: tuple[list[float], list[float]] = ([], [])
        for j, seg in enumerate(segs, start=1):
            scores = np.asarray([s for _, s, _ in seg])
            # Segments mix tasks; their scores are bounded in [−1, 1] (τ) or [0, 1]: the interval for bounded means.
            lo, hi = intervals.graded(scores, -1.0 if scores.min() < 0 else 0.0, 1.0)
            mean = float(scores.mean())
            curve.append(mean * 100)
            band[0].append(lo * 100)
            band[1].append(hi * 100)
            body.append([name, group, j, len(seg), seg[0][0], seg[-1][0], round(mean * 100, 2),
                         round(lo * 100, 2), round(hi * 100, 2)])
        curves[name] = curve
        bands[name] = band
        group_of[name] = group
        flat = [x for seg in segs for x in seg]
        y = [s for _, s, _ in flat]
        x = [math.log2(max(1, c)) for c, _, _ in flat]
        pooled = ols_slope(y, x)
        within = ols_slope(y, x, [t for _, _, t in flat])
        trends[name] = {"group": group, "pooled": _slope(pooled), "within_tasks": _slope(within),
                        "first_segment": round(curve[0], 2), "last_segment": round(curve[-1], 2)}
        notes.append(f"{name}: segment 1 → {segments}: {curve[0]:.1f} → {curve[-1]:.1f}; slope per doubling of "
                     f"input length {_say(pooled)} pooled, {_say(within)} within tasks (n={pooled.n}).")
    group_curves: dict[str, list[float]] = {}
    for g in sorted({v for v in groups.values() if v}):
        members = [c for name, c in curves.items() if group_of[name] == g]
        if members:
            group_curves[g] = [float(np.mean(col)) for col in zip(*members, strict=True)]
            notes.append(f"Group {g} ({len(members)} model(s)): segment 1 → {segments}: "
                         f"{group_curves[g][0]:.1f} → {group_curves[g][-1]:.1f} (mean of its models' segment scores).")
    notes.append("Segments mix tasks (long inputs are mostly in-hospital records); the within-task slope "
                 "separates the effect of length from that of the task mix.")
    record = AnalysisRecord(
        analysis="length", title=TITLE, suite=runs[0].suite.suite, inputs=[str(r.path) for r in runs],
        table=Table(columns=columns, rows=body), notes=notes,
        data={"segments": segments, "trends": trends, "group_curves": group_curves,
              "slope_unit": "points (×100) per doubling of input characters"},
    )
    from climedbench.analyses.figures import score_floor
    from climedbench.analyses.readability import mark, unreadable_counts

    used = [r.suite.task(c) for r in runs for c in r.tasks]
    fig = _figure(curves, group_curves, segments, bands, score_floor(used))
    mark(record, fig, unreadable_counts(runs))
    return record, fig


def _slope(s: Any) -> dict[str, Any]:
    return {"slope": _pts(s.slope), "lower": _pts(s.lower), "upper": _pts(s.upper), "p": fmt_p(s.p), "n": s.n}


def _pts(x: float) -> float | None:
    return None if math.isnan(x) else round(x * 100, 2)


def _say(s: Any) -> str:
    if math.isnan(s.slope):
        return "n/a"
    return f"{s.slope * 100:+.2f} [{s.lower * 100:+.2f}, {s.upper * 100:+.2f}]"


def _figure(curves: dict[str, list[float]], group_curves: dict[str, list[float]], k: int,
            bands: dict[str, tuple[list[float], list[float]]] | None = None, floor: float = 0.0) -> Any:
    """Segment scores per model (with their 95% intervals as a band) and per group, on the whole ×100 scale."""
    from climedbench.analyses.figures import check_labels, pyplot

    plt = pyplot()
    panels = 1 + (1 if group_curves else 0)
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4), squeeze=False)
    xs = list(range(1, k + 1))
    check_labels(list(curves) + list(group_curves))
    ax = axes[0][0]
    for name, c in curves.items():
        (line,) = ax.plot(xs, c, marker="o", ms=3, label=name)
        if bands and name in bands:
            ax.fill_between(xs, *bands[name], color=line.get_color(), alpha=0.15, lw=0, label=f"{name}: 95% interval")
    ax.set_title("Per model")
    if group_curves:
        gx = axes[0][1]
        for name, c in group_curves.items():
            gx.plot(xs, c, marker="s", lw=2, label=name)
        gx.set_title("Per model group")
    for a in axes[0]:
        a.set_xticks(xs)
        a.set_xlabel("input length segment (1 = shortest)")
        a.set_ylabel("score (×100)")
        a.set_ylim(floor, 100.0)
        a.legend(frameon=False)
    fig.tight_layout()
    return fig
