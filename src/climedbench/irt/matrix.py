"""Response matrices: one row per examinee, one column per item, values 1 / 0 / missing (not administered).

File format (CSV, UTF-8, optional BOM): a header line whose first cell names the examinee-id column and
whose other cells are the item ids, then one line per examinee: the examinee id followed by ``1``, ``0``
or an empty cell for each item (``1.0``/``0.0`` and ``NA``/``NaN`` for missing are accepted too). Parquet
files hold the same table: first column the examinee ids, then one numeric/boolean column per item with
nulls for missing answers.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from climedbench.errors import DataError

_ONE = frozenset({"1", "1.0"})
_ZERO = frozenset({"0", "0.0"})
_MISSING = frozenset({"", "NA", "na", "NaN", "nan"})
_ALLOWED = _ONE | _ZERO | _MISSING


@dataclass
class ResponseMatrix:
    """Examinee ids, item ids and an (examinees × items) float matrix of 1.0 / 0.0 / NaN (missing)."""

    examinee_ids: list[str]
    item_ids: list[str]
    data: NDArray[np.float64]

    def __post_init__(self) -> None:
        self.data = np.asarray(self.data, dtype=np.float64)
        if self.data.shape != (len(self.examinee_ids), len(self.item_ids)):
            raise ValueError(f"data has shape {self.data.shape}, expected "
                             f"({len(self.examinee_ids)}, {len(self.item_ids)})")

    @property
    def n_examinees(self) -> int:
        """Number of examinees (rows)."""
        return len(self.examinee_ids)

    @property
    def n_items(self) -> int:
        """Number of items (columns)."""
        return len(self.item_ids)

    @property
    def n_responses(self) -> int:
        """Number of administered (non-missing) cells."""
        return int(np.count_nonzero(~np.isnan(self.data)))


def _row_values(cells: Sequence[str]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Convert the answer cells of one row; return the values and a mask of invalid cells."""
    arr = np.asarray(cells, dtype=str)
    one = (arr == "1") | (arr == "1.0")
    zero = (arr == "0") | (arr == "0.0")
    miss = (arr == "") | (arr == "NA") | (arr == "na") | (arr == "NaN") | (arr == "nan")
    bad = ~(one | zero | miss)
    if bad.any():  # tolerate surrounding whitespace, then re-check
        stripped = np.char.strip(arr)
        one |= (stripped == "1") | (stripped == "1.0")
        zero |= (stripped == "0") | (stripped == "0.0")
        miss |= stripped == ""
        bad = ~(one | zero | miss)
    vals = np.where(one, 1.0, np.where(zero, 0.0, np.nan))
    return vals, bad


def _check_header(header: Sequence[str], file: str) -> list[str]:
    """Validate the header line and return the item ids."""
    if len(header) < 2:
        raise DataError("header must hold the examinee-id column and at least one item column",
                        file=file, line=1)
    items = [h.strip() for h in header[1:]]
    seen: dict[str, int] = {}
    for j, item in enumerate(items):
        col = j + 2
        if not item:
            raise DataError(f"column {col}: empty item id in header", file=file, line=1)
        if item in seen:
            raise DataError(f"column {col}: duplicate item id (first in column {seen[item]})",
                            file=file, line=1, field=item)
        seen[item] = col
    return items


def read_matrix(path: str | Path) -> ResponseMatrix:
    """Read and validate a response matrix from CSV (or Parquet, by ``.parquet``/``.pq`` suffix)."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        return _read_parquet(p)
    return _read_csv(p)


def _csv_rows(handle: Iterator[str]) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, cells) for each CSV record, using the csv module's line accounting."""
    reader = csv.reader(handle)
    for row in reader:
        yield reader.line_num, row


def _read_csv(p: Path) -> ResponseMatrix:
    """Read a CSV response matrix."""
    file = str(p)
    try:
        handle = p.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise DataError(f"cannot open response matrix: {exc.strerror}", file=file) from exc
    with handle:
        try:
            rows = _csv_rows(handle)
            first = next(rows, None)
            if first is None:
                raise DataError("empty file: expected a header line with item ids", file=file)
            items = _check_header(first[1], file)
            n_cols = len(items) + 1
            ids: list[str] = []
            id_line: dict[str, int] = {}
            values: list[NDArray[np.float64]] = []
            for line, row in rows:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue  # blank line
                if len(row) != n_cols:
                    raise DataError(f"expected {n_cols} columns (id + {len(items)} items), found {len(row)}",
                                    file=file, line=line)
                ex = row[0].strip()
                if not ex:
                    raise DataError("column 1: empty examinee id", file=file, line=line)
                if ex in id_line:
                    raise DataError(f"column 1: duplicate examinee id '{ex}' (first on line {id_line[ex]})",
                                    file=file, line=line)
                vals, bad = _row_values(row[1:])
                if bad.any():
                    j = int(np.flatnonzero(bad)[0])
                    raise DataError(f"column {j + 2}: value {row[j + 1]!r} is not 1, 0 or empty",
                                    file=file, line=line, field=items[j])
                id_line[ex] = line
                ids.append(ex)
                values.append(vals)
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text ({exc.reason})", file=file) from exc
        except csv.Error as exc:
            raise DataError(f"malformed CSV: {exc}", file=file) from exc
    if not ids:
        raise DataError("no examinee rows after the header", file=file, line=1)
    data = np.vstack(values) if values else np.empty((0, len(items)))
    return ResponseMatrix(ids, items, data)


