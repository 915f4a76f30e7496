"""Read records from JSONL, JSON, CSV/TSV, Parquet and XLSX files, keeping the file and line of each.

A reader yields `RawRecord`s: the record as a dict, or an error saying why the line could not be read.
Loaders turn records into items; nothing here knows about benchmarks.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.data.encoding import BadByte, check_utf8
from climedbench.data.json_stream import Span
from climedbench.errors import DataError

SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet", ".xlsx")
TEXT_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv")
NO_BAD: Mapping[int, BadByte] = {}


@dataclass
class RawRecord:
    """One record as read from disk, before any checking. `line` is the 1-based line (row for XLSX and
    Parquet) where the record starts."""

    file: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None
    # {'task-code': [...]}: the key names the task; {pmid: {...}}: the key is the record's id.
    task_hint: str | None = None
    id_hint: str | None = None
    # A table's header (CSV, TSV, XLSX, Parquet): a missing column is one error, not one per row.
    columns: tuple[str, ...] | None = None


def read_jsonl(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
    """One record per non-blank line; a line that is not a JSON object (or not UTF-8) becomes an error record."""
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as fh:
        for n, line in enumerate(fh, start=1):
            if n in bad:
                yield RawRecord(shown, n, None, bad[n].reason())
                continue
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


def _bad_in(span: Span, bad: Mapping[int, BadByte]) -> BadByte | None:
    if not bad:
        return None
    return next((bad[n] for n in range(span.start, max(span.start, span.end) + 1) if n in bad), None)


def _spanned(shown: str, span: Span, obj: Any, bad: Mapping[int, BadByte]) -> RawRecord:
    hit = _bad_in(span, bad)
    if hit is not None:
        return RawRecord(shown, hit.line, None, hit.reason())
    return _record(shown, span.start, obj)


def read_json(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
    """An array of objects; {'data': [...]}; {key: [...]} (the key names the task, e.g. a scenario code);
    or {key: {...}, ...} (records keyed by id, as some releases key them by PubMed id). Each keeps its start line.
    Read as a stream (json_stream): linear time, one record in memory at a time (one task's list for
    {key: [...]}); the records before a syntax error are kept."""
    from climedbench.data import json_stream as js

    shape = js.layout(path, bad)
    if shape.several and shape.top == "dict":
        # JSON lines saved as .json (some releases do this): read it line by line.
        yield from read_jsonl(path, shown, bad)
        return
    if shape.several:
        yield RawRecord(shown, shape.top_span.end or 1, None,
                        "not valid JSON (more than one top-level value, and the first is not an object)")
        return
    if shape.top == "list":
        for span, obj in zip(shape.elements, js.items(path, bad, "item"), strict=False):
            yield _spanned(shown, span, obj, bad)
    elif shape.top == "dict":
        members = shape.members
        keyed = bool(members) and all(m.kind == "dict" for m in members)
        containers = any(m.kind == "list" and m.elements and m.all_dicts for m in members)
        if not keyed and not containers:
            if shape.error is None:  # one record (a one-line JSON-lines file saved as .json)
                for obj in js.items(path, bad, ""):
                    yield _spanned(shown, Span(shape.top_span.start, shape.top_span.end), obj, bad)
        else:
            for member, (key, value) in zip(members, js.members(path, bad), strict=False):
                if containers and isinstance(value, list):
                    for span, obj in zip(member.elements, value, strict=False):
                        rec = _spanned(shown, span, obj, bad)
                        rec.task_hint = None if key == "data" else key
                        yield rec
                elif keyed:
                    rec = _spanned(shown, member.span, value, bad)
                    rec.id_hint = key
                    yield rec
    elif shape.top is not None and shape.error is None:
        yield RawRecord(shown, 1, None, f"expected a JSON array or object, got {shape.top}")
    if shape.error is not None:
        line, message = _python_json_error(path) or shape.error
        yield RawRecord(shown, line, None, f"not valid JSON ({message})")


def _python_json_error(path: Path) -> tuple[int, str] | None:
    """Line and message of Python's json parser, which names the column (ijson's does not); read only for a file
    that has a syntax error."""
    try:
        json.loads(path.read_text(encoding="utf-8-sig", errors="replace"))
    except json.JSONDecodeError as e:
        return e.lineno, f"{e.msg} at column {e.colno}"
    except (ValueError, RecursionError):
        return None
    return None


def _record(shown: str, line: int, obj: Any) -> RawRecord:
    if not isinstance(obj, dict):
        return RawRecord(shown, line, None, f"expected a JSON object, got {type(obj).__name__}")
    return RawRecord(shown, line, obj)


def _read_delimited(path: Path, shown: str, delimiter: str, bad: Mapping[int, BadByte]) -> Iterator[RawRecord]:
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as fh:
        reader = csv.DictReader(fh, delimiter=delimiter)
        if not reader.fieldnames:
            yield RawRecord(shown, 1, None, "empty file (no header row)")
            return
        columns = tuple(reader.fieldnames)
        start = reader.line_num + 1
        if 1 in bad:
            yield RawRecord(shown, 1, None, bad[1].reason())
        for row in reader:
            hit = _bad_in(Span(start, reader.line_num), bad)
            if hit is not None:
                yield RawRecord(shown, hit.line, None, hit.reason())
            elif None in row:
                yield RawRecord(shown, start, None, f"row has {len(row) - 1 + len(row[None])} fields, "
                                                    f"header has {len(reader.fieldnames)}")
            else:
                yield RawRecord(shown, start, {k: v for k, v in row.items() if v not in (None, "")},
                                columns=columns)
            start = reader.line_num + 1


def read_csv(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
    """A header row, then one record per row (quoted fields may span lines)."""
    return _read_delimited(path, shown, ",", bad)


def read_tsv(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
    """Tab-separated, with a header row."""
    return _read_delimited(path, shown, "\t", bad)


def read_parquet(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
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
    columns = tuple(table.column_names)
    for n, row in enumerate(table.to_pylist(), start=1):
        yield RawRecord(shown, n, {k: v for k, v in row.items() if v is not None}, columns=columns)


def read_xlsx(path: Path, shown: str, bad: Mapping[int, BadByte] = NO_BAD) -> Iterator[RawRecord]:
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
        columns = tuple(n for n in names if n)
        for n, row in enumerate(rows, start=2):
            if not any(v not in (None, "") for v in row):
                continue
            rec = {k: (v.isoformat() if hasattr(v, "isoformat") else v)
                   for k, v in zip(names, row, strict=False) if k and v not in (None, "")}
            yield RawRecord(shown, n, rec, columns=columns)
    finally:
        wb.close()


READERS: dict[str, Callable[[Path, str, Mapping[int, BadByte]], Iterator[RawRecord]]] = {
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
        bad = NO_BAD
        if path.suffix.lower() in TEXT_SUFFIXES:
            check = check_utf8(path, name)
            if check.file_error is not None:
                yield RawRecord(name, check.file_error[0], None, check.file_error[1])
                return
            bad = check.bad
        yield from reader(path, name, bad)
    except OSError as e:
        raise DataError(f"{name}: cannot read: {e.strerror}") from e
