"""Chat messages for an item: the scenario's instruction, the case, the answer format, optional shots."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

from climedbench.data.schema import Item
from climedbench.errors import ConfigError
from climedbench.taxonomy import Scenario, Suite

Message = dict[str, str]
Variant = Literal["vanilla", "cot", "logprob"]


@dataclass(frozen=True)
class PromptSettings:
    """How prompts are built: variant, number of dev-split shots, and whose instruction is used."""

    variant: Variant = "vanilla"
    shots: int = 0
    item_prompts: bool = False


def _fill(template: str, item: Item) -> str:
    letters = item.letters
    return template.replace("{letters}", "/".join(letters)).replace("{example}", letters[::-1])


def answer_format(scenario: Scenario, item: Item, variant: Variant, suite: Suite) -> str:
    """The closing instruction that says how to answer."""
    if variant == "logprob":
        if scenario.shape != "single":
            raise ConfigError(f"--mc-mode logprob scores single-answer choice items only; "
                              f"{scenario.code} is {scenario.shape!r}")
        return _fill(suite.formats["single_logprob"], item)
    return _fill(scenario.cot if variant == "cot" else scenario.answer_format, item)


def user_message(scenario: Scenario, item: Item, settings: PromptSettings, suite: Suite) -> str:
    """The whole user turn for one item."""
    instruction = item.prompt if settings.item_prompts and item.prompt else scenario.prompt
    fmt = answer_format(scenario, item, settings.variant, suite)
    return f"{instruction.rstrip()}\n{item.input.strip()}\n\n{fmt}"


def demonstration(scenario: Scenario, item: Item) -> str:
    """The assistant turn of a few-shot example: the gold answer in the requested format."""
    if scenario.shape in ("single", "multi", "order"):
        return f"答案：{item.answer}"
    if scenario.shape == "keywords":
        return "关键词：" + "；".join(item.keywords or [])
    return item.reference


def build_messages(scenario: Scenario, item: Item, shots: list[Item], settings: PromptSettings,
                   suite: Suite) -> list[Message]:
    """User/assistant turns for each shot, then the item itself."""
    messages: list[Message] = []
    for shot in shots:
        messages.append({"role": "user", "content": user_message(scenario, shot, settings, suite)})
        messages.append({"role": "assistant", "content": demonstration(scenario, shot)})
    messages.append({"role": "user", "content": user_message(scenario, item, settings, suite)})
    return messages


def pick_shots(scenario: Scenario, dev_items: list[Item], k: int) -> list[Item]:
    """The first k dev items of the scenario (a fixed, documented choice: the same shots for every item)."""
    if k <= 0:
        return []
    pool = [i for i in dev_items if i.scenario == scenario.code]
    if len(pool) < k:
        raise ConfigError(f"--shots {k}: scenario {scenario.code} has only {len(pool)} dev item(s)")
    return pool[:k]


def messages_hash(messages: list[Message]) -> str:
    """A stable hash of the exact messages (what the model saw)."""
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
