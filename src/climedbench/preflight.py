"""Checks of a run's outputs made before any model is loaded or request sent: a wrong --out fails in a second,
not after the model has loaded (or after the first answers were paid for)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from climedbench.errors import ConfigError


def check_writable_dir(path: str | Path, option: str = "--out") -> None:
    """`path` is a folder this process can create (or already has) and write in; else a one-line ConfigError
    naming the option and what to do."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{option} {path}: is a file, not a folder; give a folder (new, or one to resume)")
    ancestor = p
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise ConfigError(f"{option} {path}: {ancestor} is a file, so no folder can be made under it; give another "
                          "path")
    try:  # the real test: access() says yes to root on a read-only file system
        with tempfile.TemporaryFile(dir=ancestor, prefix=".climedbench-probe-"):
            pass
    except OSError as e:
        why = "read-only file system" if e.errno == errno.EROFS else (e.strerror or type(e).__name__)
        raise ConfigError(f"{option} {path}: cannot write in {ancestor} ({why}); give a folder you can write "
                          "to") from e


def check_writable_file(path: str | Path, option: str = "-o") -> None:
    """The folder of an output file exists (or can be made) and is writable, and `path` is not a folder."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise ConfigError(f"{option} {path}: is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(os.curdir)
    if parent.exists() and not parent.is_dir():
        raise ConfigError(f"{option} {path}: {parent} is a file, not a folder; give another path")
    if not parent.is_dir():
        raise ConfigError(f"{option} {path}: folder {parent} does not exist; create it first (mkdir -p "
                          f"{parent}) or give another path")
    check_writable_dir(parent, option)
