"""Strata of the adaptive test's default design: item clusters nested in scenarios, and their score weights.

The default design (``selection="stratified"``, see :mod:`climedbench.cat.engine`) asks each examinee random
items from strata, allocating the items to strata by the Neyman rule. Strata are built once per bank and test
length, the same for every examinee:

* each scenario is a group of strata (content balancing), with a number of strata proportional to the items
  the scenario is expected to receive (its weight in the overall score × the spread of its items' expected
  answers over the ability prior);
* inside a scenario, items are clustered by k-means on their embedding (the calibration response pattern plus
  difficulty, :mod:`climedbench.irt.embedding`); a bank without embeddings is cut into difficulty bands (b).

About ``per_stratum`` items land in each stratum on average (default 4): enough for a residual mean per
stratum, few enough for fine strata.

Every stratum's weight is its share of the overall score: overall = mean of the scenario scores (each scenario
weighs 1/S) and a scenario score is its items' mean, so an item of scenario s weighs 1/(S · N_s).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.cluster.vq import kmeans2

from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


@dataclass
class Strata:
    """Per item: stratum index (−1 = not eligible); per stratum: scenario, size, score weight and tables.

    ``p_sum[g, h]`` = Σ P_i(θ_g) over the stratum's items and ``pq_mean[g, h]`` = mean P_i(1 − P_i) at grid
    node θ_g, so posterior averages over a stratum are one matrix product.
    """

    labels: I64
    scenario: I64
    sizes: F64
    weight: F64
    p_sum: F64
    pq_mean: F64
    method: str

    @property
    def n_strata(self) -> int:
        """Number of strata."""
        return int(self.scenario.size)


def _kmeans(features: F64, k: int, seed: int, restarts: int = 4) -> I64:
    """k-means labels (k-means++ starts, best of ``restarts``), relabelled 0..m−1 without empty clusters."""
    if k <= 1 or features.shape[0] <= 1:
        return np.zeros(features.shape[0], dtype=np.int64)
    k = min(k, features.shape[0])
    best: tuple[float, I64] | None = None
    for r in range(restarts):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            centres, lab = kmeans2(features, k, iter=20, minit="++", rng=np.random.default_rng(seed + r))
        inertia = float(((features - centres[lab]) ** 2).sum())
        if best is None or inertia < best[0]:
            best = (inertia, np.asarray(lab, dtype=np.int64))
    assert best is not None
    _, lab = np.unique(best[1], return_inverse=True)
    return lab.astype(np.int64)


def _bands(values: F64, k: int) -> I64:
    """Equal-count bands of ``values`` (quantile cut into k groups)."""
    if k <= 1:
        return np.zeros(values.size, dtype=np.int64)
    order = np.argsort(values, kind="stable")
    lab = np.empty(values.size, dtype=np.int64)
    lab[order] = (np.arange(values.size) * k) // values.size
    return lab


def build_strata(bank: ItemBank, grid: F64, log_prior: F64, scen_idx: I64, n_scenarios: int,
                 eligible: NDArray[np.bool_], n_items: int, *, per_stratum: float = 4.0, floor: float = 0.05,
                 seed: int = 0, min_size: int = 1) -> Strata:
    """Strata for tests of ``n_items`` items (see the module docstring); a scenario of N_s items gets at most
    N_s // ``min_size`` strata (the exposure cap needs strata of some size)."""
    prior = np.exp(log_prior - log_prior.max())
    prior /= prior.sum()
    p = prob(grid[None, :], bank.a[:, None], bank.b[:, None], bank.c[:, None])  # J × G
    pq_prior = (p * (1.0 - p)) @ prior  # expected P(1 − P) per item over the prior
    sizes_s = np.bincount(scen_idx[eligible], minlength=n_scenarios).astype(np.float64)
    present = sizes_s > 0
    w_s = np.where(present, 1.0 / max(int(present.sum()), 1), 0.0)
    sd_s = np.sqrt(np.maximum(np.bincount(scen_idx[eligible], weights=pq_prior[eligible], minlength=n_scenarios)
                              / np.maximum(sizes_s, 1.0), floor))
    share = w_s * sd_s
    share = share / share.sum()
    total = max(1, round(n_items / per_stratum))
    labels = np.full(bank.n_items, -1, dtype=np.int64)
    scen_of: list[int] = []
    method = "clusters" if bank.embedding is not None and bank.embedding.shape[1] > 0 else "difficulty"
    for s in np.flatnonzero(present):
        items = np.flatnonzero(eligible & (scen_idx == s))
        k = int(np.clip(round(total * share[s]), 1, max(1, items.size // min_size)))
        if method == "clusters":
            assert bank.embedding is not None
            lab = _kmeans(bank.embedding[items], k, seed + 7919 * int(s))
        else:
            lab = _bands(bank.b[items], k)
        labels[items] = lab + len(scen_of)
        scen_of += [int(s)] * (lab.max() + 1)
    n_h = len(scen_of)
    scenario = np.array(scen_of, dtype=np.int64)
    ok = labels >= 0
    sizes = np.bincount(labels[ok], minlength=n_h).astype(np.float64)
    weight = w_s[scenario] * sizes / sizes_s[scenario]
    onehot = np.zeros((bank.n_items, n_h))
    onehot[np.flatnonzero(ok), labels[ok]] = 1.0
    p_sum = p.T @ onehot  # G × H
    pq_mean = ((p * (1.0 - p)).T @ onehot) / sizes[None, :]
    return Strata(labels=labels, scenario=scenario, sizes=sizes, weight=weight, p_sum=p_sum, pq_mean=pq_mean,
                  method=method)
