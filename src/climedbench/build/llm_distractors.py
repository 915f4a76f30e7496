"""Model-written distractors (`climedbench build --generator MODEL --distractors model`; single-choice scenarios).

The generator is asked (prompts/llm1_distractors.yaml, a JSON schema {"distractors": [n strings]} sent as
`response_format`, through the response cache like every LLM1 call) for plausible but wrong options given the
case and the key. Every reply is checked before use (check_distractors): the schema; exactly n distinct strings;
none equal to, inside or sharing ≥ max_overlap of character bigrams with the key or another distractor (the rule
distractors.py applies to record-drawn ones: `too_close`); each within the template's length limit; no line
breaks. A reply that passes replaces the record-drawn distractors (the key keeps its letter); one that fails
leaves the item as the rules built it. Either way the provenance names the source (`distractors_from`: model and
prompt hash, and the reason when the records' distractors were kept) and a note is counted in the data card.
"""

from __future__ import annotations

import copy
import inspect
import re
from dataclasses import replace
from typing import Any

from climedbench.build.candidates import Candidate
from climedbench.build.distractors import _norm, too_close
from climedbench.build.generate import LETTERS, render
from climedbench.build.keys import EXTRACTORS
from climedbench.build.llm import PromptFile, check_reply, load_prompt
from climedbench.build.llm1 import cached_chat, stem_text
from climedbench.build.scenarios import Scenario
from climedbench.cache import ResponseCache
from climedbench.models.base import Backend, RequestFailed

PROMPT = "llm1_distractors"
USED = "model distractors used"
NOT_USED = "model distractors not used"
CJK = re.compile(r"[\u3400-\u9fff]")


def bundled_prompt() -> PromptFile:
    return load_prompt(PROMPT)


def max_chars(sc: Scenario, key: str) -> int:
    """The template's length limit for an option: its key extractor's `max_chars` (keys.py), or, for an extractor
    without one (a list of examination names), twice the key's length."""
    assert sc.key is not None
    p = inspect.signature(EXTRACTORS[sc.key.extract]).parameters.get("max_chars")
    return p.default if p is not None and isinstance(p.default, int) else 2 * len(key)


def schema_for(prompt: PromptFile, n: int) -> dict[str, Any]:
    """The prompt's schema with the array's item count set to n."""
    schema = copy.deepcopy(prompt.schema)
    arr = schema.get("properties", {}).get("distractors")
    if isinstance(arr, dict):
        arr["minItems"] = arr["maxItems"] = n
    return schema


def check_distractors(reply: str, schema: dict[str, Any], key: str, n: int, limit: int, max_overlap: float = 0.6,
                      lang: str = "zh", stem: str = "") -> tuple[list[str] | None, str | None]:
    """(the n distractors, None) when the reply passes every check, else (None, why not). English items' options
    carry no Chinese characters; no option of 4 or more characters is copied from the case (`stem`): a finding of
    the case offered as an answer is a give-away."""
    data, problem = check_reply(reply, schema)
    if data is None:
        return None, problem
    got = data.get("distractors")
    if not isinstance(got, list) or not all(isinstance(d, str) for d in got):
        return None, "no 'distractors' list of strings"
    if len(got) != n:
        return None, f"{len(got)} distractors, not {n}"
    if any("\n" in d or "\r" in d for d in got):
        return None, "a distractor has a line break"
    ds = [d.strip() for d in got]
    if any(not d or len(d) > limit for d in ds):
        return None, f"a distractor is empty or longer than {limit} characters"
    if lang == "en" and any(CJK.search(d) for d in ds):
        return None, "a distractor is not in the item's language (Chinese characters in an English item)"
    if len(set(ds)) < n:
        return None, "two distractors are the same"
    if any(too_close(key, d, max_overlap) for d in ds):
        return None, "a distractor equals, contains or largely overlaps the key"
    if any(too_close(a, b, max_overlap) for i, a in enumerate(ds) for b in ds[i + 1:]):
        return None, "two distractors are the same answer in other words"
    case = _norm(stem)
    if any(len(_norm(d)) >= 4 and _norm(d) in case for d in ds):
        return None, "a distractor is copied from the case"
    return ds, None


def replace_options(cand: Candidate, header: str, key: str, distractors: list[str]) -> bool:
    """Put `distractors` in place of the record-drawn ones, the key at its letter; False when the item's option
    block is not the one the rules wrote (then it is left alone)."""
    at_key = LETTERS.index(cand.item["reference"])
    old = [d.text for d in cand.provenance.distractors]
    old.insert(at_key, key)
    new = list(distractors)
    new.insert(at_key, key)
    before, after = render([], header, old), render([], header, new)  # the block generate.py wrote
    text = cand.item["input"]
    if not text.endswith(before):
        return False
    cand.item["input"] = text[: len(text) - len(before)] + after
    return True


async def model_distractors(cand: Candidate, sc: Scenario, backend: Backend, cache: ResponseCache | None,
                            prompt: PromptFile, task_name: str, key: str) -> Candidate:
    """The candidate with the generator's distractors when its reply passes the checks, else as built; the
    provenance says which, and why."""
    n, limit = sc.distractors.n, max_chars(sc, key)
    schema = schema_for(prompt, n)
    source: dict[str, Any] = {"source": "records", "model": backend.name, "prompt_hash": prompt.sha256[:16]}
    stem = stem_text(cand.item["input"])
    messages = prompt.messages(lang=cand.lang, task_name=task_name, stem=stem, key=key, n=n, max_chars=limit)
    try:
        completion = await cached_chat(backend, cache, messages, replace(prompt, schema=schema).params())
        got, why = check_distractors(completion.text, schema, key, n, limit, sc.distractors.max_overlap,
                                      cand.lang, stem)
    except RequestFailed as e:
        got, why = None, f"the request failed ({e.reason})"
    if got is not None and not replace_options(cand, sc.languages[cand.lang].options_header, key, got):
        got, why = None, "the item's options are not the rule-built ones"
    if got is None:
        cand.provenance.distractors_from = {**source, "fallback": why}
        cand.provenance.notes.append(f"{NOT_USED}: {why}")
        return cand
    cand.provenance.distractors_from = {**source, "source": "model"}
    cand.provenance.distractors, cand.provenance.band = [], None
    cand.provenance.notes.append(USED)
    return cand
