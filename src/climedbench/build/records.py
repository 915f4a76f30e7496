"""Read the notes a build starts from: a folder or file of .txt/.md notes or JSONL/CSV/XLSX exports, with the
readers of `climedbench deid` (climedbench/deid/notes.py), so whatever `deid` wrote, `build` reads.

Each note gets a hashed record id and patient id (sha256 of the id as found, 16 hex characters): items and
their provenance name only these hashes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from climedbench.deid.notes import Options, decode, find_files, iter_notes, read_file
from climedbench.errors import DataError

ID_COLUMNS = ("record_id", "id", "doc_id", "note_id")
PATIENT_COLUMNS = ("patient_id", "patient")
META_COLUMNS = ("lang", "language", "specialty", "department", "note_type", "kind")


@dataclass
class BuildNote:
    record: str  # hashed record id
    patient: str  # hashed patient id
    text: str
    where: str  # file:line of the (de-identified) input
    lang: str
    specialty: str | None
    note_type: str | None


def hash_id(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()[:16]


def _columns(path: Path, encoding: str) -> list[str]:
    """The fields of a table's first record (JSONL) or its header (CSV); empty for others."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        for line in decode(path.read_bytes(), path, encoding).splitlines():
            if line.strip():
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    return []
                return list(obj) if isinstance(obj, dict) else []
    if suffix == ".csv":
        reader = csv.reader(io.StringIO(decode(path.read_bytes(), path, encoding)))
        return next(reader, [])
    if suffix == ".xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path, read_only=True)
        row = next(wb.active.iter_rows(values_only=True), ())
        wb.close()
        return [str(c) for c in row if c is not None]
    return []


def normalise(text: str) -> str:
    """Line ends, odd spaces and blank-line runs normalised; the clinical text itself is untouched."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ").replace("\u3000", " ")
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def detect_lang(text: str) -> str:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk >= 0.1 * max(1, len(text.strip())) else "en"


def read_notes(source: Path, text_column: str = "text", id_column: str | None = None,
               encoding: str = "utf-8") -> list[BuildNote]:
    """Every note under `source`, in file order."""
    root = source if source.is_dir() else source.parent
    out: list[BuildNote] = []
    for path in find_files(source):
        if path.name.startswith("deid_"):
            continue  # deid's report and manifest sit beside the notes
        cols = _columns(path, encoding)
        idc = id_column or next((c for c in ID_COLUMNS if c in cols), "id")
        pc = next((c for c in PATIENT_COLUMNS if c in cols), None)
        if cols and text_column not in cols:
            raise DataError(f"{path}: no field {text_column!r} (fields: {', '.join(cols)}); name it with --text-column")
        opts = Options(text_columns=(text_column,), id_column=idc, patient_column=pc,
                       keep_columns=META_COLUMNS, encoding=encoding)
        _, records = read_file(path, str(path.relative_to(root)), opts)
        for record, _col, note in iter_notes(records):
            f = record.fields
            lang = str(f.get("lang") or f.get("language") or "") or detect_lang(note.text)
            out.append(BuildNote(
                record=hash_id("record", note.doc_id), patient=hash_id("patient", note.patient),
                text=normalise(note.text), where=note.where, lang="zh" if lang.lower().startswith("zh") else "en",
                specialty=str(f.get("specialty") or f.get("department") or "") or None,
                note_type=str(f.get("note_type") or f.get("kind") or "") or None))
    return out
