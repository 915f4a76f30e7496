"""ClinicBench loaders and metrics on slices of the real public release files (tests/fixtures/releases/README.md
names each file's repository, commit and licence).

Every expectation is computed here from the raw bytes of the slices (or by seqeval), not copied from the loaders:
`validate` finds every record valid and counts the items a file holds; a run whose model answers each item with its
own gold (a real OpenAI-compatible server on 127.0.0.1, replying per prompt) scores 100 on every dataset."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from seqeval.metrics import f1_score
from seqeval.metrics.sequence_labeling import get_entities

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items

from ..support.cli import run_cli
from ..support.instant_server import get_stats, instant_server

RELEASES = Path(__file__).resolve().parents[1] / "fixtures" / "releases"
DATASETS = ("DDI", "GAD", "HoC", "BC5CDR-Disease", "NCBI-Disease", "PubMedQA", "MMLU-Medicine")
# The hallmark numbering of BLUE/BLURB's HoC files, copied from LinkBERT src/seqcls/utils_hoc.py (LABELS).
BLURB_HOC = ['activating invasion and metastasis', 'avoiding immune destruction', 'cellular energetics',
             'enabling replicative immortality', 'evading growth suppressors', 'genomic instability and mutation',
             'inducing angiogenesis', 'resisting cell death', 'sustaining proliferative signaling',
             'tumor promoting inflammation']


@pytest.fixture(scope="module")
def suite():
    return load_suite("clinicbench")


def _iob_sentences(path: Path) -> list[tuple[list[str], list[str], int]]:
    """(tokens, tags, first line) of each sentence of a BLURB IOB file, read independently of the loader."""
    out, toks, tags, first = [], [], [], 0
    for n, line in enumerate([*path.read_text("utf-8").split("\n"), ""], start=1):
        if not line.strip():
            if toks:
                out.append((toks, tags, first))
            toks, tags = [], []
            continue
        tok, tag = line.split("\t")
        if not toks:
            first = n
        toks.append(tok)
        tags.append(tag)
    return out


def _expected_test_counts() -> dict[str, int]:
    """Test items per dataset, counted from the raw slices."""
    n: dict[str, int] = {}
    n["DDI"] = len((RELEASES / "DDI" / "test.tsv").read_bytes().splitlines())  # header-less: one pair per line
    n["GAD"] = len((RELEASES / "GAD" / "test.tsv").read_bytes().splitlines()) - 1  # a header row
    with (RELEASES / "HoC" / "test.tsv").open(encoding="utf-8", newline="") as fh:
        n["HoC"] = len({r["index"].split("_")[0] for r in csv.DictReader(fh, delimiter="\t")})  # abstracts
    for code in ("BC5CDR-Disease", "NCBI-Disease"):
        n[code] = sum(len(_iob_sentences(p)) for p in (RELEASES / code).glob("test*.tsv"))
    n["PubMedQA"] = len(json.loads((RELEASES / "PubMedQA" / "test_ground_truth.json").read_text("utf-8")))
    with (RELEASES / "MMLU-Medicine" / "professional_medicine_test.csv").open(encoding="utf-8", newline="") as fh:
        n["MMLU-Medicine"] = sum(1 for _ in csv.reader(fh))
    return n


def test_validate_reads_every_record_of_every_release_slice():
    proc = run_cli("validate", "--suite", "clinicbench", str(RELEASES), "--json")
    report = json.loads(proc.stdout)
    assert report["invalid"] == []
    assert {c: s.get("test", 0) for c, s in report["splits"].items()} == _expected_test_counts()
    ori = json.loads((RELEASES / "PubMedQA" / "ori_pqal.json").read_text("utf-8"))
    answers = json.loads((RELEASES / "PubMedQA" / "test_ground_truth.json").read_text("utf-8"))
    assert 0 < len(answers) < len(ori)  # the slice has records outside the official test split
    assert report["splits"]["PubMedQA"] == {"test": len(answers), "train": len(ori) - len(answers)}
    with (RELEASES / "HoC" / "dev.tsv").open(encoding="utf-8", newline="") as fh:
        dev_docs = len({r["index"].split("_")[0] for r in csv.DictReader(fh, delimiter="\t")})
    assert report["splits"]["HoC"]["dev"] == dev_docs
    assert report["splits"]["BC5CDR-Disease"]["dev"] == len(_iob_sentences(RELEASES / "BC5CDR-Disease" / "devel.tsv"))


def test_hoc_sentences_become_abstracts_with_their_labels_unioned(suite):
    report = load_items(RELEASES / "HoC", suite)
    items = {i.id: i for i in report.items if i.split == "test"}
    text: dict[str, list[str]] = defaultdict(list)
    gold: dict[str, set[str]] = defaultdict(set)
    with (RELEASES / "HoC" / "test.tsv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            doc = row["index"].split("_")[0]
            text[doc].append(row["sentence"])
            gold[doc] |= {BLURB_HOC[int(p.split("_")[0])] for p in row["labels"].split(",") if p.endswith("_1")}
    assert set(items) == set(gold)
    assert any(gold.values()) and not all(gold.values())  # the slice has abstracts with and without hallmarks
    for doc, item in items.items():
        assert item.targets == sorted(gold[doc]) and item.input == " ".join(text[doc]), doc


def test_pubmedqa_answer_file_rules(tmp_path, suite):
    d = tmp_path / "PubMedQA"
    d.mkdir()
    shutil.copy(RELEASES / "PubMedQA" / "test_ground_truth.json", d)
    alone = load_items(tmp_path, suite)
    assert alone.items == [] and [p.reason.split(":")[0] for p in alone.problems] == [
        "a PubMedQA answer file (PMID → label) without the records it labels"]
    shutil.copy(RELEASES / "PubMedQA" / "ori_pqal.json", d)
    answers = json.loads((d / "test_ground_truth.json").read_text("utf-8"))
    pmid = next(iter(answers))
    flipped = {**answers, pmid: "maybe" if answers[pmid] != "maybe" else "yes"}
    (d / "test_ground_truth.json").write_text(json.dumps(flipped), "utf-8")
    report = load_items(tmp_path, suite)
    (p,) = report.problems
    assert (p.field, p.id) == ("final_decision", pmid) and p.file.endswith("ori_pqal.json")
    lines = (d / "ori_pqal.json").read_text("utf-8").split("\n")
    assert lines[p.line - 1].strip().startswith(f'"{pmid}"')


def test_mmlu_csv_reexported_with_a_header_reads_as_the_original(tmp_path, suite):
    src = RELEASES / "MMLU-Medicine" / "professional_medicine_test.csv"
    with src.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    d = tmp_path / "MMLU-Medicine"
    d.mkdir()
    with (d / "professional_medicine_test.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["", "question", "A", "B", "C", "D", "answer"])  # pandas' to_csv with its index column
        w.writerows([[str(k), *r] for k, r in enumerate(rows)])
    original = load_items(RELEASES / "MMLU-Medicine", suite)
    exported = load_items(tmp_path, suite)
    assert exported.problems == [] and len(exported.items) == len(rows)
    assert [(i.input, i.options, i.answer) for i in exported.items] == [
        (i.input, i.options, i.answer) for i in original.items]


def test_gold_answers_score_100_on_every_release_slice(tmp_path, suite):
    """A model that answers every test item with its own gold, written as the task's demonstration (the form a
    few-shot example shows), scores 100 on every dataset."""
    from climedbench.prompts import PromptSettings, demonstration, user_message

    report = load_items(RELEASES, suite)
    replies: dict[str, str] = {}
    tests = [i for i in report.items if i.split == "test"]
    for item in tests:
        task = suite.task(item.task)
        prompt = user_message(task, item, PromptSettings(), suite)
        key = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        gold = demonstration(task, item)
        assert replies.setdefault(key, gold) == gold, item.uid  # two items with one prompt must share their gold
        replies[key] = gold
    (tmp_path / "replies.json").write_text(json.dumps(replies), "utf-8")
    out = tmp_path / "run"
    with instant_server(model="echo-gold", replies=tmp_path / "replies.json") as url:
        # --max-tokens: the instant server counts characters as tokens, and a gold IOB answer is long
        run_cli("run", "--suite", "clinicbench", "--data", str(RELEASES), "--limit", "0", "--model",
                "openai:echo-gold", "--base-url", url, "--max-tokens", "8000", "--no-cache", "--quiet",
                "--out", str(out))
        asked = get_stats(url)
    assert asked["ok"] == len(tests)
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert {c: results["tasks"][c]["score"] for c in DATASETS} == dict.fromkeys(DATASETS, 100.0)


@pytest.mark.parametrize("code", ["BC5CDR-Disease", "NCBI-Disease"])
def test_entity_f1_equals_seqeval_on_the_blurb_slice(code, suite):
    """Entity-level micro-F1 over the loader's items equals seqeval's on the same tags, for a prediction that drops,
    cuts short and invents mentions; and a sentence that names one disease twice counts two gold mentions."""
    from climedbench.metrics.item import EntityF1, f1
    from climedbench.suites.clinicbench.loaders import spans

    report = load_items(RELEASES / code, suite)
    items = {(Path(i.file).name, i.line): i for i in report.items if i.split == "test"}
    y_true, y_pred = [], []
    tp = fp = fn = 0
    k = 0
    metric, task = EntityF1(), suite.task(code)
    for path in sorted((RELEASES / code).glob("test*.tsv")):
        for tokens, tags, first in _iob_sentences(path):
            pred = list(tags)
            for _, a, b in get_entities(tags):
                k += 1
                if k % 3 == 0:  # dropped
                    pred[a:b + 1] = ["O"] * (b + 1 - a)
                elif k % 5 == 0 and b > a:  # cut short
                    pred[b] = "O"
            if len(tokens) > 6 and pred[6] == "O" and tags[6] == "O" and first % 4 == 0:
                pred[6] = "B"  # invented
            y_true.append(tags)
            y_pred.append(pred)
            item = items[(path.name, first)]
            score = metric.score(item, spans(tokens, pred), task, None)  # type: ignore[arg-type]
            tp, fp, fn = tp + score.stats[0], fp + score.stats[1], fn + score.stats[2]
    ours = f1(tp, fp, fn)
    assert tp + fn == sum(len(get_entities(t)) for t in y_true)  # every gold mention counted, repeats included
    assert ours == pytest.approx(f1_score(y_true, y_pred), abs=1e-12) and 0 < ours < 1
    assert f"{100 * ours:.2f}" == f"{100 * f1_score(y_true, y_pred):.2f}"


def test_a_repeated_mention_counts_twice():
    from climedbench.metrics.item import set_counts

    sentences = _iob_sentences(RELEASES / "BC5CDR-Disease" / "test.tsv")
    repeated = [(t, g) for t, g, _ in sentences
                if len({tuple(t[a:b + 1]) for _, a, b in get_entities(g)}) < len(get_entities(g))]
    assert repeated  # the slice has a sentence naming one disease twice
    tokens, tags = repeated[0]
    gold = [" ".join(tokens[a:b + 1]) for _, a, b in get_entities(tags)]
    assert set_counts(gold[:1], gold) == (1, 0, len(gold) - 1)


def test_a_bad_bio_tag_is_reported_on_its_own_line(tmp_path, suite):
    src = (RELEASES / "NCBI-Disease" / "test.tsv").read_text("utf-8").split("\n")
    sentences = _iob_sentences(RELEASES / "NCBI-Disease" / "test.tsv")
    _, _, first = sentences[1]
    bad = first + 3  # the fourth token of the second sentence
    tok = src[bad - 1].split("\t")[0]
    src[bad - 1] = f"{tok}\tX-Disease"
    d = tmp_path / "NCBI-Disease"
    d.mkdir()
    (d / "test.tsv").write_text("\n".join(src), "utf-8")
    (p,) = load_items(tmp_path, suite).problems
    assert (p.line, p.field) == (bad, "tags") and "'X-Disease'" in p.reason


def test_medqa_answer_text_must_match_answer_idx(tmp_path, suite):
    d = tmp_path / "MedQA"
    d.mkdir()
    rec = {"question": "Which vitamin deficiency causes scurvy?",
           "options": {"A": "Vitamin A", "B": "Vitamin B12", "C": "Vitamin C", "D": "Vitamin D"},
           "answer_idx": "C", "answer": "Vitamin C"}
    (d / "test.jsonl").write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "answer": "Vitamin D"}) + "\n",
                                  "utf-8")
    report = load_items(tmp_path, suite)
    assert [i.answer for i in report.items] == ["C"]
    (p,) = report.problems
    assert (p.line, p.field) == (2, "answer") and "Vitamin D" in p.reason and "Vitamin C" in p.reason


@pytest.mark.parametrize("written", ["lines", "literal", "one line"])
def test_treatment_names_with_commas_are_one_medication(written, suite):
    """Names from the repository's Treatment-Recommendation.csv that contain commas: the gold copied back, in any of
    the ways a list is written, scores F1 = 1 (the bare comma split scored 1 of 3 here)."""
    from climedbench.core.types import Item
    from climedbench.extractors import get_extractor
    from climedbench.metrics.item import EntityF1

    gold = ["Estrogens, Conjugated (Usp) (Premarin)", "Medroxyprogesterone", "Progesterone"]
    task = suite.task("TreatmentRec")
    item = Item(id="t1", task="TreatmentRec", split="test", input="Disease: Menopause", targets=gold)
    response = {"lines": "\n".join(gold), "literal": repr(gold), "one line": ", ".join(gold)}[written]
    got = get_extractor(task.extractor or "list")(response, item, task).answer
    assert got == gold
    assert EntityF1().score(item, got, task, None).score == 1.0  # type: ignore[arg-type]


def test_a_brand_name_that_is_also_a_gold_of_its_own_is_found_once_each():
    """Treatment-Recommendation.csv lists both 'Dextroamphetamine (Adderall)' and 'Adderall' for one disease: the
    gold copied back finds both (the first used to take both predictions, leaving 'Adderall' unfound)."""
    from climedbench.metrics.item import set_counts

    gold = ["Modafinil (Provigil)", "Dextroamphetamine (Adderall)", "Adderall", "Methamphetamine"]
    assert set_counts(gold, gold, aliases=True) == (4, 0, 0)
    assert set_counts(["Adderall", "Dextroamphetamine", "Provigil", "Modafinil"], gold, aliases=True) == (3, 0, 1)


def test_hoc_sentence_records_with_multi_hot_labels_group_like_the_tsv(tmp_path, suite):
    """The same sentences as JSON lines with ten 0/1 labels (LinkBERT's layout) give the same abstracts."""
    d = tmp_path / "HoC"
    d.mkdir()
    with (RELEASES / "HoC" / "test.tsv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    lines = []
    for r in rows:
        hot = [0] * 10
        for pair in r["labels"].split(","):
            k, v = pair.split("_")
            hot[int(k)] = int(v)
        lines.append(json.dumps({"id": r["index"], "sentence": r["sentence"], "label": hot}))
    (d / "test.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    as_tsv = load_items(RELEASES / "HoC", suite)
    as_json = load_items(tmp_path, suite)
    assert as_json.problems == []
    tsv_items = [(i.id, i.input, i.targets) for i in as_tsv.items if i.split == "test"]
    assert [(i.id, i.input, i.targets) for i in as_json.items] == tsv_items
