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
from typing import Any, TextIO

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


def latest_samples(path: Path) -> dict[str, dict[str, Any]]:
    """uid → the last sample line written for it."""
    return {s["uid"]: s for s in iter_samples(path)}


class SampleWriter:
    """Appends sample lines; flushes every line and fsyncs at most every `sync_every` seconds."""

    def __init__(self, path: Path, sync_every: float = 0.2) -> None:
        self.path = path
        self._fh: TextIO = path.open("a", encoding="utf-8")
        self._sync_every = sync_every
        self._last_sync = time.monotonic()

    def write(self, sample: dict[str, Any]) -> None:
        self._fh.write(json.dumps(sample, ensure_ascii=False) + "\n")
        self._fh.flush()
        now = time.monotonic()
        if now - self._last_sync >= self._sync_every:
            os.fsync(self._fh.fileno())
            self._last_sync = now

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()

    def __enter__(self) -> SampleWriter:
        return self

    def __exit__(self, *exc: object) -> None:
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
