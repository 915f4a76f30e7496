"""Answer extractors, registered by name: each reads the model's final answer for one answer shape.

An extractor is `(response, item, task) -> Extraction`; the suite names it per task (`extractor:`), or
the task's answer kind picks the default (single → choice, multi → choices, order → order, keywords →
keywords, text → text, label → label, labels → labels, entities → entities). An extractor that also takes a
`pipeline` keyword reads by that extraction pipeline (`flexible`, the default, or `strict`: see
climedbench.extract.base); one that does not (entities, iob_entities, list, and plug-ins that do not ask for it)
reads the same in both.
"""

from __future__ import annotations

import functools
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
from climedbench.extract.base import Pipeline
from climedbench.extract.label import extract_label, extract_labels

Extractor = Callable[[str, Item, Task], Extraction]


def _choice(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_choice(response, item.letters, option_texts=item.options, pipeline=pipeline)


def _choices(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_choice(response, item.letters, multi=True, option_texts=item.options, pipeline=pipeline)


def _order(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_order(response, item.letters, item.options, pipeline)


def _keywords(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_keywords(response, pipeline)


def _text(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_text(response, pipeline)


EXTRACTORS.add("choice", _choice)
EXTRACTORS.add("choices", _choices)
EXTRACTORS.add("order", _order)
EXTRACTORS.add("keywords", _keywords)
EXTRACTORS.add("text", _text)


# -- labels (yes/no/maybe, relation types, document classes) ----------------------------------------------

def _label(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_label(response, task.labels or (), task.label_aliases, pipeline)


def _labels(response: str, item: Item, task: Task, pipeline: Pipeline = "flexible") -> Extraction:
    return extract_labels(response, task.labels or (), task.label_aliases, pipeline)


EXTRACTORS.add("label", _label)
EXTRACTORS.add("labels", _labels)


# -- entity mentions (NER) and other lists ---------------------------------------------------------------

_ENTITY_MARKER = re.compile(
    r"(?:entities|entity mentions|diseases?|disease (?:entities|mentions|names)|chemicals?|medications?|drugs?|"
    r"answer|output)(?: (?:are|is|found|mentioned|extracted|recommended))?\s*[:：]\s*", re.I)
_NONE_ENTITY = re.compile(r"^\s*(?:none|no (?:\w+ )?(?:entities|entity|diseases?|chemicals?|mentions?)"
                          r"(?: (?:found|mentioned|present|identified))?|n/?a|nil|-)\s*[.。]?\s*$", re.I)
# "0 | <dobutamine, heart failure>": the answer format ClinicBench asks for in BC5CDR.
_INDEXED = re.compile(r"^\s*\d+\s*\|\s*(.*)$")
_PREAMBLE = re.compile(r"(?:here (?:are|is)|recognized entities|i (?:have )?(?:found|extracted)|sure[,!.]|"
                       r"the following)[^\n]*[:：]?\s*$", re.I)


def _list_items(block: str, dedupe: bool = True) -> list[str]:
    """The items of a written list. A comma with a space before it (' , ') is a tokenised comma inside a mention
    (BLURB's IOB text), not a separator. With `dedupe` False a repeated mention is kept: entity F1 counts every
    mention, as seqeval does."""
    parts = re.split(r"\s*(?:\n|;|；|(?<!\s),(?!\d)|，|、)\s*", block)
    out: list[str] = []
    for p in parts:
        p = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", p)
        p = p.strip(" \t\"'“”‘’`[]<>.。*")
        if p and not _NONE_ENTITY.match(p) and len(p) <= 120 and \
                (not dedupe or p.lower() not in (x.lower() for x in out)):
            out.append(p)
    return out


def extract_entities(response: str, source: str | None = None) -> Extraction:
    """Entity mentions as a list: from 'N | <a, b>' lines when the response uses them, else after an
    'Entities:' style marker, else from the list it writes (new lines, commas, semicolons; bullets and numbering
    removed); 'None' is an empty list. A line that repeats the source sentence is not a mention."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    if not text.strip():
        return Extraction(None, "empty")
    lines = [ln for ln in text.split("\n") if ln.strip()]
    indexed = [m.group(1) for ln in lines if (m := _INDEXED.match(ln))]
    src = re.sub(r"\s+", " ", source or "").strip().lower()

    def keep(items: list[str]) -> list[str]:
        return [x for x in items if not (src and len(x) > 12 and re.sub(r"\s+", " ", x).lower() in src
                                         and len(x) > 0.6 * len(src))]

    indexed = [p for p in indexed if not re.fullmatch(r"\s*<?\s*recogni[sz]ed entities\s*>?\s*", p, re.I)]
    if indexed:
        found = keep([x for part in indexed for x in _list_items(part, dedupe=False)])
        if found:
            return Extraction(found, "entities_indexed")
        if all(_NONE_ENTITY.match(p.strip(" <>")) or not p.strip(" <>") for p in indexed):
            return Extraction([], "entities_none")
        # The indexed line only echoed the paragraph: read the list written after it.
        text = "\n".join(ln for ln in lines if not _INDEXED.match(ln))
    markers = list(_ENTITY_MARKER.finditer(text))
    region = text[markers[-1].end():] if markers else text
    if _NONE_ENTITY.match(region.split("\n\n")[0]):
        return Extraction([], "entities_none")
    body = [ln for ln in region.strip().split("\n") if not _PREAMBLE.search(ln)]
    block = re.split(r"\n\s*\n", "\n".join(body).strip())[0] if body else ""
    out = keep(_list_items(block, dedupe=False))
    if not out:
        return Extraction(None, "no_entities")
    return Extraction(out, "entities_marker" if markers else "entities_list")


def _entities(response: str, item: Item, task: Task) -> Extraction:
    return extract_entities(response, item.input)


EXTRACTORS.add("entities", _entities)

_IOB_LINE = re.compile(r"^\s*(\S+)\s+([BIO](?:-[\w-]+)?)\s*$", re.I)


def extract_iob(response: str) -> Extraction:
    """Entity mentions from an answer written as IOB lines ('token<TAB>B-Disease'); several sentences may be
    separated by blank lines. None when no line is in that form."""
    from climedbench.data.iob import spans

    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    tokens: list[str] = []
    tags: list[str] = []
    found: list[str] = []
    any_line = False
    for line in [*text.split("\n"), ""]:
        m = _IOB_LINE.match(line)
        if m:
            any_line = True
            tokens.append(m.group(1))
            tags.append(m.group(2).upper())
        elif tokens:
            found += spans(tokens, tags)
            tokens, tags = [], []
    if not any_line:
        return Extraction(None, "no_iob_lines")
    return Extraction(found, "iob")  # every mention, repeats included: entity F1 counts them as seqeval does


def _iob(response: str, item: Item, task: Task) -> Extraction:
    return extract_iob(response)


def _literal_list(text: str) -> list[str] | None:
    """A list written as a JSON or Python literal (["a, b", "c"] / ['a, b', 'c']), as the gold files write it."""
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        return None
    import ast
    import json

    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(s)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return [v.strip() for v in value if v.strip()]
    return None


def _rejoin(items: list[str], known: list[str]) -> list[str]:
    """Pieces of a comma split joined back where together they are one of the `known` names ('Estrogens' +
    'Conjugated (Usp) (Premarin)' = 'Estrogens, Conjugated (Usp) (Premarin)'): a name that contains commas is
    one item, not two."""
    names = {re.sub(r"\s+", " ", k).strip().lower() for k in known if "," in k}
    if not names:
        return items
    out: list[str] = []
    i = 0
    while i < len(items):
        for j in range(len(items), i + 1, -1):
            if ", ".join(items[i:j]).lower() in names:
                out.append(", ".join(items[i:j]))
                i = j
                break
        else:
            out.append(items[i])
            i += 1
    return out


def extract_list(response: str, known: list[str] | None = None) -> Extraction:
    """Items of a list answer (medications, tests): a JSON/Python list literal as the gold files write it; else one
    per numbered/bulleted line, or per line of a list written one per line; a single line is split at commas and
    semicolons. Each item is cut at its explanation (' - ', ': ', ' – '). Comma-split pieces that together are one
    of the `known` names (the gold's) stay one item."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    literal = _literal_list(text)
    if literal is not None:
        return Extraction(list(dict.fromkeys(literal)), "list_literal") if literal else Extraction(None, "no_list")
    markers = list(_ENTITY_MARKER.finditer(text))
    region = text[markers[-1].end():] if markers else text
    kept = [ln for ln in region.split("\n") if not _PREAMBLE.search(ln)]
    lines = [ln for ln in kept if ln.strip()]
    bulleted = [ln for ln in lines if re.match(r"^\s*(?:[-*•]|\d+[.)、])\s*\S", ln)]
    # Unbulleted: the first block (up to a blank line), so a list written one per line, as the prompts and few-shot
    # demonstrations ask, is read in full and prose after it is not.
    blocks = [b for b in re.split(r"\n\s*\n", "\n".join(kept)) if b.strip()]
    source = bulleted or ([ln for ln in blocks[0].split("\n") if ln.strip()] if blocks else [])
    items: list[str] = []
    one_per_line = not bulleted and len(source) > 1
    for ln in source:
        ln = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", ln)
        ln = re.split(r"\s+[-–—]\s+|:\s+", ln, maxsplit=1)[0]
        if bulleted or (one_per_line and "," not in ln):
            items.append(ln.strip(" *.。"))
        else:
            items += _rejoin(_list_items(ln), known or [])
    items = [x for x in dict.fromkeys(i for i in items if i and len(i) <= 80)]
    return Extraction(items, "list") if items else Extraction(None, "no_list")


def _list(response: str, item: Item, task: Task) -> Extraction:
    return extract_list(response, item.targets)


EXTRACTORS.add("iob_entities", _iob)
EXTRACTORS.add("list", _list)


def get_extractor(name: str) -> Extractor:
    """The extractor registered as `name`."""
    return EXTRACTORS.get(name)  # type: ignore[return-value]


def read_with(extractor: Extractor, response: str, item: Item, task: Task, pipeline: Pipeline = "flexible"
              ) -> Extraction:
    """The extractor's reading by `pipeline`; an extractor without a `pipeline` keyword reads the same by every
    pipeline (it has no flexible rules to leave out)."""
    if pipeline == "flexible" or not _takes_pipeline(extractor):
        return extractor(response, item, task)
    return extractor(response, item, task, pipeline=pipeline)  # type: ignore[call-arg]


@functools.cache
def _takes_pipeline(extractor: Extractor) -> bool:
    import inspect

    try:
        return "pipeline" in inspect.signature(extractor).parameters
    except (TypeError, ValueError):
        return False
