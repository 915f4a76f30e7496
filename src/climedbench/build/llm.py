"""Structured, cached model calls for `climedbench build`: a prompt file (YAML with Jinja templates and a JSON
schema) rendered for one item, sent with `response_format: json_schema` so the backend constrains the reply
(llama.cpp compiles the schema into a grammar; OpenAI-compatible servers that support it do likewise), the
reply checked against the schema. Every request goes through the response cache (climedbench/cache.py): a
request already answered is never sent again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from climedbench.errors import ConfigError, yaml_problem
from climedbench.models.base import GenParams, Message, RequestFailed

if TYPE_CHECKING:
    from climedbench.cache import ResponseCache
    from climedbench.models.base import Backend


KNOWN = ("name", "version", "system", "user", "schema", "max_tokens")


@dataclass(frozen=True)
class PromptFile:
    """A prompt as data: Jinja `system` and `user` templates, the reply's JSON schema, a token budget."""

    name: str
    version: str
    system: str
    user: str
    schema: dict[str, Any]
    max_tokens: int
    sha256: str
    # Further keys of the file (e.g. refine's `instructions` per failure kind).
    extra: dict[str, Any] = field(default_factory=dict)

    def messages(self, **context: Any) -> list[Message]:
        from jinja2 import StrictUndefined
        from jinja2.sandbox import SandboxedEnvironment

        env = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False)
        out = []
        if self.system.strip():
            out.append({"role": "system", "content": env.from_string(self.system).render(**context).strip()})
        out.append({"role": "user", "content": env.from_string(self.user).render(**context).strip()})
        return out

    def params(self) -> GenParams:
        fmt = {"type": "json_schema", "json_schema": {"name": self.name, "schema": self.schema, "strict": True}}
        return GenParams(max_tokens=self.max_tokens, temperature=0.0, seed=0,
                         response_format=json.dumps(fmt, ensure_ascii=False, sort_keys=True))


def load_prompt(spec: str | Path) -> PromptFile:
    """A bundled prompt by name (`audit`, `refine`) or a YAML file; errors name the file, line and field."""
    name = str(spec)
    if "/" not in name and not name.endswith((".yaml", ".yml")):
        path = Path(str(resources.files("climedbench.build").joinpath("prompts", f"{name}.yaml")))
    else:
        path = Path(name).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the prompt file ({e})") from e
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        problem, line = yaml_problem(e)
        raise ConfigError(f"{path}{f':{line}' if line else ''}: not valid YAML ({problem})") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping with name, user, schema")
    for key in ("name", "user", "schema"):
        if key not in raw:
            raise ConfigError(f"{path}: field '{key}': missing")
    if not isinstance(raw["schema"], dict):
        raise ConfigError(f"{path}: field 'schema': expected a JSON schema object")
    _check_schema(raw["schema"], path)
    return PromptFile(name=str(raw["name"]), version=str(raw.get("version", "1")), system=str(raw.get("system", "")),
                      user=str(raw["user"]), schema=raw["schema"], max_tokens=int(raw.get("max_tokens", 400)),
                      sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                      extra={k: v for k, v in raw.items() if k not in KNOWN})


def _check_schema(schema: dict[str, Any], path: Path) -> None:
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ConfigError(f"{path}: field 'schema': not a valid JSON schema ({e.message})") from e


@dataclass
class Reply:
    """A model's structured reply: the parsed object when it is valid JSON matching the schema, else the problem."""

    data: dict[str, Any] | None
    raw: str
    problem: str | None
    cached: bool


def check_reply(text: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(object, None) when `text` is a JSON object valid under `schema`, else (None, what is wrong)."""
    import jsonschema

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"the reply is not JSON ({e.msg} at character {e.pos})"
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        return None, f"the reply does not match the schema at {where}: {errors[0].message}"
    return data, None


async def ask_all(backend: Backend, prompt: PromptFile, contexts: Sequence[dict[str, Any]],
                  cache: ResponseCache | None) -> list[Reply]:
    """One structured request per context, at most `backend.max_concurrency` at once, through the cache."""
    from climedbench.cache import request_key

    params = prompt.params()
    gate = asyncio.Semaphore(max(1, backend.max_concurrency))

    async def one(ctx: dict[str, Any]) -> Reply:
        messages = prompt.messages(**ctx)
        key = request_key(backend.fingerprint, messages, params)
        hit = cache.get(key) if cache is not None else None
        if hit is None:
            async with gate:
                try:
                    completion = await backend.chat(messages, params)
                except RequestFailed as e:
                    return Reply(None, "", f"the request failed: {e.reason}", False)
            if cache is not None:
                cache.put(key, backend.name, completion)
            text, cached = completion.text, False
        else:
            text, cached = hit.text, True
        data, problem = check_reply(text, prompt.schema)
        return Reply(data, text, problem, cached)

    return list(await asyncio.gather(*(one(c) for c in contexts)))
