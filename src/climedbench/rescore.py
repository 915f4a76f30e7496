"""Re-extract and re-score a run directory from its raw responses: no model is called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from climedbench.data.loaders import DEMO_NAME, load_items
from climedbench.errors import DataError
from climedbench.rundir import RunDir, iter_samples, write_json_atomic, write_jsonl_atomic
from climedbench.runner import build_results
from climedbench.scoring import Scorer
from climedbench.taxonomy import Suite, load_suite


def rescore(path: str | Path, *, tokenizer: str | None = None, embedder: str | None = None
            ) -> tuple[dict[str, Any], Suite]:
    """Recompute every sample's extraction and score, then results.json; returns (results, suite)."""
    rd = RunDir(path)
    spec = rd.read_spec()
    suite_file = spec.get("suite_file", "")
    suite = load_suite(None if suite_file.startswith("bundled") else suite_file)
    data = spec.get("data")
    report = load_items(None if data == DEMO_NAME else data, suite)
    items = {i.uid: i for i in report.items}
    metrics = dict(spec.get("metrics") or {})
    scorer = Scorer(tokenizer=tokenizer or metrics.get("rouge_tokenizer", "jieba"),  # type: ignore[arg-type]
                    embedder_spec=embedder or metrics.get("embedder", "e5"))
    samples = list({s["uid"]: s for s in iter_samples(rd.samples_file)}.values())
    if not samples:
        raise DataError(f"{rd.samples_file}: no samples to score")
    for s in samples:
        item = items.get(s["uid"])
        if item is None:
            raise DataError(f"{rd.samples_file}: item {s['uid']} is not in {data} any more "
                            "(the data changed since the run)")
        scored = scorer.score(suite.scenario(item.scenario), item, s.get("raw"), s.get("logprobs"),
                              "logprob" if s.get("variant") == "logprob" else spec.get("mc_mode", "generate"))
        s.update(scored.sample_fields(suite.scenario(item.scenario), item, s.get("error")))
    write_jsonl_atomic(rd.samples_file, samples)
    results = build_results(samples, suite, str((spec.get("model") or {}).get("model", "model")),
                            int(spec.get("seed", 0)))
    old = rd.read_results() if rd.results_file.exists() else {}
    if "run" in old:
        results["run"] = old["run"]
    results["rescored"] = {"rouge_tokenizer": scorer.tokenizer, "embedder": scorer.embedder_spec}
    write_json_atomic(rd.results_file, results)
    return results, suite
