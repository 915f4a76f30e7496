"""Published results bundled with a suite (a paper's tables), as CSV files named in the suite YAML."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from climedbench.core.suite import Suite
from climedbench.errors import ConfigError

if TYPE_CHECKING:
    from climedbench.core.types import Results


def published_tables(suite: Suite) -> dict[str, Path]:
    """Setting → CSV file of the suite's published results, in the suite's order."""
    files = suite.published_files()
    missing = [str(p) for p in files.values() if not p.exists()]
    if missing:
        raise ConfigError(f"suite {suite.suite}: published results file(s) missing: {', '.join(missing)}")
    return files


def published_results(suite: Suite, *, paper: bool = False, setting: str | None = None,
                      from_csv: Path | None = None) -> dict[str, Results]:
    """The suite's published table (with `paper`) and/or a CSV of published scores, by model name."""
    from climedbench.report.tables import read_published_csv

    out: dict[str, Results] = {}
    if paper:
        tables = published_tables(suite)
        if not tables:
            raise ConfigError(f"suite {suite.suite} bundles no published results")
        key = setting or next(iter(tables))
        if key not in tables:
            raise ConfigError(f"--setting {key!r}: the suite publishes {', '.join(tables)}")
        out.update(read_published_csv(tables[key], suite, source=f"{suite.title} paper, {key}"))
    if from_csv is not None:
        out.update(read_published_csv(from_csv, suite, source=str(from_csv)))
    return out
