"""The bundled ClinicBench demo of nine datasets (MIMIC-CXR, IU-Xray, HospSumm, PatientEdu, BC5CDR-Disease,
NCBI-Disease, DDI, GAD, HoC): each file is in its dataset's public layout, loads without a problem, carries enough
test and few-shot items with a realistic label mix, and runs end to end through the command line.

The files are read here with the standard library (json, csv) and seqeval, independently of the loaders, so a
loader or a data file drifting from the public format shows up as a disagreement."""

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from seqeval.metrics.sequence_labeling import get_entities
from sklearn.metrics import f1_score

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.prompts import demonstration
from climedbench.scoring import Scorer

from ..conftest import ROOT

DEMO = ROOT / "src" / "climedbench" / "suites" / "clinicbench" / "demo"
CODES = ["MIMIC-CXR", "IU-Xray", "HospSumm", "PatientEdu", "BC5CDR-Disease", "NCBI-Disease", "DDI", "GAD", "HoC"]
SHOT_SPLIT = {"MIMIC-CXR": "train"}  # the repository's MIMIC-CXR layout has test and train keys only
MIN_TEST, MIN_SHOTS = 12, 6
PROVENANCE = {"synthetic": True, "source": "climedbench demo"}


@pytest.fixture(scope="module")
def cb():
    return load_suite("clinicbench")


@pytest.fixture(scope="module")
def report(cb):
    return load_items(None, cb, CODES)


def _json(path: Path):
    return json.loads(path.read_text("utf-8"))


def _tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _iob(path: Path) -> list[tuple[list[str], list[str]]]:
    """Sentences of a BLURB IOB file: (tokens, tags), read line by line."""
    sentences, tokens, tags = [], [], []
    for line in [*path.read_text("utf-8").splitlines(), ""]:
        if not line.strip():
            if tokens:
                sentences.append((tokens, tags))
            tokens, tags = [], []
            continue
        token, tag = line.split("\t")
        tokens.append(token)
        tags.append(tag)
    return sentences


def _test_counts() -> dict[str, int]:
    """Test items per dataset, counted from the files themselves."""
    return {
        "MIMIC-CXR": len(_json(DEMO / "MIMIC-CXR" / "mimic-cxr.json")["test"]),
        "IU-Xray": len(_json(DEMO / "IU-Xray" / "test.json")),
        "HospSumm": len(_json(DEMO / "HospSumm" / "test.json")),
        "PatientEdu": len(list(csv.DictReader((DEMO / "PatientEdu" / "test.csv").open(encoding="utf-8", newline="")))),
        "BC5CDR-Disease": len(_iob(DEMO / "BC5CDR-Disease" / "test.tsv")),
        "NCBI-Disease": len(_iob(DEMO / "NCBI-Disease" / "test.tsv")),
        "DDI": len(_tsv(DEMO / "DDI" / "test.tsv")),
        "GAD": len(_tsv(DEMO / "GAD" / "test.tsv")),
        "HoC": len((DEMO / "HoC" / "test.jsonl").read_text("utf-8").splitlines()),
    }


def test_every_record_loads_and_each_dataset_has_test_and_shot_items(report):
    assert report.problems == []
    for code in CODES:
        tests = [i for i in report.items if i.task == code and i.split == "test"]
        shots = [i for i in report.items if i.task == code and i.split == SHOT_SPLIT.get(code, "dev")]
        assert len(tests) >= MIN_TEST and len(shots) >= MIN_SHOTS, (code, len(tests), len(shots))
    assert report.valid_counts("test") == {c: n for c, n in _test_counts().items()}
    assert (DEMO / "MIMIC-CXR" / "NOTES.md").is_file() and all((DEMO / c / "NOTES.md").is_file() for c in CODES)


