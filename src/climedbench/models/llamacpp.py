"""In-process llama.cpp (xllamacpp): any GGUF file, the embedded default model included."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from climedbench.errors import ModelError
from climedbench.models.base import (
    Backend,
    Completion,
    GenParams,
    Message,
    RequestFailed,
    chat_request,
    parse_chat_response,
)
from climedbench.models.default_model import sha256_file


def default_threads() -> int:
    """One thread per core but one, at least one: the process still needs a core to run the harness."""
    return max(1, (os.cpu_count() or 2) - 1)


def check_gguf(path: Path) -> None:
    """A clear error for a missing file or one that is not GGUF, before llama.cpp's generic failure."""
    if not path.is_file():
        raise ModelError(f"model file {path} does not exist")
    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise ModelError(f"model file {path} is not a GGUF file (it starts with {magic!r}, expected b'GGUF')")


def _file_hash(path: Path) -> str:
    """SHA-256 of a model file, remembered next to it by size and mtime (hashing GBs on every run is slow)."""
    st = path.stat()
    memo = path.with_name(path.name + ".sha256.json")
    key = {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
    with contextlib.suppress(OSError, ValueError):
        saved = json.loads(memo.read_text())
        if saved.get("key") == key:
            return str(saved["sha256"])
    digest = sha256_file(path)
    with contextlib.suppress(OSError):
        memo.write_text(json.dumps({"key": key, "sha256": digest}))
    return digest


@dataclass
class LlamaCppBackend(Backend):
    """A GGUF model loaded in this process; one request at a time per loaded model."""

    path: Path = Path()
    n_ctx: int = 8192
    threads: int = field(default_factory=default_threads)
    label: str | None = None
    expected_sha256: str | None = None
    known_sha256: str | None = None

    def __post_init__(self) -> None:
        import xllamacpp as xlc

        check_gguf(self.path)
        digest = self.known_sha256 or _file_hash(self.path)
        if self.expected_sha256 and digest != self.expected_sha256.lower():
            raise ModelError(f"model file {self.path} has sha256 {digest[:16]}…, expected "
                             f"{self.expected_sha256[:16]}… (corrupt or a different model)")
        params = xlc.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.verbosity = -1  # llama.cpp's own logging would flood the terminal
        # Reusing the previous request's KV prefix changes how the prompt is batched, which changes
        # greedy outputs at near-ties: the answer would depend on which item came before. Measured on
        # the demo: 3 of 6 outputs changed with request order when on; off costs about 8% speed.
        params.cache_prompt = False
        params.hostnames = ["127.0.0.1"]
        params.port = 0
        try:
            self._server = xlc.Server(params)
        except RuntimeError as e:
            raise ModelError(f"llama.cpp could not load {self.path} (corrupt, truncated, or an "
                             f"unsupported GGUF): {e}") from e
        # A thread lock, not an asyncio one: the model is shared by whatever event loop calls it.
        self._lock = threading.Lock()
        self.max_concurrency = 1
        # The engine version and the prefix-cache setting change outputs, so they are part of the identity.
        self.fingerprint = {
            "backend": "llamacpp",
            "model": self.label or self.path.stem,
            "sha256": digest,
            "engine": f"xllamacpp {getattr(xlc, '__version__', '?')}",
            "prefix_cache": False,
        }

    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        req = chat_request(messages, params)

        def call() -> tuple[dict[str, Any], float]:
            with self._lock:
                start = time.perf_counter()
                return self._server.handle_chat_completions(req), time.perf_counter() - start

        try:
            resp, latency = await asyncio.to_thread(call)
        except (ValueError, RuntimeError) as e:
            raise RequestFailed(f"llama.cpp rejected the request: {e}") from e
        if "error" in resp:
            err = resp["error"]
            if err.get("type") == "exceed_context_size_error":
                raise RequestFailed(f"prompt has {err.get('n_prompt_tokens')} tokens, more than the "
                                    f"context of {err.get('n_ctx')} (raise --ctx)")
            raise RequestFailed(f"llama.cpp error: {err.get('message', err)}")
        return parse_chat_response(resp, latency, params)

    async def aclose(self) -> None:
        self._server = None
