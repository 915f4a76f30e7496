"""Check ClinicBench loaders and metrics on a folder of release files: validate them, then score a run whose model
answers every test item with its own gold (the task's demonstration of it), served by the instant server on
127.0.0.1. Prints validate's counts and each dataset's score (100 = the gold is read back in full).

    python scripts/check_clinicbench_release.py DATA_DIR [--datasets DDI,HoC]

docs/CLINICBENCH.md ("Verified on the public files") gives its figures on the full public files."""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("--datasets", default=None)
    args = ap.parse_args()

    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items
    from climedbench.prompts import PromptSettings, demonstration, user_message
    from tests.support.instant_server import instant_server

    suite = load_suite("clinicbench")
    only = args.datasets.split(",") if args.datasets else None
    report = load_items(args.data, suite, only)
    print(json.dumps(report.as_json(suite)["splits"]), f"invalid: {len(report.problems)}")
    for p in report.problems[:10]:
        print("  ", p)
    replies = {}
    for item in report.items:
        if item.split == "test":
            task = suite.task(item.task)
            prompt = user_message(task, item, PromptSettings(), suite)
            replies[hashlib.sha256(prompt.encode("utf-8")).hexdigest()] = demonstration(task, item)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "replies.json").write_text(json.dumps(replies), "utf-8")
        with instant_server(model="echo-gold", replies=Path(tmp) / "replies.json") as url:
            cmd = [sys.executable, "-m", "climedbench.cli", "run", "--suite", "clinicbench", "--data", args.data,
                   "--limit", "0", "--model", "openai:echo-gold", "--base-url", url, "--max-tokens", "100000",
                   "--no-cache", "--quiet", "--skip-invalid", "--out", str(Path(tmp) / "run")]
            if only:
                cmd += ["--datasets", ",".join(only)]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        results = json.loads((Path(tmp) / "run" / "results.json").read_text("utf-8"))
    for code, fig in results["tasks"].items():
        print(f"{code}\t{fig['n']}\t{fig['score']}")


if __name__ == "__main__":
    main()
