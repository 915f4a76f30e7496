"""Turn item scores into the 1/0 responses IRT needs, and back.

Binary metrics (accuracy) are already 0/1. Graded metrics (Kendall's τ, ROUGE, BLEU, F1, similarity)
are binarised per task:

1. rescale to [0, 1]: signed scores (τ) → (τ + 1) / 2; the others are clipped to [0, 1];
2. choose the threshold t, among the observed values above the scenario's lowest one, for which the share
   of responses ≥ t is closest to the mean of the rescaled scores (pooled over all examinees of the matrix):
   the binary mean then tracks the graded mean, so a predicted proportion p maps back to the metric's scale
   (τ = 2p − 1; ROUGE-1 and similarity = p). The lowest observed score is always 0 (wrong) and the highest
   always 1, so binarisation cannot turn a scenario answered all wrong into all right;
3. a graded scenario whose responses all have the same score (every answer scored 0, say) has no threshold
   that tells good answers from bad ones: it is flagged and left out of the matrix (`Binarized.left_out`).

The threshold and transform of every item are written to the item map next to the matrix, and an
adaptive test reads them to score a new model's answers the same way.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from climedbench.core.suite import Suite


def transform_of(metric: str) -> str:
    """'identity' for binary metrics, 'tau' for signed ones (Kendall's τ), else 'clip'."""
    from climedbench.metrics.item import get_metric

    m = get_metric(metric)
    if m.binary:
        return "identity"
    return "tau" if m.scale == "signed" else "clip"


def rescale(score: float, transform: str) -> float:
    """A graded score on [0, 1]."""
    if transform == "tau":
        return (score + 1.0) / 2.0
    return min(1.0, max(0.0, score))


def unscale(p: float, transform: str) -> float:
    """A proportion on [0, 1] back on the metric's own scale."""
    return 2.0 * p - 1.0 if transform == "tau" else p


def mean_preserving_threshold(values: Sequence[float]) -> float:
    """The observed value t, above the smallest one, whose share of values >= t is closest to the mean (ties: the
    larger t); the smallest value itself only when every value is the same (a constant scenario: see
    `binarize_scores`, which leaves those out)."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    if v.size == 0:
        return 0.5
    target = float(v.mean())
    candidates = np.unique(v)
    if candidates.size > 1:
        candidates = candidates[1:]  # the lowest score is never 'correct'
    shares = np.array([np.mean(v >= t) for t in candidates])
    best = np.abs(shares - target)
    return float(candidates[np.flatnonzero(best == best.min())[-1]])


def binarize(score: float, transform: str, threshold: float) -> float:
    """1.0 or 0.0."""
    if transform == "identity":
        return 1.0 if score >= 0.5 else 0.0
    return 1.0 if rescale(score, transform) >= threshold else 0.0


@dataclass
class Binarized:
    """A binarised matrix: the kept columns' 1/0/NaN values, their indices in the graded matrix, the threshold of
    each kept scenario, and the scenarios left out with the reason."""

    data: np.ndarray
    keep: list[int]
    thresholds: dict[str, float]
    left_out: dict[str, str] = field(default_factory=dict)


def binarize_scores(scores: np.ndarray, scenarios: Sequence[str], suite: Suite) -> Binarized:
    """Graded (examinees × items) scores → 1/0/NaN with one threshold per scenario; constant graded scenarios
    are left out (their columns dropped)."""
    thresholds: dict[str, float] = {}
    left_out: dict[str, str] = {}
    by_scenario: dict[str, list[int]] = {}
    for j, code in enumerate(scenarios):
        by_scenario.setdefault(code, []).append(j)
    out = np.full(scores.shape, np.nan)
    for code, cols in by_scenario.items():
        transform = transform_of(suite.task(code).metric)
        block = scores[:, cols]
        seen = ~np.isnan(block)
        if transform != "identity":
            scaled = [rescale(x, transform) for x in block[seen]]
            if len(set(scaled)) <= 1:
                value = f"{block[seen][0]:g}" if scaled else "none"
                left_out[code] = (f"every response scored the same ({value} on {suite.task(code).metric}), so no "
                                  "threshold tells better answers from worse")
                continue
            thresholds[code] = mean_preserving_threshold(scaled)
        else:
            thresholds[code] = 0.5
        vals = np.full(block.shape, np.nan)
        vals[seen] = [binarize(x, transform, thresholds[code]) for x in block[seen]]
        out[:, cols] = vals
    keep = [j for j, code in enumerate(scenarios) if code not in left_out]
    return Binarized(out[:, keep], keep, thresholds, left_out)


def write_item_map(path: Path, items: Sequence[tuple[str, str, int]], suite: Suite,
                   thresholds: dict[str, float]) -> None:
    """item,scenario,k,metric,transform,threshold — read by `irt fit --items-scenarios` and by `cat`."""
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["item", "scenario", "k", "metric", "transform", "threshold"])
        for uid, code, n_options in items:
            sc = suite.task(code)
            w.writerow([uid, code, n_options if sc.answer == "single" and n_options else "", sc.metric,
                        transform_of(sc.metric), f"{thresholds.get(code, 0.5):.6g}"])


def read_transforms(path: str | Path) -> dict[str, tuple[str, float]]:
    """item → (transform, threshold) from an item map written by `write_item_map`."""
    from climedbench.errors import DataError

    out: dict[str, tuple[str, float]] = {}
    with Path(path).open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"item", "transform", "threshold"} <= set(reader.fieldnames):
            raise DataError(f"{path}:1: an item map needs the columns item, transform, threshold "
                            "(written by `climedbench irt matrix` or `climedbench mps`)")
        for n, row in enumerate(reader, start=2):
            if row["transform"] not in ("identity", "tau", "clip"):
                raise DataError(f"{path}:{n}: field 'transform': {row['transform']!r} is not identity, tau or clip")
            try:
                out[row["item"]] = (row["transform"], float(row["threshold"]))
            except ValueError as e:
                raise DataError(f"{path}:{n}: field 'threshold': {row['threshold']!r} is not a number") from e
    return out
