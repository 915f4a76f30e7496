"""A suite checked as a run would use it, before any model is loaded or request sent: tasks present, every
named metric, aggregation, extractor and loader known, every prompt template compiled and rendered on one item of
each task, and the options of choice items shown in their prompt."""

from __future__ import annotations

import re
from collections.abc import Iterable

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Item
from climedbench.errors import ConfigError

TEMPLATE_FIELDS = ("system", "instruction", "template", "answer_format", "cot", "logprob", "demonstration",
                   "shot_template")
OPTION_KINDS = frozenset({"single", "multi", "order"})


def _where(suite: Suite) -> str:
    return suite.source.removeprefix("bundled:") or suite.suite


def check_tasks(suite: Suite) -> None:
    """The suite has tasks, and every task names known implementations and compiling templates."""
    from climedbench.core.registry import AGGREGATIONS, EXTRACTORS, LOADERS, METRICS
    from climedbench.prompts import compile_template

    if not suite.tasks:
        raise ConfigError(f"{_where(suite)}: the suite has no tasks; list at least one under 'tasks:'")
    for t in suite.tasks:
        names = [("metric", METRICS, t.metric), ("aggregation", AGGREGATIONS, t.aggregation),
                 ("extractor", EXTRACTORS, t.extractor_name), ("loader", LOADERS, t.loader or suite.loader)]
        names += [(f"also[{ref.metric}].metric", METRICS, ref.metric) for ref in t.also]
        names += [(f"also[{ref.metric}].aggregation", AGGREGATIONS, ref.aggregation) for ref in t.also]
        for field, registry, name in names:
            if name not in registry:
                raise ConfigError(f"{_where(suite)}: task {t.code}: {field}: unknown {registry.kind} {name!r}; "
                                  f"known: {', '.join(registry.names())} (`climedbench list --registries`)")
        for field in TEMPLATE_FIELDS:
            source = getattr(t.prompt, field)
            if source is not None:
                compile_template(source, f"{_where(suite)}: task {t.code}: prompt.{field}")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def check_prompts(suite: Suite, tasks: Iterable[Task], items: list[Item]) -> None:
    """Render each task's prompt on its first item (test split first): no template error, no sandbox violation,
    and a choice item's prompt shows every option text."""
    from climedbench.prompts import PromptSettings, build_messages, demonstration

    first: dict[str, Item] = {}
    for item in sorted(items, key=lambda i: i.split != "test"):
        first.setdefault(item.task, item)
    for t in tasks:
        if t.code not in first:
            continue
        item = first[t.code]
        where = f"{_where(suite)}: task {t.code} (item {item.id})"
        try:
            messages = build_messages(t, item, [], PromptSettings(), suite)
            if item.answer is not None or item.reference is not None or item.targets:
                demonstration(t, item)
        except ConfigError as e:
            raise ConfigError(f"{_where(suite)}: item {item.id}: {e}") from e
        if t.answer in OPTION_KINDS and item.options:
            shown = _norm("\n".join(m["content"] for m in messages))
            missing = [k for k, v in item.options.items() if _norm(v) and _norm(v) not in shown]
            if missing:
                raise ConfigError(
                    f"{where}: the prompt does not show option(s) {', '.join(missing)} (e.g. "
                    f"{item.options[missing[0]][:40]!r}); add '{{{{ options }}}}' to prompt.template")
