"""Several OpenAI-compatible endpoints serving one model: repeated `--base-url`, or an endpoints file.

An endpoints file (YAML):

    deployment: qwen2.5-7b-instruct@vllm-0.6     # optional: a label for what the endpoints serve
    endpoints:
      - url: http://gpu1:8000/v1
        weight: 2                                  # share of requests when several have free slots
        max_concurrency: 64                        # requests in flight at this endpoint (default --max-concurrency)
      - url: https://api.example.com/v1
        api_key_env: EXAMPLE_KEY                   # the variable holding this endpoint's key
        rpm: 500                                   # its own request and token rate limits
        tpm: 200000

A bare list of entries (without `deployment`) is accepted too. Keys never go in the file: only the name of the
environment variable that holds them. Errors name the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from climedbench.errors import DataError, yaml_problem


class EndpointSpec(BaseModel):
    """One endpoint of a model: where it is, its share, its limits and where its key comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    name: str | None = None
    weight: float = Field(default=1.0, gt=0)
    max_concurrency: int | None = Field(default=None, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)
    api_key_env: str | None = None

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)")
        if parts.username or parts.password:
            raise ValueError("credentials do not belong in a URL; name the variable holding the key in api_key_env")
        return url.rstrip("/")


class EndpointsFile(BaseModel):
    """An endpoints file: the endpoints and, optionally, the deployment label they serve."""

    model_config = ConfigDict(extra="forbid")

    deployment: str | None = None
    endpoints: list[EndpointSpec] = Field(min_length=1)


def endpoints_from_urls(urls: list[str]) -> list[EndpointSpec]:
    """Endpoints from repeated --base-url options (equal weights, the run's concurrency and key)."""
    out = []
    for n, url in enumerate(urls, start=1):
        try:
            out.append(EndpointSpec(url=url))
        except ValidationError as e:
            raise DataError(f"--base-url #{n}: {e.errors()[0]['msg']}") from e
    return out


def load_endpoints(path: str | Path) -> EndpointsFile:
    """Read and check an endpoints file; errors name the file, line and field."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(f"cannot read the endpoints file: {e.strerror or e}", file=str(path)) from e
    try:
        root = yaml.compose(text)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        problem, line = yaml_problem(e)
        raise DataError(f"not valid YAML ({problem})", file=str(path), line=line) from e
    if isinstance(raw, list):
        raw = {"endpoints": raw}
        root = yaml.MappingNode("tag:yaml.org,2002:map", [(yaml.ScalarNode("tag:yaml.org,2002:str", "endpoints"),
                                                            root)])
    if not isinstance(raw, dict):
        raise DataError("expected a list of endpoints, or a mapping with 'endpoints' (and 'deployment')",
                        file=str(path), line=1)
    try:
        return EndpointsFile.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = tuple(first["loc"])
        field = ".".join(str(x) for x in loc) or None
        line = _line_of(root, loc)
        raise DataError(first["msg"], file=str(path), line=line, field=field) from e


def _line_of(node: Any, loc: tuple[Any, ...]) -> int | None:
    """The 1-based line of the YAML node at `loc` (or of the deepest node on the way there)."""
    line = node.start_mark.line + 1 if node is not None and getattr(node, "start_mark", None) else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if k.value == key), None)
            if found is None:
                return line
            line, node = (found.start_mark.line + 1 if found.start_mark else line), found
            if isinstance(found, yaml.ScalarNode):  # the value's line: where the user must look
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1 if node.start_mark else line
        else:
            return line
    return line
