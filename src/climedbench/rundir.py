"""The run directory: run.json (spec), samples.jsonl (one line per item), results.json (aggregates).

samples.jsonl is append-only while a run is in progress (a crash loses nothing already flushed; a
half-written last line is ignored on reading) and is rewritten in plan order when the run finishes.
When an item appears more than once (an error retried on a later run), its last line counts.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from climedbench.core.types import Results, RunSpec, Sample
from climedbench.errors import ConfigError, DataError

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
RESULTS_FILE = "results.json"
SKIPPED_FILE = "skipped.jsonl"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON (a pydantic model or plain data) to a temporary file, fsync it, then rename over `path`."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_jsonl_atomic(path: Path, rows: list[Any]) -> None:
    """Write JSON lines (pydantic models or plain data) atomically (temporary file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            line = row.model_dump_json(exclude_none=True) if isinstance(row, BaseModel) else json.dumps(
                row, ensure_ascii=False)
            fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    """Read a JSON file, with a clear error naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise DataError(f"{path}: not found (is this a climedbench run directory?)") from e
    except json.JSONDecodeError as e:
        raise DataError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from e


def parse_sample(line: str | bytes, where: str) -> Sample:
    """One samples.jsonl line; a clear error naming file, line and field otherwise."""
    try:
        return Sample.model_validate_json(line)
    except ValidationError as e:
        first = e.errors()[0]
        if first["type"] == "json_invalid":
            raise DataError(f"{where}: corrupt sample line ({first['msg']})") from e
        field = ".".join(str(x) for x in first["loc"])
        raise DataError(f"{where}: field '{field}': {first['msg']}") from e


def iter_samples(path: Path) -> Iterator[Sample]:
    """Sample records in file order; a truncated last line (crash mid-write) is skipped."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        lines = fh.readlines()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if n == len(lines) and not line.endswith("\n"):
            try:
                yield parse_sample(line, f"{path}:{n}")
            except DataError:
                return  # the write that was interrupted
            continue
        yield parse_sample(line, f"{path}:{n}")


@dataclass(slots=True)
class Summary:
    """The fields of a sample that aggregation and accounting need; only these stay in memory during a
    run (a slotted record: a dict per item would cost several times the memory)."""

    uid: str
    task: str
    score: float
    stats: list[float] | None
    error: str | None
    extraction_failure: bool
    flags: dict[str, bool]
    secondary: dict[str, dict[str, Any]] | None
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int | None
    cached: bool


def summarize(sample: Sample) -> Summary:
    """The in-memory summary of a sample."""
    return Summary(sample.uid, sample.task, sample.score, sample.stats, sample.error, sample.extraction_failure,
                   sample.flags or {}, sample.secondary, sample.prompt_tokens, sample.completion_tokens,
                   sample.attempts, sample.cached)


class SampleStore:
    """samples.jsonl as a crash-safe log: appended as items finish, indexed by uid, ordered at the end.

    Only (offset, length, summary) per item is kept in memory, so memory does not grow with the size of
    responses. Lines are flushed at once and fsync'd at most every `sync_every` seconds (the response
    cache holds every answer too, so a crash inside that window costs nothing but a cache lookup).
    """

    def __init__(self, path: Path, sync_every: float = 0.2) -> None:
        self.path = path
        self._index: dict[str, tuple[int, int]] = {}
        self._summary: dict[str, Summary] = {}
        self._sync_every = sync_every
        self._last_sync = time.monotonic()
        end = self._scan() if path.exists() else 0
        self._fh = path.open("r+b" if path.exists() else "wb")
        self._fh.truncate(end)  # drop a half-written last line, so appends start on a fresh line
        self._fh.seek(end)

    def _scan(self) -> int:
        """Index an existing file; returns the offset just after its last complete line."""
        offset = 0
        with self.path.open("rb") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.endswith(b"\n"):
                    break  # the write that was interrupted
                sample = parse_sample(line, f"{self.path}:{n}")
                self._index[sample.uid] = (offset, len(line))
                self._summary[sample.uid] = summarize(sample)
                offset += len(line)
        return offset

    def samples(self) -> list[Sample]:
        """The current sample of every item (the last line written for it)."""
        self._fh.flush()
        out = []
        with self.path.open("rb") as fh:
            for offset, length in self._index.values():
                fh.seek(offset)
                out.append(parse_sample(fh.read(length), f"{self.path}@{offset}"))
        return out

    def done_uids(self) -> set[str]:
        """Items with an answer (items whose last attempt failed are not done)."""
        return {uid for uid, s in self._summary.items() if not s.error}

    def write(self, sample: Sample) -> None:
        data = (sample.jsonl() + "\n").encode("utf-8")
        offset = self._fh.tell()
        self._fh.write(data)
        self._fh.flush()
        self._index[sample.uid] = (offset, len(data))
        self._summary[sample.uid] = summarize(sample)
        now = time.monotonic()
        if now - self._last_sync >= self._sync_every:
            os.fsync(self._fh.fileno())
            self._last_sync = now

    def finalize(self, order: list[str]) -> list[Summary]:
        """Rewrite the file with one line per item in plan order; returns the summaries in that order."""
        self._fh.flush()
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        with self.path.open("rb") as src, tmp.open("wb") as dst:
            for uid in order:
                if uid in self._index:
                    offset, length = self._index[uid]
                    src.seek(offset)
                    dst.write(src.read(length))
            dst.flush()
            os.fsync(dst.fileno())
        self.close()
        os.replace(tmp, self.path)
        return [self._summary[uid] for uid in order if uid in self._summary]

    def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self._fh.flush()
            os.fsync(self._fh.fileno())
        self._fh.close()

    def __enter__(self) -> SampleStore:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._fh.closed:
            self.close()


class RunDir:
    """Paths and I/O of one run directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def run_file(self) -> Path:
        return self.path / RUN_FILE

    @property
    def samples_file(self) -> Path:
        return self.path / SAMPLES_FILE

    @property
    def results_file(self) -> Path:
        return self.path / RESULTS_FILE

    @property
    def skipped_file(self) -> Path:
        return self.path / SKIPPED_FILE

    def exists(self) -> bool:
        return self.run_file.exists()

    def read_spec(self) -> RunSpec:
        return _validated(RunSpec, read_json(self.run_file), self.run_file)

    def read_results(self) -> Results:
        return _validated(Results, read_json(self.results_file), self.results_file)

    def prepare(self, spec: RunSpec, identity_keys: tuple[str, ...]) -> bool:
        """Create the directory or check it holds the same run; True when resuming."""
        if self.exists():
            old = self.read_spec().model_dump(mode="json")
            new = spec.model_dump(mode="json")
            diff = [k for k in identity_keys if old.get(k) != new.get(k)]
            if diff:
                raise ConfigError(
                    f"{self.path} holds a different run (differs in: {', '.join(diff)}); "
                    "use a new --out directory, or the same options to resume it"
                )
            return True
        if self.path.exists() and any(self.path.iterdir()):
            raise ConfigError(f"{self.path} exists and is not a climedbench run directory; choose another --out")
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.run_file, spec)
        return False


def _validated(model: Any, data: Any, path: Path) -> Any:
    """A typed run file; a clear error naming the file and field when it does not fit."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(x) for x in first["loc"])
        raise DataError(f"{path}: field '{field}': {first['msg']} (not a run directory of this climedbench "
                        "version?)") from e
