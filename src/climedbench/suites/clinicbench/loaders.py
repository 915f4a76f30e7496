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
                                             "synthetic", "specialty", "cluster"}),
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
        letter = choice_letter(gold, options, field)
        text_answer = get(record, "answer")
        if field == "answer_idx" and isinstance(text_answer, str) and len(text_answer.strip()) > 1 \
                and " ".join(text_answer.split()) != " ".join(options[letter].split()):
            raise RecordError("answer", f"{text_answer.strip()[:40]!r} is not the text of option {letter} "
                                        f"(answer_idx), which is {options[letter][:40]!r}")
        return _item(task, ctx, record, {"question", "options", "answer_idx", "answer", "sent1", "choices"},
                     input=question, options=options, answer=letter)


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
        header = _mmlu_header(rows[0]) if rows else None
        for n, row in enumerate(rows, start=1):
            if not row or (header is not None and n == 1):
                continue
            if header is not None:  # a re-exported CSV with a header row (question, A, B, C, D, answer)
                row = [row[k] if k < len(row) else "" for k in header]
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


def _mmlu_header(row: list[str]) -> list[int] | None:
    """Column positions of question, A, B, C, D and answer when `row` is a header row (a CSV re-exported with
    pandas or a spreadsheet, possibly with an index column first); None for the original header-less files."""
    names = [c.strip().lower() for c in row]
    question = next((names.index(n) for n in ("question", "input", "prompt") if n in names), None)
    answer = next((names.index(n) for n in ("answer", "target", "label") if n in names), None)
    letters = [names.index(n) if n in names else None for n in ("a", "b", "c", "d")]
    if question is None or answer is None or None in letters:
        return None
    return [question, *letters, answer]  # type: ignore[list-item]


def _label_map(path: Path) -> dict[str, str] | None:
    """{PMID: label} when `path` is a PubMedQA answer file (test_ground_truth.json: an object of strings)."""
    import json

    if path.suffix.lower() != ".json":
        return None
    try:
        top = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if isinstance(top, dict) and top and all(isinstance(v, str) for v in top.values()):
        return {str(k): v for k, v in top.items()}
    return None


class PubMedQALoader(Loader):
    """ori_pqal.json (PMID → record). When an answer file (test_ground_truth.json, PMID → label) sits beside it,
    its PMIDs are the official test split (500 of PQA-L's 1,000) and the other records are train (shots); without
    one, every record is test. The answer file itself yields no items; its labels must agree with the records'."""

    name = "pubmedqa"

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        if _label_map(path) is not None:
            siblings = [p for p in sorted(path.parent.glob("*.json")) if p != path and _label_map(p) is None]
            if not siblings:
                yield RawRecord(shown, 1, None, "a PubMedQA answer file (PMID → label) without the records it labels: "
                                                "put ori_pqal.json beside it")
            return
        answers: dict[str, str] = {}
        for other in sorted(path.parent.glob("*.json")):
            if other != path:
                answers.update(_label_map(other) or {})
        for rec in read_records(path, shown):
            if answers and rec.data is not None and rec.id_hint is not None:
                split = "test" if rec.id_hint in answers else "train"
                rec.data = {**rec.data, "split": split}
                if split == "test":
                    rec.data["_answer_file_label"] = answers[rec.id_hint]
            yield rec

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "QUESTION", "QUESTION", "question")
        contexts = get(record, "CONTEXTS", "contexts", "context")
        if contexts is None:
            raise RecordError("CONTEXTS", "missing")
        context = " ".join(string_list(contexts, "CONTEXTS")) if not isinstance(contexts, str) else contexts
        gold = get(record, "final_decision", "answer")
        if gold is None:
            raise RecordError("final_decision", "missing")
        listed = record.get("_answer_file_label")
        if listed is not None and str(listed).strip().lower() != str(gold).strip().lower():
            raise RecordError("final_decision", f"{gold!r}, but the answer file beside it says {listed!r}")
        return _item(task, ctx, record, {"QUESTION", "CONTEXTS", "final_decision", "question", "context",
                                         "contexts", "answer", "_answer_file_label"},
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
        bad = [k for k, t in enumerate(str_tags) if not _TAG.match(t.strip())]
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
        return _item(task, ctx, record, {"sentence", "label", "text", "answer", "index"}, input=sentence,
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
        return _item(task, ctx, record, {"text", "document", "abstract", "sentence", "labels", "label"}, input=doc,
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
