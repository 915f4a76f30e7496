"""Items from files: find the data files, tell which task each belongs to, and build checked items.

A *loader* (registered by name; a suite or task names its own) turns one raw record into an `Item` or
raises `RecordError` naming the field. `load_items` walks a file or folder, decides each file's task
(from its folder or file name, or from a `task`/`scenario`/`dataset` field of each record) and split
(a `split` field, or a file named test/dev/train...), and collects the valid items and, for every
invalid record, its file, line, field and reason.

The `records` loader reads the documented generic format of a user's own benchmark (docs/SUITES.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from climedbench.core.registry import LOADERS
from climedbench.core.suite import Suite, Task
from climedbench.core.types import Item, Problem
from climedbench.data.encoding import check_utf8
from climedbench.data.readers import SUFFIXES, RawRecord, read_records
from climedbench.errors import DataError

DEMO_NAME = "bundled demo set"


class RecordError(ValueError):
    """One field of one record is invalid; `names` are the keys the field was looked up under (a table
    lacking every one of them as a column gets one error for the file); `line` when the fault is on a line of its
    own (e.g. one token of a sentence read from several lines), else the record's first line is reported."""

    def __init__(self, field: str | None, reason: str, names: tuple[str, ...] = (), line: int | None = None) -> None:
        super().__init__(reason)
        self.field, self.reason, self.line = field, reason, line
        self.names = names or ((field,) if field else ())


@dataclass(frozen=True)
class RecordContext:
    """Where a record comes from: file, line, the split its file name gives, an id from a container key."""

    file: str
    line: int
    split: str | None = None
    id_hint: str | None = None

    @property
    def default_id(self) -> str:
        return self.id_hint or f"{Path(self.file).name}:{self.line}"


# -- field helpers shared by loaders -----------------------------------------------------------------

def get(record: dict[str, Any], *names: str) -> Any:
    """The first of `names` present with a non-empty value."""
    for name in names:
        if name in record and record[name] not in (None, "", [], {}):
            return record[name]
    return None


def text(value: Any, field: str) -> str:
    """A text field: strings and numbers as text; a list joined with '; '."""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if isinstance(value, (str, int, float)):
        return str(value)
    raise RecordError(field, f"expected text, got {type(value).__name__}")


def required_text(record: dict[str, Any], field: str, *names: str) -> str:
    """A non-empty text field (looked up under `names`, reported as `field`)."""
    value = get(record, *(names or (field,)))
    if value is None:
        raise RecordError(field, "missing", names or (field,))
    out = text(value, field).strip()
    if not out:
        raise RecordError(field, "empty")
    return out


def string_list(value: Any, field: str) -> list[str]:
    """A list of strings from a JSON list, a JSON-encoded list, a Python-literal list ("['a', 'b']") or a
    ';'/newline-separated string."""
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("["):
            try:
                value = json.loads(s)
            except json.JSONDecodeError:
                import ast

                try:
                    value = ast.literal_eval(s)
                except (ValueError, SyntaxError) as e:
                    raise RecordError(field, f"not a readable list: {s[:60]!r}") from e
        else:
            value = [p for p in re.split(r"\s*[;；\n|]\s*", s) if p]
    if not isinstance(value, (list, tuple)):
        raise RecordError(field, f"expected a list, got {type(value).__name__}")
    return [str(v).strip() for v in value if str(v).strip()]


