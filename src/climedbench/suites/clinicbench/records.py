"""What the ClinicBench loaders share: split names used as JSON keys, and the Item made from a record (its id,
split, the fields a loader used kept out of its meta)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.data.loaders import Loader, RecordContext, get, item_extras, meta_of, split_of
from climedbench.data.readers import RawRecord, read_records

SPLIT_KEYS = {"test": "test", "dev": "dev", "validation": "dev", "valid": "dev", "val": "dev", "train": "train"}


def make_item(task: Task, ctx: RecordContext, record: dict[str, Any], used: set[str], **fields: Any) -> Item:
    rid = get(record, "id", "uid", "qid", "study_id", "document_id", "idx", "index") or ctx.default_id
    extras = item_extras(record)
    extras.update({k: v for k, v in fields.items() if k in extras})
    rest = {k: v for k, v in fields.items() if k not in extras}
    return Item(id=str(rid), task=task.code, split=split_of(record, ctx),  # type: ignore[arg-type]
                meta=meta_of(record, used | {"split", "id", "uid", "qid", "rationale", "explanation", "source",
                                             "synthetic", "specialty", "cluster"}),
                file=ctx.file, line=ctx.line, **extras, **rest)


class SplitKeyed(Loader):
    """Reads JSON whose top-level keys name splits ({"test": [...], "train": [...]}) as split hints."""

    def read(self, path: Path, shown: str, task: Task | None) -> Iterator[RawRecord]:
        for rec in read_records(path, shown):
            if rec.task_hint is not None and rec.task_hint.lower() in SPLIT_KEYS and rec.data is not None:
                rec.data = {**rec.data, "split": SPLIT_KEYS[rec.task_hint.lower()]}
                rec.task_hint = None
            yield rec
