"""Synthetic item banks and response data shaped like CliMedBench, for simulation studies and tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob

#: The 14 CliMedBench scenarios: (code, official size, answer options k; 0 = no guessing: ordering/free text).
CLIMEDBENCH_SCENARIOS: tuple[tuple[str, int, int], ...] = (
    ("ID#1", 2639, 4), ("ID#2", 6693, 4), ("ID#3", 1748, 4), ("ID#4", 2728, 4), ("BKT", 4160, 5),
    ("CPR", 95, 0), ("SSO", 472, 0), ("KE", 713, 0), ("CS", 320, 4), ("DS", 4644, 4), ("FIT", 3003, 5),
    ("FTT", 1114, 5), ("MC", 661, 4), ("WTD", 807, 0),
)

#: Overall CliMedBench scores of seven models (the paper's Table 2 averages / Figure 11 "regular evaluation").
PAPER_OVERALL_SCORES: dict[str, float] = {
    "GPT-4": 68.5, "Qwen": 69.0, "ERNIE-Bot": 69.2, "ChatGLM3": 50.2, "Baichuan": 41.9,
    "MedicalGPT": 38.7, "HuatuoGPT": 32.4,
}


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


def generate_bank(n_items: int, rng: np.random.Generator, *, scenarios: bool = True,
                  dist: ItemDistribution = ItemDistribution(),
                  layout: Sequence[tuple[str, int, int]] = CLIMEDBENCH_SCENARIOS) -> ItemBank:
    """Draw a true item bank; with ``scenarios`` its items are split over CliMedBench's 14 scenarios."""
    names: list[str | None]
    if scenarios:
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
