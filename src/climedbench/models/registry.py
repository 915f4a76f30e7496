"""Turn a --model specification into a backend."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from climedbench.errors import ConfigError
from climedbench.models.base import Backend
from climedbench.models.endpoints import EndpointSpec
from climedbench.secrets import api_key_from_env

DEFAULT_SPEC = "default"
SPEC_HELP = (
    "'default' (embedded Qwen2.5-Coder-0.5B-Instruct Q4_K_M, in-process), 'gguf:PATH' (any GGUF file, "
    "in-process), or 'openai:NAME' (an OpenAI-compatible server at --base-url; 'openai:NAME@URL' names the "
    "server per model)"
)


@dataclass(frozen=True)
class ModelOptions:
    """Everything a backend may need besides its spec."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 5
    max_concurrency: int = 8
    n_ctx: int = 8192
    threads: int | None = None
    replicas: int | None = None  # in-process models: copies answering side by side (None: llamacpp.layout decides)
    model_sha256: str | None = None
    # Several endpoints of one model (repeated --base-url, or --endpoints FILE): requests are balanced over them.
    endpoints: tuple[EndpointSpec, ...] = ()
    # What the endpoints serve, when the model name alone does not say it (part of the model's fingerprint).
    deployment: str | None = None


async def open_backend(spec: str, opts: ModelOptions) -> Backend:
    """Load or connect to the model named by `spec`; raises ModelError/ConfigError with one clear line."""
    spec = (spec or DEFAULT_SPEC).strip()
    kind, _, rest = spec.partition(":")
    if spec == DEFAULT_SPEC:
        from climedbench.models import default_model
        from climedbench.models.llamacpp import LlamaCppBackend, layout

        path = default_model.default_model_path()
        threads, replicas = layout(path, opts.threads, opts.replicas)
        return LlamaCppBackend(path=path, n_ctx=opts.n_ctx, threads=threads, replicas=replicas,
                               label=default_model.NAME, known_sha256=default_model.SHA256)
    if kind == "gguf":
        from climedbench.models.llamacpp import LlamaCppBackend, check_gguf, layout

        if not rest:
            raise ConfigError("gguf:PATH needs a path, e.g. --model gguf:~/models/qwen2.5-7b-q4_k_m.gguf")
        path = Path(rest).expanduser()
        check_gguf(path)
        threads, replicas = layout(path, opts.threads, opts.replicas)
        return LlamaCppBackend(path=path, n_ctx=opts.n_ctx, threads=threads, replicas=replicas,
                               expected_sha256=opts.model_sha256)
    if kind == "openai":
        from climedbench.models.openai_compat import OpenAIBackend

        # 'openai:NAME@URL' names the server per model (vLLM serves one model per server; mps uses several).
        name, at, url = rest.rpartition("@") if "@http" in rest else (rest, "", "")
        rest = name if at else rest
        base = url or opts.base_url or os.environ.get("OPENAI_BASE_URL")
        if not base and not (opts.endpoints and not at):
            raise ConfigError("openai:NAME needs --base-url (e.g. http://127.0.0.1:8000/v1 for vLLM, "
                              "http://127.0.0.1:11434/v1 for Ollama) or $OPENAI_BASE_URL")
        if (opts.endpoints or opts.deployment) and not at:
            from climedbench.models.endpoints import endpoints_from_urls
            from climedbench.models.pool import PooledBackend

            pool = PooledBackend(model=rest, endpoints=list(opts.endpoints) or endpoints_from_urls([str(base)]),
                                 deployment=opts.deployment, api_key_env=opts.api_key_env, timeout=opts.timeout,
                                 max_retries=opts.max_retries, default_concurrency=opts.max_concurrency)
            try:
                await pool.check()
            except BaseException:
                await pool.aclose()
                raise
            return pool
        assert base is not None
        backend = OpenAIBackend(model=rest, base_url=base, api_key=api_key_from_env(opts.api_key_env),
                                timeout=opts.timeout, max_retries=opts.max_retries,
                                max_concurrency=opts.max_concurrency)
        try:
            await backend.check()
        except BaseException:
            await backend.aclose()
            raise
        return backend
    raise ConfigError(f"--model {spec!r}: unknown kind {kind!r}; use {SPEC_HELP}")
