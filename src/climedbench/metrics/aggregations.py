"""Aggregations, registered by name: how a task's item results become one figure.

Every aggregation is a function of the *sum* over items of a per-item statistic vector:

- `mean` — the item scores' mean (accuracy, Kendall's τ, ROUGE, similarity): vector [score];
- `micro_f1` — F1 of the summed (tp, fp, fn) counts (entity-level NER; relation types over the positive
  classes, the negative class named by `metric_options.exclude`);
- `macro_f1` — the mean over classes of each class's F1 (classes present in the gold or the predictions,
  as scikit-learn's default; excluded classes left out);
- `corpus_bleu_coco` — BLEU-4 of the summed n-gram statistics (as pycocoevalcap computes it), not a mean of
  sentence BLEUs.

Because each is a function of sums, a bootstrap replicate is the same function of resampled sums, so
every figure can get an interval the same way (see climedbench.aggregate). The F1 aggregations give posterior
draws instead: the bootstrap of an F1 that is 0 (no true positive in the sample) is [0, 0] whatever the n, while
the posterior of the confusion counts (Goutte & Gaussier 2005, "A probabilistic interpretation of precision, recall
and F-score": Dirichlet(tp + ½, fp + ½, fn + ½)) keeps the doubt a small sample leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from climedbench.core.registry import AGGREGATIONS
from climedbench.core.suite import Task
from climedbench.metrics.functions import coco_bleu_from_stats


class Aggregation:
    """A registered aggregation: the per-item vector it sums and the figure it computes from the sums."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    # The metrics whose item statistics the aggregation sums; None: any (it uses the item scores only).
    metrics: ClassVar[frozenset[str] | None] = None

    def vector(self, score: float, stats: Sequence[float] | None, task: Task) -> list[float]:
        """The per-item statistic vector."""
        return [float(score)]

    def value(self, sums: np.ndarray, n: np.ndarray, task: Task) -> np.ndarray:
        """The figure (0–1 scale) for each row of summed vectors `sums` (shape (..., k)) over `n` items."""
        raise NotImplementedError

    def posterior_draws(self, sums: np.ndarray, task: Task, size: int, rng: np.random.Generator) -> np.ndarray | None:
        """Draws of the figure from a posterior given the summed vector `sums` (shape (k,)), or None when the
        aggregation has none (the bootstrap is used)."""
        return None


class Mean(Aggregation):
    name, label = "mean", "mean of items"

    def value(self, sums: np.ndarray, n: np.ndarray, task: Task) -> np.ndarray:
        return sums[..., 0] / np.maximum(n, 1)


def _need_stats(stats: Sequence[float] | None, task: Task, what: str) -> list[float]:
    if stats is None:
        raise ValueError(f"task {task.code}: the {what} aggregation needs item statistics, but metric "
                         f"{task.metric!r} gives none")
    return [float(x) for x in stats]


def _class_counts(sums: np.ndarray, task: Task) -> np.ndarray:
    """(..., classes, 3) counts, excluded classes dropped; entity counts (width 3) are one class."""
    k = sums.shape[-1]
    per = sums.reshape(*sums.shape[:-1], k // 3, 3)
    exclude = {str(x).lower() for x in task.metric_options.get("exclude", ())}
    if k > 3 and exclude and task.labels:
        keep = [i for i, lab in enumerate(task.labels) if lab.lower() not in exclude]
        per = per[..., keep, :]
    return per


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    den = 2 * tp + fp + fn
    return np.divide(2 * tp, den, out=np.zeros_like(den, dtype=np.float64), where=den > 0)


def _f1_draws(counts: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """(size,) draws of F1 for (tp, fp, fn) `counts`: Dirichlet(tp + ½, fp + ½, fn + ½) on the cell probabilities,
    F1 = 2p_tp / (2p_tp + p_fp + p_fn) (Goutte & Gaussier 2005)."""
    p = rng.dirichlet(np.asarray(counts, dtype=np.float64) + 0.5, size)
    return 2 * p[:, 0] / (2 * p[:, 0] + p[:, 1] + p[:, 2])


class MicroF1(Aggregation):
    name, label = "micro_f1", "micro-F1"
    metrics = frozenset({"entity_f1", "label_f1", "multilabel_f1"})

    def vector(self, score: float, stats: Sequence[float] | None, task: Task) -> list[float]:
        return _need_stats(stats, task, self.name)

    def value(self, sums: np.ndarray, n: np.ndarray, task: Task) -> np.ndarray:
        per = _class_counts(sums, task).sum(axis=-2)
        return _f1(per[..., 0], per[..., 1], per[..., 2])

    def posterior_draws(self, sums: np.ndarray, task: Task, size: int, rng: np.random.Generator) -> np.ndarray:
        return _f1_draws(_class_counts(np.asarray(sums, dtype=np.float64), task).sum(axis=-2), size, rng)


class MacroF1(Aggregation):
    name, label = "macro_f1", "macro-F1"
    metrics = frozenset({"entity_f1", "label_f1", "multilabel_f1"})

    def vector(self, score: float, stats: Sequence[float] | None, task: Task) -> list[float]:
        return _need_stats(stats, task, self.name)

    def value(self, sums: np.ndarray, n: np.ndarray, task: Task) -> np.ndarray:
        per = _class_counts(sums, task)
        present = per.sum(axis=-1) > 0
        scores = _f1(per[..., 0], per[..., 1], per[..., 2])
        count = present.sum(axis=-1)
        total = np.where(present, scores, 0.0).sum(axis=-1)
        return np.divide(total, count, out=np.zeros_like(total), where=count > 0)

    def posterior_draws(self, sums: np.ndarray, task: Task, size: int, rng: np.random.Generator) -> np.ndarray:
        per = _class_counts(np.asarray(sums, dtype=np.float64), task)
        present = [c for c in per if c.sum() > 0]
        if not present:
            return np.zeros(size)
        return np.mean([_f1_draws(c, size, rng) for c in present], axis=0)


class CorpusBleuCoco(Aggregation):
    name, label = "corpus_bleu_coco", "corpus BLEU-4 (pycocoevalcap)"
    metrics = frozenset({"bleu_coco"})

    def vector(self, score: float, stats: Sequence[float] | None, task: Task) -> list[float]:
        return _need_stats(stats, task, self.name)

    def value(self, sums: np.ndarray, n: np.ndarray, task: Task) -> np.ndarray:
        flat = sums.reshape(-1, sums.shape[-1])
        out = np.array([coco_bleu_from_stats(row.tolist()) for row in flat])
        return out.reshape(sums.shape[:-1])


for _a in (Mean(), MicroF1(), MacroF1(), CorpusBleuCoco()):
    AGGREGATIONS.add(_a.name, _a)


def get_aggregation(name: str) -> Aggregation:
    """The aggregation registered as `name`."""
    return AGGREGATIONS.get(name)  # type: ignore[return-value]
