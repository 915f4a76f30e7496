"""A rating study's design: which cases are rated, by whom, in what order, with model identity hidden.

- Cases come from run directories (the models' answers to the same item, one case per item) or from a data
  set (the benchmark's items themselves).
- `draw` takes up to N cases per task, at random (seeded per task): a sample stratified by task.
- `assign` gives every case to K distinct raters, always to the raters with the fewest cases so far (ties
  broken at random), so loads differ by at most one; each rater's cases are then shuffled.
- Blinding: a case's answers get neutral numbers 1..M in a random order (the export's `answer` column), and
  every rater sees them in an order of their own, labelled A, B, C… by position; model names never leave
  the server's database.

Everything random is seeded by (seed, what, which), so the same options give the same study.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from climedbench.apps.rater.rubric import Rubric
from climedbench.core.types import Item, Sample
from climedbench.errors import ConfigError, DataError

if TYPE_CHECKING:
    from climedbench.analyses.runs import Run
    from climedbench.core.suite import Suite

THINK = re.compile(r"<think>.*?</think>\s*", re.S)
RATER_NAME = re.compile(r"^[\w][\w .@+-]{0,63}$")


class CaseContent(BaseModel):
    """What a rater reads of an item (never its model answers' origins)."""

    uid: str
    task: str
    task_name: str
    # The task's instruction to the model (what was asked), when the suite gives a plain one.
    instruction: str | None = None
    input: str
    context: str | None = None
    options: dict[str, str] = Field(default_factory=dict)
    reference: str = ""
    # The answer key as shown to item reviewers (a letter, an order, a keyword list).
    key: str | None = None


class Answer(BaseModel):
    """One model's answer to a case (kept on the server; raters see only the text)."""

    model: str
    run: str
    text: str
    auto_score: float | None = None


class Case(BaseModel):
    """A case: an item and, in answer studies, its answers in neutral order (answer k has number k + 1)."""

    content: CaseContent
    answers: list[Answer] = Field(default_factory=list)


class Assignment(BaseModel):
    """One case given to one rater, with the order that rater sees its answers in (neutral numbers)."""

    case: int
    answer_order: list[int] = Field(default_factory=list)


class Source(BaseModel):
    """Where a study's cases came from."""

    kind: Literal["runs", "items"]
    paths: list[str]
    suite: str
    data: str | None = None
    tasks: list[str] = Field(default_factory=list)


class StudyPlan(BaseModel):
    """Everything `rate create` decides; the store records it as it is."""

    title: str
    lang: str
    rubric: Rubric
    raters: list[str]
    per_item: int
    seed: int
    source: Source
    cases: list[Case]
    assignments: dict[str, list[Assignment]]
    # Per task: how many cases were available and how many were drawn.
    drawn: dict[str, tuple[int, int]] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def rater_names(spec: str) -> list[str]:
    """'3' → rater-1..rater-3; 'ana,bo,chen' → those names (distinct)."""
    spec = spec.strip()
    if spec.isdigit():
        n = int(spec)
        if n < 1:
            raise ConfigError("--raters: give at least one rater")
        return [f"rater-{k}" for k in range(1, n + 1)]
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise ConfigError("--raters: give a number or comma-separated names")
    for name in names:
        if not RATER_NAME.match(name):
            raise ConfigError(f"--raters: {name!r} is not a usable name (letters, digits, space, . @ + - _; "
                              "at most 64 characters)")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"--raters: {', '.join(dup)} given twice")
    return names


def model_labels(runs: Sequence[Run]) -> list[str]:
    """How a study names each run's model: the model, with the folder when two runs share a model name."""
    counts = Counter(r.model for r in runs)
    return [r.label if counts[r.model] > 1 else r.model for r in runs]


def answer_text(raw: str | None) -> str:
    """The answer a rater reads: the raw response without complete <think> reasoning blocks."""
    return THINK.sub("", raw or "").strip()


