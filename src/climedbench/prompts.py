"""Chat messages for an item, from the task's prompt templates (data in the suite YAML, Jinja syntax).

Variables a template may use (docs/SUITES.md):
  instruction   the task's instruction (or the item's own prompt with --item-prompts)
  input         the item's main text (case, question, document), stripped
  question      the same as input
  context       the item's passage (an abstract, a sentence to tag), '' when none
  options       the options as 'A. text' lines
  options_shown true when every option text is already in the input (the default template then omits them)
  option_map    the options as a mapping letter → text
  letters       the option letters joined by '/' ('A/B/C/D'); example: the letters reversed ('DCBA')
  labels        the task's labels joined by ', '; label_list: the list
  answer, targets, reference   the gold (only in demonstrations of few-shot examples)
  answer_text   the gold option's text (demonstrations)
  rationale     the example's worked explanation, '' when it has none (demonstrations)
  variant       the prompt variant: 'vanilla', 'cot' or 'logprob' (a demonstration can show reasoning for CoT)
  answer_format the task's closing instruction (answer_format, cot or logprob), itself a template
  item          the item (its meta fields: item.meta['field'])
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from climedbench.core.suite import Suite, Task
from climedbench.core.types import Item
from climedbench.errors import ConfigError

Message = dict[str, str]
Variant = Literal["vanilla", "cot", "logprob"]


@dataclass(frozen=True)
class PromptSettings:
    """How prompts are built: variant, number of shots, and whose instruction is used."""

    variant: Variant = "vanilla"
    shots: int = 0
    item_prompts: bool = False


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    # Sandboxed: a suite YAML from a user is data, never code.
    return SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


@cache
def _template(source: str) -> Any:
    return compile_template(source)


def compile_template(source: str, where: str | None = None) -> Any:
    """The compiled template; a syntax error is a ConfigError naming `where` (or the template's start) and line."""
    from jinja2 import TemplateSyntaxError

    try:
        return _environment().from_string(source)
    except TemplateSyntaxError as e:
        raise ConfigError(f"{where or f'prompt template {source[:60]!r}'}: {e.message} (line {e.lineno})") from e


def render(source: str, variables: dict[str, Any], where: str = "prompt") -> str:
    """Render one template; an unknown variable, an unsafe attribute (the sandbox) or any other template error is
    a configuration error naming where it happened."""
    from jinja2 import TemplateError, UndefinedError
    from jinja2.sandbox import SecurityError

    if "{" not in source and "\r" not in source:
        # plain text: what Jinja renders it to (keep_trailing_newline=False drops one final newline; only \r is
        # rewritten otherwise), without a template's context per item (tests/test_prompt_plain.py)
        return source[:-1] if source.endswith("\n") else source
    try:
        return str(_template(source).render(**variables))
    except UndefinedError as e:
        raise ConfigError(f"{where}: {e.message}; see docs/SUITES.md for the template variables") from e
    except SecurityError as e:
        raise ConfigError(f"{where}: not allowed in a prompt template ({e}); templates may only read the "
                          "variables of docs/SUITES.md") from e
    except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as e:
        raise ConfigError(f"{where}: the template failed: {type(e).__name__}: {e}") from e


def variables(task: Task, item: Item, *, instruction: str = "", demonstration: bool = False,
              variant: Variant = "vanilla", shown: bool | None = None) -> dict[str, Any]:
    """The template variables of one item (`shown`: options_in_text(item), when the caller has it already)."""
    letters = item.letters
    out: dict[str, Any] = {
        "instruction": instruction.rstrip(),
        "input": item.input.strip(),
        "question": item.input.strip(),
        "context": (item.context or "").strip(),
        "options": "\n".join(f"{k}. {v}" for k, v in item.options.items()),
        "options_shown": options_in_text(item) if shown is None else shown,
        "option_map": dict(item.options),
        "letters": "/".join(letters),
        "example": letters[::-1],
        "labels": ", ".join(task.labels or ()),
        "label_list": list(task.labels or ()),
        "item": item,
        "variant": variant,
    }
    if demonstration:
        out.update(answer=item.answer, targets=list(item.targets or []), reference=item.reference,
                   answer_text=item.options.get(item.answer or "", ""), rationale=(item.rationale or "").strip())
    return out


def options_in_text(item: Item) -> bool:
    """Every option text already appears in the item's input or context (CliMedBench items carry their options
    inside the question), so the default template need not list them again."""
    text = " ".join(f"{item.input} {item.context or ''}".split())
    return all(" ".join(v.split()) in text for v in item.options.values())


def answer_format(task: Task, item: Item, variant: Variant, shown: bool | None = None) -> str:
    """The closing instruction that says how to answer."""
    spec = task.prompt
    if variant == "logprob":
        if task.answer != "single":
            raise ConfigError(f"--mc-mode logprob scores single-answer choice items only; "
                              f"{task.code} is {task.answer!r}")
        if spec.logprob is None:
            raise ConfigError(f"task {task.code} has no logprob prompt ('logprob' in its prompt spec) for "
                              "--mc-mode logprob")
        source = spec.logprob
    elif variant == "cot":
        if spec.cot is None:
            raise ConfigError(f"task {task.code} has no chain-of-thought prompt ('cot' in its prompt spec)")
        source = spec.cot
    else:
        source = spec.answer_format
    return render(source, variables(task, item, shown=shown), f"task {task.code}: answer format")


def user_message(task: Task, item: Item, settings: PromptSettings, suite: Suite | None = None) -> str:
    """The user turn for one item (without inline shots)."""
    shown = options_in_text(item)  # computed once for the three templates
    if settings.item_prompts and item.prompt:
        instruction = item.prompt  # the item's own text, never rendered as a template
    else:
        instruction = render(task.prompt.instruction, variables(task, item, shown=shown),
                             f"task {task.code}: instruction")
    vars_ = variables(task, item, instruction=instruction, shown=shown)
    vars_["answer_format"] = answer_format(task, item, settings.variant, shown)
    return render(task.prompt.template, vars_, f"task {task.code}: template")


def demonstration(task: Task, item: Item, variant: Variant = "vanilla") -> str:
    """The assistant turn of a few-shot example: the gold answer in the requested format."""
    return render(task.prompt.demonstration, variables(task, item, demonstration=True, variant=variant),
                  f"task {task.code}: demonstration")


def build_messages(task: Task, item: Item, shots: list[Item], settings: PromptSettings,
                   suite: Suite | None = None) -> list[Message]:
    """The system turn (if any), the shots (as user/assistant turns or inline), then the item itself."""
    messages: list[Message] = []
    if task.prompt.system:
        messages.append({"role": "system", "content": render(task.prompt.system, variables(task, item))})
    if task.prompt.shots == "inline" and shots:
        shot_src = task.prompt.shot_template or "{{ question }}\n{{ answer }}"
        blocks = [render(shot_src, variables(task, s, demonstration=True, variant=settings.variant),
                         f"task {task.code}: shot_template")
                  for s in shots]
        sep = task.prompt.shot_separator
        messages.append({"role": "user", "content": sep.join(blocks) + sep + user_message(task, item, settings)})
        return messages
    for shot in shots:
        messages.append({"role": "user", "content": user_message(task, shot, settings)})
        messages.append({"role": "assistant", "content": demonstration(task, shot, settings.variant)})
    messages.append({"role": "user", "content": user_message(task, item, settings)})
    return messages


def pick_shots(task: Task, dev_items: list[Item], k: int) -> list[Item]:
    """The first k dev (else train) items of the task (a fixed, documented choice: the same shots for
    every item)."""
    if k <= 0:
        return []
    pool = [i for i in dev_items if i.task == task.code]
    if len(pool) < k:
        raise ConfigError(f"--shots {k}: task {task.code} has only {len(pool)} dev/train item(s)")
    return pool[:k]


@dataclass(frozen=True)
class ShotPool:
    """A task's test items for `--shot-source test`, with the radiology subsets computed once."""

    items: list[Item]
    normal: list[Item]
    abnormal: list[Item]
    ids: dict[int, frozenset[str]]  # id(list) -> the ids of its items

    @classmethod
    def of(cls, items: list[Item]) -> ShotPool:
        normal = [i for i in items if "normal" in i.input.lower()]
        abnormal = [i for i in items if "abnormal" in i.input.lower()]
        return cls(items, normal, abnormal, {id(x): frozenset(i.id for i in x) for x in (items, normal, abnormal)})


def draw_test_shots(task: Task, item: Item, pool: ShotPool, k: int, seed: int) -> list[Item]:
    """`--shot-source test`, as the ClinicBench authors drew examples: k test items of the task other than `item`,
    at random (seeded by the run's seed, the task and the item, so a rerun asks the same). With the task's
    `prompt.shot_balance: normal_abnormal` (radiology), k // 2 come from the items whose input mentions 'normal'
    and the rest from those mentioning 'abnormal', as the authors' 3_shot_inference.py selects them (their
    'normal' also matches 'abnormal'; an example is not drawn twice here)."""
    import random

    if k <= 0:
        return []
    rng = random.Random(f"{seed}:{task.code}:{item.uid}")

    def sample(cands: list[Item], n: int, taken: list[Item]) -> list[Item]:
        # rejection sampling (ids are unique within a task's test split): no filtered copy of the pool per item
        excluded = {item.id, *(t.id for t in taken)}
        eligible = len(cands) - len(excluded & pool.ids[id(cands)])
        out: list[Item] = []
        if eligible < n:
            return out
        seen = set(excluded)
        while len(out) < n:
            c = cands[rng.randrange(len(cands))]
            if c.id not in seen:
                seen.add(c.id)
                out.append(c)
        return out

    if task.prompt.shot_balance != "normal_abnormal":
        chosen = sample(pool.items, k, [])
        if len(chosen) < k:
            raise ConfigError(f"--shots {k} --shot-source test: task {task.code} has only {len(pool.items)} test "
                              "item(s)")
        return chosen
    first = sample(pool.normal, k // 2, [])
    second = sample(pool.abnormal, k - len(first), first) if len(first) == k // 2 else []
    if len(first) + len(second) < k:
        raise ConfigError(f"--shots {k} --shot-source test: task {task.code} has too few test items whose findings "
                          f"mention 'normal' ({len(pool.normal)}) or 'abnormal' ({len(pool.abnormal)}) for the "
                          "authors' balanced draw")
    return first + second


def messages_hash(messages: list[Message]) -> str:
    """A stable hash of the exact messages (what the model saw)."""
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
