"""In-process llama.cpp (xllamacpp): any GGUF file, the embedded default model included."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

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


def _available_memory() -> int:
    """Bytes of memory available now: Linux's MemAvailable (free + reclaimable cache), else the free pages; a large
    figure where the system cannot say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def default_replicas(path: Path) -> int:
    """One model copy per core, as many as half the free memory holds (a copy: its weights + KV and buffers).

    One-thread copies, each answering one request at a time, beat one multi-threaded copy on small CPUs:
    llama.cpp's threads meet at a barrier after every operation, which costs much more than the operation on a
    busy or virtualised machine (bench/llama_limit.py), and a copy decodes each sequence alone, so the
    outputs are those of a single copy (unlike llama.cpp's batched slots; tests/test_llama_determinism.py)."""
    per_copy = int(path.stat().st_size * 1.25) + (512 << 20)
    return max(1, min(os.cpu_count() or 1, (_available_memory() // 2) // per_copy))


def layout(path: Path, threads: int | None, replicas: int | None) -> tuple[int, int]:
    """(threads per copy, copies) from what the user asked; see default_replicas."""
    cores = os.cpu_count() or 1
    if replicas is None:
        replicas = 1 if threads else default_replicas(path)
    if threads is None:
        threads = default_threads() if replicas == 1 else max(1, cores // replicas)
    return threads, replicas


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


def server_params(path: Path, n_ctx: int, threads: int, settings: dict[str, Any] | None = None) -> Any:
    """xllamacpp's parameters of one model copy: one sequence at a time, no prompt cache, `threads` threads.

    `settings` overrides CommonParams attributes by name ("cpuparams.poll" for a nested one); bench/llama_settings.py
    measures them against these defaults (speed, and whether any output changes)."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    # One sequence per copy: llama.cpp's batched slots (n_parallel > 1) change greedy outputs when sequences
    # share a batch (measured: 2 of 8 demo answers changed, differently in each request order).
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1  # llama.cpp's own logging would flood the terminal
    # Reusing the previous request's KV prefix changes how the prompt is batched, which changes
    # greedy outputs at near-ties: the answer would depend on which item came before. Measured on
    # the demo: 3 of 6 outputs changed with request order when on; off costs about 8% speed.
    params.cache_prompt = False
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    # Only so that `wait_for_loop` can send a request through the copy's task queue (no output changes).
    params.endpoint_metrics = True
    for name, value in (settings or {}).items():
        *parents, leaf = name.split(".")
        target = params
        for part in parents:
            target = getattr(target, part)
        if not hasattr(target, leaf):
            raise ModelError(f"unknown llama.cpp setting {name!r}")
        setattr(target, leaf, value)
    return params


@dataclass
class LlamaCppBackend(Backend):
    """A GGUF model loaded in this process, `replicas` times: each copy answers one request at a time."""

    path: Path = Path()
    n_ctx: int = 8192
    threads: int = field(default_factory=default_threads)  # per copy
    replicas: int = 1
    label: str | None = None
    expected_sha256: str | None = None
    known_sha256: str | None = None
    # llama.cpp settings beyond the defaults (server_params); any that could change an output is in the fingerprint
    settings: dict[str, Any] = field(default_factory=dict)
    longest_first: ClassVar[bool] = True  # a few copies: their idle tail is worth avoiding (run/engine.py)

    def __post_init__(self) -> None:
        import xllamacpp as xlc

        check_gguf(self.path)
        digest = self.known_sha256 or _file_hash(self.path)
        if self.expected_sha256 and digest != self.expected_sha256.lower():
            raise ModelError(f"model file {self.path} has sha256 {digest[:16]}…, expected "
                             f"{self.expected_sha256[:16]}… (corrupt or a different model)")
        if self.replicas < 1 or self.threads < 1:
            raise ModelError(f"replicas and threads must be at least 1, not {self.replicas} and {self.threads}")
        params = server_params(self.path, self.n_ctx, self.threads, self.settings)

        def load(_: int) -> Any:
            try:
                return wait_for_loop(xlc.Server(params))
            except RuntimeError as e:
                raise ModelError(f"llama.cpp could not load {self.path} (corrupt, truncated, or an "
                                 f"unsupported GGUF): {e}") from e

        with ThreadPoolExecutor(self.replicas) as pool:  # the copies load side by side
            self._servers: list[Any] = list(pool.map(load, range(self.replicas)))
        # A thread-safe queue of idle copies, not an asyncio one: the model is shared by whatever event loop calls it.
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        for server in self._servers:
            self._idle.put(server)
        self.max_concurrency = self.replicas
        # Everything that could change an output is part of the identity: the engine version, the prefix cache,
        # sequences per batch, batch sizes, flash attention and the threads per copy (measured: one demo answer
        # of six changed between 1 and 2 threads). Not the number of copies: tests/test_llama_determinism.py
        # checks that copies answering side by side give the same bytes as one copy, in any request order.
        self.fingerprint = {
            "backend": "llamacpp",
            "model": self.label or self.path.stem,
            "sha256": digest,
            "engine": f"xllamacpp {getattr(xlc, '__version__', '?')}",
            "prefix_cache": False,
            "threads": self.threads,
            "n_parallel": params.n_parallel,
            "n_batch": params.n_batch,
            "n_ubatch": params.n_ubatch,
            "flash_attn": {-1: "auto", 0: "off", 1: "on"}.get(params.flash_attn_type, str(params.flash_attn_type)),
        }
        if self.settings:  # any other setting, e.g. the KV cache type: recorded, since it may change an output
            self.fingerprint["settings"] = {k: str(v) for k, v in sorted(self.settings.items())}

    async def chat(self, messages: list[Message], params: GenParams) -> Completion:
        req = chat_request(messages, params)

        def call() -> tuple[dict[str, Any], float]:
            server = self._idle.get()
            try:
                start = time.perf_counter()
                return server.handle_chat_completions(req), time.perf_counter() - start
            finally:
                self._idle.put(server)

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
        servers, self._servers, self._idle = self._servers, [], queue.SimpleQueue()
        release(servers)


def wait_for_loop(server: Any) -> Any:
    """The copy, once its task loop runs. xllamacpp's Server returns when the model is loaded, before its loop thread
    enters llama.cpp's `start_loop`, which sets `running = true` on entry: a copy closed in that window had its
    `terminate()` overwritten and its destructor joined the loop thread forever (holding the GIL). Seen on a loaded
    machine: tests/test_llama_release.py hung at its first load/close cycles in 2 of 2 runs at load 2–4 (2026-11-29,
    caught by release()'s watchdog, the main thread waiting in the release thread's start). A metrics request goes
    through the task queue, so it returns only once the loop runs (about 0.3 ms)."""
    server.handle_metrics()
    return server


def release(servers: list[Any], wait: float = 60.0, hard_limit: float = 300.0) -> None:
    """Free model copies from a thread of their own, not the caller's. Dropping two copies loaded side by side from the
    main thread hung in xllamacpp's server shutdown (a join that never returned) within five load/close cycles in 3
    of 3 tries; from another thread, 0 hangs in 25 cycles (at 10 cycles the test failed on the old code in 1 of 2
    tries; tests/test_llama_release.py now runs 8 beside two busy processes, see `wait_for_loop`). Should the
    shutdown still not finish within `wait` seconds, the run goes on (the copies stay allocated until the process
    ends) rather than hang.

    That limit needs the GIL back, and a shutdown seen hanging beside a busy process (2 of 2 parallel test runs) held
    it inside xllamacpp's destructor. So a C-level watchdog (faulthandler, no GIL needed) is armed too: after
    `hard_limit` seconds it prints every thread's stack to stderr and ends the process with exit code 1. Samples are
    on disk by then (each batch is written as it is answered); `climedbench score` rebuilds results.json."""
    import faulthandler
    import sys

    try:
        faulthandler.dump_traceback_later(hard_limit, exit=True, file=sys.__stderr__ or 2)
    except (AttributeError, ValueError, OSError) as e:  # no real stderr (an embedding host): no watchdog
        logging.getLogger(__name__).debug("no shutdown watchdog: %s", e)
    try:
        worker = threading.Thread(target=servers.clear, name="llamacpp-release", daemon=True)
        worker.start()
        worker.join(wait)
    finally:
        faulthandler.cancel_dump_traceback_later()
    if worker.is_alive():
        logging.getLogger(__name__).warning("llama.cpp did not shut down within %.0f s; going on without it", wait)
