"""Files a command writes on request (report --html, irt --out, rate export --out, ...): never onto a run
directory's own files, and never over an existing file unless the user says --force."""

from __future__ import annotations

from pathlib import Path

from climedbench.errors import ConfigError
from climedbench.rundir import OWN_FILES, RUN_FILE, SAMPLES_FILE


def run_dir_of(path: Path) -> Path | None:
    """The run directory `path` is one of the own files of (None when it is not)."""
    resolved = path.resolve()
    parent = resolved.parent
    if resolved.name in OWN_FILES and ((parent / RUN_FILE).exists() or (parent / SAMPLES_FILE).exists()):
        return parent
    return None


def check_output(path: Path, *, force: bool, option: str) -> None:
    """Refuse (one line, nothing written) an output onto a run directory's own file, even with --force; onto a
    folder; or onto an existing file without --force."""
    run = run_dir_of(path)
    if run is not None:
        raise ConfigError(f"{option} {path}: that is the run directory {run}'s own {path.resolve().name}; write the "
                          "output somewhere else")
    if path.is_dir():
        raise ConfigError(f"{option} {path}: is a folder; give the file to write")
    if path.exists() and not force:
        raise ConfigError(f"{option} {path} already exists; add --force to overwrite it")
