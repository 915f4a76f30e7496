"""A judge model as a fallback extractor: `--extractor judge:MODEL_SPEC`.

Only responses the rules could not read are sent to the judge (never those the rules read), with the
item's options and the response; the judge replies with the answer alone, which is parsed *strictly*
(climedbench.data.references) — a judge reply that is itself unclear leaves the item unanswered. Every
judged sample says so: `extraction_method` is 'judge:<model>', `judge_raw` holds the reply, and
results count them per task (`counts.judged`). Requests go through the run engine (cache, retries,
limits), so re-running never asks the judge twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Item, Sample
from climedbench.data.references import ReferenceError, reference_letter, reference_letters, reference_order
from climedbench.models.base import GenParams, Message

JUDGEABLE = ("single", "multi", "order", "label")

_ASK = {
    "single": "Which single option letter did the response finally choose? Reply with the letter only, or NONE "
              "if it chose no option or hedged between options.",
    "multi": "Which option letters did the response finally choose? Reply with the letters only (e.g. ACD), or "
             "NONE if it chose none.",
    "order": "In which order did the response finally put the lettered steps? Reply with the letters only, in "
             "its order (e.g. CADB), or NONE if it gave no complete order.",
    "label": "Which of these labels did the response finally give: {labels}? Reply with the label only, or NONE.",
}


def judge_prompt(task: Task, item: Item, response: str) -> list[Message]:
    """The judge's messages: the question's options, the response, and what to reply."""
    options = "\n".join(f"{k}. {v}" for k, v in item.options.items())
    ask = _ASK[task.answer].format(labels=", ".join(task.labels or ()))
    quoted = f'"""\n{response[-6000:]}\n"""'
    body = (f"You read answers to exam questions. Do not solve the question yourself; report only what the "
            f"response answered.\n\nOptions:\n{options or '(none)'}\n\nResponse:\n{quoted}\n\n{ask}")
    return [{"role": "user", "content": body}]


def parse_judge(task: Task, item: Item, reply: str) -> str | None:
    """The judge's reply read strictly; None for NONE or an unclear reply."""
    text = reply.strip()
    if not text or text.upper().startswith("NONE"):
        return None
    try:
        if task.answer == "single":
            return reference_letter(text, item.letters)
        if task.answer == "multi":
            return reference_letters(text, item.letters)
        if task.answer == "order":
            return reference_order(text, item.letters)
    except ReferenceError:
        return None
    for lab in task.labels or ():
        if text.strip(" .").lower() == lab.lower():
            return lab
    return None


@dataclass
class JudgeRequest:
    """A judge request in the engine's shape."""

    msgs: list[Message]
    params: GenParams

    def messages(self, suite: Suite) -> list[Message]:
        return self.msgs


def needs_judge(sample: Sample, task: Task) -> bool:
    """A response the rules could not read, of an answer kind the judge handles."""
    return bool(sample.raw) and sample.error is None and sample.extraction_failure and task.answer in JUDGEABLE


async def judge_samples(samples: list[Sample], items: dict[str, Item], suite: Suite, engine: Any,
                        scorer: Any, judge_name: str) -> list[Sample]:
    """Re-extract the unreadable samples with the judge; returns the samples that changed (already updated)."""
    from climedbench.metrics.item import get_metric

    params = GenParams(max_tokens=16, temperature=0.0, seed=0)
    changed: list[Sample] = []
    for s in samples:
        task = suite.task(s.task)
        item = items.get(s.uid)
        if item is None or not needs_judge(s, task):
            continue
        result = await engine.answer(JudgeRequest(judge_prompt(task, item, s.raw or ""), params))
        if result is None:
            break  # budget reached
        _, _, completion, error = result
        if completion is None:
            s.judge_error = error
            changed.append(s)
            continue
        answer = parse_judge(task, item, completion.text)
        s.judge_raw = completion.text
        if answer is not None:
            scored = get_metric(task.metric).score(item, answer, task, scorer.ctx)
            s.extracted, s.extraction_method, s.extraction_failure = answer, f"judge:{judge_name}", False
            s.extraction_failure_reason = None
            s.score = float(scored.score)
            s.stats = list(scored.stats) if scored.stats is not None else None
            s.flags = {**s.flags, **scored.flags, "judged": True}
        changed.append(s)
    return changed
