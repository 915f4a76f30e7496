"""Terminal tables: one run in detail, or several runs / published scores side by side."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from climedbench.core.registry import METRICS
from climedbench.core.suite import Suite
from climedbench.errors import DataError
from climedbench.report.marks import (
    INCOMPLETE,
    footnotes,
    incomplete,
    marks,
    partial_notes,
    unanswered_notes,
    variance_notes,
)

if TYPE_CHECKING:  # the pydantic result types cost ~25 ms to build; `list` prints tables without them
    from climedbench.core.types import Figure, Results


def metric_label(name: str) -> str:
    """The short column label of a metric ('Acc.', 'ROUGE-L'); the name itself for an unknown metric."""
    return getattr(METRICS.get(name), "label", name) if name in METRICS else name


def _fmt(fig: Figure | None, with_ci: bool = True, mark: str = "") -> str:
    """'25.0† [7.2, 80.1]'; '—' when there is no figure; '— (no answers…)' when it has no score."""
    if fig is None:
        return "—"
    if fig.score is None:
        return f"—{mark}" + (f" ({fig.note})" if with_ci and fig.note else "")
    text = f"{fig.score:.1f}{mark}"
    if with_ci and fig.ci:
        lo, hi = fig.ci
        text += f" [{lo:.1f}, {hi:.1f}]"
    return text


def _n(fig: Figure) -> str:
    """'24', or 'answered/n' when some items got no answer."""
    if fig.n is None:
        return ""
    return f"{fig.answered}/{fig.n}" if fig.incomplete else str(fig.n)


# The footnote of the Strict column (docs/REPORT.md, "Strict and flexible extraction").
STRICT_NOTE = ("Strict: the same figure with answers read by stated-answer rules only (an answer marker such as "
               "'答案：B' / 'Answer: B', or a bare letter or sequence); Score reads by every rule (flexible). "
               "A large gap means the score leans on answers inferred from loose text.")


def run_table(results: Results, suite: Suite) -> Table:
    """One model: every task with metric, n, score, interval, the strict figure (when the run has one) and extraction
    failures, grouped by the suite's first level; group means; the overall score."""
    table = Table(title=f"{suite.title} — {results.model}", title_justify="left")
    first = suite.levels[0].en if suite.levels else "Group"
    with_strict = any(f.strict is not None for f in results.tasks.values())
    numbers = ["n", "Score [95% CI]", *(["Strict [95% CI]"] if with_strict else []), "No answer"]
    for col in [first or "Group", "Task", "Name", "Metric", *numbers]:
        table.add_column(col, justify="right" if col in numbers else "left")
    shown_tasks: set[str] = set()
    used: list[str] = []

    def mark(fig: Figure, key: str) -> str:
        # One run on its own: only the unanswered mark; its overall names the tasks it covers.
        m = INCOMPLETE if incomplete(fig) else ""
        used.append(m)
        return m

    def scores(fig: Figure, key: str) -> list[str]:
        """The score cell, and the strict one when the table has that column."""
        return [_fmt(fig, mark=mark(fig, key))] + ([_fmt(fig.strict)] if with_strict else [])

    def task_row(code: str, group_label: str) -> None:
        fig = results.tasks[code]
        task = suite.task(code)
        errs = fig.errors or 0
        judged = fig.counts.get("judged", 0)
        fails = (f"{fig.extraction_failures or 0}" + (f" (+{errs} err)" if errs else "")
                 + (f" ({judged} judged)" if judged else ""))
        metric = metric_label(task.metric) + (f" ({fig.aggregation})" if fig.aggregation not in (None, "mean")
                                              else "") + (f" ({fig.variant})" if fig.variant else "")
        table.add_row(group_label, code, task.name.text(suite.language), metric, _n(fig), *scores(fig, code), fails)
        shown_tasks.add(code)

    for key, members in suite.by_dimension().items():
        codes = [t.code for t in members if t.code in results.tasks]
        if not codes:
            continue
        for i, code in enumerate(codes):
            task_row(code, suite.name(key, "en") if i == 0 else "")
        for sub, g in suite.groups.items():
            sub_codes = [t.code for t in suite.members(sub) if t.code in results.tasks]
            if g.parent == key and sub in results.groups and len(sub_codes) > 1:
                table.add_row("", "", f"[i]{suite.name(sub)} mean[/i]", "", _n(results.groups[sub]),
                              *scores(results.groups[sub], sub), "", style="dim")
        if key in results.groups and len(codes) > 1:
            table.add_row("", "", f"[i]{suite.name(key, 'en').lower()} mean[/i]", "", _n(results.groups[key]),
                          *scores(results.groups[key], key), "", style="dim")
        table.add_section()
    for code in results.tasks:
        if code not in shown_tasks and suite.lookup(code) is not None:
            task_row(code, "")
    overall = results.overall
    if overall is not None:
        n_tasks = len(overall.tasks or [])
        what = (overall.metric if overall.all_tasks is not False
                else f"{overall.metric} ({n_tasks} of {len(suite.tasks)} tasks)")
        table.add_row("Overall", "", what, "", _n(overall), *scores(overall, "overall"), "", style="bold")
    _caption(table, footnotes("".join(used)) + ([STRICT_NOTE] if with_strict else [])
             + variance_notes("This run", results))
    return table


