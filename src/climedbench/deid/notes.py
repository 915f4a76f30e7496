"""Notes in, notes out, in the same layout: a folder or file of .txt/.md notes, or JSONL/CSV/XLSX exports with a
text column and record ids. Text is UTF-8 or, when told, GB18030; anything else is one clear error naming the file
and the first bad byte.

In exports only the text column(s) are kept de-identified; record and patient ids are replaced by keyed hashes (an id
may itself be a record number) unless `keep_ids`; every other column is dropped unless named in `keep_columns`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from climedbench.errors import DataError

NOTE_SUFFIXES = (".txt", ".md")
TABLE_SUFFIXES = (".jsonl", ".csv", ".xlsx")


@dataclass
class Note:
    doc_id: str  # as found (never written to the report: hashed there)
    patient: str
    text: str
    where: str  # file, or file:line / file:row


@dataclass
class Options:
    text_columns: tuple[str, ...] = ("text",)
    id_column: str = "id"
    patient_column: str | None = None
    keep_columns: tuple[str, ...] = ()
    keep_ids: bool = False
    encoding: str = "utf-8"


@dataclass
class Record:
    """One row of an export with its text fields, written back after de-identification."""

    fields: dict[str, object]
    notes: dict[str, Note] = field(default_factory=dict)


def decode(raw: bytes, path: Path, encoding: str) -> str:
    try:
        return raw.decode("utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding)
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        hint = ""
        if encoding.lower().startswith("utf"):
            try:
                raw.decode("gb18030")
                hint = " It reads as GB18030: add --encoding gb18030 (or convert: iconv -f GB18030 -t UTF-8 IN > OUT)."
            except UnicodeDecodeError:
                hint = " It is neither UTF-8 nor GB18030: convert it to UTF-8 first."
        raise DataError(f"{path}:{line}: not {encoding} (byte {e.start}: 0x{raw[e.start]:02x}).{hint}") from None
    except LookupError:
        raise DataError(f"unknown encoding {encoding!r} (use utf-8 or gb18030)") from None


def find_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise DataError(f"{root}: no such file or folder")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in NOTE_SUFFIXES + TABLE_SUFFIXES
                   and not p.name.startswith("."))
    if not files:
        raise DataError(f"{root}: no notes found (.txt, .md, .jsonl, .csv or .xlsx files)")
    return files


def read_file(path: Path, rel: str, opts: Options) -> tuple[str, list[Record]]:
    """(kind, records) of one input file; a note file is one record with one note."""
    suffix = path.suffix.lower()
    if suffix in NOTE_SUFFIXES:
        text = decode(path.read_bytes(), path, opts.encoding)
        stem = Path(rel).stem
        return "note", [Record({}, {"text": Note(rel, stem, text, rel)})]
    if suffix == ".jsonl":
        rows = []
        text = decode(path.read_bytes(), path, opts.encoding)
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise DataError(f"{path}:{i}: not valid JSON ({e.msg}, column {e.colno})") from None
            if not isinstance(obj, dict):
                raise DataError(f"{path}:{i}: expected a JSON object")
            rows.append((f"{rel}:{i}", obj))
        return "jsonl", [_record(where, obj, path, opts) for where, obj in rows]
    if suffix == ".csv":
        text = decode(path.read_bytes(), path, opts.encoding)
        reader = csv.DictReader(io.StringIO(text))
        _check_columns(list(reader.fieldnames or []), path, opts)
        return "csv", [_record(f"{rel}:{i}", dict(row), path, opts) for i, row in enumerate(reader, start=2)]
    if suffix == ".xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path, read_only=True, data_only=True)
        ws = wb.active
        rows_iter = ws.iter_rows(values_only=True)
        header = [str(h) if h is not None else "" for h in next(rows_iter, ())]
        _check_columns(header, path, opts)
        records = []
        for i, values in enumerate(rows_iter, start=2):
            if all(v is None for v in values):
                continue
            records.append(_record(f"{rel}:{i}", dict(zip(header, values, strict=False)), path, opts))
        wb.close()
        return "xlsx", records
    raise DataError(f"{path}: unsupported file type {suffix}")


def _check_columns(columns: list[str], path: Path, opts: Options) -> None:
    missing = [c for c in (*opts.text_columns, opts.id_column) if c not in columns]
    if missing:
        raise DataError(f"{path}: no column {missing[0]!r} (columns: {', '.join(columns)}); "
                        f"name them with --text-column / --id-column")


def _record(where: str, obj: dict[str, object], path: Path, opts: Options) -> Record:
    for col in (*opts.text_columns, opts.id_column):
        if col not in obj:
            raise DataError(f"{where.replace(path.name, str(path), 1)}: field {col!r}: missing")
    doc_id = str(obj[opts.id_column])
    patient = str(obj.get(opts.patient_column, doc_id)) if opts.patient_column else doc_id
    notes = {}
    for col in opts.text_columns:
        value = obj[col]
        if value is None:
            continue
        if not isinstance(value, str):
            raise DataError(f"{where}: field {col!r}: expected text, got {type(value).__name__}")
        notes[col] = Note(f"{doc_id}#{col}" if len(opts.text_columns) > 1 else doc_id, patient, value, where)
    return Record(obj, notes)


def write_file(path: Path, kind: str, records: list[Record], fieldnames: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    if kind == "note":
        tmp.write_text(str(records[0].fields.get("text", "")), encoding="utf-8")
    elif kind == "jsonl":
        with tmp.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r.fields, ensure_ascii=False) + "\n")
    elif kind == "csv":
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fieldnames)
            w.writeheader()
            for r in records:
                w.writerow(r.fields)
    elif kind == "xlsx":
        from openpyxl import Workbook

        wb = Workbook()
        ws = wb.active
        ws.append(fieldnames)
        for r in records:
            ws.append([r.fields.get(c) for c in fieldnames])
        wb.save(tmp)
    tmp.replace(path)


def iter_notes(records: list[Record]) -> Iterator[tuple[Record, str, Note]]:
    for r in records:
        for col, note in r.notes.items():
            yield r, col, note
