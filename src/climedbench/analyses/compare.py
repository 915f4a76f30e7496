"""Paired model comparisons, and leaderboard ranks with intervals.

`compare`: for each pair of runs, on the items both answered: per task, group and overall the difference
B − A with a paired 95% interval, the paired test, Holm-adjusted p-values (over every row of every pair)
and a verdict: "A better", "B better" or "not separated" (Holm-adjusted p ≥ 0.05: the data cannot order
them, which is not evidence that they are equal).

`ranks`: each run's overall score and rank, with a 95% rank interval from a bootstrap over the items all
runs answered (the same resampled items for every model, task by task).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from climedbench.analyses.paired import PairedRow, drop_notes, paired_comparison, small_n_note, task_pair
from climedbench.analyses.readability import mark, unreadable_counts
from climedbench.analyses.record import AnalysisRecord, Table, fmt_p
from climedbench.analyses.runs import Run
from climedbench.analyses.stats import holm, percentile_ci, rank_intervals, ranks_of
from climedbench.errors import ConfigError

TITLE = "Paired model comparison"
RANKS_TITLE = "Leaderboard ranks with 95% intervals"


def names_of(runs: list[Run]) -> list[str]:
    """Display names: the model, or model (folder) where two runs share a model name."""
    return [r.label if sum(x.model == r.model for x in runs) > 1 else r.model for r in runs]


def analyze_compare(runs: list[Run], *, seed: int = 0, replicates: int = 2000) -> tuple[AnalysisRecord, Any]:
    if len(runs) < 2:
        raise ConfigError("give at least two runs to compare")
    names = names_of(runs)
    results: list[tuple[str, str, list[PairedRow]]] = []
    for i, j in combinations(range(len(runs)), 2):
        rows, _ = paired_comparison(runs[i], runs[j], seed=seed, replicates=replicates)
        if not rows:
            raise ConfigError(f"{runs[i].path} and {runs[j].path} share no answered items; run both on the same "
                              "data, tasks, --limit and --seed")
        results.append((names[i], names[j], rows))
    every = [r for _, _, rows in results for r in rows]
    for row, adj in zip(every, holm([r.p for r in every]), strict=True):
        row.p_holm = adj
    columns = ["A", "B", "level", "key", "n", "score_a", "score_b", "difference", "lower", "upper", "p", "p_holm",
               "verdict"]
    body = [[a, b, r.level, r.key, r.n, r.a, r.b, r.difference, r.lower, r.upper, fmt_p(r.p), fmt_p(r.p_holm),
             r.verdict(a, b)] for a, b, rows in results for r in rows]
    notes = []
    for a, b, rows in results:
        top = next((r for r in rows if r.key == "overall"), rows[0])
        notes.append(f"{a} vs {b}, {top.key}: {top.a:.1f} vs {top.b:.1f}, difference {top.difference:+.1f} "
                     f"[{top.lower:+.1f}, {top.upper:+.1f}] (n={top.n}, Holm p={fmt_p(top.p_holm)}): "
                     f"{top.verdict(a, b)}.")
    notes.append("difference = B − A (×100) on shared items; tests: McNemar exact (accuracy), Wilcoxon (graded), "
                 "paired bootstrap (corpus-level metrics and means of tasks); p_holm over every row; verdicts at "
                 "α = 0.05.")
    notes += small_n_note(every) + drop_notes(every)
    record = AnalysisRecord(analysis="compare", title=TITLE, suite=runs[0].suite.suite,
                            inputs=[str(r.path) for r in runs], table=Table(columns=columns, rows=body),
                            notes=notes, data={"pairs": [[a, b] for a, b, _ in results]})
    fig = _figure(results)
    mark(record, fig, unreadable_counts(runs, {r.key for _, _, rows in results for r in rows if r.level == "task"}))
    return record, fig


def _figure(results: list[tuple[str, str, list[PairedRow]]]) -> Any:
    from climedbench.analyses.figures import forest, pyplot

    plt = pyplot()
    n = len(results)
    fig, axes = plt.subplots(1, n, figsize=(6 * n, 0.35 * max(len(r) for _, _, r in results) + 1.5), squeeze=False)
    for ax, (a, b, rows) in zip(axes[0], results, strict=True):
        forest(ax, [f"{r.key} (n={r.n})" for r in rows], [r.difference for r in rows], [r.lower for r in rows],
               [r.upper for r in rows], f"{b} − {a}", "difference (points)")
    fig.tight_layout()
    return fig


def analyze_ranks(runs: list[Run], *, seed: int = 0, replicates: int = 2000) -> tuple[AnalysisRecord, Any]:
    """Overall score and rank of every run on the items all of them answered, with bootstrap intervals."""
    if len(runs) < 2:
        raise ConfigError("ranks need at least two runs")
    suite = runs[0].suite
    names = names_of(runs)
    codes = [c for c in suite.codes if all(c in r.tasks for r in runs)]
    rng = np.random.default_rng(seed)
    per_task_points: dict[str, list[float]] = {}
    per_task_reps: dict[str, np.ndarray] = {}
    n_items = 0
    for code in codes:
        task = suite.task(code)
        common = set.intersection(*[{u for u, s in r.task_samples(code).items() if not s.error} for r in runs])
        if not common:
            continue
        uids = sorted(common)
        n_items += len(uids)
        seeds = int(rng.integers(0, 2**31))
        points, reps = [], []
        for r in runs:
            # The same seed for every run: the same resampled items for every model.
            pair = task_pair(task, r, r, np.random.default_rng(seeds), replicates, uids)
            assert pair is not None
            points.append(pair.point_a)
            reps.append(pair.reps_a)
        per_task_points[code] = points
        per_task_reps[code] = np.column_stack(reps)
    if not per_task_points:
        raise ConfigError("the runs share no answered items")
    tasks = list(per_task_points)
    if suite.overall == "mean_of_groups":
        parts = [[c for c in tasks if key in suite.task(c).groups] for key, g in suite.groups.items()
                 if g.level == suite.overall_level]
        parts = [p for p in parts if p]
    else:
        parts = [[c] for c in tasks]
    point = np.mean([np.mean([per_task_points[c] for c in p], axis=0) for p in parts], axis=0)
    reps = np.mean([np.mean([per_task_reps[c] for c in p], axis=0) for p in parts], axis=0)
    ranks = ranks_of(point)
    intervals = rank_intervals(reps)
    order = np.argsort(-point, kind="stable")
    body = []
    for i in order:
        lo, hi = percentile_ci(reps[:, i])
        body.append([names[i], round(float(point[i]) * 100, 2), round(lo * 100, 2), round(hi * 100, 2),
                     int(ranks[i]), intervals[i][0], intervals[i][1]])
    columns = ["model", "score", "lower", "upper", "rank", "rank_lower", "rank_upper"]
    notes = [f"Overall on the {n_items} items of {len(tasks)} task(s) that every run answered ({suite.overall}); "
             "rank intervals are the 2.5–97.5 percentiles of each model's rank over bootstrap resamples of "
             "those items.",
             "Models whose rank intervals overlap are not reliably ordered by these data."]
    record = AnalysisRecord(analysis="ranks", title=RANKS_TITLE, suite=suite.suite, inputs=[str(r.path) for r in runs],
                            table=Table(columns=columns, rows=body), notes=notes,
                            data={"tasks": tasks, "n_items": n_items, "replicates": replicates})
    fig = _ranks_figure(body)
    mark(record, fig, unreadable_counts(runs, tasks))
    return record, fig


def _ranks_figure(body: list[list[Any]]) -> Any:
    from climedbench.analyses.figures import error_bars, pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 0.45 * len(body) + 1.5))
    ys = list(range(len(body)))[::-1]
    ranks = [float(r[4]) for r in body]
    ax.errorbar(ranks, ys, xerr=error_bars(ranks, [r[5] for r in body], [r[6] for r in body]), fmt="o",
                capsize=3, color="#1f4e79")
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r[0]} ({r[1]:.1f})" for r in body])
    ax.set_xlabel("rank (1 = best), 95% interval")
    ax.set_xlim(0.5, len(body) + 0.5)
    ax.set_title("Leaderboard ranks")
    fig.tight_layout()
    return fig
