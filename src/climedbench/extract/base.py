"""The extraction result, and the rules an extractor is made of: an ordered table of named rules per answer kind,
run by a named pipeline.

A rule reads a prepared response and either decides (an `Extraction`: an answer, or None and why not) or passes to
the next rule; the first rule that decides names the result (`Extraction.method`). Every rule has a role:

- `stated`: the response states its answer: after an answer marker ("答案是B", "Answer: B", "正确顺序：B→A→C") or as
  a bare letter or letters it consists of or opens with;
- `flexible`: the answer is inferred from looser text: a tentative statement, the last letter or option text the
  response mentions, marks on option lines, an order told in words;
- `guard`: the response gives no answer that can be read (a hedge, a contradiction, a cut-off response).

Pipelines (as lm-eval's `filter_list`, e.g. gsm8k's strict-match and flexible-extract): `flexible` runs every rule
in order (the default, and the reading of every figure before pipelines existed); `strict` runs the same table
without the flexible rules, so it reads only stated answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

Pipeline = Literal["flexible", "strict"]
PIPELINES: tuple[Pipeline, ...] = ("flexible", "strict")
Role = Literal["stated", "flexible", "guard"]

C = TypeVar("C")


@dataclass(frozen=True)
class Extraction:
    """An extracted answer (None when the response gives none) and the rule that found it."""

    answer: str | list[str] | None
    method: str

    @property
    def failed(self) -> bool:
        return self.answer is None


@dataclass(frozen=True)
class Rule(Generic[C]):
    """One named rule of an extractor: `apply` decides (an Extraction) or passes (None)."""

    name: str
    apply: Callable[[C], Extraction | None]
    role: Role


def in_pipeline(rule: Rule[C], pipeline: Pipeline) -> bool:
    """Whether the pipeline runs the rule: `flexible` runs every rule, `strict` all but the flexible ones."""
    if pipeline not in PIPELINES:
        raise ValueError(f"unknown extraction pipeline {pipeline!r}; known: {', '.join(PIPELINES)}")
    return pipeline == "flexible" or rule.role != "flexible"


def run_rules(rules: Sequence[Rule[C]], ctx: C, pipeline: Pipeline, otherwise: Extraction,
              memo: dict[str, Extraction | None] | None = None) -> Extraction:
    """The first decision of the pipeline's rules, in table order; `otherwise` when none decides. With `memo` (rule
    name → its decision on this `ctx`) a rule already applied to the same context is not applied again: reading one
    response by both pipelines applies each rule at most once (rules are pure functions of the context)."""
    for rule in rules:
        if in_pipeline(rule, pipeline):
            if memo is None:
                found = rule.apply(ctx)
            elif rule.name in memo:
                found = memo[rule.name]
            else:
                found = memo[rule.name] = rule.apply(ctx)
            if found is not None:
                return found
    return otherwise
