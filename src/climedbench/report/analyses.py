"""Analysis records of `--analyses DIR` (docs/ANALYSES.md), rendered generically.

Every `*.json` in DIR with an `analysis` key is one record: its title, table and notes are shown, with the SVG
of the same stem inlined after sanitising. The order is that of DIR/index.json (what `analyze all` wrote),
then the remaining records by file name; index.json's `skipped` lines are shown as notes. No kind gets
special code: a new kind (e.g. expert `ratings`) is shown the same way.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from climedbench.analyses.record import AnalysisRecord
from climedbench.errors import ConfigError, DataError
from climedbench.report.page import AnalysisView
from climedbench.report.svg import sanitize_svg
from climedbench.rundir import read_json


def cell_text(value: Any) -> str:
    """A table value as text: '—' for missing, integers without '.0', other numbers to 4 significant digits."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:.1f}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _order(folder: Path) -> tuple[list[str], list[str]]:
    """File names in index.json order, and its notes on skipped analyses."""
    index = folder / "index.json"
    if not index.exists():
        return [], []
    data = read_json(index)
    names, notes = [], []
    if isinstance(data, dict):
        for entry in data.get("analyses") or []:
            if isinstance(entry, dict) and isinstance(entry.get("json"), str):
                names.append(entry["json"])
        for skipped in data.get("skipped") or []:
            notes.append(skipped if isinstance(skipped, str) else json.dumps(skipped, ensure_ascii=False))
    return names, notes


def read_record(path: Path) -> AnalysisRecord | None:
    """The record in a JSON file; None when the file is not an analysis record (no 'analysis' key)."""
    data = read_json(path)
    if not isinstance(data, dict) or "analysis" not in data:
        return None
    try:
        return AnalysisRecord.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(x) for x in first["loc"])
        raise DataError(f"{path}: field '{field}': {first['msg']} (not an analysis record of docs/ANALYSES.md)"
                        ) from e


def view(record: AnalysisRecord, path: Path, index: int) -> AnalysisView:
    svg_file = path.with_suffix(".svg")
    svg = None
    if svg_file.exists():
        try:
            text = svg_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise DataError(f"{svg_file}: cannot read: {e}") from e
        svg = sanitize_svg(text, f"analysis{index}", str(svg_file))
    return AnalysisView(kind=record.analysis, file=path.name, title=record.title, created_at=record.created_at,
                        inputs=record.inputs, columns=[str(c) for c in record.table.columns],
                        rows=[[cell_text(v) for v in row] for row in record.table.rows],
                        notes=[str(n) for n in record.notes], svg=svg)


def read_analyses(folder: Path) -> tuple[list[AnalysisView], list[str]]:
    """Every analysis record in `folder`, ready to display, and the notes of index.json."""
    if not folder.is_dir():
        raise ConfigError(f"--analyses {folder}: not a folder (give the --out folder of `climedbench analyze`)")
    first, notes = _order(folder)
    files = [folder / n for n in first if (folder / n).is_file()]
    files += [p for p in sorted(folder.glob("*.json")) if p not in files]
    views: list[AnalysisView] = []
    for path in files:
        record = read_record(path)
        if record is not None:
            views.append(view(record, path, len(views)))
    if not views:
        notes.append(f"{folder} holds no analysis records (*.json with an 'analysis' key).")
    return views, notes
