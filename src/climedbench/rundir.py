"""The run directory: run.json (spec), samples.jsonl (a line per item, or item and epoch), results.json.

samples.jsonl is append-only while a run is in progress (a crash loses nothing already flushed; a
half-written last line is ignored on reading) and is rewritten in plan order when the run finishes.
When an item appears more than once (an error retried on a later run), its last line counts.

One writer at a time: every command that writes into a run directory (run, score, merge, cat) holds its lock
(`RunDir.lock`, an OS lock on the file `.lock`, which records the holder's PID and host); a second one is refused
with one line naming them. The OS drops the lock when its process ends, however it ends, so a killed run never
blocks the next. results.json records the sha256 of samples.jsonl and of its own content (`integrity`), so a
reader can tell when it no longer describes the samples (see climedbench.runcheck).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from climedbench.core.types import Results, RunSpec, Sample
from climedbench.errors import ConfigError, DataError, RunDirBusy

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
RESULTS_FILE = "results.json"
SKIPPED_FILE = "skipped.jsonl"
LOCK_FILE = ".lock"
# The files of a run directory no other output may replace (report --html, irt --out, ...), even with --force.
OWN_FILES = (RUN_FILE, SAMPLES_FILE, RESULTS_FILE, SKIPPED_FILE, LOCK_FILE, "cat_log.jsonl")


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


def write_jsonl_atomic(path: Path, rows: list[Any], tail: bytes = b"") -> None:
    """Write JSON lines (pydantic models or plain data) atomically (temporary file, fsync, rename); `tail` (bytes
    kept as they are, e.g. a cut-off last record) goes after them."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as fh:
            for row in rows:
                line = row.model_dump_json(exclude_none=True) if isinstance(row, BaseModel) else json.dumps(
                    row, ensure_ascii=False)
                fh.write(line.encode("utf-8") + b"\n")
            fh.write(tail)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def read_json(path: Path) -> Any:
    """Read a JSON file, with a clear error naming it."""
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (FileNotFoundError, NotADirectoryError) as e:
        raise DataError(f"{path}: not found (is {path.parent} a climedbench run directory?)") from e
    except OSError as e:
        raise DataError(f"{path}: cannot be read ({e.strerror})") from e
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not UTF-8 text (byte {e.start})") from e
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


@dataclass(frozen=True, slots=True)
class CutRecord:
    """A last line with no newline that is not a whole record: the write a crash interrupted."""

    line: int
    offset: int
    data: bytes


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, bytes) of every line; a directory or unreadable file is a DataError."""
    try:
        fh = path.open("rb")
    except IsADirectoryError as e:
        raise DataError(f"{path}: is a folder, not a samples file") from e
    except OSError as e:
        raise DataError(f"{path}: cannot be read ({e.strerror})") from e
    offset = 0
    with fh:
        for n, line in enumerate(fh, start=1):
            yield n, offset, line
            offset += len(line)


def scan_samples(path: Path) -> tuple[list[tuple[int, Sample]], CutRecord | None]:
    """Every whole record with its line number, and the cut-off last record if there is one. Any other line that
    is not a valid record (bad JSON, bad bytes, a missing field) is a DataError naming file, line and problem."""
    out: list[tuple[int, Sample]] = []
    cut = None
    if not path.exists():
        return out, None
    for n, offset, line in _lines(path):
        if not line.strip():
            continue
        if not line.endswith(b"\n"):  # only the last line can lack its newline
            try:
                out.append((n, parse_sample(line, f"{path}:{n}")))
            except DataError:
                cut = CutRecord(n, offset, line)
            continue
        out.append((n, parse_sample(line, f"{path}:{n}")))
    return out, cut


def iter_samples(path: Path) -> Iterator[Sample]:
    """Sample records in file order; a truncated last line (crash mid-write) is skipped. Bad lines are a
    DataError naming file and line (read in binary, so bad bytes are one too, never a UnicodeDecodeError)."""
    if not path.exists():
        return
    for n, _, line in _lines(path):
        if not line.strip():
            continue
        if not line.endswith(b"\n"):
            try:
                yield parse_sample(line, f"{path}:{n}")
            except DataError:
                return  # the write that was interrupted
            continue
        yield parse_sample(line, f"{path}:{n}")


def file_sha256(path: Path) -> str | None:
    """sha256 of a file's bytes (None when it does not exist)."""
    if not path.exists():
        return None
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def results_sha256(results: Results) -> str:
    """sha256 of results.json's content other than its `integrity` block (canonical JSON: sorted keys)."""
    data = results.model_dump(mode="json", exclude_none=True, exclude={"integrity"})
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


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
    epoch: int | None = None  # --epochs K > 1: which answer to the item (1..K)
    cluster: str | None = None
    extracted: Any = None  # kept only for a run of several epochs (the majority reducer votes on it)


