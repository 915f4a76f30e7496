"""Synthetic item banks and response data shaped like a suite (its tasks, official sizes and option counts), for
simulation studies and tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from climedbench.core.suite import Suite
from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob

#: A bank's shape: per task (code, official size, answer options k; 0 = no guessing: ordering/free text).
Layout = Sequence[tuple[str, int, int]]


def suite_layout(suite: Suite) -> tuple[tuple[str, int, int], ...]:
    """The shape of a suite's bank: each task's code, official size (1 when the suite gives none) and number of
    options a guess picks from (the letters of a choice task, the labels of a one-label task, else 0)."""
    out = []
    for t in suite.tasks:
        k = len(t.letters or "") if t.answer in ("single", "multi") else len(t.labels or ()) if t.answer == "label" \
            else 0
        out.append((t.code, t.official_size or 1, k))
    return tuple(out)


@dataclass(frozen=True)
class ItemDistribution:
    """How true item parameters are drawn.

    log a ~ N(log_a_mean, log_a_sd); b ~ N(scenario mean, b_sd) with scenario means ~ N(0, scenario_b_sd);
    c ~ Beta(c_weight/k + 1, c_weight(1 − 1/k) + 1) (mode 1/k, the calibration prior) for items with k > 1
    options, c = 0 otherwise. The defaults match the calibration priors for a and c; the wide spread of
    scenario difficulties mirrors the paper's Table 2, where one model's scenario accuracies range from
    about 10% to 98%.
    """

    log_a_mean: float = 0.0
    log_a_sd: float = 0.5
    b_sd: float = 1.0
    scenario_b_sd: float = 1.0
    c_weight: float = 20.0


def scaled_sizes(n_items: int, sizes: Sequence[int]) -> list[int]:
    """Split n_items over scenarios in proportion to ``sizes`` (largest remainder, each >= 1 if possible)."""
    w = np.asarray(sizes, dtype=np.float64)
    raw = n_items * w / w.sum()
    out = np.floor(raw).astype(int)
    if n_items >= len(sizes):
        out = np.maximum(out, 1)
    while out.sum() > n_items:
        out[np.argmax(out)] -= 1
    rem = raw - np.floor(raw)
    order = np.argsort(-rem, kind="stable")
    i = 0
    while out.sum() < n_items:
        out[order[i % len(order)]] += 1
        i += 1
    return out.tolist()


def generate_bank(n_items: int, rng: np.random.Generator, *, layout: Layout | None = None,
                  dist: ItemDistribution = ItemDistribution()) -> ItemBank:
    """Draw a true item bank; with a ``layout`` (see :func:`suite_layout`) its items are split over the layout's
    tasks in proportion to their sizes, without one they form one group of 4-option items."""
    names: list[str | None]
    scenarios = layout is not None
    if layout is not None:
        sizes = scaled_sizes(n_items, [s[1] for s in layout])
        names = [s[0] for s in layout]
        ks = [s[2] for s in layout]
    else:
        sizes, names, ks = [n_items], [None], [4]
    scen: list[str | None] = []
    k_arr: list[int] = []
    b_mean: list[float] = []
    means = rng.normal(0.0, dist.scenario_b_sd, size=len(sizes)) if scenarios else np.zeros(1)
    for name, size, k, mu in zip(names, sizes, ks, means, strict=True):
        scen += [name] * size
        k_arr += [k] * size
        b_mean += [float(mu)] * size
    k_np = np.array(k_arr, dtype=np.int64)
    a = np.exp(rng.normal(dist.log_a_mean, dist.log_a_sd, size=n_items))
    b = rng.normal(np.array(b_mean), dist.b_sd)
    guess = 1.0 / np.maximum(k_np, 1)
    c = np.where(k_np > 1, rng.beta(dist.c_weight * guess + 1.0, dist.c_weight * (1.0 - guess) + 1.0), 0.0)
    width = len(str(n_items))
    ids = [f"q{j + 1:0{width}d}" for j in range(n_items)]
    return ItemBank(ids=ids, a=a, b=b, c=c, model="3pl", scenarios=scen if scenarios else None, k=k_np,
                    meta={"synthetic": True})


def simulate_responses(theta: NDArray[np.float64], bank: ItemBank, rng: np.random.Generator, *,
                       missing_rate: float = 0.0, chunk: int = 256) -> NDArray[np.float64]:
    """Bernoulli answers (examinees × items; 1/0, NaN at ``missing_rate``) from the bank's parameters."""
    theta = np.asarray(theta, dtype=np.float64)
    out = np.empty((theta.size, bank.n_items), dtype=np.float64)
    for s in range(0, theta.size, chunk):
        th = theta[s:s + chunk, None]
        p = prob(th, bank.a, bank.b, bank.c)
        block = (rng.random(p.shape) < p).astype(np.float64)
        if missing_rate > 0:
            block[rng.random(p.shape) < missing_rate] = np.nan
        out[s:s + chunk] = block
    return out