def content_of(item: Item, suite: Suite) -> CaseContent:
    """The case text of an item."""
    key: str | None = None
    if item.answer is not None:
        key = item.answer
    elif item.targets is not None:
        key = "; ".join(item.targets)
    task = suite.lookup(item.task)
    instruction = (item.prompt or (task.prompt.instruction if task else "")).strip()
    return CaseContent(uid=item.uid, task=item.task, task_name=task.name.text(suite.language) if task else item.task,
                       instruction=instruction if instruction and "{{" not in instruction else None,
                       input=item.input, context=item.context, options=dict(item.options),
                       reference=item.reference, key=key)


def answer_cases(runs: Sequence[Run], tasks: list[str] | None, seed: int) -> tuple[list[Case], list[str]]:
    """One case per item that every run answered, with the answers in a random neutral order; by default the
    tasks with free-text answers (answer kind text), any task when named in `tasks`."""
    if not runs:
        raise ConfigError("give run directories to rate their answers, or --items DATA to rate items")
    suite = runs[0].suite
    names = {r.suite.suite for r in runs}
    if len(names) > 1:
        raise DataError(f"the runs are of different suites ({', '.join(sorted(names))}); rate runs of one suite")
    # By default the tasks with free-text answers; any task when named.
    wanted = [t.code for t in suite.select(tasks)] if tasks else [t.code for t in suite.tasks if t.answer == "text"]
    labels = model_labels(runs)
    notes: list[str] = []
    items: dict[str, Item] = {}
    unreadable = []
    for run in runs:
        found = run.items
        if found is None:
            unreadable.append(run)
        else:
            items.update(found)
    has_prompts = any(s.messages for r in runs for s in r.samples.values())
    if unreadable and not items and not has_prompts:
        run = unreadable[0]
        raise DataError(f"{run.path / 'run.json'}: field 'data': the run's data ({run.spec.data}) cannot be read "
                        "again, and its samples hold no prompts; the case text comes from one of them")
    cases: list[Case] = []
    present = {s.task for r in runs for s in r.samples.values()}
    if not any(code in present for code in wanted):
        kinds = "the tasks named by --tasks" if tasks else "a task with free-text answers (use --tasks to name others)"
        raise DataError(f"the runs hold no answers to {kinds}; tasks answered: {', '.join(sorted(present))}")
    for code in wanted:
        uids = sorted({u for r in runs for u, s in r.samples.items() if s.task == code})
        left_out = no_text = 0
        for uid in uids:
            samples = [r.samples.get(uid) for r in runs]
            if any(s is None or s.error or not answer_text(s.raw) for s in samples):
                left_out += 1
                continue
            content = content_of(items[uid], suite) if uid in items else from_prompt(
                [s for s in samples if s is not None], suite)
            if content is None:
                no_text += 1
                continue
            answers = [Answer(model=label, run=str(run.path), text=answer_text(s.raw), auto_score=s.score)
                       for label, run, s in zip(labels, runs, samples, strict=True) if s is not None]
            random.Random(f"{seed}/answers/{uid}").shuffle(answers)
            cases.append(Case(content=content, answers=answers))
        if left_out:
            notes.append(f"{code}: {left_out} item(s) left out because not every run has an answer to them")
        if no_text:
            notes.append(f"{code}: {no_text} item(s) left out because neither the data nor the logged prompt "
                         "gives their text")
    return cases, notes


def from_prompt(samples: Sequence[Sample], suite: Suite) -> CaseContent | None:
    """The case as the model saw it (the last user message logged with the sample), when the data cannot be
    read again; None when no sample logged its prompt."""
    logged = next((s for s in samples if s.messages), None)
    if logged is None or logged.messages is None:
        return None
    user = [m.get("content", "") for m in logged.messages if m.get("role") == "user"]
    if not user or not user[-1].strip():
        return None
    task = suite.lookup(logged.task)
    reference = logged.gold if isinstance(logged.gold, str) else ""
    return CaseContent(uid=logged.uid, task=logged.task, task_name=task.name.text(suite.language) if task else
                       logged.task, input=user[-1], reference=reference)


