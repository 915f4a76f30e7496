"""The analysis record (docs/ANALYSES.md): what every `climedbench analyze KIND` writes and prints.

KIND.json holds the record; KIND.csv its table; KIND.png and KIND.svg its figure (climedbench.analyses.figures).
"""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

VERSION = 1


class Table(BaseModel):
    columns: list[str]
    rows: list[list[Any]] = Field(default_factory=list)


class AnalysisRecord(BaseModel):
    """One analysis: its table, the caveats a reader must know, and free-form details."""

    analysis: str
    version: int = VERSION
    title: str
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    suite: str | None = None
    inputs: list[str] = Field(default_factory=list)
    table: Table
    notes: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)

    def dump(self) -> dict[str, Any]:
        return clean(self.model_dump(mode="json"))


def clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null, numpy scalars plain numbers."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def fmt_p(p: float | None) -> float | None:
    """A p-value rounded for tables to 3 significant digits."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return None
    return float(f"{p:.3g}")


def table_csv(table: Table) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.columns)
    for row in clean(table.rows):
        writer.writerow(["" if v is None else v for v in row])
    return buf.getvalue()


def write_record(record: AnalysisRecord, out: Path, figure: Any | None = None) -> dict[str, str]:
    """Write KIND.json, KIND.csv and (when a figure is given) KIND.png and KIND.svg into `out`; returns the
    file names written, keyed json/csv/png/svg."""
    import json

    from climedbench.analyses.figures import save_figure

    out.mkdir(parents=True, exist_ok=True)
    kind = record.analysis
    files = {"json": f"{kind}.json", "csv": f"{kind}.csv"}
    if figure is not None:
        save_figure(figure, out / f"{kind}.png", out / f"{kind}.svg")
        files.update(png=f"{kind}.png", svg=f"{kind}.svg")
    (out / files["csv"]).write_text(table_csv(record.table), encoding="utf-8")
    (out / files["json"]).write_text(json.dumps(record.dump(), ensure_ascii=False, indent=2) + "\n",
                                     encoding="utf-8")
    return files


def print_record(record: AnalysisRecord) -> None:
    """The table and notes on the terminal."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console(width=max(120, 14 * len(record.table.columns)))
    table = RichTable(title=record.title, title_justify="left")
    for col in record.table.columns:
        table.add_column(col, justify="left" if col in ("task", "model", "key", "verdict", "test", "column",
                                                           "pair", "level", "group", "kind") else "right")
    for row in clean(record.table.rows):
        table.add_row(*["—" if v is None else str(v) for v in row])
    console.print(table)
    for note in record.notes:
        console.print(f"• {note}", highlight=False, markup=False)
