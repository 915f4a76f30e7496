"""A real xllamacpp OpenAI-compatible server on 127.0.0.1, in a child process, for backend tests.

Run as a script it loads a GGUF, prints its base URL on stdout and serves until killed:
    python -m tests.support.llama_server PATH [--api-key KEY] [--alias NAME]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
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
    cmd = [sys.executable, "-m", "tests.support.llama_server", str(model), "--parallel", str(parallel)]
    if api_key:
        cmd += ["--api-key", api_key]
    if alias:
        cmd += ["--alias", alias]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().strip()
        if not address.startswith("http"):
            raise RuntimeError(f"llama server did not start (exit code {proc.poll()})")
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(address + "/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline:
                raise RuntimeError("llama server never became healthy")
            time.sleep(0.2)
        yield address + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
