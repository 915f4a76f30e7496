"""`build export` after review rounds with refinement: a refined revision that a later round accepted is exported
in its refined text (same item id and provenance, plus the revision number); a refined revision no round has
decided yet, and one a later round rejected, are left out; an item accepted as built is exported as built."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from climedbench.build.candidates import load_candidates
from climedbench.build.export import export_suite
from climedbench.build.pipeline import BuildOptions, run_build
from climedbench.data.sections import parse_options, section

FIX = Path(__file__).parent / "fixtures" / "build"
REFINED_STEM = "## 病史: 患者男，62岁，活动后胸闷2小时，含服硝酸甘油后缓解。\n## 问题: 最可能的诊断是？"
REFINED_OPTIONS = {"A": "稳定型心绞痛", "B": "急性胃炎", "C": "肋间神经痛", "D": "胆囊炎"}


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _review(uid: str, revision: int, round_no: int, decision: str) -> dict:
    verdict = "accept" if decision == "accept" else "reject"
    return {"id": uid, "revision": revision, "round": round_no, "in_sample": False, "reviewers": ["ana", "bo"],
            "decision": decision, "reviews": [{"rater": r, "verdict": verdict, "scores": {}, "comment": ""}
                                              for r in ("ana", "bo")]}


def _refined(uid: str, code: str) -> dict:
    return {"id": uid, "code": code, "question": REFINED_STEM, "options": REFINED_OPTIONS, "answer": "A",
            "provenance": {"refined": [{"from_revision": 0, "round": 1, "kind": "leakage", "model": "m",
                                        "prompt_sha256": "abc"}]}, "revision": 1}


def test_an_accepted_refined_revision_is_exported_in_its_refined_text(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(FIX / "records.jsonl", notes / "records.jsonl")
    out = tmp_path / "suite"
    run_build(BuildOptions(source=notes, out=out, already_deidentified=True, scenarios=["ID#2"]))
    built = {c.candidate_id: c for c in load_candidates(out) if c.lang == "zh"}
    accepted, undecided, rejected_again, as_built = sorted(built)[:4]
    _jsonl(out / ".build" / "refined.jsonl", [_refined(u, built[u].task) for u in (accepted, undecided,
                                                                                   rejected_again)])
    _jsonl(out / ".build" / "reviews.jsonl", [
        *(_review(u, 0, 1, "reject") for u in (accepted, undecided, rejected_again)),
        _review(as_built, 0, 1, "accept"),
        _review(accepted, 1, 2, "accept"), _review(rejected_again, 1, 2, "reject")])

    card = export_suite(out)

    rows = {r["id"]: r for p in (out / "demo").glob("*.jsonl")
            for r in map(json.loads, p.read_text("utf-8").splitlines())}
    assert undecided not in rows and rejected_again not in rows
    assert card["left_out"] == {"revised": 1, "rejected": 1}
    got = rows[accepted]
    assert got["status"] == "accepted" and got["reference"] == "A"
    assert got["input"].startswith(REFINED_STEM)
    assert parse_options(section(got["input"], "选项")) == REFINED_OPTIONS
    assert got["provenance"]["revision"] == 1 and got["provenance"]["refined"][0]["kind"] == "leakage"
    assert got["provenance"]["record"] == built[accepted].provenance.record
    kept = rows[as_built]
    assert kept["status"] == "accepted" and kept["input"] == built[as_built].item["input"]
    assert "revision" not in kept["provenance"]