def summarize(sample: Sample) -> Summary:
    """The in-memory summary of a sample."""
    return Summary(sample.uid, sample.task, sample.score, sample.stats, sample.error, sample.extraction_failure,
                   sample.flags or {}, sample.secondary, sample.prompt_tokens, sample.completion_tokens,
                   sample.attempts, sample.cached, sample.epoch, sample.cluster,
                   sample.extracted if sample.epoch is not None else None)


class SampleStore:
    """samples.jsonl as a crash-safe log: appended as items finish, indexed by uid, ordered at the end.

    Only each sample key's byte offset (and the keys whose last answer failed) is kept in memory, so memory does not
    grow with the size of responses; the results are read back from the file (`iter_samples`) once it is final.
    Lines are flushed at once (a batch with one write) and fsync'd at most every `sync_every` seconds by a thread of
    its own, so an event loop never waits on the disk (the response cache holds every answer too, so a crash inside
    that window costs nothing but a cache lookup); closing waits for that thread and syncs once more."""

    def __init__(self, path: Path, sync_every: float = 0.2) -> None:
        self.path = path
        self._index: dict[str, int] = {}  # sample key → offset of its last line
        self._failed: set[str] = set()  # sample keys whose last line is a failed request
        self._sync_every = sync_every
        self._last_sync = time.monotonic()
        self._syncer: ThreadPoolExecutor | None = None
        self._syncing: Future[None] | None = None
        end = self._scan() if path.exists() else 0
        self._fh = path.open("r+b" if path.exists() else "wb")
        self._fh.truncate(end)  # drop a half-written last line, so appends start on a fresh line
        self._fh.seek(end)

    def _scan(self) -> int:
        """Index an existing file; returns the offset just after its last complete line."""
        offset = 0
        for n, _, line in _lines(self.path):
            if not line.endswith(b"\n"):
                break  # the write that was interrupted: its item is not done, so it is asked again
            self._note(parse_sample(line, f"{self.path}:{n}"), offset)
            offset += len(line)
        return offset

    def _note(self, sample: Sample, offset: int) -> None:
        self._index[sample.key] = offset
        if sample.error:
            self._failed.add(sample.key)
        else:
            self._failed.discard(sample.key)

    def samples(self) -> list[Sample]:
        """The current sample of every item (the last line written for it)."""
        self._fh.flush()
        out = []
        with self.path.open("rb") as fh:
            for offset in self._index.values():
                fh.seek(offset)
                out.append(parse_sample(fh.readline(), f"{self.path}@{offset}"))
        return out

    def done_uids(self) -> set[str]:
        """Keys (`Sample.key`: the uid, `#eK` for epoch K) of the samples with an answer (those whose last attempt
        failed are not done)."""
        return {key for key in self._index if key not in self._failed}

    def write(self, sample: Sample) -> None:
        self.write_many([sample])

    def write_many(self, samples: Sequence[Sample]) -> None:
        """Append samples with one write and flush (a kill part-way leaves at most a cut last line: dropped)."""
        lines = [(sample.jsonl() + "\n").encode("utf-8") for sample in samples]
        offset = self._fh.tell()
        self._fh.write(b"".join(lines))
        self._fh.flush()
        for sample, line in zip(samples, lines, strict=True):
            self._note(sample, offset)
            offset += len(line)
        now = time.monotonic()
        if now - self._last_sync >= self._sync_every and (self._syncing is None or self._syncing.done()):
            self._syncer = self._syncer or ThreadPoolExecutor(1, thread_name_prefix="samples-fsync")
            self._syncing = self._syncer.submit(os.fsync, self._fh.fileno())
            self._last_sync = now

    def _stop_syncing(self) -> None:  # waits for the fsync under way, if any
        if self._syncer is not None:
            self._syncer.shutdown(wait=True)
            self._syncer = self._syncing = None

    def finalize(self, order: Iterable[str]) -> int:
        """Rewrite the file with one line per sample key (item, or item and epoch) in plan order (read once), close
        it and forget the index; returns the number of lines written."""
        self._stop_syncing()
        self._fh.flush()
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        written = 0
        with self.path.open("rb") as src, tmp.open("wb") as dst:
            for uid in order:
                offset = self._index.get(uid)
                if offset is not None:
                    src.seek(offset)
                    dst.write(src.readline())
                    written += 1
            dst.flush()
            os.fsync(dst.fileno())
        self.close()
        os.replace(tmp, self.path)
        self._index, self._failed = {}, set()
        return written

    def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self._stop_syncing()
            self._fh.flush()
            os.fsync(self._fh.fileno())
        self._fh.close()

    def __enter__(self) -> SampleStore:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._fh.closed:
            self.close()


