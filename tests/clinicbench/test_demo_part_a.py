"""The bundled ClinicBench demo, datasets MedQA, MedMCQA, MMLU-Medicine, PubMedQA, ReferralQA, TreatmentRec, PharmQA
and DIED: each in its public release format, enough items for 1/3/5-shot runs, balanced keys without option cues,
provenance marked, gold answers scored full marks, and a `climedbench run` over every item end to end."""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import openpyxl
import pytest

from climedbench.audit import audit_task
from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.prompts import PromptSettings, build_messages, demonstration
from climedbench.scoring import Scorer

from ..support.instant_server import get_stats, instant_server

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "climedbench" / "suites" / "clinicbench" / "demo"
MINE = ["MedQA", "MedMCQA", "MMLU-Medicine", "PubMedQA", "ReferralQA", "TreatmentRec", "PharmQA", "DIED"]
CHOICE = ["MedQA", "MedMCQA", "MMLU-Medicine", "PharmQA"]
# The split each dataset's few-shot examples come from (the suite's `splits:`; MedMCQA's are train.json).
SHOT_SPLIT = {code: "train" if code == "MedMCQA" else "dev" for code in MINE}


@pytest.fixture(scope="module")
def suite():
    return load_suite("clinicbench")


@pytest.fixture(scope="module")
def report(suite):
    return load_items(DEMO, suite, tasks=MINE)


def _items(report, code, split=None):
    return [i for i in report.items if i.task == code and (split is None or i.split == split)]


def test_every_record_is_valid_with_enough_test_and_shot_items(report):
    assert report.problems == []
    for code in MINE:
        assert len(_items(report, code, "test")) >= 12, code
        assert len(_items(report, code, SHOT_SPLIT[code])) >= 6, code


