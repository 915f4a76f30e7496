"""The one small interface every model backend implements."""

from __future__ import annotations

import abc
import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from climedbench.core.types import EndpointStats

Message = dict[str, str]


@dataclass(frozen=True)
class GenParams:
    """Generation parameters; every field is part of the request's cache key."""

    max_tokens: int = 512
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    top_logprobs: int = 0  # >0: return the first token's top log-probabilities (for --mc-mode logprob)
    # An OpenAI `response_format` object as JSON text, e.g. {"type": "json_schema", "json_schema": {...}}: the
    # reply is constrained to it (llama.cpp turns a schema into a grammar). Text, so the parameters stay hashable.
    response_format: str | None = None

    def as_dict(self) -> dict[str, Any]:
        # a fresh dict each call, from one asdict per distinct parameters (asdict per request: 3% of sending)
        return {**_params_dict(self), "stop": list(self.stop)}


@lru_cache(maxsize=256)
def _params_dict(params: GenParams) -> dict[str, Any]:
    d = asdict(params)
    if params.response_format is None:  # absent, so cache keys of requests without one are unchanged
        del d["response_format"]
    return d


@dataclass
class Completion:
    """What a backend returns for one request."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency: float = 0.0
    # First generated token's alternatives: token text → log-probability.
    first_token_logprobs: dict[str, float] | None = None
    attempts: int = 1
    cached: bool = False
    model_reported: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Completion:
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


class RequestFailed(Exception):
    """A request that failed after its retries; recorded on the sample, retried on the next run."""

    def __init__(self, reason: str, attempts: int = 1) -> None:
        super().__init__(reason)
        self.reason, self.attempts = reason, attempts


@dataclass
class Backend(abc.ABC):
    """A chat model. Subclasses set `fingerprint` and implement `chat`."""

    fingerprint: dict[str, Any] = field(default_factory=dict)
    # How many requests may be in flight at once (1 for an in-process model).
    max_concurrency: int = 1
    # Send the costliest requests first (run/engine.py's longest_first): for a few local model copies, whose idle
    # tail at the end of a run is a large share of it; an order never changes an answer.
    longest_first: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return str(self.fingerprint.get("model", "model"))

    @abc.abstractmethod
    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        """Generate one reply; raise RequestFailed for a failure worth recording, ModelError to stop."""

    def endpoint_stats(self) -> list[EndpointStats]:
        """Per HTTP endpoint counters so far (HTTP backends; none for in-process models)."""
        return []

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""


def chat_request(messages: list[Message], params: GenParams) -> dict[str, Any]:
    """An OpenAI-style chat completion request body (llama.cpp's in-process server takes the same)."""
    body: dict[str, Any] = {
        "messages": messages,
        "max_tokens": params.max_tokens,
        "temperature": params.temperature,
        "top_p": params.top_p,
    }
    if params.seed is not None:
        body["seed"] = params.seed
    if params.stop:
        body["stop"] = list(params.stop)
    if params.top_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = params.top_logprobs
    if params.response_format is not None:
        body["response_format"] = json.loads(params.response_format)
    return body


def parse_chat_response(data: dict[str, Any], latency: float, params: GenParams, attempts: int = 1) -> Completion:
    """A Completion from an OpenAI-style chat completion response body."""
    choice = data["choices"][0]
    usage = data.get("usage") or {}
    return Completion(
        text=choice["message"].get("content") or "",
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        latency=latency,
        first_token_logprobs=first_token_logprobs(choice) if params.top_logprobs else None,
        attempts=attempts,
        model_reported=data.get("model"),
    )


def first_token_logprobs(choice: dict[str, Any]) -> dict[str, float] | None:
    """token → logprob of the first generated position, from an OpenAI-style choice object."""
    lp = choice.get("logprobs") or {}
    content = lp.get("content") or []
    if not content:
        return None
    first = content[0]
    out = {str(t.get("token", "")): float(t.get("logprob", float("-inf"))) for t in first.get("top_logprobs") or []}
    tok = str(first.get("token", ""))
    if tok not in out and "logprob" in first:
        out[tok] = float(first["logprob"])
    return out
