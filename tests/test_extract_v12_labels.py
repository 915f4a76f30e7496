"""bench/data/extraction_real_v12_labels.jsonl holds labels only (the responses of set v12 may not be
redistributed), and `extraction_accuracy.py --real-v12 PATH` refuses a copy whose responses differ from them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "bench" / "data" / "extraction_real_v12_labels.jsonl"


def _bench():
    spec = importlib.util.spec_from_file_location("extraction_accuracy", ROOT / "bench" / "extraction_accuracy.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("extraction_accuracy", module)
    spec.loader.exec_module(module)
    return module


def test_labels_only_no_response_text():
    rows = [json.loads(x) for x in LABELS.read_text("utf-8").splitlines()]
    assert len(rows) == 491 and len({r["id"] for r in rows}) == 491
    for r in rows:
        assert set(r) == {"id", "source", "index", "kind", "options", "expected", "category", "response_sha1"}
        assert len(r["response_sha1"]) == 40 and "@" in r["source"]


def test_a_copy_with_another_response_is_refused_with_file_line_and_field(tmp_path):
    first = json.loads(LABELS.read_text("utf-8").splitlines()[0])
    copy = tmp_path / "real_v12.jsonl"
    copy.write_text(json.dumps({"id": first["id"], "kind": first["kind"], "options": first["options"],
                                "response": "The answer is B."}) + "\n", "utf-8")
    assert hashlib.sha1(b"The answer is B.").hexdigest() != first["response_sha1"]
    with pytest.raises(SystemExit) as stop:
        _bench().v12_cases(copy)
    assert str(stop.value) == (f"{copy}:1: field response: its SHA-1 differs from extraction_real_v12_labels.jsonl "
                               "(another version?)")
