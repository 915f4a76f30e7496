"""A language model as a second PHI detector: its spans are added to the rules' spans, never trusted alone.

The model is asked to copy, verbatim, every identifying value of a chunk of the note, as a JSON array. Only values
found verbatim in the chunk become spans (a value the model made up finds nothing), and values that cannot be PHI
are dropped (shorter than two characters, the hospital's allow-list, role words such as 患者 or "patient"). A span
the model finds and the rules do not is replaced like any other; a span the rules find and the model does not stays
found: the model can only add.

PHI leaves the machine only with `--allow-remote`: a model other than the embedded one or a `gguf:` file must be
served on this machine (127.0.0.1 / localhost / ::1) unless the user allows a remote endpoint. The notes are never
written to the response cache: the model pass does not use it.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from climedbench.deid.detectors import Span
from climedbench.errors import ConfigError

CHUNK_CHARS = 700  # a chunk and the values it holds fit the embedded model's context with room to answer
MAX_TOKENS = 384
SCORE = 0.6  # below pipeline.LOW_CONFIDENCE: a note whose PHI only the model found is flagged for a human look
DETECTOR = "model"
TYPES = ("NAME", "DATE", "PHONE", "ID", "ADDRESS", "ORGANIZATION", "EMAIL", "URL", "AGE", "OTHER")
# Words a model lists as "names" or "places" that are never PHI on their own.
NOT_PHI = frozenset((
    "患者", "病人", "家属", "医生", "医师", "主治医师", "护士", "本院", "我院", "入院", "出院", "门诊", "病房", "科室",
    "姓名", "性别", "年龄", "男", "女", "未知", "无", "不详",
    "patient", "the patient", "doctor", "physician", "nurse", "family", "hospital", "clinic", "unknown", "none", "n/a",
))

PROMPTS = {
    "zh": ("下面是一段病历。请找出其中所有能识别个人身份的信息：人名、日期（年份除外）、电话、身份证号、住院号/病案号、"
           "医保号、地址、医院/单位/学校名称、邮箱、网址、车牌、银行卡号、微信/QQ号、90岁以上的年龄。"
           "逐字照抄原文中的值，只输出一个 JSON 数组，每项形如 {\"type\": \"NAME\", \"text\": \"原文\"}；"
           "type 取 NAME、DATE、PHONE、ID、ADDRESS、ORGANIZATION、EMAIL、URL、AGE、OTHER 之一。"
           "没有则输出 []。\n\n病历：\n"),
    "en": ("Below is part of a clinical note. List every value in it that could identify a person: names, dates "
           "(other than a year alone), phone and fax numbers, ID/record/insurance numbers, addresses, hospitals, "
           "employers, schools, e-mails, URLs, licence plates, account numbers, ages over 89. Copy each value exactly "
           "as written. Answer with one JSON array only, items like {\"type\": \"NAME\", \"text\": \"exact text\"}; "
           "type is one of NAME, DATE, PHONE, ID, ADDRESS, ORGANIZATION, EMAIL, URL, AGE, OTHER. "
           "If none, answer [].\n\nNote:\n"),
}
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


@dataclass(frozen=True)
class ModelPass:
    """Which model the pass asks (a `--model` spec and its options), how many chunks at once, the allow-list."""

    spec: str
    options: Any = None  # climedbench.models.registry.ModelOptions
    concurrency: int = 0  # 0: the backend's own limit
    allow: frozenset[str] = frozenset()


def is_local(spec: str, base_url: str | None) -> bool:
    """Whether the model named by `spec` runs on this machine (the embedded model, a gguf file, a loopback server)."""
    spec = (spec or "default").strip()
    if spec == "default" or spec.startswith("gguf:"):
        return True
    _, at, url = spec.rpartition("@")
    url = url if at and url.startswith("http") else (base_url or "")
    host = urlparse(url).hostname or ""
    return host in _LOCAL_HOSTS or host.startswith("127.")


def check_local(spec: str, base_url: str | None, allow_remote: bool) -> None:
    """Refuse to send notes to a model off this machine unless the user said so."""
    if not allow_remote and not is_local(spec, base_url):
        raise ConfigError(f"--model {spec}: notes would be sent to a server off this machine "
                          f"({urlparse(base_url or spec.rpartition('@')[2]).hostname or 'unknown host'}); "
                          "serve the model on 127.0.0.1, or pass --allow-remote if your data agreement allows it")


def chunks(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, str]]:
    """(offset, text) pieces of at most `size` characters, cut after a line end or sentence end where there is one."""
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind(c, start + size // 2, end) for c in "\n。；;.")
            end = cut + 1 if cut > start else end
        out.append((start, text[start:end]))
        start = end
    return out


def parse_values(answer: str) -> list[tuple[str, str]]:
    """(type, value) pairs from the model's answer: the JSON array if it parses, else every {"type", "text"} object
    or quoted "text" value found in it (a small model's array is often cut off or loosely written)."""
    found: list[tuple[str, str]] = []
    m = re.search(r"\[.*\]", answer, re.S)
    if m:
        try:
            data = json.loads(m.group(0))
        except json.JSONDecodeError:
            data = None
        if isinstance(data, list):
            for d in data:
                if isinstance(d, dict) and isinstance(d.get("text"), str):
                    found.append((str(d.get("type", "OTHER")).upper(), d["text"]))
                elif isinstance(d, str):
                    found.append(("OTHER", d))
            return found
    for obj in re.finditer(r"\{[^{}]*\}", answer):
        t = re.search(r'"type"\s*:\s*"([^"]*)"', obj.group(0))
        v = re.search(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)"', obj.group(0))
        if v:
            found.append(((t.group(1) if t else "OTHER").upper(), v.group(1)))
    return found


def locate(chunk: str, offset: int, values: Sequence[tuple[str, str]], allow: frozenset[str]) -> list[Span]:
    """Spans of every verbatim occurrence in the chunk of each value that can be PHI."""
    spans = []
    for kind, value in values:
        value = value.strip()
        if len(value) < 2 or value in allow or value.lower() in NOT_PHI or not re.search(r"\w", value):
            continue
        entity = kind if kind in TYPES and kind != "OTHER" else "ID"
        for m in re.finditer(re.escape(value), chunk):
            spans.append(Span(offset + m.start(), offset + m.end(), entity, SCORE, DETECTOR))
    return spans


async def model_spans(mp: ModelPass, notes: Sequence[tuple[str, str]],
                      progress: Callable[[int], None] | None = None) -> list[list[Span] | str]:
    """For each (text, language) note, the spans the model found, or the reason its model pass failed (a request
    that failed after its retries): the caller withholds that note, as for any other detector's failure."""
    from climedbench.models.base import GenParams, RequestFailed
    from climedbench.models.registry import ModelOptions, open_backend

    work = [(i, off, piece, lang if lang in PROMPTS else "en")
            for i, (text, lang) in enumerate(notes) for off, piece in chunks(text)]
    out: list[list[Span] | str] = [[] for _ in notes]
    params = GenParams(max_tokens=MAX_TOKENS, temperature=0.0, seed=0)
    backend = await open_backend(mp.spec, mp.options or ModelOptions())
    sem = asyncio.Semaphore(mp.concurrency or max(1, backend.max_concurrency))
    done = 0

    async def one(i: int, off: int, piece: str, lang: str) -> None:
        nonlocal done
        try:
            async with sem:
                answer = (await backend.chat([{"role": "user", "content": PROMPTS[lang] + piece}], params)).text
        except RequestFailed as e:
            out[i] = f"model pass: {type(e).__name__}"  # never the reason: a server may quote the note
        else:
            found = out[i]
            if isinstance(found, list):
                found.extend(locate(piece, off, parse_values(answer or ""), mp.allow))
        done += 1
        if progress is not None:
            progress(done)

    try:
        async with asyncio.TaskGroup() as tg:
            for w in work:
                tg.create_task(one(*w))
    finally:
        await backend.aclose()
    return out
