"""The sample browser's data: every item of every run, compact enough for 33,735 items × several models.

Per task the page holds one small *index* (item ids, each run's score and status: what filtering needs) and
*blocks* of `block_size` items with the texts (item input, reference, each run's prompt when it was logged,
raw response, extracted answer, extraction rule, error). Each is UTF-8 JSON, gzip-compressed and base64-encoded
into an inert `<script type="application/octet-stream">` element; the page decodes (DecompressionStream) only
the index of the task shown and the blocks of the page shown. Within a block every distinct string is stored
once and referred to by number, so an item's input, shared by every run of the same data, costs one copy.

Item texts come from each run's data, read again (once per distinct data set); when the data cannot be read
any more, the browser shows the responses without the inputs and says so.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from typing import Any

from climedbench.analyses.runs import Run
from climedbench.core.suite import Suite
from climedbench.core.types import Item, Sample
from climedbench.errors import DataError
from climedbench.report.leaderboard import label_of
from climedbench.report.page import RunInfo, SampleBrowser, SampleTask
from climedbench.report.tables import metric_label
from climedbench.secrets import redact

BLOCK_SIZE = 100  # the default of build_page too
# Status codes of an item in a run (the index's `status`): what the filters read.
ANSWERED, NO_ANSWER, ERROR, MISSING = 0, 1, 2, 3


def pack(data: Any, level: int = 6) -> tuple[str, int]:
    """base64(gzip(UTF-8 JSON)) and the JSON's size in bytes. mtime=0: the same data gives the same text."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=level, mtime=0)).decode("ascii"), len(raw)


def unpack(text: str) -> Any:
    """The inverse of `pack` (what the page does with DecompressionStream)."""
    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def item_text(item: Item) -> str:
    """What the item shows the model: its context, its input, and its options when the input lacks them."""
    parts = []
    if item.context:
        parts.append(item.context)
    parts.append(item.input)
    if item.options and not all(text in item.input for text in item.options.values()):
        parts.append("\n".join(f"{k}. {v}" for k, v in item.options.items()))
    return "\n\n".join(parts)


def answer_text(value: Any) -> str | None:
    """A gold or extracted answer as text: letters as they are, lists joined with '; '."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(answer_text(v) or "" for v in value)
    return json.dumps(value, ensure_ascii=False)


def prompt_text(sample: Sample) -> str | None:
    """The logged messages (`run --log-prompts`), one block per turn; None when they were not logged."""
    if not sample.messages:
        return None
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in sample.messages)


def status_of(sample: Sample | None) -> int:
    if sample is None:
        return MISSING
    if sample.error:
        return ERROR
    return NO_ANSWER if sample.extraction_failure else ANSWERED


def run_items(runs: list[Run]) -> tuple[list[dict[str, Item] | None], list[str]]:
    """Each run's items by uid, read again from its data (each distinct data set once), and notes on runs whose
    data is gone or changed."""
    from climedbench.data.hashing import data_hash
    from climedbench.data.loaders import DEMO_NAME, load_items

    cache: dict[tuple[str | None, str, tuple[str, ...]], tuple[dict[str, Item] | None, str | None]] = {}
    out: list[dict[str, Item] | None] = []
    notes: list[str] = []
    for run in runs:
        spec = run.spec
        key = (spec.data, run.suite.source, tuple(spec.tasks))
        if key not in cache:
            try:
                report = load_items(None if spec.data == DEMO_NAME else spec.data, run.suite, spec.tasks or None)
                cache[key] = ({i.uid: i for i in report.items}, data_hash(report.items))
            except (DataError, OSError):
                cache[key] = (None, None)
        items, digest = cache[key]
        if items is None:
            notes.append(f"{run.path}: its data ({spec.data}) cannot be read any more; its items are shown "
                         "without their inputs.")
        elif spec.data_sha256 and digest != spec.data_sha256:
            notes.append(f"{run.path}: its data ({spec.data}) changed since the run (content sha256 {digest}, the "
                         f"run was made on {spec.data_sha256}); the inputs shown may differ from what the model saw.")
        out.append(items)
    return out, notes


class _Strings:
    """A block's string table: each distinct string once; -1 for none."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.values: list[str] = []

    def __call__(self, text: str | None) -> int:
        if text is None or text == "":
            return -1
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.values)
            self.values.append(text)
        return found


