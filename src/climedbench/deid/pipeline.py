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
from climedbench.deid.surrogates import Mode, Replacer, real_strings
from climedbench.errors import ConfigError

MANIFEST = "deid_manifest.json"
REPORT = "deid_report.json"
REVIEW = "deid_review.html"
# A note is flagged for a human look when a replaced value was found with low confidence or when it has unusually
# many replacements for its length (a table of names, a pasted contact list).
LOW_CONFIDENCE = 0.75
DENSE_PER_1000_CHARS = 25.0
# Notes a worker analyses at once, at most (spaCy takes them in batches of engine.SPACY_BATCH).
MAX_CHUNK = 64


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
    lang = detect_language(text) if language == "auto" else language
    return _replace(text, lang, analyzer.analyze(text, lang), patient, replacer, extra)


def deidentify_many(items: Sequence[tuple[str, str, Any]], analyzer: Analyzer, replacer: Replacer,
                    language: str = "auto") -> list[Any]:
    """`deidentify_text` of each (text, patient, extra) in order, analysed together (`Analyzer.analyze_batch`);
    fail closed: a note whose analysis or replacement raises gets the error's type name instead, and so does a note
    whose `extra` is one already (its model pass failed). When the batch's analysis raises, the notes are analysed
    one by one, so only the note that fails is withheld."""
    todo = [i for i, (_, _, extra) in enumerate(items) if not isinstance(extra, str)]
    answers: list[Any] = [extra if isinstance(extra, str) else None for _, _, extra in items]
    langs = [detect_language(items[i][0]) if language == "auto" else language for i in todo]
    try:
        found: list[Any] = analyzer.analyze_batch([items[i][0] for i in todo], langs)
    except Exception:
        found = [None] * len(todo)
    for i, lang, spans in zip(todo, langs, found, strict=True):
        text, patient, extra = items[i]
        try:
            spans = analyzer.analyze(text, lang) if spans is None else spans
            answers[i] = _replace(text, lang, spans, patient, replacer, extra)
        except Exception as e:  # the caller withholds the note; the message could quote the note, so only the type
            answers[i] = type(e).__name__
    return answers


