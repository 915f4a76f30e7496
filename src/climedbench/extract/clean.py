"""Normalisation of a response before any rule reads it: special tokens, reasoning blocks, full-width forms,
markdown and LaTeX."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

_FULLWIDTH = {chr(c): chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)}  # Ａ-Ｚ → A-Z
_FULLWIDTH.update({chr(c): chr(c - 0xFEE0) for c in range(0xFF10, 0xFF1A)})  # ０-９
_FULLWIDTH.update({"：": ":", "．": ".", "（": "(", "）": ")", "［": "[", "］": "]", "，": ",",
                   "；": ";", "　": " ", "＞": ">", "－": "-", "｜": "|"})
_FULLWIDTH_TABLE = str.maketrans(_FULLWIDTH)

_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.I | re.S)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.I)


def strip_reasoning(text: str) -> str | None:
    """Remove reasoning blocks; None when a block is left open (the model was cut off mid-thought)."""
    text = _THINK_BLOCK.sub(" ", text)
    if _THINK_OPEN.search(text):
        return None
    # Some servers drop the opening tag: everything before a lone closing tag is reasoning.
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    return text


# End-of-turn and control tokens that some servers leave in the text.
_SPECIAL_TOKENS = re.compile(
    r"<\|[A-Za-z_]{1,24}\|>|</?s>|<eos>|<pad>|<unk>|\[/?INST\]|<end_of_turn>|<start_of_turn>(?:model|user)?|"
    r"<\|?endoftext\|?>|<eot>|<\|eot_id\|>"
)


@cache
def _t2s() -> Any:
    """OpenCC's traditional → simplified converter (選 → 选, 為 → 为)."""
    import opencc

    return opencc.OpenCC("t2s")


# Tokens that end a turn: text after one (once something was said) is the model writing a further turn of its own
# ("<|endoftext|>Human: …\nAssistant: 答案：D"), never part of its answer.
_END_OF_TURN = re.compile(r"<\|(?:endoftext|im_end|eot_id|end|eot)\|>|<endoftext>|</s>|<eos>|<end_of_turn>")


def normalize(text: str) -> str:
    """Special tokens removed, the text cut at an end-of-turn token that follows an answer; traditional characters
    simplified (OpenCC t2s)."""
    text = text or ""
    for m in _END_OF_TURN.finditer(text):
        said = strip_reasoning(text[:m.start()]) or ""  # reasoning alone is not an answer yet
        if _SPECIAL_TOKENS.sub("", said).strip():
            text = text[:m.start()]
            break
    text = _SPECIAL_TOKENS.sub(" ", text)
    if re.search(r"[\u4e00-\u9fff]", text):
        text = _t2s().convert(text)
    return text


def clean_response(text: str) -> str | None:
    """Special tokens removed, traditional characters simplified, reasoning removed, full-width letters and
    punctuation folded, markdown and LaTeX unwrapped.

    When a closed reasoning block is all there is, the reasoning itself is searched (the model put
    its answer there and stopped)."""
    text = normalize(text or "")
    stripped = strip_reasoning(text)
    if stripped is None:
        return None
    if not stripped.strip():
        stripped = re.sub(r"</?(?:think|thinking|reasoning)>", " ", text or "", flags=re.I)
    t = stripped.translate(_FULLWIDTH_TABLE)
    t = unicodedata.normalize("NFC", t)
    t = re.sub(r"\\boxed\s*\{\s*(?:\\text(?:bf)?\s*\{)?\s*([^{}]*?)\s*\}?\s*\}", r" 答案: \1 ", t)
    # "\\text{B}", "\\mathrm{(A, D)}": the letters inside a LaTeX font command.
    t = re.sub(r"\\(?:text(?:bf|rm|it)?|math(?:rm|bf|it|sf|tt)|operatorname)\s*\{([^{}]*)\}", r"\1", t)
    t = re.sub(r"\\(?:long)?(?:right|Right)arrow|\\to\b", "→", t)
    t = re.sub(r"\*\*|__|`+|~~|\$", "", t)
    t = re.sub(r"^\s{0,3}#{1,6}\s*", "", t, flags=re.M)
    return t