class RunLock:
    """The one-writer lock of a run directory: an exclusive, non-blocking OS lock (portalocker: flock on POSIX)
    on RUN/.lock, which records the holder's PID, host and command. A second holder is refused at once with a
    `RunDirBusy` naming the first; the OS releases the lock when its process ends, even by SIGKILL. Re-entrant
    within one process (the command line takes it before printing anything, the runner again)."""

    _held: ClassVar[dict[Path, tuple[Any, int]]] = {}  # resolved lock path -> (open file, depth), this process
    _made: ClassVar[set[Path]] = set()  # lock paths whose directory this process created (removed if left empty)

    def __init__(self, path: Path, command: str) -> None:
        self.path = path
        self.command = command
        self._key: Path | None = None

    def acquire(self) -> None:
        import portalocker

        key = self.path.resolve()
        if key in RunLock._held:
            fh, depth = RunLock._held[key]
            RunLock._held[key] = (fh, depth + 1)
            self._key = key
            return
        try:
            if not self.path.parent.exists():
                RunLock._made.add(key)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fh = self.path.open("a+", encoding="utf-8")
        except OSError as e:
            raise DataError(f"{self.path}: cannot create the run directory's lock file ({e.strerror}); nothing "
                            "was written") from e
        try:
            portalocker.lock(fh, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.exceptions.LockException as e:
            fh.seek(0)
            holder = fh.read().strip()
            fh.close()
            raise RunDirBusy(f"{self.path.parent} is in use by {_holder(holder)}; wait for it to finish (or stop "
                             "it), or use another directory") from e
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                             "since": datetime.now(UTC).isoformat(timespec="seconds")}) + "\n")
        fh.flush()
        RunLock._held[key] = (fh, 1)
        self._key = key

    def release(self) -> None:
        if self._key is None:
            return
        import portalocker

        key, self._key = self._key, None
        fh, depth = RunLock._held[key]
        if depth > 1:
            RunLock._held[key] = (fh, depth - 1)
            return
        del RunLock._held[key]
        with contextlib.suppress(OSError):
            fh.seek(0)
            fh.truncate()  # no holder to name any more (the file stays: removing it would race)
            fh.flush()
        portalocker.unlock(fh)
        fh.close()
        if key in RunLock._made:  # a directory made only to be locked, for a run that wrote nothing: left as found
            RunLock._made.discard(key)
            with contextlib.suppress(OSError):
                if [p.name for p in self.path.parent.iterdir()] == [LOCK_FILE]:
                    self.path.unlink()
                    self.path.parent.rmdir()

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(text: str) -> str:
    """'climedbench run (PID 123 on host h, since ...)' from the lock file's record."""
    try:
        rec = json.loads(text)
        return (f"`climedbench {rec.get('command', '?')}` (PID {rec.get('pid', '?')} on host "
                f"{rec.get('host', '?')}, since {rec.get('since', '?')})")
    except (json.JSONDecodeError, AttributeError):
        return "another climedbench process (it has not recorded its PID yet)"


def command_name() -> str:
    """The climedbench subcommand this process runs (for the lock record)."""
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    return args[0] if args else "python"


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

    @property
    def lock_file(self) -> Path:
        return self.path / LOCK_FILE

    def lock(self, command: str | None = None) -> RunLock:
        """The directory's one-writer lock (a context manager; creates the directory if needed)."""
        return RunLock(self.lock_file, command or command_name())

    def exists(self) -> bool:
        return self.run_file.exists()

    def read_spec(self) -> RunSpec:
        return _validated(RunSpec, read_json(self.run_file), self.run_file)

    def read_results(self) -> Results:
        """results.json as written (climedbench.runcheck.checked_results checks it against the samples)."""
        return _validated(Results, read_json(self.results_file), self.results_file)

    def write_results(self, results: Results) -> None:
        """Write results.json with its integrity block: sha256 of samples.jsonl as it is now and of the rest of
        results.json. Call it with the directory's lock held, after samples.jsonl is final."""
        results.integrity = None
        samples = file_sha256(self.samples_file)
        results.integrity = {"samples_sha256": samples or "", "results_sha256": results_sha256(results)}
        write_json_atomic(self.results_file, results)

    def check_same(self, spec: RunSpec, identity_keys: tuple[str, ...]) -> bool:
        """Whether the directory already holds a run; a ConfigError when that run differs from `spec` in any of
        `identity_keys` (called before the model loads with the keys that do not need it, and again after)."""
        if not self.exists():
            return False
        old = self.read_spec().model_dump(mode="json")
        new = spec.model_dump(mode="json")
        diff = [k for k in identity_keys if old.get(k) != new.get(k)]
        if diff:
            raise ConfigError(
                f"{self.path} holds a different run (differs in: {', '.join(diff)}); "
                "use a new --out directory, or the same options to resume it"
            )
        return True

    def prepare(self, spec: RunSpec, identity_keys: tuple[str, ...]) -> bool:
        """Create the directory or check it holds the same run; True when resuming."""
        if self.check_same(spec, identity_keys):
            return True
        if self.path.exists() and any(p.name != LOCK_FILE for p in self.path.iterdir()):
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
