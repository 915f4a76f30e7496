"""None of the above: replace the text of the correct option of every single-answer item.

Where the options live in their own field (`options`/`choices`, a mapping, a list or a JSON string), the
correct entry is replaced. Where they are written inside the input (CliMedBench's `## 选项:` section), the
body of the correct option's label is replaced in place, everything else of the text kept. Either way the
record is loaded again and must give the same item with only that option's text changed; otherwise a
DataError names the file and line. Items of other answer kinds are copied unchanged.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from climedbench.core.registry import LOADERS
from climedbench.core.suite import Suite, Task
from climedbench.core.types import Item
from climedbench.data.loaders import DEMO_NAME, RecordContext, RecordError, _record_task, task_of_file
from climedbench.data.readers import RawRecord
from climedbench.errors import DataError
from climedbench.perturb import NOTA_MANIFEST, _load, source_folder, verify_same_items
from climedbench.perturb.files import RecordRef, rewrite_tree

OPTION_SECTIONS = ("选项", "备选答案", "答案选项")


def _replace_in_text(text: str, letter: str, new: str) -> str | None:
    """The text with the body of option `letter` in its options section replaced (None if not found)."""
    from climedbench.suites.climedbench.loader import _HEADER, _LABEL_RES, normalize_text

    text = normalize_text(text) if "\\n" in text else text
    headers = list(_HEADER.finditer(text))
    for i, m in enumerate(headers):
        if m.group(1).strip() not in OPTION_SECTIONS:
            continue
        start, end = m.end(), headers[i + 1].start() if i + 1 < len(headers) else len(text)
        block = text[start:end]
        offset = start
        lead = len(block) - len(block.lstrip())
        if block[lead:lead + 1] in "\"“":
            lead += 1
        pos = lead
        labels: list[tuple[str, int, int]] = []
        for code in range(ord("A"), ord("Z") + 1):
            found = _LABEL_RES[chr(code)].search(block, pos)
            if found is None:
                break
            labels.append((chr(code), found.start(), found.end()))
            pos = found.end()
        for j, (lab, _, body_start) in enumerate(labels):
            if lab != letter:
                continue
            body_end = labels[j + 1][1] if j + 1 < len(labels) else len(block)
            body = block[body_start:body_end]
            core = body.strip()
            core = re.sub(r"[\"”」』]\s*$", "", core).strip()
            if not core:
                return None
            k = body.index(core)
            new_block = block[:body_start] + body[:k] + new + body[k + len(core):] + block[body_end:]
            return text[:offset] + new_block + text[end:]
    return None


def _replace_option(record: dict[str, Any], letter: str, new: str, field_names: tuple[str, ...]) -> bool:
    for name in ("options", "choices"):
        value = record.get(name)
        if value in (None, ""):
            continue
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                replaced = _replace_in_text("## 选项: " + value, letter, new)
                if replaced is None:
                    return False
                record[name] = replaced[len("## 选项: "):]
                return True
            as_string = True
        else:
            as_string = False
        index = ord(letter) - ord("A")
        if isinstance(value, dict):
            keys = {str(k).strip().upper(): k for k in value}
            if letter not in keys:
                return False
            value = {**value, keys[letter]: new}
        elif isinstance(value, list) and 0 <= index < len(value):
            value = [new if i == index else v for i, v in enumerate(value)]
        else:
            return False
        record[name] = json.dumps(value, ensure_ascii=False) if as_string else value
        return True
    for name in field_names:
        if isinstance(record.get(name), str):
            replaced = _replace_in_text(record[name], letter, new)
            if replaced is not None:
                record[name] = replaced
                return True
    return False


def nota_data(data: str | None, out: Path, suite: Suite, *, text: str | None = None) -> dict[str, Any]:
    """Write the none-of-the-above copy of `data` into `out`; returns the manifest."""
    from climedbench.perturb.nota_text import NOTA_TEXT, is_nota

    new = text or NOTA_TEXT.get(suite.language, NOTA_TEXT["en"])
    src = source_folder(data, suite)
    before = _load(src, data, suite)
    counts: dict[str, dict[str, int]] = {}

    def edit(record: dict[str, Any], ref: RecordRef) -> dict[str, Any]:
        path = src / ref.file if src.is_dir() else src
        file_task, split = task_of_file(path, src, suite)
        shown = f"{data or DEMO_NAME}/{ref.file}" if src.is_dir() else str(src)
        try:
            task = file_task or _record_task(record, RawRecord(shown, ref.index, record, task_hint=ref.task_hint),
                                             suite)
        except RecordError as e:
            raise DataError(f"{shown}:{ref.index}: field '{e.field}': {e.reason}") from e
        c = counts.setdefault(task.code, {"replaced": 0, "already_none_of_the_above": 0, "not_single": 0})
        if task.answer != "single":
            c["not_single"] += 1
            return record
        ctx = RecordContext(shown, ref.index, split, ref.id_hint)
        item = _build(task, record, ctx, suite)
        assert item.answer is not None
        if is_nota(item.options[item.answer]):
            c["already_none_of_the_above"] += 1
        changed = dict(record)
        if not _replace_option(changed, item.answer, new, ("input", "input_zh", "text", "content", "question",
                                                           "question_zh")):
            raise DataError(f"{shown}:{ref.index}: field 'options': cannot find option {item.answer}'s text to replace")
        again = _build(task, changed, ctx, suite)
        expected = {**item.options, item.answer: new}
        if again.options != expected or again.answer != item.answer:
            raise DataError(f"{shown}:{ref.index}: field 'options': replacing option {item.answer} changed the item "
                            "in another way; please report this with the record")
        c["replaced"] += 1
        return changed

    files = rewrite_tree(src, out, edit)
    after = _load(out, str(out), suite)
    verify_same_items(before, after, out)
    manifest = {"text": new, "source": data or DEMO_NAME, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "tasks": counts, "files": files}
    (out / NOTA_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return manifest


def _build(task: Task, record: dict[str, Any], ctx: RecordContext, suite: Suite) -> Item:
    loader = LOADERS.get(task.loader or suite.loader)
    try:
        return loader.build(record, task, ctx)  # type: ignore[attr-defined]
    except RecordError as e:
        raise DataError(f"{ctx.file}:{ctx.line}: field '{e.field}': {e.reason}") from e
