"""Answer extractors, registered by name: each reads the model's final answer for one answer shape.

An extractor is `(response, item, task) -> Extraction`; the suite names it per task (`extractor:`), or
the task's answer kind picks the default (single → choice, multi → choices, order → order, keywords →
keywords, text → text, label → label, labels → labels, entities → entities).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from climedbench.core.registry import EXTRACTORS
from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.extract import (
    Extraction,
    clean_response,
    extract_choice,
    extract_keywords,
    extract_order,
    extract_text,
)

Extractor = Callable[[str, Item, Task], Extraction]


def _choice(response: str, item: Item, task: Task) -> Extraction:
    return extract_choice(response, item.letters, option_texts=item.options)


def _choices(response: str, item: Item, task: Task) -> Extraction:
    return extract_choice(response, item.letters, multi=True, option_texts=item.options)


def _order(response: str, item: Item, task: Task) -> Extraction:
    return extract_order(response, item.letters, item.options)


def _keywords(response: str, item: Item, task: Task) -> Extraction:
    return extract_keywords(response)


def _text(response: str, item: Item, task: Task) -> Extraction:
    return extract_text(response)


EXTRACTORS.add("choice", _choice)
EXTRACTORS.add("choices", _choices)
EXTRACTORS.add("order", _order)
EXTRACTORS.add("keywords", _keywords)
EXTRACTORS.add("text", _text)


# -- labels (yes/no/maybe, relation types, document classes) ----------------------------------------------

_LABEL_MARKER = re.compile(
    r"(?:final answer|the answer(?: to (?:the|this) question)? (?:is|would be|should be)|answer\s*[:：=]|"
    r"the (?:correct )?(?:label|category|class|relation(?: type)?) (?:is|would be)|label\s*[:：=]|"
    r"(?:relation|category|class)\s*[:：=]|最终答案|答案(?:是|为)?\s*[:：]?|结论(?:是|为)?\s*[:：]?)\s*",
    re.I,
)
_LABEL_HEDGE = re.compile(r"\b(?:cannot (?:determine|be determined|say)|unclear|not sure|insufficient information)\b"
                          r"|无法确定|不能确定", re.I)


def _label_pattern(label: str) -> re.Pattern[str]:
    words = r"[\s_\-]+".join(re.escape(w) for w in re.split(r"[\s_\-]+", label.strip()) if w)
    return re.compile(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", re.I)


def _labels_at(text: str, labels: tuple[str, ...]) -> list[tuple[int, str]]:
    """(position, label) of every mention, longer labels first where two overlap."""
    found: list[tuple[int, int, str]] = []
    for lab in sorted(labels, key=len, reverse=True):
        for m in _label_pattern(lab).finditer(text):
            if not any(s <= m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), lab))
    return sorted((s, lab) for s, _, lab in found)


def extract_label(response: str, labels: tuple[str, ...]) -> Extraction:
    """One label: the one right after the last answer marker, else a label opening the response, else the
    only label the response names."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    if not text.strip():
        return Extraction(None, "empty")
    mentions = _labels_at(text, labels)
    for m in reversed(list(_LABEL_MARKER.finditer(text))):
        after = [lab for pos, lab in mentions if m.end() <= pos <= m.end() + 3]
        if after:
            return Extraction(after[0], "label_marker")
    lead = [lab for pos, lab in mentions if pos <= len(text) - len(text.lstrip()) + 2]
    if lead:
        return Extraction(lead[0], "leading_label")
    distinct = {lab for _, lab in mentions}
    if len(distinct) == 1 and not _LABEL_HEDGE.search(text):
        return Extraction(distinct.pop(), "only_label")
    return Extraction(None, "hedge" if distinct else "no_label")


def extract_labels(response: str, labels: tuple[str, ...]) -> Extraction:
    """A set of labels (multi-label classification): every label the answer names, after the last answer
    marker when there is one; an explicit 'none' is the empty set."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    if not text.strip():
        return Extraction(None, "empty")
    markers = list(_LABEL_MARKER.finditer(text))
    region = text[markers[-1].end():] if markers else text
    named = sorted({lab for _, lab in _labels_at(region, labels)})
    if named:
        return Extraction(named, "labels_marker" if markers else "labels")
    if re.match(r"\s*(?:none|no (?:label|category|class)|n/a|无)\b", region, re.I):
        return Extraction([], "labels_none")
    return Extraction(None, "no_label")


def _label(response: str, item: Item, task: Task) -> Extraction:
    return extract_label(response, task.labels or ())


def _labels(response: str, item: Item, task: Task) -> Extraction:
    return extract_labels(response, task.labels or ())


EXTRACTORS.add("label", _label)
EXTRACTORS.add("labels", _labels)


# -- entity mentions (NER) ---------------------------------------------------------------------------------

_ENTITY_MARKER = re.compile(
    r"(?:entities|entity mentions|diseases?|disease (?:entities|mentions|names)|chemicals?|answer|output)"
    r"(?: (?:are|is|found|mentioned|extracted))?\s*[:：]\s*", re.I)
_NONE_ENTITY = re.compile(r"^\s*(?:none|no (?:\w+ )?(?:entities|entity|diseases?|chemicals?|mentions?)"
                          r"(?: (?:found|mentioned|present|identified))?|n/?a|nil|-)\s*[.。]?\s*$", re.I)


def extract_entities(response: str) -> Extraction:
    """Entity mentions as a list: after an 'Entities:' style marker if there is one, split on new lines,
    commas and semicolons, bullets and numbering removed; 'None' is an empty list."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    if not text.strip():
        return Extraction(None, "empty")
    markers = list(_ENTITY_MARKER.finditer(text))
    region = text[markers[-1].end():] if markers else text
    if _NONE_ENTITY.match(region.split("\n\n")[0]):
        return Extraction([], "entities_none")
    block = region.strip().split("\n\n")[0]
    parts = re.split(r"\s*(?:\n|;|；|,(?!\d)|，|、)\s*", block)
    out: list[str] = []
    for p in parts:
        p = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", p)
        p = p.strip(" \t\"'“”‘’`[]().。")
        if p and not _NONE_ENTITY.match(p) and len(p) <= 120 and p.lower() not in (x.lower() for x in out):
            out.append(p)
    if not out:
        return Extraction(None, "no_entities")
    return Extraction(out, "entities_marker" if markers else "entities_list")


def _entities(response: str, item: Item, task: Task) -> Extraction:
    return extract_entities(response)


EXTRACTORS.add("entities", _entities)


def get_extractor(name: str) -> Extractor:
    """The extractor registered as `name`."""
    return EXTRACTORS.get(name)  # type: ignore[return-value]
