"""ClinicBench's question-answering loaders: `medqa` (jind11/MedQA JSONL, also Hugging Face/BigBio option lists),
`medmcqa` (the MedMCQA release, JSON or Parquet), `mmlu` (MMLU's medical subjects, Hugging Face records or the
original header-less CSV) and `pubmedqa` (PubMedQA's ori_pqal.json layout); registered by
:mod:`climedbench.suites.clinicbench.loaders`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.data.loaders import (
    Loader,
    RecordContext,
    RecordError,
    check_options,
    choice_letter,
    get,
    label_of,
    letter_options,
    required_text,
    string_list,
)
from climedbench.data.readers import RawRecord, read_records
from climedbench.suites.clinicbench.records import SPLIT_KEYS, make_item


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
        return make_item(task, ctx, record, {"question", "options", "answer_idx", "answer", "sent1", "choices"},
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
        return make_item(task, ctx, record, {"question", "opa", "opb", "opc", "opd", "cop", "exp"},
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
        return make_item(task, ctx, record, {"question", "choices", "answer", "options"}, input=question,
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
        return make_item(task, ctx, record, {"QUESTION", "CONTEXTS", "final_decision", "question", "context",
                                         "contexts", "answer", "_answer_file_label"},
                     input=question, context=context, answer=label_of(gold, task, "final_decision"),
                     rationale=str(get(record, "LONG_ANSWER") or "") or None)