def test_files_keep_each_public_layout(cb):
    mimic = _json(DEMO / "MIMIC-CXR" / "mimic-cxr.json")
    assert set(mimic) == {"test", "train"}
    for rec in mimic["test"] + mimic["train"]:
        assert {"study_id", "findings", "impression"} <= set(rec) and isinstance(rec["study_id"], str)
        assert "\n " in rec["findings"] or len(rec["findings"]) < 78  # MIMIC's wrapped lines
    for name in ("test.json", "dev.json"):
        iu, hosp = _json(DEMO / "IU-Xray" / name), _json(DEMO / "HospSumm" / name)
        assert isinstance(iu, list) and all({"uid", "findings", "impression"} <= set(r) for r in iu)
        assert isinstance(hosp, list) and all({"instruct", "answer"} <= set(r) for r in hosp)
        for rec in iu + hosp:
            assert {k: rec.get(k) for k in PROVENANCE} == PROVENANCE
    for name in ("test.csv", "dev.csv"):
        with (DEMO / "PatientEdu" / name).open(encoding="utf-8", newline="") as fh:
            assert next(csv.reader(fh)) == ["discharge_summary", "discharge_instruction"]
    ddi_labels = {"DDI-mechanism", "DDI-effect", "DDI-advise", "DDI-int", "DDI-false"}
    for name in ("test.tsv", "dev.tsv"):
        for code in ("DDI", "GAD"):
            first = (DEMO / code / name).read_text("utf-8").splitlines()[0]
            assert first == "index\tsentence\tlabel"
        for row in _tsv(DEMO / "DDI" / name):
            assert row["sentence"].count("@DRUG$") == 2 and row["label"] in ddi_labels, row
        for row in _tsv(DEMO / "GAD" / name):
            assert row["sentence"].count("@GENE$") == 1 and row["sentence"].count("@DISEASE$") == 1, row
            assert row["label"] in {"0", "1"}
    for code in ("BC5CDR-Disease", "NCBI-Disease"):
        for name in ("test.tsv", "devel.tsv"):
            for tokens, tags in _iob(DEMO / code / name):
                assert set(tags) <= {"B", "I", "O"}
                # an I only continues a mention
                assert all(t != "I" or (k > 0 and tags[k - 1] in "BI") for k, t in enumerate(tags)), tokens
    hallmarks = set(cb.task("HoC").labels or ())
    for name in ("test.jsonl", "dev.jsonl"):
        for line in (DEMO / "HoC" / name).read_text("utf-8").splitlines():
            rec = json.loads(line)
            assert set(rec["labels"]) <= hallmarks and rec["document_id"] and rec["rationale"]
            assert {k: rec.get(k) for k in PROVENANCE} == PROVENANCE


def test_ner_gold_mentions_are_seqevals_entities(report):
    """The loader's gold mentions of each sentence are the entities seqeval reads from the same IOB tags."""
    for code in ("BC5CDR-Disease", "NCBI-Disease"):
        for name, split in (("test.tsv", "test"), ("devel.tsv", "dev")):
            expected = []
            for tokens, tags in _iob(DEMO / code / name):
                typed = [t if t == "O" else f"{t}-Disease" for t in tags]
                expected.append([" ".join(tokens[a:b + 1]) for _, a, b in get_entities(typed)])
            items = [i for i in report.items if i.task == code and i.split == split]
            assert [i.targets for i in items] == expected, (code, name)


def test_label_mix_is_realistic(report, cb):
    def tests(code):
        return [i for i in report.items if i.task == code and i.split == "test"]

    ddi = Counter(i.answer for i in tests("DDI"))
    assert set(ddi) == {"DDI-mechanism", "DDI-effect", "DDI-advise", "DDI-int", "DDI-false"}
    assert 0.25 <= ddi["DDI-false"] / sum(ddi.values()) <= 0.6, ddi
    gad = Counter(i.answer for i in tests("GAD"))
    assert 0.4 <= gad["yes"] / sum(gad.values()) <= 0.6, gad
    sizes = Counter(min(len(i.targets or []), 2) for i in tests("HoC"))
    assert sizes[0] >= 3 and sizes[1] >= 3 and sizes[2] >= 3, sizes
    assert {lab for i in tests("HoC") for lab in i.targets or []} == set(cb.task("HoC").labels or ())  # all ten
    for code in ("BC5CDR-Disease", "NCBI-Disease"):
        counts = [len(i.targets or []) for i in tests(code)]
        assert counts.count(0) >= 1 and max(counts) >= 3, (code, counts)
        assert any(len(m.split()) >= 3 for i in tests(code) for m in i.targets or []), code


