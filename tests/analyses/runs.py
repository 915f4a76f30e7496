"""Run directories built from constructed samples (pure logic tests: no model is called)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from climedbench.core.suite import load_suite
from climedbench.core.types import RunSpec, Sample
from climedbench.data.loaders import DEMO_NAME
from climedbench.results import build_results


def make_run(path: Path, rows: list[dict[str, Any]], *, variant: str = "vanilla", model: str = "m",
             data: str = DEMO_NAME, shots: int = 0, mc_mode: str = "generate") -> Path:
    """A run directory whose samples are `rows` (each: task, id, score, and any other Sample field)."""
    suite = load_suite()
    path.mkdir(parents=True)
    samples = []
    for r in rows:
        r = dict(r)
        task, item_id = r.pop("task"), r.pop("id")
        split = r.pop("split", "test")
        samples.append(Sample(uid=f"{task}/{split}/{item_id}", item_id=item_id, task=task, variant=variant,
                              raw=r.pop("raw", "答案：A"), **r))
    tasks = list(dict.fromkeys(s.task for s in samples))
    spec = RunSpec(suite="climedbench", suite_source="bundled:climedbench", data=data, tasks=tasks,
                   prompt={"variant": variant, "shots": shots, "item_prompts": False},
                   mc_mode=mc_mode, model={"model": model, "backend": "test"}, model_spec=model)
    (path / "run.json").write_text(spec.model_dump_json(exclude_none=True))
    (path / "samples.jsonl").write_text("".join(s.jsonl() + "\n" for s in samples))
    results = build_results(samples, suite, model)
    (path / "results.json").write_text(results.model_dump_json(exclude_none=True))
    return path


def ids(task: str, prefix: str, n: int) -> list[str]:
    return [f"{prefix}-{k:03d}" for k in range(1, n + 1)]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
