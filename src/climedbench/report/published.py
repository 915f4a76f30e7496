"""Published results bundled with a suite (a paper's tables), as CSV files named in the suite YAML."""

from __future__ import annotations

from pathlib import Path

from climedbench.core.suite import Suite
from climedbench.errors import ConfigError


def published_tables(suite: Suite) -> dict[str, Path]:
    """Setting → CSV file of the suite's published results, in the suite's order."""
    files = suite.published_files()
    missing = [str(p) for p in files.values() if not p.exists()]
    if missing:
        raise ConfigError(f"suite {suite.suite}: published results file(s) missing: {', '.join(missing)}")
    return files
