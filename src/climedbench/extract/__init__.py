"""Answer extraction: the model's final answer from free text, for choice, order, keyword, label and free-text items.

Each answer kind has an ordered table of named rules (`RULES`; see `base` for rules, roles and pipelines), tried from
the most explicit to the least; the *last* explicit answer statement wins, so self-corrections ("最初选A……正确答案应
为C") and answers given after a long discussion of every option are read the way a human reader reads them.
Reasoning blocks (<think>…</think>) are never searched. Every result names the rule that produced it, so a wrong
extraction can be traced in samples.jsonl.

Modules: `base` (Extraction, Rule, pipelines), `clean` (normalisation), `choice` (single/multi rules) with
`choice_patterns`, `choice_hits` (answer statements), `option_text` (options named by their text) and
`choice_checks` (checks after a single answer), `order`, `keywords` (keywords and free text), `label` (one label
or a set of labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from climedbench.extract.base import PIPELINES, Extraction, Pipeline, Rule, in_pipeline, run_rules
from climedbench.extract.choice import CHOICE_RULES, extract_choice
from climedbench.extract.clean import clean_response, normalize, strip_reasoning
from climedbench.extract.keywords import KEYWORD_RULES, TEXT_RULES, extract_keywords, extract_text, split_keyword_list
from climedbench.extract.label import LABEL_RULES, LABELS_RULES, extract_label, extract_labels
from climedbench.extract.order import ORDER_RULES, extract_order

__all__ = [
    "PIPELINES",
    "RULES",
    "Extraction",
    "Pipeline",
    "Rule",
    "clean_response",
    "extract",
    "extract_choice",
    "extract_keywords",
    "extract_label",
    "extract_labels",
    "extract_order",
    "extract_text",
    "in_pipeline",
    "normalize",
    "run_rules",
    "split_keyword_list",
    "strip_reasoning",
]

# The rules table of each answer kind (single and multi share the choice rules).
RULES: dict[str, Sequence[Rule[Any]]] = {
    "single": CHOICE_RULES, "multi": CHOICE_RULES, "order": ORDER_RULES, "keywords": KEYWORD_RULES,
    "text": TEXT_RULES, "label": LABEL_RULES, "labels": LABELS_RULES,
}


def extract(kind: str, response: str, options: str = "", option_texts: dict[str, str] | None = None,
            pipeline: Pipeline = "flexible") -> Extraction:
    """Dispatch by answer shape: single, multi, order, keywords or text; read by the rules of `pipeline`."""
    if kind == "single":
        return extract_choice(response, options, option_texts=option_texts, pipeline=pipeline)
    if kind == "multi":
        return extract_choice(response, options, multi=True, option_texts=option_texts, pipeline=pipeline)
    if kind == "order":
        return extract_order(response, options, option_texts, pipeline)
    if kind == "keywords":
        return extract_keywords(response, pipeline)
    if kind == "text":
        return extract_text(response, pipeline)
    raise ValueError(f"unknown answer kind {kind!r}")
