"""The build tests' input: the development records (tests/fixtures/build) through `climedbench deid`, as a hospital
would hand its notes to `climedbench build`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.cli import run_cli

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "build"


def deidentified_records(out: Path, cli: Callable[..., Any] = run_cli) -> Path:
    """De-identify the development records into `out` (its salt beside it) and return `out`."""
    cli("deid", str(RECORDS), "--out", str(out), "--id-column", "record_id", "--patient-column", "patient_id",
        "--keep-column", "lang", "--keep-column", "specialty", "--keep-column", "note_type",
        "--salt-file", str(out.parent / "salt"), "--workers", "1")
    return out
