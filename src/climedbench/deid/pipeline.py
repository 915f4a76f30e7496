"""`climedbench deid`: every note analysed, its PHI replaced, written in the input's layout, and a report.

Fails closed: a note whose analysis or replacement raises is withheld from the output (its record or file is not
written) and listed in the report by a keyed hash with the error's type, never its text. The report holds counts per
type and detector, flags for a human look and keyed hashes of each replaced value, never PHI. A manifest
(`deid_manifest.json`) marks the output folder as de-identified for the commands that read notes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from climedbench.deid.detectors import Span
from climedbench.deid.engine import Analyzer, DeidConfig, detect_language, merge
from climedbench.deid.model_pass import ModelPass
from climedbench.deid.notes import Note, Options, Record, find_files, iter_notes, read_file, write_file
from climedbench.deid.surrogates import Mode, Replacer
from climedbench.errors import ConfigError

MANIFEST = "deid_manifest.json"
REPORT = "deid_report.json"
REVIEW = "deid_review.html"
# A note is flagged for a human look when a replaced value was found with low confidence or when it has unusually
# many replacements for its length (a table of names, a pasted contact list).
LOW_CONFIDENCE = 0.75
DENSE_PER_1000_CHARS = 25.0


@dataclass
class NoteResult:
    note: Note
    output: str
    language: str
    spans: list[Span]
    replaced: list[tuple[int, int, str, str]]  # (start, end, type, replacement) in the output text
    flags: list[str] = field(default_factory=list)


@cache
def _anonymizer() -> Any:
    from presidio_anonymizer import AnonymizerEngine

    return AnonymizerEngine()


def deidentify_text(text: str, patient: str, analyzer: Analyzer, replacer: Replacer, language: str = "auto",
                    extra: Sequence[Span] = ()) -> tuple[str, str, list[Span], list[tuple[int, int, str, str]]]:
    """(de-identified text, language, spans found in the input, replaced spans in the output). `extra`: spans another
    detector (the model pass) found, united with the rules' spans."""
    from presidio_analyzer import RecognizerResult
    from presidio_anonymizer.entities import OperatorConfig

    lang = detect_language(text) if language == "auto" else language
    spans = analyzer.analyze(text, lang)
    if extra:
        spans = merge(spans + list(extra))
    if not spans:
        return text, lang, spans, []
    # Presidio's anonymizer applies one custom operator per type; spans were merged, so none overlap.
    operators = {e: OperatorConfig("custom", {"lambda": lambda v, e=e: replacer.replace(e, v, patient, lang)})
                 for e in {s.entity for s in spans}}
    result = _anonymizer().anonymize(
        text=text, analyzer_results=[RecognizerResult(s.entity, s.start, s.end, s.score) for s in spans],
        operators=operators)
    replaced = sorted((i.start, i.end, i.entity_type, i.text) for i in result.items)
    return result.text, lang, spans, replaced


def _flags(res: NoteResult) -> list[str]:
    flags = []
    low = sum(1 for s in res.spans if s.score < LOW_CONFIDENCE)
    if low:
        flags.append(f"low-confidence:{low}")
    chars = max(len(res.note.text), 1)
    density = 1000 * len(res.spans) / chars
    if density > DENSE_PER_1000_CHARS and len(res.spans) >= 5:
        flags.append(f"dense:{density:.0f}/1000")
    if not res.spans and len(res.note.text) > 200:
        flags.append("nothing-found")
    return flags