def item_cases(items: Sequence[Item], suite: Suite, tasks: list[str] | None) -> list[Case]:
    """One case per test item of the named tasks (all when None), in suite order."""
    wanted = {t.code for t in suite.select(tasks)}
    order = {code: k for k, code in enumerate(suite.codes)}
    chosen = [i for i in items if i.split == "test" and i.task in wanted]
    chosen.sort(key=lambda i: order.get(i.task, len(order)))
    return [Case(content=content_of(i, suite)) for i in chosen]


def draw(cases: Sequence[Case], per_task: int, seed: int) -> tuple[list[Case], dict[str, tuple[int, int]]]:
    """Up to `per_task` cases of every task (0 = all), drawn at random per task; the order within a task is kept.
    Returns the cases and, per task, (available, drawn)."""
    by_task: dict[str, list[int]] = {}
    for k, c in enumerate(cases):
        by_task.setdefault(c.content.task, []).append(k)
    keep: set[int] = set()
    counts: dict[str, tuple[int, int]] = {}
    for task, idx in by_task.items():
        chosen = idx if per_task <= 0 or per_task >= len(idx) else random.Random(f"{seed}/draw/{task}").sample(
            idx, per_task)
        keep.update(chosen)
        counts[task] = (len(idx), len(chosen))
    return [c for k, c in enumerate(cases) if k in keep], counts


def assign(n_cases: int, raters: Sequence[str], per_item: int, seed: int) -> dict[str, list[int]]:
    """Every case to `per_item` distinct raters, balancing loads; each rater's cases in a random order."""
    if per_item < 1:
        raise ConfigError("--per-item must be at least 1")
    if per_item > len(raters):
        raise ConfigError(f"--per-item {per_item} needs at least {per_item} raters (got {len(raters)})")
    rng = random.Random(f"{seed}/assign")
    load = dict.fromkeys(raters, 0)
    out: dict[str, list[int]] = {r: [] for r in raters}
    order = list(range(n_cases))
    rng.shuffle(order)
    for case in order:
        ties = {r: rng.random() for r in raters}
        for r in sorted(raters, key=lambda r: (load[r], ties[r]))[:per_item]:
            out[r].append(case)
            load[r] += 1
    for r in raters:
        out[r].sort()
        random.Random(f"{seed}/order/{r}").shuffle(out[r])
    return out


def plan_study(cases: Sequence[Case], *, rubric: Rubric, raters: list[str], per_item: int, per_task: int, seed: int,
               source: Source, lang: str, title: str | None = None,
               notes: list[str] | None = None) -> StudyPlan:
    """Draw, assign and blind: the whole design of a study."""
    if rubric.target == "answer" and source.kind != "runs":
        raise ConfigError(f"rubric {rubric.rubric!r} rates model answers: give run directories, not --items")
    if rubric.target == "item" and source.kind != "items":
        raise ConfigError(f"rubric {rubric.rubric!r} rates benchmark items: give --items DATA, not runs")
    drawn, counts = draw(cases, per_task, seed)
    if not drawn:
        raise DataError("no items to rate (check --tasks and the data)")
    given = assign(len(drawn), raters, per_item, seed)
    assignments: dict[str, list[Assignment]] = {}
    for rater, idx in given.items():
        rows = []
        for k in idx:
            order = list(range(1, len(drawn[k].answers) + 1))
            random.Random(f"{seed}/display/{rater}/{drawn[k].content.uid}").shuffle(order)
            rows.append(Assignment(case=k, answer_order=order))
        assignments[rater] = rows
    return StudyPlan(title=title or rubric.title.text(lang), lang=lang, rubric=rubric, raters=list(raters),
                     per_item=per_item, seed=seed, source=source, cases=list(drawn), assignments=assignments,
                     drawn=counts, notes=list(notes or []))