def _block(uids: list[str], runs: list[dict[str, Sample]], items: list[dict[str, Item] | None]) -> dict[str, Any]:
    s = _Strings()
    block: dict[str, Any] = {"input": [], "reference": [], "gold": [], "prompt": [], "raw": [], "extracted": [],
                             "method": [], "reason": [], "error": []}
    references: list[int] = []
    for uid in uids:
        ref = None
        for its in items:
            item = its.get(uid) if its is not None else None
            if item is not None and item.reference:
                ref = item.reference
                break
        references.append(s(ref))
    block["reference"] = references
    for samples, its in zip(runs, items, strict=True):
        cols: dict[str, list[int]] = {k: [] for k in block if k != "reference"}
        for uid in uids:
            sample = samples.get(uid)
            item = its.get(uid) if its is not None else None
            cols["input"].append(s(item_text(item)) if item is not None else -1)
            if sample is None:
                for k in ("gold", "prompt", "raw", "extracted", "method", "reason", "error"):
                    cols[k].append(-1)
                continue
            cols["gold"].append(s(answer_text(sample.gold)))
            cols["prompt"].append(s(prompt_text(sample)))
            cols["raw"].append(s(sample.raw))
            cols["extracted"].append(s(answer_text(sample.extracted)))
            cols["method"].append(s(sample.extraction_method))
            cols["reason"].append(s(sample.extraction_failure_reason))
            cols["error"].append(s(redact(sample.error) if sample.error else None))
        for k, v in cols.items():
            block[k].append(v)
    block["strings"] = s.values
    return block


def _ordered_uids(task: str, runs: Iterable[Run]) -> list[str]:
    """The task's items in the order of the first run that has them (plan order), then the others'."""
    seen: dict[str, None] = {}
    for run in runs:
        for uid, sample in run.samples.items():
            if sample.task == task:
                seen.setdefault(uid)
    return list(seen)


def build_samples(runs: list[Run], infos: list[RunInfo], suite: Suite, *, block_size: int = BLOCK_SIZE,
                  level: int = 6) -> SampleBrowser:
    """Index and text blocks of every task any run answered."""
    items, notes = run_items(runs)
    chunks: dict[str, str] = {}
    tasks: list[SampleTask] = []
    raw_bytes = 0
    present = {s.task for r in runs for s in r.samples.values()}
    for t_index, task in enumerate(t for t in suite.tasks if t.code in present):
        uids = _ordered_uids(task.code, runs)
        per_run = [{u: s for u, s in r.samples.items() if s.task == task.code} for r in runs]
        index = {
            "ids": [next(r[u].item_id for r in per_run if u in r) for u in uids],
            "score": [[round(r[u].score, 4) if u in r else None for u in uids] for r in per_run],
            "status": [[status_of(r.get(u)) for u in uids] for r in per_run],
        }
        index_id = f"s{t_index}-i"
        chunks[index_id], size = pack(index, level)
        raw_bytes += size
        block_ids = []
        for b, start in enumerate(range(0, len(uids), block_size)):
            block_id = f"s{t_index}-b{b}"
            chunks[block_id], size = pack(_block(uids[start:start + block_size], per_run, items), level)
            raw_bytes += size
            block_ids.append(block_id)
        tasks.append(SampleTask(code=task.code, label=label_of(suite, task.code), metric=metric_label(task.metric),
                                n=len(uids), index=index_id, blocks=block_ids, block_size=block_size))
    return SampleBrowser(runs=infos, tasks=tasks, chunks=chunks, raw_bytes=raw_bytes, notes=notes)