def letter_options(value: Any, field: str = "options") -> dict[str, str]:
    """Options keyed by letter from {'A': ...}, a list (A, B, C … in order) or a JSON string of either."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise RecordError(field, "expected a JSON object {'A': ...} or a list") from e
    if isinstance(value, (list, tuple)):
        return {chr(ord("A") + i): str(v).strip() for i, v in enumerate(value)}
    if isinstance(value, dict):
        return {str(k).strip().upper(): str(v).strip() for k, v in value.items()}
    raise RecordError(field, f"expected an object {{'A': ...}} or a list, got {type(value).__name__}")


def check_options(options: dict[str, str], field: str = "options") -> None:
    """At least two options, lettered A, B, C … in order, none empty."""
    if len(options) < 2:
        raise RecordError(field, f"found {len(options)} option(s); expected at least 2")
    expected = "".join(chr(ord("A") + i) for i in range(len(options)))
    if "".join(options) != expected:
        raise RecordError(field, f"option letters are {''.join(options)}; expected {expected}")
    empty = [k for k, v in options.items() if not v]
    if empty:
        raise RecordError(field, f"option {empty[0]} has no text")


def choice_letter(value: Any, options: dict[str, str], field: str, *, index_base: int | None = None) -> str:
    """The gold letter from a letter ('C', '(C)', 'c'), an option index (with `index_base` 0 or 1), or the
    option's exact text."""
    letters = "".join(options)
    if isinstance(value, bool):
        raise RecordError(field, f"expected an option letter ({'/'.join(letters)}), got {value!r}")
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit() and index_base is not None):
        if index_base is None:
            raise RecordError(field, f"expected an option letter ({'/'.join(letters)}), got the number {value}")
        k = int(value) - index_base
        if not 0 <= k < len(letters):
            raise RecordError(field, f"option index {value} is out of range for {len(letters)} options "
                                     f"({index_base}-based)")
        return letters[k]
    s = str(value).strip()
    bare = s.strip("()（）[]【】 .。:：").upper()
    if len(bare) == 1 and bare in letters:
        return bare
    for letter, option in options.items():
        if s == option:
            return letter
    raise RecordError(field, f"{s[:40]!r} is not one of the option letters {'/'.join(letters)} or an option's text")


def split_of(record: dict[str, Any], ctx: RecordContext) -> str:
    """A record's split: its own 'split' field, else its file's, else test."""
    raw = str(get(record, "split") or ctx.split or "test").strip().lower()
    aliases = {"validation": "dev", "valid": "dev", "val": "dev", "development": "dev", "devel": "dev"}
    raw = aliases.get(raw, raw)
    if raw not in ("test", "dev", "train"):
        raise RecordError("split", f"must be 'test', 'dev' or 'train', got {raw!r}")
    return raw


def meta_of(record: dict[str, Any], used: set[str]) -> dict[str, Any]:
    """The record's fields no loader step consumed (kept on the item, never shown to the model)."""
    return {k: v for k, v in record.items() if k not in used}


# -- loaders ------------------------------------------------------------------------------------------

class Loader:
    """Turns the records of one task's files into items. Subclasses implement `build`; they may also read
    a file format of their own (`read`)."""

    name: ClassVar[str] = ""
    # File suffixes this loader reads besides the generic ones (e.g. CoNLL '.txt').
    extra_suffixes: ClassVar[tuple[str, ...]] = ()

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        """The raw records of one file."""
        return read_records(path, shown)

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item | None:
        """One checked item; None for a record the task leaves out (e.g. an MMLU subject outside the medical
        ones); RecordError for an invalid one."""
        raise NotImplementedError


COMMON_FIELDS = {"id", "item_id", "qid", "uid", "task", "scenario", "dataset", "split", "input", "question",
                 "context", "options", "choices", "answer", "targets", "reference", "prompt", "rationale",
                 "explanation", "specialty", "source", "synthetic", "cluster"}


def item_extras(record: dict[str, Any]) -> dict[str, Any]:
    """rationale, specialty, source, synthetic: kept on the item for the data card and audits; cluster: the items
    sharing a source record (their intervals resample clusters)."""
    synthetic = get(record, "synthetic")
    if isinstance(synthetic, str):
        synthetic = synthetic.strip().lower() in ("1", "true", "yes")
    rationale = get(record, "rationale", "explanation")
    return {
        "rationale": str(rationale) if rationale is not None else None,
        "specialty": str(get(record, "specialty")) if get(record, "specialty") is not None else None,
        "source": str(get(record, "source")) if get(record, "source") is not None else None,
        "synthetic": bool(synthetic) if synthetic is not None else None,
        "cluster": str(get(record, "cluster")) if get(record, "cluster") not in (None, "") else None,
    }


