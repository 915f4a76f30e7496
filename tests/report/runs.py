"""Run directories for the report tests, made by the real runner against instant OpenAI-compatible servers.

Data: the first items of seven demo scenarios (one per CliMedBench dimension) plus one BKT item whose text is
markup. Runs: 'alpha' (answers 答案：X, X from ABCD; its prompts logged), 'beta' (X from ABZ: 'Z' is no option, so some answers cannot
be read: extraction failures) and 'gamma <i>x</i>' (every answer is markup that would run script if rendered as
HTML, then 答案：A).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.core.suite import load_suite

TASKS = {"ID#1": ("ID1", 3), "BKT": ("BKT", 12), "CPR": ("CPR", 3), "KE": ("KE", 3), "CS": ("CS", 3),
         "FIT": ("FIT", 3), "MC": ("MC", 3)}
MARKUP_INPUT = ('## 问题: <script>window.__pwned = "input"</script><img src=x onerror="window.__pwned = \'img\'">'
                "下列哪项正确？&amp; </pre>\n## 选项: A. <b>甲</b>\nB. 乙\nC. 丙\nD. 丁")
MARKUP_REPLY = ('答案：A\n<script>window.__pwned = "reply"</script><img src=x onerror="window.__pwned = 1">'
                '<svg onload="window.__pwned = 2"></svg>')
GAMMA = "gamma <i>x</i>"


@dataclass
class ReportRuns:
    data: Path
    alpha: Path
    beta: Path
    gamma: Path

    @property
    def all(self) -> list[Path]:
        return [self.alpha, self.beta, self.gamma]


def make_data(folder: Path) -> Path:
    """The first items of seven demo scenarios, and the markup item in BKT."""
    demo = load_suite().demo_dir
    assert demo is not None
    folder.mkdir(parents=True)
    for stem, n in TASKS.values():
        lines = (demo / f"{stem}.test.jsonl").read_text(encoding="utf-8").splitlines()[:n]
        if stem == "BKT":
            lines.append(json.dumps({"id": "BKT-markup", "scenario": "BKT", "split": "test", "input": MARKUP_INPUT,
                                     "reference": "A"}, ensure_ascii=False))
        (folder / f"{stem}.test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def run_through(app: Any, data: Path, out: Path, suite: str | None = None, log_prompts: bool = False) -> Path:
    """One run through the real runner and HTTP client against `app` (an InstantApp) served on 127.0.0.1 in this
    process, in a thread of its own (Playwright's sync API may already run an event loop in this one)."""
    from climedbench.models.registry import ModelOptions
    from climedbench.run.driver import run_plan
    from climedbench.run.plan import RunOptions, plan_run
    from tests.support.instant_server import start

    async def run() -> None:
        server = await start(app)
        port = server.sockets[0].getsockname()[1]
        try:
            opts = RunOptions(data=str(data), suite=suite, model=f"openai:{app.model}", limit=0, max_tokens=400,
                              no_cache=True, out=str(out), log_prompts=log_prompts,
                              model_options=ModelOptions(base_url=f"http://127.0.0.1:{port}/v1", max_concurrency=8))
            await run_plan(plan_run(opts))
        finally:
            server.close()
            await server.wait_closed()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()
    return out


def make_runs(tmp: Path) -> ReportRuns:
    """The three runs on the same data."""
    from tests.support.instant_server import InstantApp

    data = make_data(tmp / "data")
    return ReportRuns(data=data, alpha=run_through(InstantApp(model="alpha"), data, tmp / "alpha", log_prompts=True),
                      beta=run_through(InstantApp(model="beta", letters="ABZ"), data, tmp / "beta"),
                      gamma=run_through(InstantApp(model=GAMMA, reply=MARKUP_REPLY), data, tmp / "gamma"))


def samples(run: Path) -> dict[str, dict]:
    """samples.jsonl by item id, read as plain JSON."""
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["item_id"]: r for r in rows}
