"""How many of a demo request's prompt tokens the chat template adds, on the embedded model (no answer is changed).

    python bench/template_tokens.py [--suite S] [--tasks WTD,FIT,BKT]

Loads the embedded model once (one copy) and asks it for one token at a time, for the first demo request of each
task in --tasks (default: the three with the shortest prompts, to keep it quick on a shared machine):
- the prompt as the run sends it (one user message: the model's chat template adds its default system message,
  "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.", and the role markers);
- the same prompt after an empty system message (the template then adds no default system message);
- the bare prompt text through /completions (no template at all).

It prints the three token counts per request (exact, from llama.cpp) and, when the template's share is the same
for every request measured, that share times the demo's number of requests.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from climedbench.models.base import GenParams
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.run.plan import RunOptions, plan_run


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=None)
    ap.add_argument("--tasks", default="WTD,FIT,BKT")
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    plan = plan_run(RunOptions(suite=args.suite))
    backend = await open_backend(plan.options.model, ModelOptions(replicas=1))
    server = backend._servers[0]  # type: ignore[attr-defined]
    one = GenParams(max_tokens=1, temperature=0.0, seed=0)
    wanted = args.tasks.split(",")
    firsts = {}
    for req in plan.requests:
        if req.task.code in wanted:
            firsts.setdefault(req.task.code, req)
    rows, totals = [], [0, 0, 0, 0]
    try:
        for req in firsts.values():
            messages = req.messages(plan.suite)
            as_sent = (await backend.chat(messages, one)).prompt_tokens or 0
            no_default = (await backend.chat([{"role": "system", "content": ""}, *messages], one)).prompt_tokens or 0
            text = "\n".join(m["content"] for m in messages)
            bare = server.handle_completions({"prompt": text, "max_tokens": 1, "temperature": 0.0})
            bare_tokens = bare["usage"]["prompt_tokens"]
            for i, v in enumerate((1, as_sent, no_default, bare_tokens)):
                totals[i] += v
            rows.append((req.task.code, as_sent, no_default, bare_tokens))
    finally:
        await backend.aclose()
    print("| task | prompt tokens as sent | with an empty system message | bare text (no template) |")
    print("|---|---:|---:|---:|")
    for code, a, b, c in rows:
        print(f"| {code} | {a} | {b} | {c} |")
    added = {a - c for _, a, _, c in rows}
    default_system = {a - b for _, a, b, _ in rows}
    print(f"tokens the template adds per request: {sorted(added)}; of them the default system message: "
          f"{sorted(default_system)} (more than one value: it depends on the prompt)")
    if len(added) == 1 and len(default_system) == 1:
        n = len(plan.requests)
        print(f"over the demo's {n} requests: {n * added.pop():,} tokens of template, "
              f"{n * default_system.pop():,} of them the default system message")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    asyncio.run(main())