class RecordsLoader(Loader):
    """The generic record format (docs/SUITES.md): id, input (or question), optional context and options,
    and the gold in the task's answer shape — `answer` (letter, letters, order, label), `targets` (a list:
    keywords, entities, labels) or `reference` (free text)."""

    name = "records"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        question = required_text(record, "input", "input", "question")
        context = get(record, "context")
        options: dict[str, str] = {}
        if get(record, "options", "choices") is not None:
            options = letter_options(get(record, "options", "choices"))
        answer: str | None = None
        targets: list[str] | None = None
        reference = text(get(record, "reference") or "", "reference").strip()
        kind = task.answer
        if kind in ("single", "multi", "order"):
            check_options(options)
            raw = get(record, "answer")
            if raw is None:
                raise RecordError("answer", "missing")
            if kind == "single":
                answer = choice_letter(raw, options, "answer")
            else:
                letters = "".join(string_list(raw, "answer")) if isinstance(raw, list) else str(raw)
                letters = re.sub(r"[\s,，、;；>→\-]+", "", letters).upper()
                if any(c not in options for c in letters) or len(set(letters)) != len(letters):
                    raise RecordError("answer", f"{raw!r} is not a set of distinct option letters "
                                                f"({'/'.join(options)})")
                if kind == "order" and sorted(letters) != sorted(options):
                    raise RecordError("answer", f"{raw!r} is not an order of all the letters {''.join(options)}")
                answer = letters if kind == "order" else "".join(sorted(letters))
        elif kind == "label":
            raw = get(record, "answer")
            if raw is None:
                raise RecordError("answer", "missing")
            answer = label_of(raw, task, "answer")
        elif kind in ("labels", "entities", "keywords"):
            raw = get(record, "targets", "answer")
            if raw is None:
                raise RecordError("targets", "missing")
            targets = string_list(raw, "targets")
            if kind == "labels":
                targets = sorted({label_of(t, task, "targets") for t in targets})
            if kind == "keywords" and not targets:
                raise RecordError("targets", "no keywords")
        elif kind == "text" and not reference:
            raise RecordError("reference", "missing")
        return Item(
            id=str(get(record, "id", "item_id", "qid", "uid") or ctx.default_id),
            task=task.code, split=split_of(record, ctx),  # type: ignore[arg-type]
            input=question, context=text(context, "context") if context is not None else None,
            options=options, answer=answer, targets=targets, reference=reference,
            prompt=str(get(record, "prompt")) if get(record, "prompt") else None,
            meta=meta_of(record, COMMON_FIELDS), file=ctx.file, line=ctx.line, **item_extras(record),
        )


LOADERS.add("records", RecordsLoader())


def label_of(value: Any, task: Task, field: str) -> str:
    """One of the task's labels, matched case-insensitively."""
    labels = task.labels or ()
    s = str(value).strip()
    for lab in labels:
        if s.lower() == lab.lower():
            return lab
    raise RecordError(field, f"{s[:40]!r} is not one of the labels {', '.join(labels)}")


# -- walking files ------------------------------------------------------------------------------------

@dataclass
class LoadReport:
    """Valid items and the problems found, per task."""

    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    left_out: int = 0  # valid records a task does not use (e.g. MMLU subjects outside the medical ones)

    def valid_counts(self, split: str | None = "test") -> dict[str, int]:
        """Number of valid items per task code (for one split, or all when None)."""
        return dict(Counter(i.task for i in self.items if split is None or i.split == split))

    def as_json(self, suite: Suite) -> dict[str, Any]:
        """The report in the `validate --json` shape."""
        counts = self.valid_counts(None)
        by_split = {s: self.valid_counts(s) for s in ("test", "dev", "train")}
        return {
            "suite": suite.suite,
            "valid": {c: counts[c] for c in suite.codes if c in counts},
            "splits": {c: {s: by_split[s][c] for s in by_split if c in by_split[s]} for c in suite.codes
                       if c in counts},
            "invalid": [p.model_dump(include={"file", "line", "field", "reason", "task"}) for p in self.problems],
        }

    def raise_if_invalid(self, limit: int = 20) -> None:
        """Refuse invalid data: one DataError listing every problem (the first `limit` in full)."""
        if not self.problems:
            return
        lines = [str(p) for p in self.problems[:limit]]
        more = len(self.problems) - limit
        if more > 0:
            lines.append(f"… and {more} more (run `climedbench validate` for the full list)")
        raise DataError(f"{len(self.problems)} invalid record(s); fix them or pass --skip-invalid:\n  "
                        + "\n  ".join(lines))

    def tests(self) -> list[Item]:
        return [i for i in self.items if i.split == "test"]

    def devs(self) -> list[Item]:
        """Items that may serve as few-shot examples: the dev split, then train."""
        return [i for i in self.items if i.split == "dev"] + [i for i in self.items if i.split == "train"]