def test_document_lengths_follow_each_source(report):
    def words(code, split, field="input"):
        return [len(getattr(i, field).split()) for i in report.items if i.task == code and i.split == split]

    for split in ("test", "dev"):
        assert all(580 <= n <= 1200 for n in words("HospSumm", split)), words("HospSumm", split)
        assert all(300 <= n <= 1200 for n in words("PatientEdu", split)), words("PatientEdu", split)
    mimic, iu = words("MIMIC-CXR", "test"), words("IU-Xray", "test")
    assert sum(mimic) / len(mimic) > 1.5 * sum(iu) / len(iu)  # MIMIC's longer academic reports vs Open-i's
    summaries = words("HospSumm", "test", "reference")
    assert max(summaries) < min(words("HospSumm", "test")) / 2  # a brief course, not a copy of the note


def test_gold_answers_score_full_marks_through_demonstration_extraction_and_metric(report, cb):
    """A response that is the few-shot demonstration of the item's own gold is read back and scores 1: the gold
    format, the extractors and the metrics agree for every labelled item (text tasks are compared by ROUGE with
    themselves, which proves nothing, and are left out)."""
    scorer = Scorer()
    failures = []
    for it in report.items:
        task = cb.task(it.task)
        if task.answer == "text":
            continue
        scored = scorer.score(task, it, demonstration(task, it))
        if scored.score < 1.0 - 1e-9:
            failures.append((it.uid, scored.extracted, it.answer or it.targets))
    assert failures == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_run_every_dataset_end_to_end_with_and_without_shots(tmp_path):
    """`climedbench run --suite clinicbench` on the nine datasets against a scripted OpenAI-compatible server
    that always answers "yes": every test item is asked once, every dataset is scored, GAD's F1 is the one
    scikit-learn computes for always-yes on the file's labels, and with --shots 3 every prompt is longer
    (the examples come from each dataset's dev or train split)."""
    from ..support.instant_server import get_stats, instant_server

    counts = _test_counts()
    gad_gold = ["yes" if r["label"] == "1" else "no" for r in _tsv(DEMO / "GAD" / "test.tsv")]
    prompts: dict[int, dict[str, int]] = {}
    with instant_server(model="always-yes", reply="yes") as url:
        for shots in (0, 3):
            out = tmp_path / f"shots{shots}"
            _cli("run", "--suite", "clinicbench", "--datasets", ",".join(CODES), "--limit", "0",
                 "--shots", str(shots), "--model", "openai:always-yes", "--base-url", url, "--out", str(out),
                 "--quiet", "--no-cache")
            results = json.loads((out / "results.json").read_text("utf-8"))["tasks"]
            assert {c: results[c]["n"] for c in CODES} == counts
            assert all(results[c]["errors"] == 0 for c in CODES)
            # results.json reports scores x100, rounded to 2 decimals
            assert results["GAD"]["score"] == pytest.approx(
                100 * f1_score(gad_gold, ["yes"] * len(gad_gold), pos_label="yes"), abs=0.006)
            assert results["DDI"]["extraction_failures"] == counts["DDI"]  # "yes" is no DDI label
            samples = [json.loads(line) for line in (out / "samples.jsonl").read_text("utf-8").splitlines()]
            assert Counter(s["task"] for s in samples) == Counter(counts)
            prompts[shots] = {s["uid"]: s["prompt_tokens"] for s in samples}
        stats = get_stats(url)
    assert stats["requests"] == 2 * sum(counts.values()) and max(stats["by_body"].values()) == 1
    assert prompts[0].keys() == prompts[3].keys()
    assert all(prompts[3][uid] > prompts[0][uid] for uid in prompts[0])
