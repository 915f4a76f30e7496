"""The response cache: SQLite (WAL), keyed by a hash of model fingerprint, exact messages and parameters.

No identical request is ever paid for twice: a re-run after Ctrl-C, a crash or `kill -9` finds every
finished answer here. Only successful completions are stored (failures are retried on the next run).
The key never includes secrets: fingerprints name the backend, model (or file hash) and public URL.
Several processes may share one file (WAL with a busy timeout; INSERT OR IGNORE keeps one row per key).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from climedbench.errors import ConfigError
from climedbench.models.base import Completion, GenParams, Message

SCHEMA_VERSION = 1


def default_cache_path() -> Path:
    """$CLIMEDBENCH_CACHE, else responses.sqlite in the user cache folder."""
    env = os.environ.get("CLIMEDBENCH_CACHE")
    return Path(env) if env else Path(user_cache_dir("climedbench")) / "responses.sqlite"


def request_key(fingerprint: dict[str, Any], messages: list[Message], params: GenParams) -> str:
    """sha256 of everything that determines a response."""
    blob = json.dumps({"v": SCHEMA_VERSION, "model": fingerprint, "messages": messages, "params": params.as_dict()},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A persistent map from request key to completion."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=60000")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                "created REAL NOT NULL, completion TEXT NOT NULL)"
            )
        except sqlite3.DatabaseError as e:
            raise self._damaged(e) from e
        except (OSError, sqlite3.Error) as e:
            raise ConfigError(f"cannot open the response cache {self.path}: {e}") from e
        self.hits = 0
        self.misses = 0

    def _damaged(self, e: sqlite3.Error) -> ConfigError:
        return ConfigError(f"the response cache {self.path} is damaged or not a cache ({e}); move it away (a new "
                           "one is made) or run with --no-cache")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """A damaged file (bad pages, not SQLite) becomes one clear error naming it."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
                raise
            raise self._damaged(e) from e

    def get(self, key: str) -> Completion | None:
        """The cached completion (marked cached=True), or None."""
        with self._guard():
            row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        completion = Completion.from_json(json.loads(row[0]))
        completion.cached = True
        return completion

    def put(self, key: str, model: str, completion: Completion) -> None:
        """Store a successful completion (the first writer of a key wins)."""
        data = completion.to_json()
        data["cached"] = False
        with self._guard():
            self._db.execute(
                "INSERT OR IGNORE INTO responses (key, model, created, completion) VALUES (?, ?, ?, ?)",
                (key, model, time.time(), json.dumps(data, ensure_ascii=False)),
            )

    def stats(self) -> dict[str, Any]:
        """Entries per model, total entries and file size."""
        with self._guard():
            rows = self._db.execute("SELECT model, COUNT(*) FROM responses GROUP BY model ORDER BY 2 DESC").fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "entries": sum(n for _, n in rows), "bytes": size,
                "models": {m: n for m, n in rows}}

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one model; returns how many were deleted."""
        with self._guard():
            cur = (self._db.execute("DELETE FROM responses WHERE model = ?", (model,)) if model
                   else self._db.execute("DELETE FROM responses"))
            self._db.execute("VACUUM")
        return cur.rowcount

    def count(self, model: str | None = None) -> int:
        """Entries in the cache (or of one model)."""
        with self._guard():
            row = (self._db.execute("SELECT COUNT(*) FROM responses WHERE model = ?", (model,)) if model
                   else self._db.execute("SELECT COUNT(*) FROM responses")).fetchone()
        return int(row[0])

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check."""
        return bool(self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def close(self) -> None:
        self._db.close()
