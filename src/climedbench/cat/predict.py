"""Expected full-benchmark scores at an ability (θ alone), and comparing two predicted scores.

The adaptive test's own predictions come from :mod:`climedbench.cat.estimate` (the answers given + the rest
predicted); θ alone ignores the answers actually given and, on real LLM data that misfit the model, misses the
full score by points even with θ from every item. :class:`ScorePredictor` remains for what only θ can say
— the expected score of an examinee of a given ability (simulation panels, the `fisher-theta` reference in
`bench/cat_real.py`) — with the same definition of the overall score (the mean of the scenario scores).

Given θ the expected scenario score is 100 × mean_i P_i(θ) over *all* of the scenario's bank items; the
predictive distribution mixes over the posterior of θ and adds the finite benchmark's answer noise,
Σ_i P_i(1 − P_i) / n_s² per scenario (×100²), the overall score's variance being the sum of the scenario
variances / S². Item calibration error and misfit are not included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob

F64 = NDArray[np.float64]


class ScorePredictor:
    """Per-scenario and overall expected scores, and their binomial variances, at every grid point."""

    def __init__(self, bank: ItemBank, grid: F64, chunk: int = 4096,
                 transforms: dict[str, tuple[float, float]] | None = None) -> None:
        """`transforms` maps a scenario to (scale, offset) on the ×100 scale, for scenarios whose metric is
        not a proportion: Kendall's τ binarised as (τ + 1)/2 is reported as 2·score − 100 (see irt/binarize.py)."""
        self.grid = np.asarray(grid, dtype=np.float64)
        self.scenarios, idx = bank.scenario_labels()
        n_s, g = len(self.scenarios), self.grid.size
        sums = np.zeros((n_s, g))
        var = np.zeros((n_s, g))
        for s in range(0, bank.n_items, chunk):
            sl = slice(s, s + chunk)
            p = prob(self.grid[None, :], bank.a[sl, None], bank.b[sl, None], bank.c[sl, None])
            onehot = np.zeros((n_s, p.shape[0]))
            onehot[idx[sl], np.arange(p.shape[0])] = 1.0
            sums += onehot @ p
            var += onehot @ (p * (1.0 - p))
        sizes = np.bincount(idx, minlength=n_s).astype(np.float64)
        self.sizes = sizes
        self.mean = 100.0 * sums / sizes[:, None]  # S × G
        self.var = 1e4 * var / (sizes[:, None] ** 2)  # S × G
        for s_idx, name in enumerate(self.scenarios):
            scale, offset = (transforms or {}).get(name, (1.0, 0.0))
            self.mean[s_idx] = scale * self.mean[s_idx] + offset
            self.var[s_idx] *= scale**2
        self.overall_mean = self.mean.mean(axis=0)
        self.overall_var = self.var.sum(axis=0) / n_s**2

    def predict(self, weights: F64, *, level: float = 0.95, sampling: bool = True,
                scenarios: bool = True) -> dict[str, Any]:
        """Point predictions and intervals from posterior weights on the grid (R × G).

        Returns {"overall": {"score", "lower", "upper", "expected_sd"}, "scenarios": {name: {...}}} of arrays.
        """
        w = np.atleast_2d(weights)
        out: dict[str, Any] = {"overall": _mixture_summary(w, self.overall_mean,
                                                           self.overall_var if sampling else None, level)}
        if scenarios:
            out["scenarios"] = {
                name: _mixture_summary(w, self.mean[s], self.var[s] if sampling else None, level)
                for s, name in enumerate(self.scenarios)}
        return out

    def expected_overall(self, theta: F64) -> F64:
        """Expected overall score at given θ values (linear interpolation on the grid)."""
        return np.interp(theta, self.grid, self.overall_mean)


def _window(w: F64, eps: float = 1e-12) -> tuple[NDArray[np.int64], int]:
    """Start index and common width of the grid window holding all but ``eps`` of each row's posterior."""
    cum = np.cumsum(w, axis=1)
    lo = np.argmax(cum > eps, axis=1)
    hi = np.argmax(cum >= 1.0 - eps, axis=1)
    width = int((hi - lo).max()) + 1
    lo = np.minimum(lo, w.shape[1] - width)
    return lo, width


