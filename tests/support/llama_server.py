"""A real xllamacpp OpenAI-compatible server on 127.0.0.1, in a child process, for backend tests.

Run as a script it loads a GGUF, prints its base URL on stdout and serves until killed:
    python -m tests.support.llama_server PATH [--api-key KEY] [--alias NAME]
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    import xllamacpp as xlc

    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--alias", default=None)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--parallel", type=int, default=1)
    args = ap.parse_args()
    p = xlc.CommonParams()
    p.model.path = args.model
    p.n_ctx = args.ctx
    p.n_parallel = args.parallel
    p.cpuparams.n_threads = 1
    p.cpuparams_batch.n_threads = 1
    p.verbosity = -1
    p.cache_prompt = False  # deterministic answers whatever the request order (see models/llamacpp.py)
    p.hostnames = ["127.0.0.1"]
    p.port = 0
    if args.api_key:
        p.api_keys = [args.api_key]
    if args.alias:
        p.model_alias = args.alias
    server = xlc.Server(p)
    print(server.listening_address, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})


@contextmanager
def llama_server(model: Path, api_key: str | None = None, alias: str | None = None,
                 parallel: int = 1) -> Iterator[str]:
    """Start the server, yield its base URL ('http://127.0.0.1:PORT/v1'), stop it afterwards."""
    from tests.support.instant_server import run_child

    cmd = [sys.executable, "-m", "tests.support.llama_server", str(model), "--parallel", str(parallel)]
    if api_key:
        cmd += ["--api-key", api_key]
    if alias:
        cmd += ["--alias", alias]
    with run_child(cmd, "llama server", "/health", timeout=120) as url:
        yield url + "/v1"


if __name__ == "__main__":
    main()
