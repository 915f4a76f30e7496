"""Read items from JSONL, JSON and CSV files (or directories of them) with file and line for every record."""

from __future__ import annotations

import contextlib
import csv
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from climedbench.data.parse import RecordError, build_item, get, scenario_of
from climedbench.data.schema import Item, Problem
from climedbench.errors import DataError
from climedbench.taxonomy import Suite

SUFFIXES = (".jsonl", ".json", ".csv")
DEMO_NAME = "bundled demo set"


@dataclass
class RawRecord:
    """One record as read from disk, before any checking."""

    file: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None


@dataclass
class LoadReport:
    """Valid items and the problems found, per scenario."""

    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def valid_counts(self, split: str | None = "test") -> dict[str, int]:
        """Number of valid items per scenario code (for one split, or all when None)."""
        return dict(Counter(i.scenario for i in self.items if split is None or i.split == split))

    def as_json(self, suite: Suite) -> dict[str, Any]:
        """The report in the `validate --json` shape."""
        counts = self.valid_counts(None)
        return {
            "valid": {c: counts[c] for c in suite.codes if c in counts},
            "invalid": [p.model_dump(include={"file", "line", "field", "reason"}) for p in self.problems],
        }

    def raise_if_invalid(self, limit: int = 20) -> None:
        """Refuse invalid data: one DataError listing every problem (the first `limit` in full)."""
        if not self.problems:
            return
        lines = [str(p) for p in self.problems[:limit]]
        more = len(self.problems) - limit
        if more > 0:
            lines.append(f"… and {more} more (run `climedbench validate` for the full list)")
        raise DataError(f"{len(self.problems)} invalid record(s); fix them or pass --skip-invalid:\n  "
                        + "\n  ".join(lines))

    def tests(self) -> list[Item]:
        return [i for i in self.items if i.split == "test"]

    def devs(self) -> list[Item]:
        return [i for i in self.items if i.split == "dev"]


def demo_dir() -> Path:
    """The folder holding the bundled demo set."""
    return Path(str(resources.files("climedbench.data").joinpath("demo")))


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not found:
            raise DataError(f"{path}: no .jsonl, .json or .csv files in this folder")
        return found
    if not path.exists():
        raise DataError(f"{path}: no such file or folder")
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(f"{path}: unsupported file type {path.suffix!r} (use .jsonl, .json or .csv)")
    return [path]


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def read_jsonl(path: Path, shown: str) -> Iterator[RawRecord]:
    """One record per non-blank line; a line that is not a JSON object becomes an error record."""
    with path.open(encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                yield RawRecord(shown, n, None, f"not valid JSON ({e.msg} at column {e.colno})")
                continue
            if not isinstance(obj, dict):
                yield RawRecord(shown, n, None, f"expected a JSON object, got {type(obj).__name__}")
                continue
            yield RawRecord(shown, n, obj)


def read_json(path: Path, shown: str) -> Iterator[RawRecord]:
    """An array of objects, {'data': [...]}, or {scenario: [...]}; each element keeps its start line."""
    text = path.read_text(encoding="utf-8-sig")
    decoder = json.JSONDecoder()
    try:
        top = json.loads(text)
    except json.JSONDecodeError as e:
        yield RawRecord(shown, e.lineno, None, f"not valid JSON ({e.msg} at column {e.colno})")
        return
    # Find where each element starts by decoding the array element by element.
    def elements(start: int) -> Iterator[tuple[int, Any]]:
        i = start + 1
        while True:
            while i < len(text) and text[i] in " \t\r\n,":
                i += 1
            if i >= len(text) or text[i] == "]":
                return
            value, end = decoder.raw_decode(text, i)
            yield i, value
            i = end

    def arrays() -> Iterator[tuple[str | None, int]]:
        if isinstance(top, list):
            yield None, text.index("[")
        elif isinstance(top, dict):
            for key, value in top.items():
                if isinstance(value, list):
                    key_at = text.index(json.dumps(key, ensure_ascii=False)) if json.dumps(
                        key, ensure_ascii=False) in text else text.index(json.dumps(key))
                    yield (None if key == "data" else key), text.index("[", key_at)

    found = False
    for scenario_key, at in arrays():
        found = True
        for start, obj in elements(at):
            line = _line_of(text, start)
            if not isinstance(obj, dict):
                yield RawRecord(shown, line, None, f"expected a JSON object, got {type(obj).__name__}")
                continue
            if scenario_key is not None and get(obj, "scenario") is None:
                obj = {"scenario": scenario_key, **obj}
            yield RawRecord(shown, line, obj)
    if not found:
        yield RawRecord(shown, 1, None, "expected a JSON array of items, {'data': [...]}, "
                                        "or an object of scenario → array")


def read_csv(path: Path, shown: str) -> Iterator[RawRecord]:
    """A header row, then one record per row (quoted fields may span lines)."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames:
            yield RawRecord(shown, 1, None, "empty CSV (no header row)")
            return
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                yield RawRecord(shown, start, None, f"row has {len(row) - 1 + len(row[None])} fields, "
                                                    f"header has {len(reader.fieldnames)}")
            else:
                yield RawRecord(shown, start, {k: v for k, v in row.items() if v not in (None, "")})
            start = reader.line_num + 1


READERS = {".jsonl": read_jsonl, ".json": read_json, ".csv": read_csv}


def read_records(path: Path, shown: str | None = None) -> Iterator[RawRecord]:
    """Raw records of one file, with the file name as the user should see it."""
    name = shown or str(path)
    try:
        yield from READERS[path.suffix.lower()](path, name)
    except UnicodeDecodeError as e:
        yield RawRecord(name, 1, None, f"not UTF-8 text ({e.reason} at byte {e.start})")
    except OSError as e:
        raise DataError(f"{name}: cannot read: {e.strerror}") from e


def load_items(path: str | Path | None, suite: Suite) -> LoadReport:
    """Read and check every record under `path` (None: the bundled demo set)."""
    base = demo_dir() if path is None else Path(path)
    report = LoadReport()
    seen: dict[tuple[str, str, str], str] = {}
    for f in _files(base):
        shown = f"{DEMO_NAME}/{f.name}" if path is None else str(f)
        report.sources.append(shown)
        stem = f.name.split(".")[0]
        for rec in read_records(f, shown):
            if rec.data is None:
                report.problems.append(Problem(file=rec.file, line=rec.line, field=None,
                                               reason=rec.error or "unreadable"))
                continue
            try:
                scenario = scenario_of(rec.data, suite, stem)
                item = build_item(rec.data, scenario, file=rec.file, line=rec.line,
                                  default_id=f"{f.name}:{rec.line}")
            except RecordError as e:
                code = None
                with contextlib.suppress(RecordError):
                    code = scenario_of(rec.data, suite, stem).code
                report.problems.append(Problem(file=rec.file, line=rec.line, field=e.field, reason=e.reason,
                                               scenario=code, id=str(get(rec.data, "id") or "") or None))
                continue
            key = (item.scenario, item.split, item.id)
            if key in seen:
                report.problems.append(Problem(
                    file=rec.file, line=rec.line, field="id", scenario=item.scenario, id=item.id,
                    reason=f"duplicate id {item.id!r} in {item.scenario} ({item.split}); first at {seen[key]}"))
                continue
            seen[key] = f"{rec.file}:{rec.line}"
            report.items.append(item)
    return report