def _caption(table: Table, lines: list[str]) -> None:
    if lines:
        table.caption = "\n".join(lines)
        table.caption_justify = "left"


def comparison_table(by_model: Mapping[str, Results], suite: Suite, with_ci: bool = True,
                     title: str | None = None, extra_notes: list[str] | None = None) -> Table:
    """Models as columns; tasks, then groups (every level), then overall as rows."""
    table = Table(title=title or suite.title, title_justify="left")
    table.add_column("", style="bold", no_wrap=True)
    table.add_column("Metric")
    for model in by_model:
        table.add_column(model, justify="right")
    used: list[str] = []

    def cell(fig: Figure | None, key: str, res: Results) -> str:
        m = marks(fig, key, res, suite)
        used.append(m)
        return _fmt(fig, with_ci, m)

    for t in suite.tasks:
        if any(t.code in r.tasks for r in by_model.values()):
            table.add_row(t.code, metric_label(t.metric),
                          *[cell(r.tasks.get(t.code), t.code, r) for r in by_model.values()])
    table.add_section()
    for key in suite.groups:
        if any(key in r.groups for r in by_model.values()):
            table.add_row(suite.name(key, "en"), "mean", *[cell(r.groups.get(key), key, r) for r in by_model.values()])
    table.add_section()
    table.add_row("Overall", "mean", *[cell(r.overall, "overall", r) for r in by_model.values()])
    notes = footnotes("".join(used))
    for model, res in by_model.items():
        notes += unanswered_notes(model.split("\n")[0], res) + partial_notes(model.split("\n")[0], res, suite)
    _caption(table, notes + list(extra_notes or []))
    return table


def print_table(table: Table, console: Console | None = None) -> None:
    """Print to stdout, wide enough not to wrap scores (a pipe gets the full width too)."""
    needed = 30 + 16 * len(table.columns)
    (console or Console(width=max(120, needed, Console().width))).print(table)


def read_published_csv(path: str | Path, suite: Suite, *, source: str | None = None) -> dict[str, Results]:
    """Published per-task scores: a `model` column and one column per task code (×100). Columns named
    in a `meta_columns` set (type, size, setting, source) are kept as model metadata, not scores."""
    from climedbench.core.types import Results

    p = Path(path)
    try:
        fh = p.open(encoding="utf-8-sig", newline="")
    except OSError as e:
        raise DataError(f"{p}: cannot read: {e.strerror}") from e
    meta_columns = {"type", "size", "params", "setting", "shots", "source", "note", "kind"}
    out: dict[str, Results] = {}
    seen: list[tuple[int, str, float]] = []  # (line, column, value) of every score
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        if "model" not in header:
            raise DataError(f"{p}:1: no 'model' column (header: {', '.join(header) or 'empty'})")
        columns: dict[str, str] = {}
        for col in header:
            if col == "model" or not col.strip() or col.strip().lower() in meta_columns:
                continue
            task = suite.lookup(col)
            if task is None:
                raise DataError(f"{p}:1: column {col!r} is not a task code of {suite.title} "
                                f"({', '.join(suite.codes)})")
            columns[col] = task.code
        line = 2
        for row in reader:
            model = (row.get("model") or "").strip()
            if not model:
                raise DataError(f"{p}:{line}: field 'model' is empty")
            scores: dict[str, float] = {}
            for col, code in columns.items():
                value = (row.get(col) or "").strip()
                if not value or value in ("-", "—", "n/a", "NA"):
                    continue
                try:
                    x = float(value)
                except ValueError as e:
                    raise DataError(f"{p}:{line}: field {col!r}: {value!r} is not a number") from e
                signed = getattr(METRICS.get(suite.task(code).metric), "scale", "unit") == "signed"
                low = -100 if signed else 0
                if not math.isfinite(x) or not low <= x <= 100:
                    raise DataError(f"{p}:{line}: field {col!r}: {value} is outside [{low}, 100] (scores are "
                                    "reported ×100" + ("" if signed else f"; {suite.task(code).metric} is never "
                                                       "negative") + ")")
                scores[code] = x
                seen.append((line, col, x))
            if model in out:
                raise DataError(f"{p}:{line}: model {model!r} appears twice")
            from climedbench.aggregate import from_published  # numpy and the metrics: not for `list`

            tasks, groups, overall = from_published(scores, suite)
            meta = {k: (row.get(k) or "").strip() for k in header if k.strip().lower() in meta_columns}
            out[model] = Results(model=model, suite=suite.suite, suite_version=suite.version, tasks=tasks,
                                 groups=groups, overall=overall, published=True, published_source=source,
                                 model_meta=meta or None)
            line = reader.line_num + 1
    if not out:
        raise DataError(f"{p}: no rows")
    fractions = [(ln, col, x) for ln, col, x in seen if not float(x).is_integer()]
    if fractions and all(abs(x) <= 1 for _, _, x in seen):
        ln, col, x = fractions[0]
        raise DataError(f"{p}:{ln}: field {col!r}: {x:g}, and every score in the file is within [-1, 1]: these look "
                        "like 0–1 fractions, but scores are reported ×100 (multiply them by 100)")
    return out
