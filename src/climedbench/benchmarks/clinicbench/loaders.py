"""Loaders for the ClinicBench datasets in the forms users have them.

Each loader reads one public release format (see docs/CLINICBENCH.md for where each dataset comes from):

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
from climedbench.data.loaders import (
    Loader,
    RecordContext,
    RecordError,
    check_options,
    choice_letter,
    get,
    item_extras,
    label_of,
    letter_options,
    meta_of,
    required_text,
    split_of,
    string_list,
    text,
)
from climedbench.data.readers import RawRecord, read_records

SPLIT_KEYS = {"test": "test", "dev": "dev", "validation": "dev", "valid": "dev", "val": "dev", "train": "train"}


def _item(task: Task, ctx: RecordContext, record: dict[str, Any], used: set[str], **fields: Any) -> Item:
    rid = get(record, "id", "uid", "qid", "study_id", "document_id", "idx", "index") or ctx.default_id
    extras = item_extras(record)
    extras.update({k: v for k, v in fields.items() if k in extras})
    rest = {k: v for k, v in fields.items() if k not in extras}
    return Item(id=str(rid), task=task.code, split=split_of(record, ctx),  # type: ignore[arg-type]
                meta=meta_of(record, used | {"split", "id", "uid", "qid", "rationale", "explanation", "source",
                                             "synthetic", "specialty"}),
                file=ctx.file, line=ctx.line, **extras, **rest)


class _SplitKeyed(Loader):
    """Reads JSON whose top-level keys name splits ({"test": [...], "train": [...]}) as split hints."""

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        for rec in read_records(path, shown):
            if rec.task_hint is not None and rec.task_hint.lower() in SPLIT_KEYS and rec.data is not None:
                rec.data = {**rec.data, "split": SPLIT_KEYS[rec.task_hint.lower()]}
                rec.task_hint = None
            yield rec


class MedQALoader(Loader):
    name = "medqa"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "question", "question", "sent1")
        raw = get(record, "options", "choices")
        if raw is None:
            raise RecordError("options", "missing")
        if isinstance(raw, list) and raw and isinstance(raw[0], dict):  # BigBio: [{"key": "A", "value": …}]
            raw = {str(o.get("key")): o.get("value") for o in raw}
        options = letter_options(raw)
        check_options(options)
        gold = get(record, "answer_idx", "answer")
        if gold is None:
            raise RecordError("answer_idx", "missing")
        field = "answer_idx" if get(record, "answer_idx") is not None else "answer"
        return _item(task, ctx, record, {"question", "options", "answer_idx", "answer", "sent1", "choices"},
                     input=question, options=options, answer=choice_letter(gold, options, field))


class MedMCQALoader(Loader):
    """`cop` is 1-based in the JSON release (1 = opa) and 0-based in the Hugging Face Parquet release; the base is
    taken from the file type, or `loader_options: {cop_base: 0|1}`."""

    name = "medmcqa"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "question")
        opts = {}
        for letter, key in zip("ABCD", ("opa", "opb", "opc", "opd"), strict=True):
            opts[letter] = required_text(record, key)
        cop = record.get("cop")
        if cop in (None, ""):
            raise RecordError("cop", "missing")
        base = task.loader_options.get("cop_base", 0 if ctx.file.lower().endswith(".parquet") else 1)
        try:
            k = int(cop) - int(base)
        except (TypeError, ValueError):
            raise RecordError("cop", f"expected an option number, got {cop!r}") from None
        if not 0 <= k < 4:
            hint = " (a 0-based file? set loader_options cop_base: 0, or keep the Hugging Face release as Parquet)" \
                if int(cop) == 0 else ""
            raise RecordError("cop", f"{cop!r} is not an option number {base}–{int(base) + 3}{hint}")
        exp = get(record, "exp")
        return _item(task, ctx, record, {"question", "opa", "opb", "opc", "opd", "cop", "exp"},
                     input=question, options=opts, answer="ABCD"[k],
                     rationale=str(exp) if exp is not None else None)


MMLU_MEDICAL = ("anatomy", "clinical_knowledge", "college_biology", "college_medicine", "medical_genetics",
                "professional_medicine")


class MMLULoader(Loader):
    """Hugging Face records or the original header-less CSV; subjects outside `loader_options.subjects` (default:
    the six medical subjects) are left out."""

    name = "mmlu"

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        if path.suffix.lower() != ".csv":
            yield from read_records(path, shown)
            return
        import csv

        m = re.search(r"_(test|dev|val|validation|train)$", path.stem)
        subject = path.stem[: m.start()] if m else path.stem
        split = SPLIT_KEYS[m.group(1)] if m else None
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
        if rows and [c.strip().lower() for c in rows[0][:2]] == ["question", "subject"]:
            yield from read_records(path, shown)
            return
        for n, row in enumerate(rows, start=1):
            if not row:
                continue
            if len(row) != 6:
                yield RawRecord(shown, n, None, f"expected 6 columns (question, A, B, C, D, answer), got {len(row)}")
                continue
            rec: dict[str, Any] = {"question": row[0], "choices": row[1:5], "answer": row[5], "subject": subject}
            if split:
                rec["split"] = split
            yield RawRecord(shown, n, rec)

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item | None:
        subjects = task.loader_options.get("subjects", MMLU_MEDICAL)
        subject = str(get(record, "subject") or "")
        if subject and subject not in subjects:
            return None
        question = required_text(record, "question")
        options = letter_options(get(record, "choices", "options"), "choices")
        check_options(options, "choices")
        gold = get(record, "answer")
        if gold is None:
            raise RecordError("answer", "missing")
        return _item(task, ctx, record, {"question", "choices", "answer", "options"}, input=question,
                     options=options, answer=choice_letter(gold, options, "answer", index_base=0))


class PubMedQALoader(Loader):
    name = "pubmedqa"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "QUESTION", "QUESTION", "question")
        contexts = get(record, "CONTEXTS", "contexts", "context")
        if contexts is None:
            raise RecordError("CONTEXTS", "missing")
        context = " ".join(string_list(contexts, "CONTEXTS")) if not isinstance(contexts, str) else contexts
        gold = get(record, "final_decision", "answer")
        if gold is None:
            raise RecordError("final_decision", "missing")
        return _item(task, ctx, record, {"QUESTION", "CONTEXTS", "final_decision", "question", "context",
                                         "contexts", "answer"},
                     input=question, context=context, answer=label_of(gold, task, "final_decision"),
                     rationale=str(get(record, "LONG_ANSWER") or "") or None)


class CXRLoader(_SplitKeyed):
    name = "cxr_reports"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        findings = required_text(record, "findings", "findings")
        impression = required_text(record, "impression", "impression")
        return _item(task, ctx, record, {"findings", "impression"}, input=findings, reference=impression)


class HospitalizationLoader(_SplitKeyed):
    name = "hospitalization"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        note = required_text(record, "instruct", "instruct", "input", "text")
        summary = required_text(record, "answer", "answer", "output", "summary", "reference")
        return _item(task, ctx, record, {"instruct", "answer", "input", "output", "text", "summary", "reference"},
                     input=note, reference=summary)


class PatientEducationLoader(Loader):
    name = "patient_education"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        summary = required_text(record, "discharge_summary", "discharge_summary")
        instruction = required_text(record, "discharge_instruction", "discharge_instruction")
        return _item(task, ctx, record, {"discharge_summary", "discharge_instruction"}, input=summary,
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
        return _item(task, ctx, record, {"disease", "Symptom", "commonMedications"}, input=shown,
                     targets=targets)


_TAG = re.compile(r"^(?P<bio>[BIO])(?:-(?P<type>.+))?$", re.I)


def spans(tokens: list[str], tags: list[str]) -> list[str]:
    """Mention strings of BIO tags ('B', 'I', 'O' or 'B-Disease'…); an I without a B starts a mention."""
    out: list[str] = []
    current: list[str] = []
    for token, tag in zip(tokens, tags, strict=True):
        m = _TAG.match(tag.strip())
        bio = m.group("bio").upper() if m else "O"
        if bio == "B" or (bio == "I" and not current):
            if current:
                out.append(" ".join(current))
            current = [token]
        elif bio == "I":
            current.append(token)
        else:
            if current:
                out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return out


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
        start = 0
        index = 0
        with path.open(encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
        for n, line in enumerate([*lines, ""], start=1):
            if not line.strip() or line.startswith("-DOCSTART-"):
                if tokens:
                    yield RawRecord(shown, start, {"tokens": tokens, "tags": tags, "index": index})
                    index += 1
                tokens, tags = [], []
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            if len(parts) < 2:
                yield RawRecord(shown, n, None, f"expected 'token<TAB>tag', got {line[:40]!r}")
                tokens, tags = [], []
                continue
            if not tokens:
                start = n
            tokens.append(parts[0])
            tags.append(parts[-1])

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        tokens = record.get("tokens")
        tags = record.get("tags", record.get("ner_tags"))
        if not isinstance(tokens, list) or not tokens:
            raise RecordError("tokens", "missing or empty")
        if not isinstance(tags, list) or len(tags) != len(tokens):
            raise RecordError("tags", f"expected one tag per token ({len(tokens)})")
        names = {0: "O", 1: "B", 2: "I"}
        str_tags = [names.get(t, "?") if isinstance(t, int) else str(t) for t in tags]
        bad = [t for t in str_tags if not _TAG.match(t.strip())]
        if bad:
            raise RecordError("tags", f"{bad[0]!r} is not a BIO tag (B, I, O, B-TYPE, I-TYPE)")
        return Item(id=str(get(record, "id") or f"{Path(ctx.file).stem}:{ctx.line}"), task=task.code,
                    split=split_of(record, ctx),  # type: ignore[arg-type]
                    input=" ".join(str(t) for t in tokens), targets=spans([str(t) for t in tokens], str_tags),
                    meta={"index": record.get("index", 0), "tokens": tokens, "tags": str_tags},
                    file=ctx.file, line=ctx.line)


class BlurbRELoader(Loader):
    """BLURB relation TSV: index, sentence (entities masked as @DRUG$, @GENE$, @DISEASE$), label; labels are mapped
    through `loader_options.label_map` (GAD: 1 → yes, 0 → no)."""

    name = "blurb_re"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        sentence = required_text(record, "sentence", "sentence", "text")
        raw = get(record, "label", "answer")
        if raw is None:
            raise RecordError("label", "missing")
        mapping = {str(k): str(v) for k, v in task.loader_options.get("label_map", {}).items()}
        label = label_of(mapping.get(str(raw).strip(), raw), task, "label")
        return _item(task, ctx, record, {"sentence", "label", "text", "answer", "index"}, input=sentence,
                     answer=label)


class HoCLoader(Loader):
    """Documents with their hallmark labels: a list, a ';'/','-separated string, label abbreviations (the task's
    `label_aliases`), or BLURB's 'name_0/name_1' pairs (those marked 1 kept)."""

    name = "hoc"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        doc = required_text(record, "text", "text", "document", "abstract", "sentence")
        raw = record.get("labels", record.get("label"))
        if raw is None:
            raise RecordError("labels", "missing (an empty list is a document with no hallmark)")
        items = raw if isinstance(raw, list) else [p for p in re.split(r"\s*[;,]\s*", str(raw)) if p.strip()]
        labels: set[str] = set()
        for entry in items:
            s = str(entry).strip()
            m = re.fullmatch(r"(.+)_([01])", s)
            if m:
                if m.group(2) == "0":
                    continue
                s = m.group(1)
            labels.add(_canonical_label(s, task, "labels"))
        return _item(task, ctx, record, {"text", "document", "abstract", "sentence", "labels", "label"}, input=doc,
                     targets=sorted(labels))


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
        return _item(task, ctx, record, {"question", "option_A", "option_B", "option_C", "option_D", "answer",
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
        return _item(task, ctx, record, {"question", "answer"}, input=question, answer=label_of(gold, task, "answer"))


for _loader in (MedQALoader(), MedMCQALoader(), MMLULoader(), PubMedQALoader(), CXRLoader(), HospitalizationLoader(),
                PatientEducationLoader(), TreatmentLoader(), IOBLoader(), BlurbRELoader(), HoCLoader(),
                PharmacologyQALoader(), DrugInteractionLoader()):
    LOADERS.add(_loader.name, _loader)