def _read_parquet(p: Path) -> ResponseMatrix:
    """Read a Parquet response matrix (needs pyarrow)."""
    file = str(p)
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is pinned, but optional
        raise DataError("reading Parquet needs pyarrow (pip install pyarrow)", file=file) from exc
    try:
        table = pq.read_table(p)
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read Parquet: {exc}", file=file) from exc
    names = [str(n) for n in table.column_names]
    items = _check_header(names, file)
    ids_raw = table.column(0).to_pylist()
    ids: list[str] = []
    seen: dict[str, int] = {}
    for r, v in enumerate(ids_raw):
        ex = "" if v is None else str(v).strip()
        if not ex:
            raise DataError("column 1: empty examinee id", file=file, line=r + 1)
        if ex in seen:
            raise DataError(f"column 1: duplicate examinee id '{ex}' (first in row {seen[ex]})",
                            file=file, line=r + 1)
        seen[ex] = r + 1
        ids.append(ex)
    data = np.empty((len(ids), len(items)), dtype=np.float64)
    for j in range(len(items)):
        col = table.column(j + 1)
        try:
            arr = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        except (TypeError, ValueError):
            vals = col.to_pylist()
            bad_r = next(r for r, v in enumerate(vals) if v is not None and not _is_binary_like(v))
            raise DataError(f"column {j + 2}: value {vals[bad_r]!r} is not 1, 0 or missing",
                            file=file, line=bad_r + 1, field=items[j]) from None
        bad = ~(np.isnan(arr) | (arr == 0.0) | (arr == 1.0))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise DataError(f"column {j + 2}: value {arr[r]!r} is not 1, 0 or missing",
                            file=file, line=r + 1, field=items[j])
        data[:, j] = arr
    return ResponseMatrix(ids, items, data)


def _is_binary_like(v: object) -> bool:
    """True for values a Parquet column may hold for an answer (0/1/bool/NaN)."""
    if isinstance(v, bool):
        return True
    if isinstance(v, int | float):
        return v in (0, 1) or (isinstance(v, float) and math.isnan(v))
    return isinstance(v, str) and v.strip() in _ALLOWED


def write_matrix(path: str | Path, matrix: ResponseMatrix) -> None:
    """Write a response matrix as CSV (1/0, empty for missing) or Parquet by suffix."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = {"examinee": pa.array(matrix.examinee_ids)}
        for j, item in enumerate(matrix.item_ids):
            col = matrix.data[:, j]
            cols[item] = pa.array([None if np.isnan(v) else float(v) for v in col], type=pa.float64())
        pq.write_table(pa.table(cols), p)
        return
    lut = np.array(["0", "1", ""])
    with p.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["examinee", *matrix.item_ids])
        codes = np.where(np.isnan(matrix.data), 2, matrix.data).astype(np.int64)
        for ex, row in zip(matrix.examinee_ids, codes, strict=True):
            writer.writerow([ex, *lut[row].tolist()])


@dataclass
class ItemInfo:
    """Per-item metadata read from a mapping file: scenario and number of answer options."""

    scenarios: dict[str, str]
    options_k: dict[str, int]


def read_item_map(path: str | Path) -> ItemInfo:
    """Read an item map CSV with header ``item,scenario[,k]`` (any order; other columns are ignored).

    An empty ``k`` means the item has no answer options to guess from (ordering, free text): k = 0, c = 0.
    """
    p = Path(path)
    file = str(p)
    try:
        handle = p.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise DataError(f"cannot open item map: {exc.strerror}", file=file) from exc
    scen: dict[str, str] = {}
    ks: dict[str, int] = {}
    with handle:
        rows = _csv_rows(handle)
        first = next(rows, None)
        if first is None:
            raise DataError("empty file: expected a header 'item,scenario[,k]'", file=file)
        header = [h.strip().lower() for h in first[1]]
        item_col = next((i for i, h in enumerate(header) if h in ("item", "item_id", "id")), None)
        scen_col = next((i for i, h in enumerate(header) if h == "scenario"), None)
        k_names = ("k", "options", "options_k", "n_options")
        k_col = next((i for i, h in enumerate(header) if h in k_names), None)
        if item_col is None:
            raise DataError("header needs an 'item' column", file=file, line=1)
        if scen_col is None and k_col is None:
            raise DataError("header needs a 'scenario' and/or a 'k' column", file=file, line=1)
        for line, row in rows:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != len(header):
                raise DataError(f"expected {len(header)} columns, found {len(row)}", file=file, line=line)
            item = row[item_col].strip()
            if not item:
                raise DataError(f"column {item_col + 1}: empty item id", file=file, line=line)
            if item in scen or item in ks:
                raise DataError(f"column {item_col + 1}: duplicate item id '{item}'", file=file, line=line)
            if scen_col is not None:
                s = row[scen_col].strip()
                if not s:
                    raise DataError(f"column {scen_col + 1}: empty scenario", file=file, line=line,
                                    field="scenario")
                scen[item] = s
            if k_col is not None and not row[k_col].strip():
                ks[item] = 0
            elif k_col is not None:
                try:
                    k = int(row[k_col].strip())
                except ValueError:
                    raise DataError(f"column {k_col + 1}: {row[k_col]!r} is not an integer number of options",
                                    file=file, line=line, field="k") from None
                if k < 0:
                    raise DataError(f"column {k_col + 1}: number of options must be >= 0", file=file,
                                    line=line, field="k")
                ks[item] = k
    return ItemInfo(scen, ks)
