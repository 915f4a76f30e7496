"""Scale linking: put an estimated bank on a reference scale (θ* = A·θ + B) by mean–sigma or Stocking–Lord."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob

F64 = NDArray[np.float64]


def mean_sigma(b_from: F64, b_to: F64) -> tuple[float, float]:
    """Slope A and intercept B matching mean and SD of common items' difficulties (b_to ≈ A·b_from + B)."""
    b_from, b_to = np.asarray(b_from, dtype=np.float64), np.asarray(b_to, dtype=np.float64)
    slope = float(np.std(b_to) / np.std(b_from))
    return slope, float(np.mean(b_to) - slope * np.mean(b_from))


def stocking_lord(bank_from: ItemBank, bank_to: ItemBank, *, n_points: int = 41,
                  bound: float = 4.0) -> tuple[float, float]:
    """Slope A and intercept B minimising the N(0, 1)-weighted squared test-characteristic-curve difference.

    Both banks must list the same (common) items in the same order.
    """
    if bank_from.n_items != bank_to.n_items:
        raise ConfigError("Stocking–Lord linking needs the same common items in both banks")
    theta = np.linspace(-bound, bound, n_points)
    weight = stats.norm.pdf(theta)
    weight /= weight.sum()
    target = prob(theta[:, None], bank_to.a, bank_to.b, bank_to.c).sum(axis=1)

    def loss(x: F64) -> float:
        """Weighted squared TCC difference for (A, B)."""
        slope, intercept = float(x[0]), float(x[1])
        moved = prob((theta[:, None] - intercept) / slope, bank_from.a, bank_from.b, bank_from.c).sum(axis=1)
        return float((weight * (target - moved) ** 2).sum())

    start = np.array(mean_sigma(bank_from.b, bank_to.b))
    if not np.all(np.isfinite(start)) or start[0] <= 0:
        start = np.array([1.0, 0.0])
    res = optimize.minimize(loss, start, method="Nelder-Mead",
                            options={"xatol": 1e-6, "fatol": 1e-12, "maxiter": 2000})
    return float(res.x[0]), float(res.x[1])


def link(bank_from: ItemBank, bank_to: ItemBank,
         method: Literal["stocking-lord", "mean-sigma"] = "stocking-lord") -> tuple[ItemBank, float, float]:
    """Return ``bank_from`` transformed onto ``bank_to``'s scale, with the slope and intercept used."""
    if method == "mean-sigma":
        slope, intercept = mean_sigma(bank_from.b, bank_to.b)
    elif method == "stocking-lord":
        slope, intercept = stocking_lord(bank_from, bank_to)
    else:
        raise ConfigError(f"unknown linking method {method!r}: choose stocking-lord or mean-sigma")
    return bank_from.transformed(slope, intercept), slope, intercept
