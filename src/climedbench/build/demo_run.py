"""`climedbench build --demo`: the bundled synthetic records through `climedbench deid`, then built, offline."""

from __future__ import annotations

import os
from pathlib import Path

from climedbench.errors import ConfigError

DEMO_FILES = ("records_zh.jsonl", "records_en.jsonl")


def demo_records() -> tuple[Path, str]:
    """The folder of demo records and what it is: the bundled records, else the development fixtures of a source
    checkout (tests/fixtures/build)."""
    bundled = Path(__file__).resolve().parent / "demo"
    if any((bundled / f).exists() for f in DEMO_FILES):
        return bundled, "bundled demo records (build/demo)"
    fixtures = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "build"
    if (fixtures / "records.jsonl").exists():
        return fixtures, "development fixtures (tests/fixtures/build; the bundled demo records are not present)"
    raise ConfigError("no demo records: build/demo/records_*.jsonl are not installed and this is not a source "
                      "checkout with tests/fixtures/build")


def deidentify(source: Path, dest: Path) -> dict:
    """Run `climedbench deid` (the library) on the demo records into `dest`, with a fresh salt that is never
    written (demo only: its surrogates cannot be reproduced, which a demo does not need)."""
    import importlib.util

    if importlib.util.find_spec("presidio_analyzer") is None:
        raise ConfigError("build --demo runs `climedbench deid` first, which needs the de-identification packages: "
                          "pip install -r requirements-deid.txt (or 'climedbench[deid]')")
    import logging

    logging.getLogger("jieba").setLevel(logging.WARNING)  # its dictionary-loading chatter
    from climedbench.deid.engine import load_config
    from climedbench.deid.notes import Options
    from climedbench.deid.pipeline import DeidRun

    files = [source / f for f in (*DEMO_FILES, "records.jsonl", "unusable_records.jsonl") if (source / f).exists()]
    dest.mkdir(parents=True, exist_ok=True)
    staged = dest.parent / (dest.name + "-in")
    staged.mkdir(parents=True, exist_ok=True)
    for f in files:  # only the records, not this folder's README
        (staged / f.name).write_bytes(f.read_bytes())
    opts = Options(text_columns=("text",), id_column="record_id", patient_column="patient_id",
                   keep_columns=("lang", "specialty", "note_type"))
    run = DeidRun(staged, dest, os.urandom(32), config=load_config(None), options=opts, workers=1, ner=True)
    report = run.run()
    for f in staged.iterdir():
        f.unlink()
    staged.rmdir()
    return report
