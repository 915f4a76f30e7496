"""Word lists the detectors derive from libraries' public data (JioNLP's gazetteer, pypinyin, libphonenumber's
geocoding data), kept on disk after their first build.

Deriving them took about 1.3 CPU seconds at every start of `climedbench deid` (`python bench/deid_speed.py`
prints the start-up): the pinyin of every surname, the short and bare names of JioNLP's cities and counties, its
towns, the North-American towns of libphonenumber. `stored(name)` keeps a zero-argument builder's result as JSON in
the user cache folder (`$CLIMEDBENCH_TABLES`, else `<user cache>/climedbench/deid-tables`). The file's name carries
a digest of every source file of this package and the versions of the libraries the tables come from, so an edited
detector or an upgraded library builds afresh; a file that is missing, unreadable or malformed is built again and
rewritten (atomically). The tables hold library data only, never anything read from a note.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

ENV = "CLIMEDBENCH_TABLES"
# The libraries whose data the tables are built from (a new version builds them again).
SOURCES = ("jionlp", "pypinyin", "phonenumbers", "faker", "opencc", "jieba")
# Files kept per table: several installed versions or source trees side by side do not rebuild each other's.
KEPT = 4


def folder() -> Path:
    """Where the tables are kept."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("climedbench")) / "deid-tables"


@functools.cache
def digest() -> str:
    """A digest of this package's source and data files and of the source libraries' versions."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")) + sorted(here.glob("*.yaml")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in SOURCES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{name}={version}\0".encode())
    return h.hexdigest()[:20]


def encode(value: Any) -> Any:
    """frozensets and tuples of them (and of strings) as JSON."""
    if isinstance(value, frozenset):
        return {"set": sorted(value)}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, str):
        return value
    raise TypeError(f"a stored table holds frozensets, tuples and strings, not {type(value).__name__}")


def decode(value: Any) -> Any:
    """The inverse of `encode`."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        if isinstance(value.get("set"), list) and all(isinstance(v, str) for v in value["set"]):
            return frozenset(value["set"])
        if isinstance(value.get("tuple"), list):
            return tuple(decode(v) for v in value["tuple"])
    raise ValueError("not a stored table")


def _read(path: Path) -> Any:
    try:
        return decode(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError):
        return None


def _write(path: Path, value: Any) -> None:
    """Keep the table (written whole, then renamed); of the same table's files of other digests (other versions or
    source trees) only the KEPT - 1 newest stay."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(encode(value), f, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
        tmp = None
        name = path.name.rsplit("-", 1)[0]
        same = [p for p in path.parent.glob(f"{name}-*.json") if p.name.rsplit("-", 1)[0] == name]
        for old in sorted(same, key=lambda p: (p != path, -p.stat().st_mtime))[KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:  # a read-only or full disk: the table is used unsaved and built again next time
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def stored(name: str) -> Callable[[Callable[[], T]], Callable[[], T]]:
    """Decorator: the builder's result read from disk when kept there, else built and kept (once per process,
    like functools.cache). The undecorated builder stays reachable as `.build`."""
    def deco(build: Callable[[], T]) -> Callable[[], T]:
        @functools.cache
        def get() -> T:
            path = folder() / f"{name}-{digest()}.json"
            value = _read(path)
            if value is None:
                value = build()
                _write(path, value)
            return value

        get.build = build  # type: ignore[attr-defined]
        functools.update_wrapper(get, build)
        return get

    return deco
