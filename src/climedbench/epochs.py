"""Repeated sampling (`climedbench run --epochs K`): the K answers to an item reduce to one score before
aggregation, and how much they disagree (the generation noise) is reported per task.

Reducers (`--epoch-reducer`), applied to the answered epochs of an item (failed requests left out):

- `mean` — the mean of the K scores (the default; an accuracy becomes the item's share of right answers);
- `majority` — the most frequent extracted answer (ties: the one given first), scored as it was scored
  (self-consistency voting);
- `pass_at_k` — the best of the K scores (for 0/1 scores: 1 when any answer is right; pass@k with k = K);
- `all_correct` — the worst of the K scores (for 0/1 scores: 1 only when every answer is right).

Statistics of corpus aggregations (F1 counts, BLEU n-grams), flags and further metrics are those of the epoch the
reducer picked (for `mean`: the means of the statistics, the first answered epoch's flags and further metrics).
Intervals are computed on the reduced item scores, so the item, not the answer, is the unit: K > 1 never narrows an
interval as if the K answers were independent items. Scores reduced to fractions (the mean of 0/1 scores) get the
graded interval, which estimates their spread (climedbench.aggregate).

Each sample also carries `target_hash` (climedbench.gold).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from climedbench.errors import ConfigError

REDUCERS = ("mean", "majority", "pass_at_k", "all_correct")


def check_reducer(name: str) -> str:
    """The reducer's name, or a ConfigError naming the choices."""
    if name not in REDUCERS:
        raise ConfigError(f"--epoch-reducer {name!r}: use one of {', '.join(REDUCERS)}")
    return name


def _answer_key(extracted: Any) -> str:
    return json.dumps(extracted, ensure_ascii=False, sort_keys=True)


def reduce_one(rows: list[Any], reducer: str) -> Any:
    """One item's epochs (samples or summaries, in epoch order) reduced to one record of the same type."""
    answered = [r for r in rows if not r.error]
    if not answered:
        return rows[-1]  # every epoch failed: the item is unanswered
    scores = [float(r.score) for r in answered]
    if reducer == "majority":
        counts: dict[str, int] = {}
        for r in answered:
            k = _answer_key(getattr(r, "extracted", None))
            counts[k] = counts.get(k, 0) + 1
        best = max(counts.values())
        pick = next(r for r in answered if counts[_answer_key(getattr(r, "extracted", None))] == best)
        return pick
    if reducer == "pass_at_k":
        return answered[int(np.argmax(scores))]
    if reducer == "all_correct":
        return answered[int(np.argmin(scores))]
    first = answered[0]
    stats = None
    if all(r.stats is not None for r in answered) and len({len(r.stats) for r in answered}) == 1:
        stats = [float(v) for v in np.mean([r.stats for r in answered], axis=0)]
    update = {"score": float(np.mean(scores)), "stats": stats if stats is not None else first.stats}
    if dataclasses.is_dataclass(first):
        return dataclasses.replace(first, **update)  # type: ignore[type-var]
    return first.model_copy(update=update)


def reduce_epochs(rows: Iterable[Any], reducer: str) -> tuple[list[Any], dict[str, dict[str, float]], int]:
    """Records of several epochs → one per item; returns them, the generation noise per task, and K (the most
    epochs of any item; 1 when no record carries an epoch, and then the records come back as they are)."""
    rows = list(rows)
    if all(getattr(r, "epoch", None) is None for r in rows):
        return rows, {}, 1
    check_reducer(reducer)
    by_item: dict[tuple[str, str], list[Any]] = {}
    for r in sorted(rows, key=lambda x: (x.task, x.uid, x.epoch or 1)):
        by_item.setdefault((r.task, r.uid), []).append(r)
    out = [reduce_one(group, reducer) for group in by_item.values()]
    k = max(len(g) for g in by_item.values())
    return out, generation_noise(by_item, out), k


def generation_noise(by_item: dict[tuple[str, str], list[Any]], reduced: list[Any]) -> dict[str, dict[str, float]]:
    """Per task: `within_item_var`, the mean over items of the (unbiased) variance of an item's epoch scores;
    `items_varying`, the share of items whose epochs did not all score the same; `noise_share`, the share of the
    variance of the items' mean scores that the generation noise accounts for (within_item_var / K over the
    variance across items of the epoch means): how much of the task's interval is sampling noise."""
    per_task: dict[str, list[list[float]]] = {}
    for (task, _), group in by_item.items():
        scores = [float(r.score) for r in group if not r.error]
        if len(scores) >= 2:
            per_task.setdefault(task, []).append(scores)
    out: dict[str, dict[str, float]] = {}
    for task, items in per_task.items():
        within = float(np.mean([np.var(s, ddof=1) for s in items]))
        varying = float(np.mean([len(set(s)) > 1 for s in items]))
        means = np.asarray([np.mean(s) for s in items])
        k = float(np.mean([len(s) for s in items]))
        total = float(np.var(means, ddof=1)) if len(means) > 1 else 0.0
        share = min(1.0, within / k / total) if total > 0 else (1.0 if within > 0 else 0.0)
        out[task] = {"within_item_var": round(within, 6), "items_varying": round(varying, 4),
                     "noise_share": round(share, 4), "items": float(len(items))}
    return out
