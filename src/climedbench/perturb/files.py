"""Rewrite item files record by record, in the format they came in (JSONL, JSON, CSV, TSV, Parquet, XLSX).

`rewrite_tree(src, dst, edit)` walks a data file or folder as `load_items` does and writes each file to the
same relative path under `dst` with every record passed through `edit(record, ref)`. Fields the edit does
not change are written back as they were read; files of other types are copied unchanged.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.data.readers import SUFFIXES
from climedbench.errors import ConfigError, DataError


@dataclass(frozen=True)
class RecordRef:
    """Where a record sits: its file (relative to the data root), its position, and hints its container gives."""

    file: str
    index: int
    task_hint: str | None = None
    id_hint: str | None = None

    @property
    def key(self) -> str:
        return f"{self.file}#{self.index}"


Edit = Callable[[dict[str, Any], RecordRef], dict[str, Any]]


def data_files_under(src: Path) -> list[Path]:
    if src.is_dir():
        return sorted(p for p in src.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not src.exists():
        raise DataError(f"{src}: no such file or folder")
    return [src]


def rewrite_tree(src: Path, dst: Path, edit: Edit) -> dict[str, str]:
    """Rewrite every data file under `src` into `dst`; returns {relative path: 'rewritten' | 'copied'}."""
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise ConfigError(f"{dst} exists and is not empty; choose a new --out folder")
    done: dict[str, str] = {}
    for f in data_files_under(src):
        rel = f.relative_to(src).as_posix() if src.is_dir() else f.name
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        writer = WRITERS.get(f.suffix.lower())
        if writer is None:
            shutil.copyfile(f, target)
            done[rel] = "copied"
            continue
        writer(f, target, rel, edit)
        done[rel] = "rewritten"
    return done


def _jsonl(src: Path, dst: Path, rel: str, edit: Edit) -> None:
    out = []
    with src.open(encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, start=1):
            stripped = line.strip()
            obj: Any = None
            if stripped:
                try:
                    obj = json.loads(stripped)
                except json.JSONDecodeError as e:
                    raise DataError(f"{src}:{n}: not valid JSON ({e.msg})") from e
            if isinstance(obj, dict):
                out.append(json.dumps(edit(obj, RecordRef(rel, n)), ensure_ascii=False) + "\n")
            else:
                out.append(line if line.endswith("\n") else line + "\n")
    dst.write_text("".join(out), encoding="utf-8")


def _json(src: Path, dst: Path, rel: str, edit: Edit) -> None:
    try:
        top = json.loads(src.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as e:
        raise DataError(f"{src}:{e.lineno}: not valid JSON ({e.msg})") from e
    counter = iter(range(1, 10**9))

    def each(items: list[Any], hint: str | None) -> list[Any]:
        return [edit(x, RecordRef(rel, next(counter), task_hint=hint)) if isinstance(x, dict) else x for x in items]

    if isinstance(top, list):
        top = each(top, None)
    elif isinstance(top, dict):
        for key, value in list(top.items()):
            if isinstance(value, list):
                top[key] = each(value, None if key == "data" else str(key))
            elif isinstance(value, dict):
                top[key] = edit(value, RecordRef(rel, next(counter), id_hint=str(key)))
    dst.write_text(json.dumps(top, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _delimited(delimiter: str) -> Callable[[Path, Path, str, Edit], None]:
    def write(src: Path, dst: Path, rel: str, edit: Edit) -> None:
        with src.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            header = list(reader.fieldnames or [])
            rows = list(reader)
        with dst.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=header, delimiter=delimiter, extrasaction="ignore")
            writer.writeheader()
            for n, row in enumerate(rows, start=2):
                present = {k: v for k, v in row.items() if k is not None and v not in (None, "")}
                changed = edit(present, RecordRef(rel, n))
                writer.writerow({k: changed.get(k, row.get(k, "")) for k in header})

    return write


def _parquet(src: Path, dst: Path, rel: str, edit: Edit) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(src)
    rows = [edit(dict(r), RecordRef(rel, n)) for n, r in enumerate(table.to_pylist(), start=1)]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), dst)


def _xlsx(src: Path, dst: Path, rel: str, edit: Edit) -> None:
    import openpyxl

    wb = openpyxl.load_workbook(src)
    ws = wb.worksheets[0]
    header = [str(c.value).strip() if c.value is not None else "" for c in ws[1]]
    for row in ws.iter_rows(min_row=2):
        record = {h: c.value for h, c in zip(header, row, strict=False) if h and c.value not in (None, "")}
        if not record:
            continue
        changed = edit(dict(record), RecordRef(rel, row[0].row))
        for h, c in zip(header, row, strict=False):
            if h and h in changed and changed[h] != record.get(h):
                c.value = changed[h]
    wb.save(dst)


WRITERS: dict[str, Callable[[Path, Path, str, Edit], None]] = {
    ".jsonl": _jsonl, ".json": _json, ".csv": _delimited(","), ".tsv": _delimited("\t"), ".parquet": _parquet,
    ".xlsx": _xlsx,
}
assert set(WRITERS) == set(SUFFIXES)