def demo_dir(suite: Suite) -> Path:
    """The folder holding a suite's bundled demo set."""
    if suite.demo_dir is None:
        raise DataError(f"suite {suite.suite} has no bundled demo set; give --data PATH")
    return suite.demo_dir


def _suffixes(suite: Suite) -> tuple[str, ...]:
    extra: set[str] = set()
    for name in {t.loader or suite.loader for t in suite.tasks}:
        loader = LOADERS.get(name)
        extra.update(getattr(loader, "extra_suffixes", ()))
    return SUFFIXES + tuple(sorted(extra))


def data_files(path: Path, suite: Suite) -> list[Path]:
    """The data files under `path` (a file or a folder, searched recursively)."""
    suffixes = _suffixes(suite)
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes
                       and not p.name.startswith("."))
        if not found:
            raise DataError(f"{path}: no data files in this folder (looked for {', '.join(suffixes)})")
        return found
    if not path.exists():
        raise DataError(f"{path}: no such file or folder")
    if path.suffix.lower() not in suffixes:
        raise DataError(f"{path}: unsupported file type {path.suffix!r} (use {', '.join(suffixes)})")
    return [path]


def task_of_file(f: Path, base: Path, suite: Suite) -> tuple[Task | None, str | None]:
    """The task a file belongs to, from its name or a folder between `base` and it, and the split its name
    gives ('exam-qa/test.jsonl', 'ward1.dev.jsonl', 'exam-qa/dev.json')."""
    parts = f.name.split(".")[:-1]
    # Folders between the data root and the file, the root itself last ('validate exam-qa/' names the task); for a
    # single file, the folder it sits in ('exam-qa/dev.json').
    rel_dirs = [base.name, *f.relative_to(base).parts[:-1]] if base.is_dir() else [f.parent.name]
    task: Task | None = None
    for name in [*parts[:1], *reversed(rel_dirs), *parts[1:], f.stem]:
        task = suite.lookup(name)
        if task is not None:
            break
    split = None
    if task is not None:
        for name in [*parts, f.stem]:
            split = task.split_of(name)
            if split:
                break
    else:
        for name in [*parts, f.stem]:
            low = name.lower()
            if low in ("test", "dev", "train", "validation", "valid", "val"):
                split = {"validation": "dev", "valid": "dev", "val": "dev"}.get(low, low)
                break
    return task, split


def _record_task(data: dict[str, Any], rec: RawRecord, suite: Suite) -> Task:
    # The official CliMedBench pages use 'task' for a description and 'code' for the scenario: the first of
    # these fields that names a known task wins.
    named = [(f, data[f]) for f in ("task", "scenario", "dataset", "code") if data.get(f) not in (None, "")]
    if rec.task_hint is not None:
        named.append(("task", rec.task_hint))
    if not named:
        raise RecordError("task", "missing (no 'task'/'scenario' field, and neither the file nor its folder "
                                  f"is named after a task of {suite.title}: {', '.join(suite.codes)})",
                          ("task", "scenario", "dataset", "code"))
    for _field, code in named:
        found = suite.lookup(str(code))
        if found is not None:
            return found
    raise RecordError(named[0][0], f"unknown task {named[0][1]!r}; known: {', '.join(suite.codes)}")


