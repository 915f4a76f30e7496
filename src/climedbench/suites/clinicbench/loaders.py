"""Loaders for the ClinicBench datasets in the forms users have them.

Each loader reads one public release format (see docs/CLINICBENCH.md for where each dataset comes from); all are
registered here, the four question-answering ones (medqa, medmcqa, mmlu, pubmedqa) are written in qa_loaders.py:

- `medqa`: jind11/MedQA JSONL (question, options {A: …}, answer_idx; also Hugging Face/BigBio option lists);
- `medmcqa`: the MedMCQA release (question, opa–opd, cop: 1–4 in the JSON release, 0–3 in the Parquet one);
- `mmlu`: MMLU's medical subjects as Hugging Face records (question, subject, choices, answer 0–3) or the
  original header-less CSV (question, A, B, C, D, answer letter);
- `pubmedqa`: PubMedQA's ori_pqal.json layout (PMID → QUESTION, CONTEXTS, final_decision);
- `cxr_reports`: findings → impression records (the ClinicBench repository's MIMIC-CXR and IU-Xray JSON);
- `hospitalization`: the repository's Hospitalization-Summarization.json (instruct → answer);
- `patient_education`: the repository's Patient-Education.csv (discharge_summary → discharge_instruction);
- `treatment`: the repository's Treatment-Recommendation.csv (disease, symptoms → common medications);
- `iob`: BLURB IOB TSV (token<TAB>tag, blank line between sentences) or records with tokens and ner_tags;
- `blurb_re`: BLURB relation TSV (index, sentence with @DRUG$/@GENE$/@DISEASE$, label);
- `hoc`: Hallmarks of Cancer documents with their labels (names, abbreviations, or BLURB 'name_1' pairs);
- `pharmacology_qa`: the repository's Pharmacology-QA.xlsx (question, option_A–D, answer);
- `drug_interaction`: the repository's Drug-Interaction-for-Emerging-Drugs.csv (question, yes/no).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from climedbench.core.registry import LOADERS
from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.data.iob import BIO_TAG, spans
from climedbench.data.loaders import (
    Loader,
    RecordContext,
    RecordError,
    check_options,
    choice_letter,
    get,
    label_of,
    required_text,
    split_of,
    string_list,
    text,
)
from climedbench.data.readers import RawRecord, read_records
from climedbench.suites.clinicbench.qa_loaders import MedMCQALoader, MedQALoader, MMLULoader, PubMedQALoader
from climedbench.suites.clinicbench.records import SplitKeyed, make_item


class CXRLoader(SplitKeyed):
    name = "cxr_reports"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        findings = required_text(record, "findings", "findings")
        impression = required_text(record, "impression", "impression")
        return make_item(task, ctx, record, {"findings", "impression"}, input=findings, reference=impression)


class HospitalizationLoader(SplitKeyed):
    name = "hospitalization"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        note = required_text(record, "instruct", "instruct", "input", "text")
        summary = required_text(record, "answer", "answer", "output", "summary", "reference")
        return make_item(task, ctx, record, {"instruct", "answer", "input", "output", "text", "summary", "reference"},
                     input=note, reference=summary)


class PatientEducationLoader(Loader):
    name = "patient_education"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        summary = required_text(record, "discharge_summary", "discharge_summary")
        instruction = required_text(record, "discharge_instruction", "discharge_instruction")
        return make_item(task, ctx, record, {"discharge_summary", "discharge_instruction"}, input=summary,
                     reference=re.sub(r"\[\s*\.\.\.\s*\]", "", instruction).strip())


class TreatmentLoader(Loader):
    name = "treatment"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        disease = required_text(record, "disease", "disease")
        symptoms = string_list(get(record, "Symptom", "symptoms") or [], "Symptom")
        meds = get(record, "commonMedications", "medications")
        if meds is None:
            raise RecordError("commonMedications", "missing")
        targets = string_list(meds, "commonMedications")
        if not targets:
            raise RecordError("commonMedications", "empty list")
        shown = f"Disease: {disease}" + (f"\nSymptoms: {', '.join(symptoms)}" if symptoms else "")
        return make_item(task, ctx, record, {"disease", "Symptom", "commonMedications"}, input=shown,
                     targets=targets)


class IOBLoader(Loader):
    """BLURB IOB files: one 'token<TAB>tag' per line, sentences separated by blank lines (`.tsv`, `.txt`, `.iob`,
    `.conll`); or JSONL/Parquet records with `tokens` and `ner_tags` (0 = O, 1 = B, 2 = I, as Hugging Face's)."""

    name = "iob"
    extra_suffixes: ClassVar[tuple[str, ...]] = (".txt", ".iob", ".conll")

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        if path.suffix.lower() not in (".tsv", ".txt", ".iob", ".conll"):
            yield from read_records(path, shown)
            return
        tokens: list[str] = []
        tags: list[str] = []
        rows: list[int] = []
        index = 0
        with path.open(encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
        for n, line in enumerate([*lines, ""], start=1):
            if not line.strip() or line.startswith("-DOCSTART-"):
                if tokens:
                    yield RawRecord(shown, rows[0], {"tokens": tokens, "tags": tags, "index": index,
                                                     "_lines": rows})
                    index += 1
                tokens, tags, rows = [], [], []
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            if len(parts) < 2:
                yield RawRecord(shown, n, None, f"expected 'token<TAB>tag', got {line[:40]!r}")
                tokens, tags, rows = [], [], []
                continue
            tokens.append(parts[0])
            tags.append(parts[-1])
            rows.append(n)

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        tokens = record.get("tokens")
        tags = record.get("tags", record.get("ner_tags"))
        if not isinstance(tokens, list) or not tokens:
            raise RecordError("tokens", "missing or empty")
        if not isinstance(tags, list) or len(tags) != len(tokens):
            raise RecordError("tags", f"expected one tag per token ({len(tokens)})")
        names = {0: "O", 1: "B", 2: "I"}
        str_tags = [names.get(t, "?") if isinstance(t, int) else str(t) for t in tags]
        bad = [k for k, t in enumerate(str_tags) if not BIO_TAG.match(t.strip())]
        if bad:
            rows = record.get("_lines")
            raise RecordError("tags", f"{str_tags[bad[0]]!r} is not a BIO tag (B, I, O, B-TYPE, I-TYPE)",
                              line=rows[bad[0]] if isinstance(rows, list) and len(rows) == len(tags) else None)
        return Item(id=str(get(record, "id") or f"{Path(ctx.file).stem}:{ctx.line}"), task=task.code,
                    split=split_of(record, ctx),  # type: ignore[arg-type]
                    input=" ".join(str(t) for t in tokens), targets=spans([str(t) for t in tokens], str_tags),
                    meta={"index": record.get("index", 0), "tokens": tokens, "tags": str_tags},
                    file=ctx.file, line=ctx.line)


class BlurbRELoader(Loader):
    """BLURB relation TSV: index, sentence (entities masked as @DRUG$, @GENE$, @DISEASE$), label; labels are mapped
    through `loader_options.label_map` (GAD: 1 → yes, 0 → no)."""

    name = "blurb_re"

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        """With a header row (index/sentence/label, BLUE and BioBERT test files) as named columns; without one
        (BLURB's DDI/GAD files: id<TAB>sentence<TAB>label; BioBERT's train files: sentence<TAB>label) by position.
        A file is header-less unless its first line names a 'sentence' column."""
        if path.suffix.lower() != ".tsv":
            yield from read_records(path, shown)
            return
        with path.open(encoding="utf-8-sig", newline="") as fh:
            first = fh.readline()
        if "sentence" in [c.strip().lower() for c in first.rstrip("\r\n").split("\t")]:
            yield from read_records(path, shown)
            return
        with path.open(encoding="utf-8-sig", newline="") as fh:
            for n, line in enumerate(fh, start=1):
                row = line.rstrip("\r\n").split("\t")
                if not line.strip():
                    continue
                if len(row) == 3:
                    yield RawRecord(shown, n, {"index": row[0], "sentence": row[1], "label": row[2]})
                elif len(row) == 2:
                    yield RawRecord(shown, n, {"sentence": row[0], "label": row[1]})
                else:
                    yield RawRecord(shown, n, None, f"expected 3 tab-separated fields (id, sentence, label) or 2 "
                                                    f"(sentence, label), got {len(row)}")

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        sentence = required_text(record, "sentence", "sentence", "text")
        raw = get(record, "label", "answer")
        if raw is None:
            raise RecordError("label", "missing")
        mapping = {str(k): str(v) for k, v in task.loader_options.get("label_map", {}).items()}
        label = label_of(mapping.get(str(raw).strip(), raw), task, "label")
        return make_item(task, ctx, record, {"sentence", "label", "text", "answer", "index"}, input=sentence,
                     answer=label)


# BLUE/BLURB number the hallmarks in this order ('3_1' = enabling replicative immortality); LinkBERT's utils_hoc.py.
HOC_NUMBERED = ("activating invasion and metastasis", "avoiding immune destruction", "cellular energetics",
                "enabling replicative immortality", "evading growth suppressors", "genomic instability and mutation",
                "inducing angiogenesis", "resisting cell death", "sustaining proliferative signaling",
                "tumor promoting inflammation")
_SENTENCE_ID = re.compile(r"^(?P<doc>.+)_s\d+$")


def _hoc_labels(raw: Any, task: Task) -> list[str]:
    """Hallmark names from a list, a ';'/','-separated string, abbreviations (`label_aliases`), BLURB pairs
    ('name_1', '9_1': kept; '…_0': not), or a multi-hot list of ten 0/1 in BLURB's order."""
    if isinstance(raw, list) and len(raw) == len(HOC_NUMBERED) and all(v in (0, 1) and not isinstance(v, bool)
                                                                       for v in raw):
        raw = [f"{k}_{v}" for k, v in enumerate(raw)]
    items = raw if isinstance(raw, list) else [p for p in re.split(r"\s*[;,]\s*", str(raw)) if p.strip()]
    labels: set[str] = set()
    for entry in items:
        s = str(entry).strip()
        m = re.fullmatch(r"(.+)_([01])", s)
        if m:
            if m.group(2) == "0":
                continue
            s = m.group(1)
            if s.isdigit():
                if int(s) >= len(HOC_NUMBERED):
                    raise RecordError("labels", f"hallmark number {s} is out of range 0–{len(HOC_NUMBERED) - 1}")
                s = HOC_NUMBERED[int(s)]
        labels.add(_canonical_label(s, task, "labels"))
    return sorted(labels)


class HoCLoader(Loader):
    """Documents with their hallmark labels (see `_hoc_labels`). BLURB's sentence-level files (labels, sentence,
    index 'PMID_sN') are read at abstract level, as BLURB scores HoC: the sentences of one PMID joined in order,
    their labels unioned; the item's line is its first sentence's. A row whose index has no '_sN' suffix is a
    document of its own."""

    name = "hoc"

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        docs: dict[str, RawRecord] = {}
        for rec in read_records(path, shown):
            data = rec.data
            sid = str(get(data, "index", "id") or "") if data is not None else ""
            m = _SENTENCE_ID.match(sid)
            if data is None or m is None or get(data, "sentence") is None:
                yield rec
                continue
            if task is not None:  # a bad label is reported on its own sentence's line
                try:
                    _hoc_labels(data.get("labels", data.get("label", "")), task)
                except RecordError as e:
                    yield RawRecord(rec.file, rec.line, None, f"field 'labels': {e.reason}")
                    continue
            doc = docs.get(m.group("doc"))
            if doc is None:
                doc = docs[m.group("doc")] = RawRecord(rec.file, rec.line, {"id": m.group("doc"), "sentences": [],
                                                                            "labels": []})
            assert doc.data is not None
            doc.data["sentences"].append(str(data["sentence"]))
            raw = data.get("labels", data.get("label", ""))
            if isinstance(raw, list) and len(raw) == len(HOC_NUMBERED) and all(v in (0, 1) for v in raw):
                raw = [f"{k}_{v}" for k, v in enumerate(raw)]
            doc.data["labels"] += raw if isinstance(raw, list) else [str(raw)]
        for doc in docs.values():
            assert doc.data is not None
            doc.data["text"] = " ".join(doc.data.pop("sentences"))
            doc.data["labels"] = ",".join(doc.data["labels"])
            yield doc

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        doc = required_text(record, "text", "text", "document", "abstract", "sentence")
        raw = record.get("labels", record.get("label"))
        if raw is None:
            raise RecordError("labels", "missing (an empty list is a document with no hallmark)")
        return make_item(task, ctx, record, {"text", "document", "abstract", "sentence", "labels", "label"}, input=doc,
                     targets=_hoc_labels(raw, task))


def _canonical_label(value: str, task: Task, field: str) -> str:
    low = value.strip().lower()
    for lab in task.labels or ():
        if low == lab.lower() or low in (a.lower() for a in task.label_aliases.get(lab, ())):
            return lab
    raise RecordError(field, f"{value[:50]!r} is not one of the task's labels or their aliases")


class PharmacologyQALoader(Loader):
    name = "pharmacology_qa"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "question")
        options = {}
        for letter in "ABCD":
            value = get(record, f"option_{letter}", f"option_{letter.lower()}")
            if value is None:
                raise RecordError(f"option_{letter}", "missing")
            options[letter] = text(value, f"option_{letter}").strip()
        check_options(options)
        gold = get(record, "answer")
        if gold is None:
            raise RecordError("answer", "missing")
        desc = get(record, "description")
        return make_item(task, ctx, record, {"question", "option_A", "option_B", "option_C", "option_D", "answer",
                                         "description"},
                     input=question, options=options, answer=choice_letter(gold, options, "answer"),
                     context=str(desc) if desc is not None else None)


class DrugInteractionLoader(Loader):
    name = "drug_interaction"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "question")
        gold = get(record, "answer")
        if gold is None:
            raise RecordError("answer", "missing")
        return make_item(task, ctx, record, {"question", "answer"}, input=question,
                         answer=label_of(gold, task, "answer"))


for _loader in (MedQALoader(), MedMCQALoader(), MMLULoader(), PubMedQALoader(), CXRLoader(), HospitalizationLoader(),
                PatientEducationLoader(), TreatmentLoader(), IOBLoader(), BlurbRELoader(), HoCLoader(),
                PharmacologyQALoader(), DrugInteractionLoader()):
    LOADERS.add(_loader.name, _loader)
