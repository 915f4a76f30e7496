"""`climedbench build --generator … --executor ray` against a local build: wall time and requests.

    PYTHONPATH=src:. python bench/build_ray.py [--latency 1.0] [--workers 2]

De-identifies tests/fixtures/build, then builds ID#2 and ID#4 with LLM1 (an instant OpenAI-compatible server,
tests/support/instant_server.py, that answers each request after `latency` seconds) twice: locally
(`--max-concurrency 1`) and with `--executor ray --workers W` (a private Ray cluster, started by the command, its
start counted). Prints each build's wall time, the requests the server saw and its most requests in flight, and
whether the two candidates.jsonl are the same bytes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats

FIX = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "build"
QUESTION = json.dumps({"question": "该患者最可能的主要诊断是什么？"}, ensure_ascii=False)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="climedbench-build-ray-"))
    notes = tmp / "notes"
    run_cli("deid", str(FIX), "--out", str(notes), "--id-column", "record_id", "--patient-column", "patient_id",
            "--keep-column", "lang", "--keep-column", "specialty", "--keep-column", "note_type",
            "--salt-file", str(tmp / "salt"), "--workers", "1")
    with instant_server(reply=QUESTION, latency=args.latency) as url:
        for name, ex in (("local", []), ("ray", ["--executor", "ray", "--workers", str(args.workers)])):
            reset_stats(url)
            start = time.perf_counter()
            run_cli("build", str(notes), "--out", str(tmp / name), "--generator", "openai:instant-test",
                    "--base-url", url, "--cache", str(tmp / f"{name}.sqlite"), "--scenarios", "ID#2,ID#4", *ex,
                    timeout=1200)
            s = get_stats(url)
            print(f"{name}: {time.perf_counter() - start:.1f} s, {s['requests']} requests, "
                  f"at most {s['max_in_flight']} in flight")
    same = (tmp / "local/.build/candidates.jsonl").read_bytes() == (tmp / "ray/.build/candidates.jsonl").read_bytes()
    print("candidates.jsonl the same bytes:", same)


if __name__ == "__main__":
    main()