def mixture_quantiles(weights: F64, means: F64, sds: F64 | None, probs: tuple[float, ...],
                      lo: float, hi: float, iters: int = 40) -> list[F64]:
    """Quantiles of per-row mixtures Σ_g w_g N(m_g, s_g²) (point masses if ``sds`` is None), by bisection."""
    out = []
    n = weights.shape[0]
    for p in probs:
        a = np.full(n, lo)
        b = np.full(n, hi)
        for _ in range(iters):
            mid = 0.5 * (a + b)
            if sds is None:
                cdf = (weights * (means <= mid[:, None])).sum(axis=1)
            else:
                cdf = (weights * special.ndtr((mid[:, None] - means) / sds)).sum(axis=1)
            below = cdf < p
            a = np.where(below, mid, a)
            b = np.where(below, b, mid)
        out.append(0.5 * (a + b))
    return out


def _mixture_summary(weights: F64, mean: F64, var: F64 | None, level: float) -> dict[str, F64]:
    """Posterior-predictive mean, SD and central interval of a score for each row."""
    start, width = _window(weights)
    cols = start[:, None] + np.arange(width)[None, :]
    w = np.take_along_axis(weights, cols, axis=1)
    w = w / w.sum(axis=1, keepdims=True)
    m = mean[cols]
    v = None if var is None else var[cols]
    point = (w * m).sum(axis=1)
    total_var = (w * (m - point[:, None]) ** 2).sum(axis=1) + (0.0 if v is None else (w * v).sum(axis=1))
    alpha = 1.0 - level
    lower, upper = mixture_quantiles(w, m, None if v is None else np.sqrt(np.maximum(v, 1e-12)),
                                     (alpha / 2, 1 - alpha / 2), -1.0, 101.0)
    return {"score": point, "lower": np.clip(lower, 0, 100), "upper": np.clip(upper, 0, 100),
            "sd": np.sqrt(total_var)}


@dataclass
class ScoreDistribution:
    """A predicted overall score as a mixture: weights, component means and variances (for comparisons)."""

    weights: F64
    means: F64
    variances: F64

    def to_dict(self) -> dict[str, list[float]]:
        """JSON-ready lists."""
        return {"weights": self.weights.tolist(), "means": self.means.tolist(),
                "variances": self.variances.tolist()}

    @classmethod
    def from_dict(cls, obj: dict[str, list[float]]) -> ScoreDistribution:
        """Inverse of :meth:`to_dict`."""
        return cls(np.asarray(obj["weights"]), np.asarray(obj["means"]), np.asarray(obj["variances"]))


def compare_distributions(a: ScoreDistribution, b: ScoreDistribution, level: float = 0.95) -> dict[str, Any]:
    """Difference A − B of two independent predicted scores: mean, interval, P(A > B) and a verdict."""
    w = (a.weights[:, None] * b.weights[None, :]).ravel()
    m = (a.means[:, None] - b.means[None, :]).ravel()
    v = (a.variances[:, None] + b.variances[None, :]).ravel()
    keep = w > 1e-14 * w.max()
    w, m, v = w[keep] / w[keep].sum(), m[keep], v[keep]
    sd = np.sqrt(np.maximum(v, 1e-12))
    mean = float((w * m).sum())
    alpha = 1.0 - level
    lo, hi = mixture_quantiles(w[None, :], m[None, :], sd[None, :], (alpha / 2, 1 - alpha / 2), -101.0, 101.0)
    p_greater = float((w * special.ndtr(m / sd)).sum())
    separated = bool(lo[0] > 0 or hi[0] < 0)
    pct = f"{100 * level:g}%"
    return {
        "difference": mean, "lower": float(lo[0]), "upper": float(hi[0]), "p_a_better": p_greater,
        "separated": separated,
        "verdict": f"separated at {pct}" if separated else f"not separated at {pct}",
        "level": level,
    }
