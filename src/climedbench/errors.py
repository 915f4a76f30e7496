"""Errors a user can act on; the CLI prints their message as one line and exits non-zero.

Exit codes: 1 internal error, 2 bad input or configuration, 3 model unreachable or refused, 4 stopped by
--max-cost, 5 finished with unanswered items (failed requests; `--allow-incomplete` makes it 0), 130 interrupted
(Ctrl-C, or SIGTERM, which ends a command the same way).
"""

from __future__ import annotations


class ClimedError(Exception):
    """Base class: a problem the user can fix (bad input, bad configuration, unreachable server)."""

    exit_code = 2


class DataError(ClimedError):
    """A data file is unreadable or holds invalid records."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        where = ":".join(str(p) for p in (file, line) if p is not None)
        prefix = f"{where}: " if where else ""
        fld = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{fld}{message}")
        self.file, self.line, self.field, self.reason = file, line, field, message


class ConfigError(ClimedError):
    """A command-line option, suite or model specification is wrong."""


class ModelError(ClimedError):
    """A model backend could not be loaded or reached."""

    exit_code = 3


class AuthError(ModelError):
    """The server rejected the credentials (HTTP 401/403): retrying cannot help."""


class BudgetExceeded(ClimedError):
    """A run stopped cleanly because the next request would exceed --max-cost."""

    exit_code = 4


# `climedbench run` / `score`: the run finished but some requests failed (its figures are on the answered items).
INCOMPLETE_EXIT = 5


class RunDirBusy(ClimedError):
    """Another process holds the run directory's lock (one writer at a time): nothing was touched."""

    exit_code = 6


def yaml_problem(e: Exception) -> tuple[str, int | None]:
    """(what PyYAML says is wrong, its 1-based line or None) of a YAMLError, for one-line messages."""
    mark = getattr(e, "problem_mark", None)
    return str(getattr(e, "problem", None) or e), (mark.line + 1 if mark is not None else None)
