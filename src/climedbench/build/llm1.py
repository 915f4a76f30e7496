"""LLM1 (optional, `--generator MODEL`): rewrite a rule-built item's stem into an explicit question.

The request carries a JSON schema (`response_format`, which llama.cpp — in-process or as a server — vLLM and
OpenAI-compatible servers honour), goes through the response cache (climedbench/cache.py: a re-run never asks
twice) and its reply is checked (parse_question): one short question that names nothing of the key the case does
not already name. A reply that fails a check leaves the item as the rules built it, with the reason in its
provenance notes. Any backend `climedbench.models` opens works (the embedded model too).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from jinja2.sandbox import SandboxedEnvironment

from climedbench.build.candidates import Candidate
from climedbench.cache import ResponseCache, request_key
from climedbench.models.base import Backend, Completion, GenParams, Message, RequestFailed


@dataclass
class LLM1Prompt:
    templates: dict[str, str]
    schema: dict[str, Any]
    digest: str

    @classmethod
    def bundled(cls) -> LLM1Prompt:
        text = resources.files("climedbench.build").joinpath("prompts", "llm1_question.yaml").read_text("utf-8")
        raw = yaml.safe_load(text)
        return cls({"zh": raw["zh"], "en": raw["en"]}, raw["schema"], hashlib.sha256(text.encode()).hexdigest()[:16])

    def params(self) -> GenParams:
        fmt = {"type": "json_schema", "json_schema": {"name": "question", "strict": True, "schema": self.schema}}
        return GenParams(max_tokens=160, temperature=0.0, seed=0, response_format=json.dumps(fmt, sort_keys=True))


async def cached_chat(backend: Backend, cache: ResponseCache | None, messages: list[Message], params: GenParams
                      ) -> Completion:
    """One chat request through the response cache (the same request is never sent twice)."""
    key = request_key(backend.fingerprint, messages, params)
    if cache is not None and (hit := cache.get(key)) is not None:
        return hit
    completion = await backend.chat(messages, params)
    if cache is not None:
        cache.put(key, backend.name, completion)
    return completion


def stem_text(item_input: str) -> str:
    """The item's case sections without its options."""
    return re.split(r"\n?##\s*(?:选项|Options)\s*[:：]", item_input)[0].strip()


def _norm(s: str) -> str:
    return re.sub(r"[\s\W_]+", "", s.lower())


def parse_question(reply: str, key_texts: list[str], stem: str = "", max_chars: int = 80
                   ) -> tuple[str | None, str | None]:
    """(question, None) or (None, why the reply is not used): a JSON object whose `question` is one question
    (4 to `max_chars` characters — 80 for Chinese, 120 for English —, ending with '？' or '?') that names no part
    of the key the case does not already name (no two characters of the key that are absent from the stem)."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError:
        return None, "reply is not JSON"
    q = data.get("question") if isinstance(data, dict) else None
    if not isinstance(q, str) or not (4 <= len(q.strip()) <= max_chars):
        return None, f"no 'question' string of 4-{max_chars} characters"
    q = " ".join(q.split())
    if not q.endswith(("？", "?")):
        return None, "not a question (no question mark at the end)"
    nq, ns = _norm(q), _norm(stem)
    for k in key_texts:
        nk = _norm(k)
        if any(nk[i:i + 2] in nq and nk[i:i + 2] not in ns for i in range(len(nk) - 1)):
            return None, "question names part of the key"
    return q, None


async def rewrite(cand: Candidate, backend: Backend, cache: ResponseCache | None, prompt: LLM1Prompt,
                  task_name: str, key_text: str) -> Candidate:
    """The candidate with a `## 问题:` / `## Question:` section before its options, or unchanged with the reason."""
    env = SandboxedEnvironment(autoescape=False)
    body = env.from_string(prompt.templates[cand.lang]).render(stem=stem_text(cand.item["input"]),
                                                              task_name=task_name)
    messages: list[Message] = [{"role": "user", "content": body}]
    cand.provenance.generator = backend.name
    cand.provenance.prompt_hash = prompt.digest
    try:
        completion = await cached_chat(backend, cache, messages, prompt.params())
    except RequestFailed as e:
        cand.provenance.notes.append(f"LLM1 request failed ({e.reason}); stem kept as built")
        return cand
    question, why = parse_question(completion.text, [key_text], stem_text(cand.item["input"]),
                                   80 if cand.lang == "zh" else 120)
    if question is None:
        cand.provenance.notes.append(f"LLM1 reply not used: {why}")
        return cand
    head = "问题" if cand.lang == "zh" else "Question"
    opts = "选项" if cand.lang == "zh" else "Options"
    text = cand.item["input"]
    at = text.rfind(f"## {opts}")
    cand.item["input"] = f"{text[:at]}## {head}: {question}\n{text[at:]}" if at >= 0 else text
    cand.provenance.notes.append("LLM1 wrote the question")
    return cand