@dataclass
class DeidRun:
    input: Path
    out: Path
    salt: bytes
    mode: Mode = "surrogate"
    language: str = "auto"
    config: DeidConfig = field(default_factory=DeidConfig)
    options: Options = field(default_factory=Options)
    review: bool = False
    workers: int = 1
    ner: bool = True
    model: ModelPass | None = None  # a second detector whose spans are added to the rules' (never trusted alone)

    def run(self, progress: Any = None) -> dict[str, Any]:
        started = time.perf_counter()
        root = self.input if self.input.is_dir() else self.input.parent
        files = find_files(self.input)
        loaded = []
        work: list[tuple[str, str, Any]] = []
        for path in files:
            rel = str(path.relative_to(root))
            kind, records = read_file(path, rel, self.options)
            loaded.append((rel, kind, records))
            work += [(note.text, note.patient, ()) for _, _, note in iter_notes(records)]
        if self.model is not None:
            work = self._model_pass(work)
        answers = self._answer_all(work, progress)
        replacer = Replacer(self.salt, self.mode)
        analyzer = None
        results: list[NoteResult] = []
        withheld: list[dict[str, str]] = []
        written, k = 0, 0
        for rel, kind, records in loaded:
            bad_records = set()
            for record, col, note in iter_notes(records):
                answer = answers[k]
                k += 1
                if isinstance(answer, str):  # fail closed: the note is withheld, never passed through
                    withheld.append({"id": replacer.value_hash(note.doc_id), "where_hash": replacer.value_hash(
                        note.where), "error": answer})
                    bad_records.add(id(record))
                    continue
                text, lang, spans, replaced = answer
                record.fields[col] = text
                res = NoteResult(note, text, lang, spans, replaced)
                res.flags = _flags(res)
                results.append(res)
            kept = [r for r in records if id(r) not in bad_records]
            if not kept:
                continue
            if kind == "note":
                kept[0].fields = {"text": kept[0].fields.get("text", "")}
            else:
                for record in kept:
                    record.fields = self._keep_fields(record, replacer)
            if analyzer is None:
                analyzer = Analyzer(self.config, ner=self.ner)
            out_rel = self._output_name(rel, analyzer, replacer)
            write_file(self.out / out_rel, kind, kept, list(kept[0].fields) if kind != "note" else [])
            written += 1
        report = self._report(results, withheld, replacer, time.perf_counter() - started, len(files), written)
        (self.out / REPORT).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
        manifest = {"deidentified_by": "climedbench deid", "mode": self.mode, "config": self.config.digest,
                    "model_pass": self.model.spec if self.model else None,
                    "notes": len(results), "withheld": len(withheld), "report": REPORT}
        (self.out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if self.review:
            from climedbench.deid.review import write_review

            write_review(self.out / REVIEW, results, replacer)
        return report

    def _model_pass(self, work: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
        """Each note with the spans the model found (or the reason its model pass failed, which withholds it)."""
        import asyncio

        from climedbench.deid.model_pass import model_spans

        assert self.model is not None
        notes = [(text, detect_language(text) if self.language == "auto" else self.language) for text, _, _ in work]
        found = asyncio.run(model_spans(self.model, notes))
        return [(text, patient, extra) for (text, patient, _), extra in zip(work, found, strict=True)]

    def _answer_all(self, work: list[tuple[str, str, Any]], progress: Any) -> list[Any]:
        """Each note's (text, language, spans, replaced), or the name of the error that withheld it; in order.
        With several workers the notes are spread over processes, each with its own analyzer."""
        setup = (self.config, self.salt, self.mode, self.ner, self.language)
        if self.workers <= 1 or len(work) < 2 * self.workers:
            _init_worker(*setup)
            out = []
            for i, item in enumerate(work, start=1):
                out.append(_deid_one(item))
                if progress is not None:
                    progress(i)
            return out
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # fork would copy a half-initialised spaCy into each worker
        with ctx.Pool(self.workers, initializer=_init_worker, initargs=setup) as pool:
            out = []
            for i, answer in enumerate(pool.imap(_deid_one, work, chunksize=8), start=1):
                out.append(answer)
                if progress is not None:
                    progress(i)
        return out

    def _keep_fields(self, record: Record, replacer: Replacer) -> dict[str, object]:
        o = self.options
        fields: dict[str, object] = {}
        raw = record.fields
        fields[o.id_column] = raw[o.id_column] if o.keep_ids else replacer.value_hash(str(raw[o.id_column]))
        if o.patient_column and o.patient_column in raw:
            fields[o.patient_column] = raw[o.patient_column] if o.keep_ids else replacer.value_hash(
                str(raw[o.patient_column]))
        for col in o.text_columns:
            fields[col] = raw.get(col)
        for col in o.keep_columns:
            if col in raw:
                fields[col] = raw[col]
        return fields

    def _output_name(self, rel: str, analyzer: Analyzer, replacer: Replacer) -> str:
        """File names can hold names too (张三_入院记录.txt): they go through the same detectors."""
        parts = []
        for part in Path(rel).parts:
            stem, dot, suffix = part.rpartition(".") if "." in part else (part, "", "")
            new, _, _, _ = deidentify_text(stem, stem, analyzer, replacer, self.language)
            parts.append(new.replace("/", "_") + dot + suffix)
        return str(Path(*parts))

    def _report(self, results: list[NoteResult], withheld: list[dict[str, str]], replacer: Replacer,
                seconds: float, files: int, written: int) -> dict[str, Any]:
        totals: Counter[str] = Counter()
        detectors: Counter[str] = Counter()
        per_doc = []
        for r in results:
            counts = Counter(s.entity for s in r.spans)
            dets = Counter(d for s in r.spans for d in s.detector.split("+"))
            totals.update(counts)
            detectors.update(dets)
            per_doc.append({
                "id": replacer.value_hash(r.note.doc_id), "language": r.language, "chars": len(r.note.text),
                "counts": dict(sorted(counts.items())), "detectors": dict(sorted(dets.items())), "flags": r.flags,
                "spans": [{"type": s.entity, "start": s.start, "end": s.end, "score": round(s.score, 2),
                           "detector": s.detector, "hash": replacer.value_hash(r.note.text[s.start:s.end])}
                          for s in r.spans],
            })
        return {
            "tool": "climedbench deid", "mode": replacer.mode, "language": self.language,
            "config": {"source": self.config.source, "digest": self.config.digest},
            "salt_id": hashlib.sha256(replacer.digest("salt-id")).hexdigest()[:12],
            "files": files, "files_written": written, "notes": len(results), "withheld": withheld,
            "totals": dict(sorted(totals.items())), "detectors": dict(sorted(detectors.items())),
            "needs_review": [d["id"] for d in per_doc if d["flags"]], "seconds": round(seconds, 2),
            "documents": per_doc,
        }


_WORKER: dict[str, Any] = {}


def _init_worker(config: DeidConfig, salt: bytes, mode: Mode, ner: bool, language: str) -> None:
    _WORKER.update(analyzer=Analyzer(config, ner=ner), replacer=Replacer(salt, mode), language=language)


def _deid_one(item: tuple[str, str, Any]) -> Any:
    text, patient, extra = item
    if isinstance(extra, str):  # the model pass failed on this note: withheld, like any detector's failure
        return extra
    try:
        return deidentify_text(text, patient, _WORKER["analyzer"], _WORKER["replacer"], _WORKER["language"], extra)
    except Exception as e:  # the caller withholds the note; the message could quote the note, so only the type
        return type(e).__name__


def require_deidentified(folder: Path, already: bool = False) -> None:
    """For commands that read notes: refuse a folder that `climedbench deid` did not write, unless told otherwise."""
    if already or (folder / MANIFEST).exists() or (folder.parent / MANIFEST).exists():
        return
    raise ConfigError(f"{folder}: these notes did not go through `climedbench deid` (no {MANIFEST}); de-identify "
                      f"them first, or pass --already-deidentified if your institution already did")