def test_files_keep_each_public_release_format():
    # Headers and layouts of the public files (docs/CLINICBENCH.md lists them).
    with (DEMO / "TreatmentRec" / "test.csv").open(encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == ["idx", "disease", "Symptom", "reason", "TestsAndProcedures",
                                        "commonMedications"]
    for split in ("test", "dev"):
        with (DEMO / "DIED" / f"{split}.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == ["question", "answer"] and {r[1] for r in rows[1:]} == {"yes", "no"}
        wb = openpyxl.load_workbook(DEMO / "PharmQA" / f"{split}.xlsx", read_only=True)
        assert wb.sheetnames == ["selected"]
        header = [c.value for c in next(wb.worksheets[0].iter_rows(max_row=1))]
        wb.close()
        assert header == ["type", "created", "name", "description", "question", "option_A", "option_B", "option_C",
                          "option_D", "answer", "explanation"]
    # MMLU: the original header-less SUBJECT_split.csv files, six columns, all six medical subjects.
    subjects = {"anatomy", "clinical_knowledge", "college_biology", "college_medicine", "medical_genetics",
                "professional_medicine"}
    for split in ("test", "dev"):
        files = sorted((DEMO / "MMLU-Medicine").glob(f"*_{split}.csv"))
        assert {f.name.removesuffix(f"_{split}.csv") for f in files} == subjects
        for f in files:
            with f.open(encoding="utf-8", newline="") as fh:
                for row in csv.reader(fh):
                    assert len(row) == 6 and row[5] in "ABCD" and row[0] != "question", f.name
    # MedQA (jind11 US JSONL), MedMCQA (JSON lines in .json), PubMedQA (ori_pqal.json: PMID -> record).
    for line in (DEMO / "MedQA" / "test.jsonl").read_text("utf-8").splitlines():
        rec = json.loads(line)
        assert set(rec) >= {"question", "answer", "options", "meta_info", "answer_idx"}
        assert list(rec["options"]) == list("ABCDE") and rec["options"][rec["answer_idx"]] == rec["answer"]
    for name in ("dev.json", "train.json"):
        for line in (DEMO / "MedMCQA" / name).read_text("utf-8").splitlines():
            rec = json.loads(line)
            assert set(rec) >= {"question", "exp", "cop", "opa", "opb", "opc", "opd", "subject_name", "id"}
            assert rec["cop"] in (1, 2, 3, 4)
    for name in ("test.json", "dev.json"):
        for pmid, rec in json.loads((DEMO / "PubMedQA" / name).read_text("utf-8")).items():
            assert pmid.isdigit() and len(rec["CONTEXTS"]) == len(rec["LABELS"]) >= 2
            assert rec["final_decision"] in ("yes", "no", "maybe") and rec["LONG_ANSWER"]


def test_choice_keys_are_balanced_and_options_carry_no_cue(report):
    for code in CHOICE:
        tests = _items(report, code, "test")
        keys = Counter(i.answer for i in tests)
        letters = tests[0].letters
        assert set(keys) == set(letters), (code, keys)  # every position is a key
        assert max(keys.values()) / len(tests) <= 0.35, (code, keys)
        audit = audit_task(code, tests)
        assert [r.rule for r in audit.rules if r.flagged] == [], code
        assert audit.near_duplicates == [] and audit.options_in_case == [], code
    # The authors' Pharmacology-QA.xlsx has B as the key of 63% of its questions; ours may not repeat that.
    pharm = Counter(i.answer for i in _items(report, "PharmQA"))
    assert pharm["B"] / sum(pharm.values()) <= 0.35


def test_label_sets_mix_their_labels(report):
    pubmed = Counter(i.answer for i in _items(report, "PubMedQA", "test"))
    assert min(pubmed[x] for x in ("yes", "no", "maybe")) >= 2, pubmed
    for split in ("test", "dev"):
        died = Counter(i.answer for i in _items(report, "DIED", split))
        assert set(died) == {"yes", "no"} and abs(died["yes"] - died["no"]) <= 1, (split, died)


def test_inputs_are_unique_and_realistic_in_length(report):
    for code in MINE:
        items = _items(report, code)
        assert len({i.input for i in items}) == len(items), code
    words = sorted(len(i.input.split()) for i in _items(report, "MedQA", "test"))
    assert words[0] >= 50 and words[len(words) // 2] >= 80  # USMLE vignettes, not one-liners
    contexts = [len((i.context or "").split()) for i in _items(report, "PubMedQA")]
    assert min(contexts) >= 80 and max(contexts) <= 400  # abstract-sized, within the embedded model's context


def test_records_mark_their_provenance_and_notes_exist(report):
    json_formats = ["MedQA", "MedMCQA", "PubMedQA", "ReferralQA"]
    for code in json_formats:
        for it in _items(report, code):
            assert it.synthetic is True and it.source == "climedbench demo", it.uid
    for code in ["MedQA", "MedMCQA", "PubMedQA", "PharmQA"]:  # rationale fields of the formats that have one
        for it in _items(report, code):
            assert it.rationale and len(it.rationale) >= 40, it.uid
    for code in MINE:
        notes = (DEMO / code / "NOTES.md").read_text("utf-8")
        assert "copies nothing from the licensed data" in notes, code
    # CSV formats have no room for a rationale: NOTES.md has one table row per item.
    died_rows = [ln for ln in (DEMO / "DIED" / "NOTES.md").read_text("utf-8").splitlines()
                 if ln.startswith("| test.csv line") or ln.startswith("| dev.csv line")]
    assert len(died_rows) == len(_items(report, "DIED"))
    mmlu_rows = [ln for ln in (DEMO / "MMLU-Medicine" / "NOTES.md").read_text("utf-8").splitlines()
                 if ln.startswith("| `")]
    assert len(mmlu_rows) == len(_items(report, "MMLU-Medicine"))


def test_prompts_show_the_item_but_never_its_key_or_rationale(report, suite):
    for it in report.items:
        task = suite.task(it.task)
        content = build_messages(task, it, [], PromptSettings(variant="vanilla"), suite)[-1]["content"]
        assert it.input in content, it.uid
        if it.rationale:
            assert it.rationale not in content, it.uid
        if it.reference:
            assert it.reference not in content, it.uid


def test_gold_answers_score_full_marks_and_a_wrong_answer_scores_zero(report, suite):
    """The gold written as the suite's few-shot demonstration (TreatmentRec: one drug per line) must be read back
    and score 1; another option or label must score 0."""
    scorer = Scorer()
    for it in report.items:
        task = suite.task(it.task)
        if task.answer == "text":
            continue  # ROUGE-L of the reference against itself is 1 by construction
        gold = demonstration(task, it)
        assert scorer.score(task, it, gold).score == pytest.approx(1.0), (it.uid, gold[:80])
        if task.answer == "single":
            wrong = next(k for k in it.options if k != it.answer)
            assert scorer.score(task, it, f"{wrong}: {it.options[wrong]}").score == 0.0, it.uid
        elif task.answer == "label":
            wrong = next(lab for lab in task.labels or () if lab != it.answer)
            assert scorer.score(task, it, wrong).score == 0.0, it.uid


def test_treatment_lists_are_read_in_full_one_per_line(report, suite):
    """Half of a gold list, one per line: precision 1 and recall k/n, so F1 = 2k / (n + k) (hand-derived)."""
    task = suite.task("TreatmentRec")
    scorer = Scorer()
    for it in _items(report, "TreatmentRec"):
        n = len(it.targets or [])
        k = max(1, n // 2)
        got = scorer.score(task, it, "\n".join((it.targets or [])[:k]))
        assert got.score == pytest.approx(2 * k / (n + k)), it.uid


def test_a_dataset_folder_given_alone_names_its_task(suite):
    r = load_items(DEMO / "PharmQA", suite)
    assert r.problems == [] and {i.task for i in r.items} == {"PharmQA"} and len(r.items) >= 18


def test_pharmqa_xlsx_files_are_what_the_script_builds(tmp_path):
    spec = importlib.util.spec_from_file_location("make_pharmqa", ROOT / "scripts" / "make_clinicbench_pharmqa_demo.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for split, items in (("test", mod.TEST), ("dev", mod.DEV)):
        mod.write(tmp_path / f"{split}.xlsx", items)
        assert (tmp_path / f"{split}.xlsx").read_bytes() == (DEMO / "PharmQA" / f"{split}.xlsx").read_bytes(), split


def test_run_over_every_item_end_to_end_with_shots(tmp_path, report, suite):
    """`climedbench run --suite clinicbench` on the bundled demo, every test item of the eight datasets, 3 shots,
    against an OpenAI-compatible server that always answers 'yes': every item is asked once with its shots, and the
    label tasks score the share of 'yes' keys counted from the files."""
    out = tmp_path / "run"
    with instant_server(model="always-yes", reply="yes") as url:
        proc = subprocess.run(
            [sys.executable, "-m", "climedbench.cli", "run", "--suite", "clinicbench", "--datasets", ",".join(MINE),
             "--limit", "0", "--shots", "3", "--model", "openai:always-yes", "--base-url", url, "--no-cache",
             "--log-prompts", "--quiet", "--json", "--out", str(out)],
            capture_output=True, text=True, timeout=300)
        asked = get_stats(url)
    assert proc.returncode == 0, proc.stderr
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    assert Counter(s["task"] for s in samples) == Counter(i.task for i in report.items if i.split == "test")
    assert asked["ok"] == len(samples) and all(n == 1 for n in asked["by_body"].values())
    assert all(s["error"] is None and s["raw"] == "yes" for s in samples)
    for s in samples:  # three shots from the dataset's own shot split, as user/assistant turns
        task = suite.task(s["task"])
        shots = _items(report, s["task"], SHOT_SPLIT[s["task"]])[:3]
        answers = [m["content"] for m in s["messages"] if m["role"] == "assistant"]
        assert answers == [demonstration(task, x) for x in shots], s["uid"]
    results = json.loads((out / "results.json").read_text("utf-8"))
    for code in ("PubMedQA", "DIED"):
        tests = _items(report, code, "test")
        share = sum(i.answer == "yes" for i in tests) / len(tests)
        assert results["tasks"][code]["score"] == pytest.approx(100 * share, abs=0.005), code  # 2 decimals
    for code in CHOICE:  # 'yes' names no option
        assert results["tasks"][code]["score"] == 0.0 and results["tasks"][code]["extraction_failures"] == len(
            _items(report, code, "test")), code
