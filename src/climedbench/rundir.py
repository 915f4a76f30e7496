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
from pathlib import Path
from typing import Any

from climedbench.errors import ConfigError, DataError

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
RESULTS_FILE = "results.json"
SKIPPED_FILE = "skipped.jsonl"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a temporary file, fsync it, then rename over `path`."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_jsonl_atomic(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write JSON lines atomically (temporary file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
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


def iter_samples(path: Path) -> Iterator[dict[str, Any]]:
    """Sample records in file order; a truncated last line (crash mid-write) is skipped."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        lines = fh.readlines()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            if n == len(lines) and not line.endswith("\n"):
                return  # the write that was interrupted
            raise DataError(f"{path}:{n}: corrupt sample line ({e.msg})") from e


# The fields of a sample that aggregation and accounting need; only these stay in memory during a run.
SUMMARY_FIELDS = ("scenario", "score", "error", "extraction_failure", "repeated_misleading", "wrong_option",
                  "prompt_tokens", "completion_tokens", "attempts", "cached")


def summarize(sample: dict[str, Any]) -> tuple[Any, ...]:
    """The in-memory summary of a sample: a tuple (a dict per item would cost ~5x the memory)."""
    return tuple(sample.get(k) for k in SUMMARY_FIELDS)


def expand(summary: tuple[Any, ...]) -> dict[str, Any]:
    """A summary as a dict keyed by SUMMARY_FIELDS."""
    return dict(zip(SUMMARY_FIELDS, summary, strict=True))


class SampleStore:
    """samples.jsonl as a crash-safe log: appended as items finish, indexed by uid, ordered at the end.

    Only (offset, length, summary) per item is kept in memory, so memory does not grow with the size of
    responses. Lines are flushed at once and fsync'd at most every `sync_every` seconds (the response
    cache holds every answer too, so a crash inside that window costs nothing but a cache lookup).
    """

    def __init__(self, path: Path, sync_every: float = 0.2) -> None:
        self.path = path
        self._index: dict[str, tuple[int, int]] = {}
        self._summary: dict[str, tuple[Any, ...]] = {}
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
                try:
                    sample = json.loads(line)
                except json.JSONDecodeError as e:
                    raise DataError(f"{self.path}:{n}: corrupt sample line ({e.msg})") from e
                self._index[sample["uid"]] = (offset, len(line))
                self._summary[sample["uid"]] = summarize(sample)
                offset += len(line)
        return offset

    def done_uids(self) -> set[str]:
        """Items with an answer (items whose last attempt failed are not done)."""
        error = SUMMARY_FIELDS.index("error")
        return {uid for uid, s in self._summary.items() if not s[error]}

    def write(self, sample: dict[str, Any]) -> None:
        data = (json.dumps(sample, ensure_ascii=False) + "\n").encode("utf-8")
        offset = self._fh.tell()
        self._fh.write(data)
        self._fh.flush()
        self._index[sample["uid"]] = (offset, len(data))
        self._summary[sample["uid"]] = summarize(sample)
        now = time.monotonic()
        if now - self._last_sync >= self._sync_every:
            os.fsync(self._fh.fileno())
            self._last_sync = now

    def finalize(self, order: list[str]) -> list[dict[str, Any]]:
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
        return [expand(self._summary[uid]) for uid in order if uid in self._summary]

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

    def read_spec(self) -> dict[str, Any]:
        return dict(read_json(self.run_file))

    def read_results(self) -> dict[str, Any]:
        return dict(read_json(self.results_file))

    def prepare(self, spec: dict[str, Any], identity_keys: tuple[str, ...]) -> bool:
        """Create the directory or check it holds the same run; True when resuming."""
        if self.exists():
            old = self.read_spec()
            diff = [k for k in identity_keys if old.get(k) != spec.get(k)]
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
