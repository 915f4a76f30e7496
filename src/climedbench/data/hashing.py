"""run.json's data_sha256: a short hash of the items' content (not where they were read from)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from climedbench.core.types import Item

# The item fields data_sha256 covers, in the order they were hashed when it was introduced. A field added to Item
# later joins the hash only when it is set, so existing run directories stay resumable and `score` keeps accepting
# their data; the shown (misleading) answer, once a field of Item and now in `meta`, is hashed where it was.
_HASHED = ("id", "task", "split", "input", "context", "options", "answer", "targets", "reference",
           "misleading_answer", "prompt", "rationale", "specialty", "source", "synthetic", "meta")


def _hashed_record(item: Item) -> str:
    import json

    d = item.model_dump(mode="json", exclude={"file", "line"})
    meta = dict(d.get("meta") or {})
    d["misleading_answer"] = meta.pop("misleading_answer", None)
    d["meta"] = meta
    record = {k: d.pop(k) for k in _HASHED}
    record.update({k: v for k, v in d.items() if v is not None})
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class DataHash:
    """data_hash fed one item at a time (a run streaming its items)."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()

    def add(self, item: Item) -> None:
        self._h.update(_hashed_record(item).encode())

    def hexdigest(self) -> str:
        return self._h.hexdigest()[:16]


def data_hash(items: Iterable[Item]) -> str:
    """A short sha256 of the items' content (not where they were read from): run.json's data_sha256."""
    h = DataHash()
    for item in items:
        h.add(item)
    return h.hexdigest()
