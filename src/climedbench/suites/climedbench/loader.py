"""The official CliMedBench item format: '## 标题:' sections, lettered options, prose references.

The `climedbench_official` loader turns one raw record (a dict from JSONL/JSON/CSV) into a checked
`Item`, or raises `RecordError` naming the field and the reason. It accepts every option-label and
section variant printed on the official example pages (see docs/DATA_FORMAT.md).
"""

from __future__ import annotations

import json
from typing import Any

from climedbench.core.registry import LOADERS
from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.data.loaders import Loader, RecordContext, RecordError, split_of
from climedbench.data.references import ReferenceError, reference_letter, reference_letters, reference_order
from climedbench.data.sections import LABEL_RES as _LABEL_RES
from climedbench.data.sections import normalize_text, parse_options, section, split_sections
from climedbench.extract import split_keyword_list

# Field aliases accepted on input, first match wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "item_id", "qid", "uid"),
    "scenario": ("scenario", "code", "task", "dataset"),
    "input": ("input", "input_zh", "text", "content"),
    "reference": ("reference", "output", "gold", "target"),
    "answer": ("answer", "answer_letter", "label"),
    "prompt": ("prompt", "prompt_zh", "instruction"),
    "split": ("split",),
    "options": ("options", "choices"),
    "question": ("question", "question_zh"),
    "rationale": ("rationale", "explanation", "analysis"),
    "specialty": ("specialty", "department"),
    "source": ("source",),
    "synthetic": ("synthetic",),
    "cluster": ("cluster", "case_id", "ehr_id"),
}
_KNOWN = {a for names in ALIASES.values() for a in names}


def options_block(text: str, shape: str) -> str | None:
    """Where the options of an item live: '## 选项', SSO's '## 遮挡文本', CPR's lettered events, or — when
    there is no options section — lettered options written inside another section such as '## 问题'
    (often as one quoted string: '## 问题: 上丘脑的结构是 "A: 丘脑枕 B: 灰结节 …"')."""
    for names in (("选项", "备选答案", "答案选项"), ("遮挡文本", "遮挡步骤")):
        body = section(text, *names)
        if body is not None:
            return body
    if shape == "order":
        return text
    for header, body in split_sections(text):
        if header == "参考答案":
            continue
        start = 0
        while (m := _LABEL_RES["A"].search(body, start)) is not None:
            if _LABEL_RES["B"].search(body, m.end()):
                return body[m.start():]
            start = m.end()
    return None


def _render_options(options: dict[str, str]) -> str:
    return "\n".join(f"{k}. {v}" for k, v in options.items())


def _coerce_options(raw: Any) -> dict[str, str]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return parse_options(raw)
    if isinstance(raw, list):
        return {chr(ord("A") + i): str(v).strip() for i, v in enumerate(raw)}
    if isinstance(raw, dict):
        return {str(k).strip().upper(): str(v).strip() for k, v in raw.items()}
    raise RecordError("options", f"expected an object {{'A': ...}} or a list, got {type(raw).__name__}")


def get(record: dict[str, Any], key: str) -> Any:
    """The value of a canonical field, looked up through its aliases."""
    for name in ALIASES[key]:
        if name in record and record[name] not in (None, ""):
            return record[name]
    return None


def _as_text(value: Any, field: str) -> str:
    if isinstance(value, list):
        return "；".join(str(v) for v in value)
    if isinstance(value, (str, int, float)):
        return str(value)
    raise RecordError(field, f"expected text, got {type(value).__name__}")


def split_keywords(reference: Any) -> list[str]:
    """Keywords from a list, a separated string, or the official run-together string (kept whole)."""
    if isinstance(reference, list):
        return [w for w in (str(x).strip() for x in reference) if w]
    return split_keyword_list(str(reference))


def _strict(parse: Any, text: str, letters: str, field: str) -> str:
    """A reference parsed strictly (climedbench.data.references); its error as a RecordError on `field`."""
    try:
        return str(parse(text, letters))
    except ReferenceError as e:
        raise RecordError(field, str(e)) from None


