"""Read records from JSONL, JSON, CSV/TSV, Parquet and XLSX files, keeping the file and line of each.

A reader yields `RawRecord`s: the record as a dict, or an error saying why the line could not be read.
Loaders turn records into items; nothing here knows about benchmarks.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.errors import DataError

SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet", ".xlsx")


@dataclass
class RawRecord:
    """One record as read from disk, before any checking. `line` is the 1-based line (row for XLSX and
    Parquet) where the record starts."""

    file: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None
    # {'ID#1': [...]}: the key names the task; {pmid: {...}}: the key is the record's id.
    task_hint: str | None = None
    id_hint: str | None = None


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def read_jsonl(path: Path, shown: str) -> Iterator[RawRecord]:
    """One record per non-blank line; a line that is not a JSON object becomes an error record."""
    with path.open(encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line.rstrip("\r\n"))  # an error at the end of the line names its column, not 1
            except json.JSONDecodeError as e:
                yield RawRecord(shown, n, None, f"not valid JSON ({e.msg} at column {e.colno})")
                continue
            if not isinstance(obj, dict):
                yield RawRecord(shown, n, None, f"expected a JSON object, got {type(obj).__name__}")
                continue
            yield RawRecord(shown, n, obj)


def read_json(path: Path, shown: str) -> Iterator[RawRecord]:
    """An array of objects; {'data': [...]}; {key: [...]} (the key names the task, e.g. a scenario code);
    or {key: {...}, ...} (records keyed by id, as PubMedQA's ori_pqal.json). Each keeps its start line."""
    text = path.read_text(encoding="utf-8-sig")
    decoder = json.JSONDecoder()
    try:
        top = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg == "Extra data" and text.lstrip().startswith("{"):
            # JSON lines saved as .json (MedMCQA's release does this): read it line by line.
            yield from read_jsonl(path, shown)
            return
        yield RawRecord(shown, e.lineno, None, f"not valid JSON ({e.msg} at column {e.colno})")
        return

    def skip_ws(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        return i

    def elements(start: int) -> Iterator[tuple[int, Any]]:
        i = start + 1
        while True:
            i = skip_ws(i)
            if i >= len(text) or text[i] == "]":
                return
            value, end = decoder.raw_decode(text, i)
            yield i, value
            i = end

    def members(start: int) -> Iterator[tuple[int, str, Any]]:
        i = start + 1
        while True:
            i = skip_ws(i)
            if i >= len(text) or text[i] == "}":
                return
            key, end = decoder.raw_decode(text, i)
            i = skip_ws(end)
            i = skip_ws(i + 1 if text[i] == ":" else i)
            value, end = decoder.raw_decode(text, i)
            yield i, str(key), value
            i = end

    if isinstance(top, list):
        for start, obj in elements(text.index("[")):
            yield _record(shown, _line_of(text, start), obj)
        return
    if isinstance(top, dict):
        values = list(top.values())
        keyed = bool(values) and all(isinstance(v, dict) for v in values)
        containers = any(isinstance(v, list) and v and all(isinstance(x, dict) for x in v) for v in values)
        if not keyed and not containers:
            yield _record(shown, 1, top)  # one record (a one-line JSON-lines file saved as .json)
            return
        for start, key, value in members(text.index("{")):
            if containers and isinstance(value, list):
                at = text.index("[", start)
                for el_start, obj in elements(at):
                    rec = _record(shown, _line_of(text, el_start), obj)
                    rec.task_hint = None if key == "data" else key
                    yield rec
            elif keyed:
                rec = _record(shown, _line_of(text, start), value)
                rec.id_hint = key
                yield rec
        return
    yield RawRecord(shown, 1, None, f"expected a JSON array or object, got {type(top).__name__}")


def _record(shown: str, line: int, obj: Any) -> RawRecord:
    if not isinstance(obj, dict):
        return RawRecord(shown, line, None, f"expected a JSON object, got {type(obj).__name__}")
    return RawRecord(shown, line, obj)


def _read_delimited(path: Path, shown: str, delimiter: str) -> Iterator[RawRecord]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh, delimiter=delimiter)
        if not reader.fieldnames:
            yield RawRecord(shown, 1, None, "empty file (no header row)")
            return
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                yield RawRecord(shown, start, None, f"row has {len(row) - 1 + len(row[None])} fields, "
                                                    f"header has {len(reader.fieldnames)}")
            else:
                yield RawRecord(shown, start, {k: v for k, v in row.items() if v not in (None, "")})
            start = reader.line_num + 1


def read_csv(path: Path, shown: str) -> Iterator[RawRecord]:
    """A header row, then one record per row (quoted fields may span lines)."""
    return _read_delimited(path, shown, ",")


def read_tsv(path: Path, shown: str) -> Iterator[RawRecord]:
    """Tab-separated, with a header row."""
    return _read_delimited(path, shown, "\t")


def read_parquet(path: Path, shown: str) -> Iterator[RawRecord]:
    """One record per row (Hugging Face / BigBio releases); `line` is the 1-based row number."""
    try:
        import pyarrow.parquet as pq
    except ImportError as e:  # pragma: no cover - pyarrow is pinned
        raise DataError(f"{shown}: reading Parquet needs pyarrow (pip install pyarrow)") from e
    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow raises several types for a corrupt file
        yield RawRecord(shown, 1, None, f"not a readable Parquet file ({type(e).__name__}: {e})")
        return
    for n, row in enumerate(table.to_pylist(), start=1):
        yield RawRecord(shown, n, {k: v for k, v in row.items() if v is not None})


def read_xlsx(path: Path, shown: str) -> Iterator[RawRecord]:
    """The first sheet: a header row, then one record per row; `line` is the spreadsheet row number."""
    try:
        import openpyxl
    except ImportError as e:  # pragma: no cover - openpyxl is pinned
        raise DataError(f"{shown}: reading XLSX needs openpyxl (pip install openpyxl)") from e
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises zipfile and XML errors for a broken file
        yield RawRecord(shown, 1, None, f"not a readable XLSX file ({type(e).__name__}: {e})")
        return
    try:
        rows = wb.worksheets[0].iter_rows(values_only=True)
        header = next(rows, None)
        if not header or not any(header):
            yield RawRecord(shown, 1, None, "empty sheet (no header row)")
            return
        names = [str(h).strip() if h is not None else "" for h in header]
        for n, row in enumerate(rows, start=2):
            if not any(v not in (None, "") for v in row):
                continue
            rec = {k: (v.isoformat() if hasattr(v, "isoformat") else v)
                   for k, v in zip(names, row, strict=False) if k and v not in (None, "")}
            yield RawRecord(shown, n, rec)
    finally:
        wb.close()


READERS: dict[str, Callable[[Path, str], Iterator[RawRecord]]] = {
    ".jsonl": read_jsonl, ".json": read_json, ".csv": read_csv, ".tsv": read_tsv,
    ".parquet": read_parquet, ".xlsx": read_xlsx,
}


def read_records(path: Path, shown: str | None = None) -> Iterator[RawRecord]:
    """Raw records of one file, with the file name as the user should see it."""
    name = shown or str(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        yield RawRecord(name, 1, None, f"unsupported file type {path.suffix!r} (use {', '.join(SUFFIXES)})")
        return
    try:
        yield from reader(path, name)
    except UnicodeDecodeError as e:
        yield RawRecord(name, 1, None, f"not UTF-8 text ({e.reason} at byte {e.start})")
    except OSError as e:
        raise DataError(f"{name}: cannot read: {e.strerror}") from e
