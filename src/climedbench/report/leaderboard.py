"""The report's leaderboard: every run and published result × overall, every group and every task.

Runs carry their 95% intervals and item counts; with two or more runs each gets a 95% rank interval (the
bootstrap of `climedbench.analyses.compare.analyze_ranks`, over the items every run answered). Published
results have neither (no per-item data) and are marked as published.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from climedbench.analyses.runs import Run
from climedbench.core.suite import Suite
from climedbench.core.types import Figure, Results
from climedbench.errors import ConfigError
from climedbench.report.marks import footnotes, marks, partial_notes, unanswered_notes, variance_notes
from climedbench.report.page import Cell, Column, Label, Leaderboard, RankInterval, Row, RunInfo
from climedbench.report.tables import STRICT_NOTE, metric_label


def label_of(suite: Suite, key: str) -> Label:
    """A task's or group's name in both languages (the other language when one is missing)."""
    return Label(zh=suite.name(key, "zh"), en=suite.name(key, "en"))


def run_info(run: Run, key: str, name: str) -> RunInfo:
    spec = run.spec
    model = spec.model or {}
    return RunInfo(key=key, name=name, model=run.model, backend=str(model.get("backend") or "") or None,
                   variant=str(spec.prompt.get("variant", "vanilla")), mc_mode=spec.mc_mode,
                   shots=int(spec.prompt.get("shots", 0) or 0),
                   date=spec.finished_at or spec.started_at, data=spec.data, data_sha256=spec.data_sha256,
                   path=str(run.path), adaptive=spec.kind == "adaptive")


def display_names(runs: list[Run]) -> list[str]:
    """The model name; 'model (folder)' when models repeat; a counter when even that repeats."""
    names: list[str] = []
    for r in runs:
        name = r.label if sum(x.model == r.model for x in runs) > 1 else r.model
        base, k = name, 2
        while name in names:
            name, k = f"{base} #{k}", k + 1
        names.append(name)
    return names


def columns_of(suite: Suite, results: list[Results]) -> list[Column]:
    """Overall, then the groups level by level (outermost first), then the tasks, in suite order; only those
    some result reports."""
    def present(key: str) -> bool:
        return any(key in r.figures() for r in results)

    cols = [Column(key="overall", kind="overall", label=Label(zh="总分", en="Overall"),
                   title=Label(zh=f"总分（{suite.overall}）", en=f"Overall ({suite.overall})"))]
    for level in suite.levels:
        for key, g in suite.groups.items():
            if g.level == level.key and present(key):
                name = label_of(suite, key)
                cols.append(Column(key=key, kind="group", label=name,
                                   title=Label(zh=f"{level.zh or level.en or level.key}：{name.zh}",
                                               en=f"{level.en or level.zh or level.key}: {name.en}")))
    for t in suite.tasks:
        if present(t.code):
            name = label_of(suite, t.code)
            cols.append(Column(key=t.code, kind="task", label=Label.same(t.code), metric=metric_label(t.metric),
                               title=Label(zh=f"{t.code} {name.zh}（{metric_label(t.metric)}）",
                                           en=f"{t.code} {name.en} ({metric_label(t.metric)})")))
    return cols


def cell(fig: Figure | None, key: str = "", results: Results | None = None, suite: Suite | None = None) -> Cell:
    """A figure as a leaderboard cell, with its marks (given the result and suite it belongs to)."""
    if fig is None:
        return Cell()
    lo, hi = fig.ci if fig.ci else (None, None)
    mark = marks(fig, key, results, suite) if results is not None and suite is not None else ""
    return Cell(score=fig.score, lower=lo, upper=hi, n=fig.n, answered=fig.answered if fig.incomplete else None,
                mark=mark, note=fig.note if fig.score is None else None,
                strict=cell(fig.strict) if fig.strict is not None else None)


def rank_intervals(runs: list[Run], seed: int = 0) -> tuple[list[RankInterval | None], list[str]]:
    """Each run's rank with its 95% interval (None for all when fewer than two runs or no shared items)."""
    if len(runs) < 2:
        return [None] * len(runs), ["Rank intervals need two or more runs."]
    from climedbench.analyses.compare import analyze_ranks, names_of

    # Stand-in folder names make the names analyze_ranks gives unique, so its rows map back to runs.
    tagged = [replace(r, path=Path(f"run{i}")) for i, r in enumerate(runs)]
    try:
        record, fig = analyze_ranks(tagged, seed=seed)
    except ConfigError as e:
        return [None] * len(runs), [f"No rank intervals: {e}."]
    import matplotlib.pyplot as plt

    plt.close(fig)
    cols = record.table.columns
    by_name = {row[cols.index("model")]: row for row in record.table.rows}
    out: list[RankInterval | None] = []
    for name in names_of(tagged):
        row = by_name[name]
        out.append(RankInterval(rank=int(row[cols.index("rank")]), lower=int(row[cols.index("rank_lower")]),
                                upper=int(row[cols.index("rank_upper")])))
    return out, [str(n) for n in record.notes]


def build_leaderboard(runs: list[Run], infos: list[RunInfo], results: list[Results],
                      published: Mapping[str, Results], suite: Suite, *, seed: int = 0) -> Leaderboard:
    """Runs (in the order given) then published results, each with every column's figure."""
    ranks, notes = rank_intervals(runs, seed)
    columns = columns_of(suite, [*results, *published.values()])
    rows = []
    for info, res, rank in zip(infos, results, ranks, strict=True):
        figs = res.figures()
        rows.append(Row(key=info.key, name=info.name, run=info, rank=rank,
                        cells={c.key: cell(figs.get(c.key), c.key, res, suite) for c in columns}))
        notes += (unanswered_notes(info.name, res) + partial_notes(info.name, res, suite)
                  + variance_notes(info.name, res))
    for i, (name, res) in enumerate(published.items()):
        figs = res.figures()
        rows.append(Row(key=f"p{i}", name=name, published=True, source=res.published_source,
                        meta=dict(res.model_meta or {}), cells={c.key: cell(figs.get(c.key)) for c in columns}))
    used = "".join(c.mark for r in rows for c in r.cells.values())
    notes[:0] = footnotes(used)
    if any(c.strict is not None for r in rows for c in r.cells.values()):
        notes.append(STRICT_NOTE.replace("Score reads", "the main figure reads"))
    if published:
        notes.append("Published rows are scores as printed in their source; they have no intervals, item counts "
                     "or rank intervals, and were not made on the same items as the runs.")
    return Leaderboard(columns=columns, rows=rows, notes=notes)
