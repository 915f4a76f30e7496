"""Prompt sizes of the ClinicBench demo's long-document datasets with 0, 1, 3 and 5 shots, in the embedded
model's tokens, against its context (no generation: only the tokenizer runs).

    python bench/clinicbench_prompt_tokens.py [--datasets HospSumm,PatientEdu] [--ctx 8192]

For every test item of each dataset it builds the messages `climedbench run --shots K` would send and counts
their tokens with the embedded model's tokenizer (the in-process llama.cpp server's /tokenize), adding
4 tokens per message for the chat template. Prints min and max per K and how many prompts leave less room
than the task's max_tokens in a context of --ctx tokens.
"""

from __future__ import annotations

import argparse
import json
import urllib.request

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.models.default_model import default_model_path
from climedbench.models.llamacpp import LlamaCppBackend
from climedbench.prompts import PromptSettings, build_messages

TEMPLATE_TOKENS = 4  # <|im_start|>, role, newline, <|im_end|> around each message (approximate)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="HospSumm,PatientEdu")
    ap.add_argument("--ctx", type=int, default=8192)
    args = ap.parse_args()
    codes = args.datasets.split(",")
    suite = load_suite("clinicbench")
    report = load_items(None, suite, codes)
    backend = LlamaCppBackend(path=default_model_path(), n_ctx=args.ctx)
    address = backend._servers[0].listening_address  # the in-process server's HTTP address
    base = address if address.startswith("http") else f"http://{address}"

    def count(text: str) -> int:
        req = urllib.request.Request(f"{base}/tokenize", data=json.dumps({"content": text}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return len(json.loads(resp.read())["tokens"])

    for code in codes:
        task = suite.task(code)
        tests = [i for i in report.items if i.task == code and i.split == "test"]
        shots = report.devs()
        shots = [i for i in shots if i.task == code]
        room = task.max_tokens or 512
        for k in (0, 1, 3, 5):
            sizes = [sum(count(m["content"]) + TEMPLATE_TOKENS
                         for m in build_messages(task, it, shots[:k], PromptSettings(), suite)) for it in tests]
            over = sum(s > args.ctx - room for s in sizes)
            print(f"{code:12} {k}-shot  prompt tokens {min(sizes):>5}-{max(sizes):<5}  "
                  f"over {args.ctx}-{room}: {over} of {len(sizes)}")


if __name__ == "__main__":
    main()
