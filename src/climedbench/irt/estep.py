"""The E-step of item calibration: per-examinee log-likelihoods at the quadrature nodes and expected counts
(float32 BLAS products), and the node posterior (with the sub-grid refinement for long tests)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import special

from climedbench.irt.em import Params

F64 = NDArray[np.float64]


class EStep:
    """Float32 BLAS products for the E-step and the expected counts, with or without missing answers."""

    def __init__(self, data: F64, dtype: type[np.floating]) -> None:
        administered = ~np.isnan(data)
        self.x1 = (data == 1.0).astype(dtype)
        self.complete = bool(administered.all())
        self.mask = None if self.complete else administered.astype(dtype)
        self.dtype = dtype
        self.n_admin = administered.sum(axis=0).astype(np.float64)
        self.n_correct = self.x1.sum(axis=0, dtype=np.float64)

    def loglik(self, p: Params, nodes: F64) -> F64:
        """Per-examinee log-likelihood at every node (N×Q, float64)."""
        a = np.exp(p.alpha)[:, None]
        z = a * (nodes[None, :] - p.b[:, None])
        c = p.c[:, None]
        log_q = np.log1p(-c) - np.logaddexp(0.0, z)
        with np.errstate(divide="ignore"):
            log_p = np.logaddexp(np.log(c), np.log1p(-c) - np.logaddexp(0.0, -z))
        diff = (log_p - log_q).astype(self.dtype)
        ll = self.x1 @ diff
        if self.complete:
            ll = ll.astype(np.float64) + log_q.sum(axis=0)[None, :]
        else:
            assert self.mask is not None
            ll = ll.astype(np.float64) + (self.mask @ log_q.astype(self.dtype)).astype(np.float64)
        return ll

    def counts(self, w: F64) -> tuple[F64, F64]:
        """Expected correct (r) and administered (n) counts per item and node from posterior weights."""
        wf = w.astype(self.dtype)
        r = (self.x1.T @ wf).astype(np.float64)
        if self.complete:
            n = w.sum(axis=0)[None, :]
        else:
            assert self.mask is not None
            n = (self.mask.T @ wf).astype(np.float64)
        return r, n


class Refiner:
    """Sub-grid posterior: cubic interpolation of the log-posterior onto a fine grid, adjoint projection back.

    With thousands of items per examinee the posterior (SD ~0.03) is far narrower than the node spacing, and a
    plain fixed-grid E-step snaps every examinee to a node: the marginal likelihood becomes a step function of
    the item parameters, the M-step sees quantised abilities (attenuated slopes) and EM stalls or cycles. The
    log-posterior itself is smooth, so it is interpolated (4-point Lagrange, exact for cubics) onto
    ``factor``× finer points and normalised there; each fine point's mass goes back to the nodes with the same
    Lagrange weights, so every node sum in the M-step is the fine-grid expectation of a cubic interpolant.
    """

    def __init__(self, nodes: F64, factor: int) -> None:
        q = nodes.size
        h = nodes[1] - nodes[0]
        self.factor = factor
        self.fine = np.linspace(nodes[0], nodes[-1], (q - 1) * factor + 1)
        pos = (self.fine - nodes[0]) / h
        base = np.clip(np.floor(pos).astype(int), 0, q - 2)
        t = pos - base
        interp = np.zeros((self.fine.size, q))
        rows = np.arange(self.fine.size)
        inner = (base >= 1) & (base <= q - 3)
        # cubic Lagrange on nodes base-1 .. base+2 where available, linear at the two end intervals
        w = [-t * (t - 1) * (t - 2) / 6, (t + 1) * (t - 1) * (t - 2) / 2, -(t + 1) * t * (t - 2) / 2,
             (t + 1) * t * (t - 1) / 6]
        for off, wk in zip((-1, 0, 1, 2), w, strict=True):
            interp[rows[inner], base[inner] + off] += wk[inner]
        outer = ~inner
        interp[rows[outer], base[outer]] += 1 - t[outer]
        interp[rows[outer], base[outer] + 1] += t[outer]
        self.interp_t = np.ascontiguousarray(interp.T)  # Q × F
        # Projection = adjoint of the interpolation: Σ_q W_nq f(θ_q) is the fine-grid posterior expectation
        # of the cubic interpolant of f, so node sums in the M-step carry no extra blur (weights may be < 0).
        self.proj = interp  # F × Q
        self.log_df = -math.log(factor)

    def posterior(self, lp: F64) -> tuple[F64, F64, float]:
        """Node weights (N×Q), fine-grid posterior means (N,) and the marginal log-likelihood."""
        lpf = lp @ self.interp_t
        norm = special.logsumexp(lpf, axis=1)
        wf = np.exp(lpf - norm[:, None])
        return wf @ self.proj, wf @ self.fine, float((norm + self.log_df).sum())


def posterior(ll: F64, log_w: F64, refiner: Refiner | None = None) -> tuple[F64, float]:
    """Normalised posterior weights on the nodes (N×Q) and the marginal log-likelihood."""
    lp = ll + log_w[None, :]
    if refiner is not None:
        w, _, total = refiner.posterior(lp)
        return w, total
    norm = special.logsumexp(lp, axis=1)
    return np.exp(lp - norm[:, None]), float(norm.sum())
