"""The logistic item response models (1PL/2PL/3PL): probabilities, log-probabilities and Fisher information.

All functions broadcast NumPy-style: pass ``theta`` with shape ``(n, 1)`` and item parameters with shape
``(j,)`` to get an ``(n, j)`` array, or ``theta`` of shape ``(q,)`` and parameters of shape ``(j, 1)`` for a
``(j, q)`` table.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

MODELS: Final = ("3pl", "2pl", "1pl")
PROB_EPS: Final = 1e-10

FloatArray = NDArray[np.float64]


def _sigmoid(z: NDArray[np.floating]) -> NDArray[np.floating]:
    """Numerically stable logistic function."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def prob(theta: ArrayLike, a: ArrayLike, b: ArrayLike, c: ArrayLike = 0.0) -> FloatArray:
    """Probability of a correct answer, P(θ) = c + (1 − c) / (1 + exp(−a(θ − b))), clipped to (0, 1)."""
    th, aa, bb, cc = (np.asarray(x, dtype=np.float64) for x in (theta, a, b, c))
    p = cc + (1.0 - cc) * _sigmoid(aa * (th - bb))
    return np.clip(p, PROB_EPS, 1.0 - PROB_EPS)


def log_prob(theta: ArrayLike, a: ArrayLike, b: ArrayLike,
             c: ArrayLike = 0.0) -> tuple[FloatArray, FloatArray]:
    """Return (log P, log(1 − P)) computed stably in log space (no underflow for large |a(θ − b)|)."""
    th, aa, bb, cc = (np.asarray(x, dtype=np.float64) for x in (theta, a, b, c))
    z = aa * (th - bb)
    cc = np.clip(cc, 0.0, 1.0 - 1e-12)
    log_s = -np.logaddexp(0.0, -z)  # log σ(z)
    log_1ms = -np.logaddexp(0.0, z)  # log(1 − σ(z))
    with np.errstate(divide="ignore"):
        log_c = np.log(cc)
    log_p = np.logaddexp(log_c, np.log1p(-cc) + log_s)
    log_q = np.log1p(-cc) + log_1ms
    lo = np.log(PROB_EPS)
    return np.maximum(log_p, lo), np.maximum(log_q, lo)


def information(theta: ArrayLike, a: ArrayLike, b: ArrayLike, c: ArrayLike = 0.0) -> FloatArray:
    """Fisher information of a 3PL item: a² (P − c)² (1 − P) / ((1 − c)² P)."""
    th, aa, bb, cc = (np.asarray(x, dtype=np.float64) for x in (theta, a, b, c))
    s = _sigmoid(aa * (th - bb))
    p = np.clip(cc + (1.0 - cc) * s, PROB_EPS, 1.0 - PROB_EPS)
    # (P − c)/(1 − c) = s and 1 − P = (1 − c)(1 − s): information = a² s² (1 − c)(1 − s) / P
    return aa * aa * s * s * (1.0 - cc) * (1.0 - s) / p


def kl_divergence(theta0: ArrayLike, theta: ArrayLike, a: ArrayLike, b: ArrayLike,
                  c: ArrayLike = 0.0) -> FloatArray:
    """Kullback–Leibler divergence KL(P(θ0) ‖ P(θ)) between the Bernoulli answer distributions of an item."""
    p0 = prob(theta0, a, b, c)
    p1 = prob(theta, a, b, c)
    return p0 * np.log(p0 / p1) + (1.0 - p0) * np.log((1.0 - p0) / (1.0 - p1))


def characteristic_curve(theta: ArrayLike, a: ArrayLike, b: ArrayLike, c: ArrayLike = 0.0) -> FloatArray:
    """Expected proportion correct over the given items at each θ (the test characteristic curve / n)."""
    th = np.asarray(theta, dtype=np.float64)
    p = prob(th.reshape(-1, 1), np.asarray(a), np.asarray(b), np.asarray(c))
    return p.mean(axis=1).reshape(th.shape)