def build_item(record: dict[str, Any], scenario: Task, *, file: str, line: int,
               default_id: str, split: str | None = None) -> Item:
    """Check one raw record against its scenario and return the parsed item."""
    options: dict[str, str] = {}
    if get(record, "options") is not None:
        options = _coerce_options(get(record, "options"))
    text = _input_text(record, options)
    ref_raw = get(record, "reference")
    answer_raw = get(record, "answer")
    if ref_raw is None and answer_raw is None:
        raise RecordError("reference", "missing", ("reference", "answer"))
    reference = normalize_text(_as_text(ref_raw if ref_raw is not None else answer_raw, "reference"))
    if not reference:
        raise RecordError("reference", "empty")

    split = split_of(record, RecordContext(file, line, split))

    answer: str | None = None
    keywords: list[str] | None = None
    misleading: str | None = None
    if scenario.shape in ("single", "multi", "order"):
        options = _checked_options(text, scenario.shape, options)
        # an explicit 'answer' beside a reference decides (and must agree with the letter the reference names)
        explicit = None
        if answer_raw is not None and ref_raw is not None:
            explicit = _as_text(answer_raw, "answer").strip().upper() or None
        answer = _choice_answer(scenario.shape, reference, explicit, "".join(options))
        if scenario.loader_options.get("misleading_reference"):
            misleading = _misleading_answer(text, scenario, answer, "".join(options))
    elif scenario.shape == "keywords":
        keywords = split_keywords(ref_raw if isinstance(ref_raw, list) else reference)
        if not keywords:
            raise RecordError("reference", "no keywords")

    meta = {k: v for k, v in record.items() if k not in _KNOWN}
    if misleading is not None:
        meta["misleading_answer"] = misleading  # FIT's shown reference (suite.yaml: metric_options.shown_answer)
    prompt = get(record, "prompt")
    return Item(
        id=str(get(record, "id") or default_id),
        task=scenario.code,
        split=split,  # type: ignore[arg-type]
        input=text,
        options=options,
        answer=answer,
        reference=reference,
        targets=keywords,
        prompt=normalize_text(str(prompt)) if prompt else None,
        rationale=str(get(record, "rationale")) if get(record, "rationale") else None,
        specialty=str(get(record, "specialty")) if get(record, "specialty") else None,
        source=str(get(record, "source")) if get(record, "source") else None,
        cluster=str(get(record, "cluster")) if get(record, "cluster") not in (None, "") else None,
        synthetic=_synthetic(get(record, "synthetic")),
        meta=meta,
        file=file,
        line=line,
    )


def _input_text(record: dict[str, Any], options: dict[str, str]) -> str:
    """The item's normalized input: 'input', or one built from 'question' (and its options) when it has none."""
    raw_input = get(record, "input")
    if raw_input is None:
        question = get(record, "question")
        if question is None:
            raise RecordError("input", "missing (no 'input', and no 'question' to build one from)",
                                  ("input", "question"))
        raw_input = f"## 问题: {question}"
        if options:
            raw_input += f"\n## 选项: {_render_options(options)}"
    if not isinstance(raw_input, str):
        raise RecordError("input", f"expected text, got {type(raw_input).__name__}")
    text = normalize_text(raw_input)
    if not text:
        raise RecordError("input", "empty")
    return text


def _checked_options(text: str, shape: str, options: dict[str, str]) -> dict[str, str]:
    """A choice item's options (given, or read from its input): at least two, none empty."""
    if not options:
        block = options_block(text, shape)
        if block is None:
            raise RecordError("input", "no options found (expected a '## 选项:' section with A: … B: …)")
        options = parse_options(block)
    if len(options) < 2:
        raise RecordError("input", f"found {len(options)} option(s); expected labels A, B, … "
                                   "('A:', 'A.', 'A：' or 'A．') at the start of a line or after a space")
    empty = [k for k, v in options.items() if not v]
    if empty:
        raise RecordError("input", f"option {empty[0]} has no text")
    return options


def _choice_answer(shape: str, reference: str, explicit: str | None, letters: str) -> str | None:
    """The gold letter(s) of a choice item, from its explicit 'answer' or else its reference, parsed strictly."""
    field = "answer" if explicit else "reference"
    if shape == "order":
        return _strict(reference_order, explicit or reference, letters, field)
    if shape == "multi":
        return _strict(reference_letters, explicit or reference, letters, field)
    try:
        named: str | None = reference_letter(reference, letters)
    except ReferenceError as e:
        if not explicit:
            raise RecordError("reference", str(e)) from None
        named = None  # a prose reference that states no letter: the explicit 'answer' decides
    if not explicit:
        return named
    if len(explicit) != 1 or explicit not in letters:
        raise RecordError("answer", f"expected one of {'/'.join(letters)}, got {explicit!r}")
    if named is not None and named != explicit:
        raise RecordError("answer", f"'answer' says {explicit} but the reference names {named}")
    return explicit


def _misleading_answer(text: str, scenario: Task, answer: str | None, letters: str) -> str:
    """FIT's misleading answer: the letter its '## 参考答案' section shows the model, which must be wrong."""
    body = section(text, "参考答案")
    if body is None:
        raise RecordError("input", f"{scenario.code} items need a '## 参考答案:' section "
                                   "(the misleading answer shown to the model)")
    misleading = _strict(reference_letter, body, letters, "input")
    if misleading == answer:
        raise RecordError("reference", f"the true answer {answer} equals the misleading "
                                       "'## 参考答案' — the shown reference answer must be wrong")
    return misleading


def _synthetic(value: Any) -> bool | None:
    """The 'synthetic' flag: a bool or number as it is, a string true for 1/true/yes; None when absent."""
    if value is None:
        return None
    if not isinstance(value, str):
        return bool(value)
    return str(value).lower() in ("1", "true", "yes")


class OfficialLoader(Loader):
    """CliMedBench's official item format (see docs/DATA_FORMAT.md)."""

    name = "climedbench_official"

    def build(self, record: dict[str, Any], task: Task, ctx: RecordContext) -> Item:
        return build_item(record, task, file=ctx.file, line=ctx.line, default_id=ctx.default_id, split=ctx.split)


LOADERS.add("climedbench_official", OfficialLoader())
