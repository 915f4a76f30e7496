"""Scenario, dimension and overall scores by the paper's convention, each with a bootstrap 95% CI.

- scenario = mean of its item scores ×100;
- dimension = mean of its scenarios' scores;
- overall = plain mean of the scenario scores (checked against the paper's Table 2).

CIs are percentile bootstraps. Items are resampled within each scenario independently, and a
dimension's or the overall replicate is the same function of the scenario replicates, so every CI
reflects the item sampling of every scenario it averages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from climedbench.taxonomy import Suite

DEFAULT_REPLICATES = 2000
_CHUNK_CELLS = 2_000_000  # bootstrap index block size (cells), keeps memory flat for large scenarios


@dataclass
class ScenarioScores:
    """The item scores of one scenario plus counts that explain them."""

    scores: list[float]
    extraction_failures: int = 0
    errors: int = 0
    extra: dict[str, int] = field(default_factory=dict)


def bootstrap_means(scores: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """`replicates` means of resamples (with replacement) of `scores`."""
    n = len(scores)
    if n == 0:
        return np.full(replicates, np.nan)
    out = np.empty(replicates)
    block = max(1, _CHUNK_CELLS // n)
    for start in range(0, replicates, block):
        stop = min(replicates, start + block)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = scores[idx].mean(axis=1)
    return out


def _ci(replicates: np.ndarray) -> list[float]:
    lo, hi = np.percentile(replicates, [2.5, 97.5])
    return [round(float(lo) * 100, 2), round(float(hi) * 100, 2)]


def _figure(score: float, ci: list[float] | None, n: int | None, metric: str, failures: int | None,
            **extra: Any) -> dict[str, Any]:
    return {"score": round(score * 100, 2), "ci": ci, "n": n, "metric": metric,
            "extraction_failures": failures, **extra}


def aggregate(by_scenario: Mapping[str, ScenarioScores], suite: Suite, *, seed: int = 0,
              replicates: int = DEFAULT_REPLICATES) -> dict[str, Any]:
    """Scenario, dimension and overall figures with CIs, in the results.json shape."""
    rng = np.random.default_rng(seed)
    scenarios: dict[str, Any] = {}
    means: dict[str, float] = {}
    reps: dict[str, np.ndarray] = {}
    for sc in suite.scenarios:
        data = by_scenario.get(sc.code)
        if data is None or not data.scores:
            continue
        arr = np.asarray(data.scores, dtype=np.float64)
        means[sc.code] = float(arr.mean())
        reps[sc.code] = bootstrap_means(arr, replicates, rng)
        scenarios[sc.code] = _figure(means[sc.code], _ci(reps[sc.code]), len(arr), sc.metric,
                                     data.extraction_failures, errors=data.errors, **data.extra)

    def combined(codes: list[str], **extra: Any) -> dict[str, Any]:
        return _figure(float(np.mean([means[c] for c in codes])),
                       _ci(np.mean([reps[c] for c in codes], axis=0)),
                       sum(scenarios[c]["n"] for c in codes), "mean of scenario scores",
                       sum(scenarios[c]["extraction_failures"] for c in codes), **extra)

    return _roll_up(scenarios, suite, combined)


def _roll_up(scenarios: dict[str, Any], suite: Suite, combined: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Dimensions (mean of their scenarios) and overall (mean of all scenarios), the paper's convention."""
    dimensions: dict[str, Any] = {}
    for dim, members in suite.by_dimension().items():
        codes = [s.code for s in members if s.code in scenarios]
        if codes:
            dimensions[dim] = combined(codes, scenarios=codes, complete=len(codes) == len(members))
    overall: dict[str, Any] = {}
    if scenarios:
        codes = list(scenarios)
        overall = combined(codes, n_scenarios=len(codes), complete=len(codes) == len(suite.scenarios))
    return {"scenarios": scenarios, "dimensions": dimensions, "overall": overall}


def from_published(scores: Mapping[str, float], suite: Suite) -> dict[str, Any]:
    """The same shape from published scenario scores (already ×100): no CIs, no item counts."""
    scenarios = {c: _figure(scores[c] / 100, None, None, suite.scenario(c).metric, None)
                 for c in suite.codes if c in scores}

    def combined(codes: list[str], **extra: Any) -> dict[str, Any]:
        return _figure(float(np.mean([scores[c] for c in codes])) / 100, None, None, "mean of scenario scores",
                       None, **extra)

    return _roll_up(scenarios, suite, combined)


def scores_by_scenario(samples: Sequence[Mapping[str, Any]]) -> dict[str, ScenarioScores]:
    """Group sample records (samples.jsonl lines) into per-scenario score lists and counts."""
    out: dict[str, ScenarioScores] = {}
    for s in samples:
        agg = out.setdefault(s["scenario"], ScenarioScores([]))
        agg.scores.append(float(s["score"]))
        if s.get("error"):
            agg.errors += 1
        elif s.get("extraction_failure"):
            agg.extraction_failures += 1
        if s.get("repeated_misleading"):
            agg.extra["repeated_misleading"] = agg.extra.get("repeated_misleading", 0) + 1
        if s.get("wrong_option"):
            agg.extra["wrong_option"] = agg.extra.get("wrong_option", 0) + 1
    return out