def _replace(text: str, lang: str, spans: list[Span], patient: str, replacer: Replacer,
             extra: Sequence[Span]) -> tuple[str, str, list[Span], list[tuple[int, int, str, str]]]:
    from presidio_analyzer import RecognizerResult
    from presidio_anonymizer.entities import OperatorConfig

    if extra:
        spans = merge(spans + list(extra))
    if not spans:
        return text, lang, spans, []
    # Presidio's anonymizer applies one custom operator per type; spans were merged, so none overlap.
    real = real_strings(text[s.start:s.end] for s in spans)  # no surrogate may print one of them (replace_avoiding)
    operators = {e: OperatorConfig("custom", {"lambda": lambda v, e=e: replacer.replace_avoiding(e, v, patient, lang,
                                                                                                real)})
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
        # File names can hold names too (张三_入院记录.txt): their stems go through the same detectors, in the same
        # workers, after the notes.
        stems = list(dict.fromkeys(_stem(part)[0] for rel, _, _ in loaded for part in Path(rel).parts))
        answers = self._answer_all(work + [(stem, stem, ()) for stem in stems], progress)
        names = {stem: _name_answer(answer) for stem, answer in zip(stems, answers[len(work):], strict=True)}
        replacer = Replacer(self.salt, self.mode)
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
            out_rel = _output_name(rel, names)
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
        The notes go in chunks (analysed together, see `deidentify_many`); with several workers the chunks are
        spread over processes, each with its own analyzer, and come back in order. Every surrogate is a keyed hash
        of the value (and the patient), never a count of what came before, so the output is the same byte for byte
        whatever the number of workers or the size of the chunks."""
        setup = (self.config, self.salt, self.mode, self.ner, self.language)
        workers = 1 if len(work) < 2 * self.workers else self.workers
        size = max(1, min(MAX_CHUNK, -(-len(work) // (4 * workers))))  # four chunks a worker or more: they even out
        chunks = [work[i:i + size] for i in range(0, len(work), size)]
        if workers <= 1:
            _init_worker(*setup)
            return _gather(map(_deid_chunk, chunks), progress)
        import multiprocessing

        if _can_fork(self.model is None):
            # The analyzer is built and warmed up once, here, and the workers are forked from this process: they
            # share its loaded pipelines, gazetteers and dictionaries instead of each loading its own.
            _init_worker(*setup)
            _deid_chunk(WARM_UP)
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                return _gather(pool.imap(_deid_chunk, chunks), progress)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(workers, initializer=_init_pool_worker, initargs=setup) as pool:
            return _gather(pool.imap(_deid_chunk, chunks), progress)

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
# A note of each language, analysed before the workers are forked, so that what loads on first use (jieba's
# dictionaries, the gazetteers' patterns) is loaded once; its answers are thrown away.
WARM_UP = [("Seen by Dr. Alan Smith at Lakeview Hospital on 03/04/2021, MRN 1234567.", "warm-up", ()),
           ("患者张三，男，45岁，2021年3月4日入住北京市朝阳区医院，电话13800138000。", "warm-up", ())]


def _can_fork(only_deid: bool) -> bool:
    """Fork the workers from this process (Linux, and nothing but de-identification ran in it: a model pass may have
    left threads of its own, which a fork does not copy); else spawn fresh ones, each loading its analyzer."""
    import multiprocessing
    import sys
    import threading

    return only_deid and sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods() and \
        threading.active_count() == 1


def _init_worker(config: DeidConfig, salt: bytes, mode: Mode, ner: bool, language: str) -> None:
    _WORKER.update(analyzer=Analyzer(config, ner=ner), replacer=Replacer(salt, mode), language=language)


def _gather(answered: Any, progress: Any) -> list[Any]:
    out: list[Any] = []
    for answers in answered:
        out += answers
        if progress is not None:
            progress(len(out))
    return out


# What a worker never uses but Presidio and spaCy import when it is installed (Presidio's Hugging Face engine imports
# transformers; thinc imports torch): two thirds of a worker's start-up, 9.2 → 3.8 CPU seconds (docs/DEID.md).
_UNUSED_IN_WORKERS = ("torch", "transformers")


def hide_unused_modules() -> None:
    """For a process that only de-identifies (a worker, the command's own process without --model): an import of
    the modules it never uses raises ImportError from now on, which Presidio and thinc take as "not installed";
    nothing if they were imported already."""
    import sys

    for name in _UNUSED_IN_WORKERS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def _init_pool_worker(config: DeidConfig, salt: bytes, mode: Mode, ner: bool, language: str) -> None:
    hide_unused_modules()
    _init_worker(config, salt, mode, ner, language)


def _deid_chunk(items: list[tuple[str, str, Any]]) -> list[Any]:
    return deidentify_many(items, _WORKER["analyzer"], _WORKER["replacer"], _WORKER["language"])


def _stem(part: str) -> tuple[str, str]:
    """A file or folder name's stem (what is de-identified) and the rest (its suffix and dot)."""
    stem, dot, suffix = part.rpartition(".") if "." in part else (part, "", "")
    return stem, dot + suffix


def _name_answer(answer: Any) -> str:
    if isinstance(answer, str):  # fail closed: a file name that cannot be de-identified stops the run
        raise RuntimeError(f"a file name could not be de-identified ({answer}); nothing more is written")
    return str(answer[0])


def _output_name(rel: str, names: dict[str, str]) -> str:
    """The file's path with each part's stem de-identified (`names`: the stems' de-identified forms)."""
    return str(Path(*(names[_stem(part)[0]].replace("/", "_") + _stem(part)[1] for part in Path(rel).parts)))


def require_deidentified(folder: Path, already: bool = False) -> None:
    """For commands that read notes: refuse a folder that `climedbench deid` did not write, unless told otherwise."""
    if already or (folder / MANIFEST).exists() or (folder.parent / MANIFEST).exists():
        return
    raise ConfigError(f"{folder}: these notes did not go through `climedbench deid` (no {MANIFEST}); de-identify "
                      f"them first, or pass --already-deidentified if your institution already did")