def load_items(path: str | Path | None, suite: Suite, tasks: list[str] | None = None) -> LoadReport:
    """Read and check every record under `path` (None: the suite's bundled demo set); with `tasks`, only
    the records of those task codes are checked and kept."""
    report = LoadReport()
    report.items.extend(iter_items(path, suite, tasks, report))
    return report


def iter_items(path: str | Path | None, suite: Suite, tasks: list[str] | None, report: LoadReport) -> Iterator[Item]:
    """load_items as a stream: each valid item as it is read (problems, sources and left-outs go to `report`),
    so a run need not hold every item at once."""
    base = demo_dir(suite) if path is None else Path(path).expanduser()
    only = set(tasks) if tasks else None
    seen: dict[tuple[str, str, str], str] = {}
    for f in data_files(base, suite):
        rel = f.relative_to(base).as_posix() if base.is_dir() else f.name
        shown = f"{DEMO_NAME}/{rel}" if path is None else str(f)
        file_task, file_split = task_of_file(f, base, suite)
        if only is not None and file_task is not None and file_task.code not in only:
            continue
        report.sources.append(shown)
        reader = LOADERS.get((file_task.loader if file_task else None) or suite.loader)
        # A column the table lacks: one problem for the file (at its header), not one per row.
        no_column: dict[tuple[str, ...], tuple[RawRecord, str | None, str, int]] = {}
        for rec in _read(reader, f, shown, file_task):
            if rec.data is None:
                report.problems.append(Problem(file=rec.file, line=rec.line, field=None,
                                               reason=rec.error or "unreadable",
                                               task=file_task.code if file_task else None))
                continue
            task: Task | None = file_task
            try:
                if task is None:
                    task = _record_task(rec.data, rec, suite)
                if only is not None and task.code not in only:
                    continue
                loader = LOADERS.get(task.loader or suite.loader)
                ctx = RecordContext(rec.file, rec.line, file_split, rec.id_hint)
                built = loader.build(rec.data, task, ctx)  # type: ignore[attr-defined]
            except RecordError as e:
                if e.reason.startswith("missing") and rec.columns is not None and not set(e.names) & set(rec.columns):
                    first = no_column.get(e.names)
                    no_column[e.names] = (*first[:3], first[3] + 1) if first else (
                        rec, task.code if task else None, e.reason, 1)
                    continue
                rid = get(rec.data, "id", "item_id", "qid", "uid") or rec.id_hint
                report.problems.append(Problem(file=rec.file, line=e.line or rec.line, field=e.field, reason=e.reason,
                                               task=task.code if task else None,
                                               id=str(rid) if rid is not None else None))
                continue
            if built is None:
                report.left_out += 1
                continue
            item = built
            key = (item.task, item.split, item.id)
            if key in seen:
                report.problems.append(Problem(
                    file=rec.file, line=rec.line, field="id", task=item.task, id=item.id,
                    reason=f"duplicate id {item.id!r} in {item.task} ({item.split}); first at {seen[key]}"))
                continue
            seen[key] = f"{rec.file}:{rec.line}"
            yield item
        for names, (rec, code, reason, rows) in no_column.items():
            wanted = " or ".join(repr(n) for n in names)
            detail = reason.removeprefix("missing").strip().removeprefix("(").removesuffix(")")
            report.problems.append(Problem(
                file=rec.file, line=None, field=None, task=code,
                reason=f"no column {wanted} (columns: {', '.join(rec.columns or ())}); {rows} row(s) unread"
                       + (f": {detail}" if detail else "")))


def _read(reader: Any, f: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
    """The loader's records of one file; a loader reading a format of its own that meets a byte that is not
    UTF-8 gets the same one-line message as the generic readers (from data/encoding.py)."""
    try:
        yield from reader.read(f, shown, task)
    except UnicodeDecodeError:
        check = check_utf8(f, shown)
        if check.file_error is not None:
            yield RawRecord(shown, check.file_error[0], None, check.file_error[1])
        elif check.bad:
            first = check.bad[min(check.bad)]
            yield RawRecord(shown, first.line, None, first.reason(rest_read=False))
        else:  # pragma: no cover - the loader decoded with another codec than UTF-8
            yield RawRecord(shown, 1, None, "not UTF-8 text")
