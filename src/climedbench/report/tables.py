"""Terminal tables: one run in detail, or several runs / published scores side by side."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from climedbench.aggregate import from_published
from climedbench.errors import DataError
from climedbench.taxonomy import Suite

METRIC_LABEL = {"accuracy": "Acc.", "kendall_tau": "Kendall τ", "rouge1": "ROUGE-1", "similarity": "Sim."}


def _fmt(fig: Mapping[str, Any] | None, with_ci: bool = True) -> str:
    if not fig:
        return "—"
    text = f"{fig['score']:.1f}"
    if with_ci and fig.get("ci"):
        lo, hi = fig["ci"]
        text += f" [{lo:.1f}, {hi:.1f}]"
    return text


def run_table(results: Mapping[str, Any], suite: Suite) -> Table:
    """One model: every scenario with metric, n, score, CI and extraction failures; then dimensions."""
    table = Table(title=f"{suite.title} — {results.get('model', '')}", title_justify="left")
    for col, kw in (("Dimension", {}), ("Scenario", {}), ("Name", {}), ("Metric", {}),
                    ("n", {"justify": "right"}), ("Score [95% CI]", {"justify": "right"}),
                    ("No answer", {"justify": "right"})):
        table.add_column(col, **kw)  # type: ignore[arg-type]
    scen = results.get("scenarios", {})
    dims = results.get("dimensions", {})
    for dim, members in suite.by_dimension().items():
        shown = [s for s in members if s.code in scen]
        if not shown:
            continue
        for i, s in enumerate(shown):
            fig = scen[s.code]
            errs = fig.get("errors") or 0
            fails = f"{fig.get('extraction_failures', 0)}" + (f" (+{errs} err)" if errs else "")
            table.add_row(suite.dimensions[dim].en if i == 0 else "", s.code, s.name_zh,
                          METRIC_LABEL.get(s.metric, s.metric), str(fig["n"]), _fmt(fig), fails)
        if dim in dims and len(shown) > 1:
            table.add_row("", "", "[i]dimension mean[/i]", "", str(dims[dim]["n"]), _fmt(dims[dim]), "",
                          style="dim")
        table.add_section()
    overall = results.get("overall")
    if overall:
        what = ("mean of the scenario scores" if overall.get("complete")
                else f"mean of {overall['n_scenarios']} of {len(suite.scenarios)} scenarios")
        table.add_row("Overall", "", what, "", str(overall["n"]), _fmt(overall), "", style="bold")
    return table


def comparison_table(by_model: Mapping[str, Mapping[str, Any]], suite: Suite, with_ci: bool = True,
                     title: str | None = None) -> Table:
    """Models as columns; scenarios, then dimensions, then overall as rows."""
    table = Table(title=title or suite.title, title_justify="left")
    table.add_column("", style="bold", no_wrap=True)
    table.add_column("Metric")
    for model in by_model:
        table.add_column(model, justify="right")
    for s in suite.scenarios:
        if any(s.code in r.get("scenarios", {}) for r in by_model.values()):
            table.add_row(s.code, METRIC_LABEL.get(s.metric, s.metric),
                          *[_fmt(r.get("scenarios", {}).get(s.code), with_ci) for r in by_model.values()])
    table.add_section()
    for dim, names in suite.dimensions.items():
        if any(dim in r.get("dimensions", {}) for r in by_model.values()):
            table.add_row(names.en, "mean",
                          *[_fmt(r.get("dimensions", {}).get(dim), with_ci) for r in by_model.values()])
    table.add_section()
    table.add_row("Overall", "mean", *[_fmt(r.get("overall"), with_ci) for r in by_model.values()])
    return table


def print_table(table: Table, console: Console | None = None) -> None:
    """Print to stdout, wide enough not to wrap scores (a pipe gets the full width too)."""
    needed = 30 + 16 * len(table.columns)
    (console or Console(width=max(120, needed, Console().width))).print(table)


def read_published_csv(path: str | Path, suite: Suite) -> dict[str, dict[str, Any]]:
    """Published per-scenario scores: a `model` column and one column per scenario code (×100)."""
    p = Path(path)
    try:
        fh = p.open(encoding="utf-8-sig", newline="")
    except OSError as e:
        raise DataError(f"{p}: cannot read: {e.strerror}") from e
    out: dict[str, dict[str, Any]] = {}
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        if "model" not in header:
            raise DataError(f"{p}:1: no 'model' column (header: {', '.join(header) or 'empty'})")
        columns: dict[str, str] = {}
        for col in header:
            if col == "model" or not col.strip():
                continue
            sc = suite.lookup(col)
            if sc is None:
                raise DataError(f"{p}:1: column {col!r} is not a scenario code of {suite.title} "
                                f"({', '.join(suite.codes)})")
            columns[col] = sc.code
        line = 2
        for row in reader:
            model = (row.get("model") or "").strip()
            if not model:
                raise DataError(f"{p}:{line}: field 'model' is empty")
            scores: dict[str, float] = {}
            for col, code in columns.items():
                value = (row.get(col) or "").strip()
                if not value:
                    continue
                try:
                    x = float(value)
                except ValueError as e:
                    raise DataError(f"{p}:{line}: field {col!r}: {value!r} is not a number") from e
                if not math.isfinite(x) or not -100 <= x <= 100:
                    raise DataError(f"{p}:{line}: field {col!r}: {value} is outside [-100, 100] "
                                    "(scores are reported ×100)")
                scores[code] = x
            if model in out:
                raise DataError(f"{p}:{line}: model {model!r} appears twice")
            out[model] = {"model": model, **from_published(scores, suite)}
            line = reader.line_num + 1
    if not out:
        raise DataError(f"{p}: no rows")
    return out
