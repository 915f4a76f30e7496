"""Marginal maximum-likelihood (Bock–Aitkin EM) calibration of 1PL/2PL/3PL items with Bayesian priors.

The latent ability is N(0, 1) on a fixed quadrature grid (this identifies the scale). Each EM iteration:

* E-step: per-examinee log-likelihood at every node with two BLAS products,
  ``L = X1 @ (log P − log Q) + M @ log Q`` (``X1`` = correct answers, ``M`` = administered mask, both float32;
  for a complete matrix the second product is a column sum), then the normalised posterior weights ``W``;
* expected counts per item and node: ``r = X1ᵀ W`` (correct) and ``n = Mᵀ W`` (administered);
* M-step: all items at once by vectorised Fisher scoring on (log a, b, logit c) with 3×3 systems per item,
  step-halving per item, and the log-priors (normal on log a, normal on b, Beta on c with mode 1/k).

Missing answers simply drop out of both products, so only administered items count.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special, stats

from climedbench.errors import ConfigError
from climedbench.irt.bank import (
    FLAG_FEW_RESPONSES,
    FLAG_IMPLAUSIBLE_A,
    FLAG_IMPLAUSIBLE_C,
    FLAG_NEGATIVE_DISCRIMINATION,
    FLAG_NO_VARIANCE,
    FLAG_POOR_FIT,
    FLAG_POORLY_IDENTIFIED,
    ItemBank,
)
from climedbench.irt.embedding import item_embedding
from climedbench.irt.matrix import ResponseMatrix
from climedbench.irt.model import MODELS

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Priors:
    """Item priors: log a ~ N(log_a_mean, log_a_sd), b ~ N(b_mean, b_sd), c ~ Beta with mode 1/k.

    The Beta prior on c is Beta(c_weight/k + 1, c_weight·(1 − 1/k) + 1) (BILOG-style): its mode is exactly
    1/k and ``c_weight`` is the number of pseudo-observations behind it.

    Note on the θ scale: it is identified by the N(0, 1) population *and* the item priors. With many more
    items than examinees the priors' pull, summed over all items, can stretch the scale by some percent
    (e.g. a Stocking–Lord slope of 1.1 against the generating scale). Predicted benchmark scores do not
    depend on the scale; compare θ across banks only after linking (``climedbench.irt.linking``).
    """

    log_a_mean: float = 0.0
    log_a_sd: float = 0.5
    b_mean: float = 0.0
    b_sd: float = 2.0
    c_weight: float = 20.0

    def c_beta(self, k: NDArray[np.float64]) -> tuple[F64, F64]:
        """Beta(alpha, beta) parameters of the guessing prior for items with k options."""
        guess = 1.0 / np.maximum(k, 1.0)
        return self.c_weight * guess + 1.0, self.c_weight * (1.0 - guess) + 1.0


DEFAULT_PRIORS = Priors()


@dataclass
class _Params:
    """Working item parameters on the optimisation scale."""

    alpha: F64  # log a
    b: F64
    c: F64
    free_c: NDArray[np.bool_]


OptionsK = int | Sequence[int] | NDArray[np.integer] | Mapping[str, int] | None

#: ``k`` of an item whose number of answer options is not known (no guessing parameter is estimated for it).
UNKNOWN_K = -1


def _item_k(options_k: OptionsK, item_ids: Sequence[str]) -> NDArray[np.int64]:
    """Number of answer options per item; UNKNOWN_K (-1) where it is not given (never a silent default)."""
    n = len(item_ids)
    if options_k is None:
        return np.full(n, UNKNOWN_K, dtype=np.int64)
    if isinstance(options_k, Mapping):
        return np.array([int(options_k.get(i, UNKNOWN_K)) for i in item_ids], dtype=np.int64)
    if isinstance(options_k, int | np.integer):
        if options_k < 0:
            raise ConfigError(f"--options-k must be >= 0, got {options_k}")
        return np.full(n, int(options_k), dtype=np.int64)
    arr = np.asarray(options_k, dtype=np.int64)
    if arr.shape != (n,):
        raise ConfigError(f"options_k has {arr.size} entries for {n} items")
    return np.where(arr < 0, UNKNOWN_K, arr)


def _fixed_c(fix_c: float | str | Sequence[float] | None, k: NDArray[np.int64]) -> F64 | None:
    """Resolve the ``fix_c`` option to per-item values (None = estimate c)."""
    if fix_c is None:
        return None
    if isinstance(fix_c, str):
        if fix_c.lower() in ("guess", "1/k"):
            return np.where(k > 1, 1.0 / np.maximum(k, 1), 0.0).astype(np.float64)
        try:
            fix_c = float(fix_c)
        except ValueError:
            raise ConfigError(f"fix_c must be a number in [0, 1) or 'guess', got {fix_c!r}") from None
    arr = np.broadcast_to(np.asarray(fix_c, dtype=np.float64), k.shape).copy()
    if np.any((arr < 0) | (arr >= 1)):
        raise ConfigError("fixed guessing parameters must lie in [0, 1)")
    return arr


def _terms(p: _Params, nodes: F64, r: F64, n: F64, prior: Priors | None, cb: tuple[F64, F64],
           want_grad: bool = True) -> tuple[F64, F64 | None, F64 | None]:
    """Per-item expected complete-data log-posterior, its gradient and Fisher information (J×3, J×3×3).

    Working parameters are (log a, b, logit c). Sums over nodes of terms in d = θ − b are expanded into
    matrix–vector products with the node vector, so the cost is a handful of passes over J×Q arrays.
    """
    a = np.exp(p.alpha)
    c = p.c[:, None]
    c1 = 1.0 - c
    s = np.subtract(nodes[None, :], p.b[:, None])
    s *= a[:, None]
    special.expit(s, out=s)  # s = σ(a(θ − b)); 1 − s is accurate enough where it matters (clipped below)
    t = 1.0 - s
    pr = c1 * s
    pr += c
    np.maximum(pr, 1e-12, out=pr)
    q = c1 * t
    np.maximum(q, 1e-12, out=q)
    lq = np.log(q)
    lpq = np.log(pr)
    lpq -= lq
    obj = np.einsum("jq,jq->j", r, lpq)
    obj += lq @ n[0] if n.shape[0] == 1 else np.einsum("jq,jq->j", n, lq)
    del lq, lpq
    if prior is not None:
        obj -= 0.5 * ((p.alpha - prior.log_a_mean) / prior.log_a_sd) ** 2
        obj -= 0.5 * ((p.b - prior.b_mean) / prior.b_sd) ** 2
        cc = np.clip(p.c, 1e-12, 1 - 1e-12)
        obj += np.where(p.free_c, (cb[0] - 1.0) * np.log(cc) + (cb[1] - 1.0) * np.log1p(-cc), 0.0)
    if not want_grad:
        return obj, None, None
    inv_pq = pr * q
    np.reciprocal(inv_pq, out=inv_pq)
    resid = n * pr
    np.subtract(r, resid, out=resid)
    resid *= inv_pq  # (r − nP) / (P(1 − P))
    wgt = np.maximum(n, 0.0) * inv_pq  # node weights can be slightly negative (adjoint projection)
    ds = c1 * s
    ds *= t  # dP/dz
    rd = resid * ds
    u = wgt * ds
    v = u * t
    u *= ds
    wt = wgt * t
    wt *= t
    resid *= t
    th, th2, b = nodes, nodes * nodes, p.b
    cc1 = p.c * (1.0 - p.c)  # dc/dγ
    s_rd, s_u, s_v = rd.sum(axis=1), u.sum(axis=1), v.sum(axis=1)
    u_th, v_th = u @ th, v @ th
    grad = np.empty((b.size, 3))
    grad[:, 0] = a * (rd @ th - b * s_rd)
    grad[:, 1] = -a * s_rd
    grad[:, 2] = cc1 * resid.sum(axis=1)
    info = np.empty((b.size, 3, 3))
    info[:, 0, 0] = a * a * (u @ th2 - 2.0 * b * u_th + b * b * s_u)
    info[:, 0, 1] = info[:, 1, 0] = -a * a * (u_th - b * s_u)
    info[:, 1, 1] = a * a * s_u
    info[:, 0, 2] = info[:, 2, 0] = a * cc1 * (v_th - b * s_v)
    info[:, 1, 2] = info[:, 2, 1] = -a * cc1 * s_v
    info[:, 2, 2] = cc1 * cc1 * wt.sum(axis=1)
    if prior is not None:
        grad[:, 0] -= (p.alpha - prior.log_a_mean) / prior.log_a_sd**2
        info[:, 0, 0] += 1.0 / prior.log_a_sd**2
        grad[:, 1] -= (p.b - prior.b_mean) / prior.b_sd**2
        info[:, 1, 1] += 1.0 / prior.b_sd**2
        grad[:, 2] += np.where(p.free_c, (cb[0] - 1.0) * (1.0 - p.c) - (cb[1] - 1.0) * p.c, 0.0)
        info[:, 2, 2] += np.where(p.free_c, (cb[0] + cb[1] - 2.0) * p.c * (1.0 - p.c), 0.0)
    return obj, grad, info


def _take(p: _Params, idx: NDArray[np.int64]) -> _Params:
    """The working parameters of a subset of items."""
    return _Params(p.alpha[idx], p.b[idx], p.c[idx], p.free_c[idx])


def _rows(x: F64, idx: NDArray[np.int64]) -> F64:
    """Rows of a per-item table (a broadcast (1, Q) table is returned as is)."""
    return x if x.shape[0] == 1 else x[idx]


def _free_mask(free_c: NDArray[np.bool_], model: str) -> NDArray[np.bool_]:
    """Which of (log a, b, logit c) are estimated per item (J×3)."""
    free = np.ones((free_c.size, 3), dtype=bool)
    free[:, 2] = free_c
    if model == "1pl":
        free[:, 0] = False
    return free


def _solve_steps(grad: F64, info: F64, free: NDArray[np.bool_]) -> tuple[F64, F64]:
    """Fisher-scoring steps and working-scale standard errors, with fixed parameters held at zero step."""
    grad = np.where(free, grad, 0.0)
    info = info * (free[:, :, None] & free[:, None, :])
    idx = np.arange(3)
    info[:, idx, idx] = np.where(free, info[:, idx, idx], 1.0) + 1e-8
    step = np.linalg.solve(info, grad[:, :, None])[:, :, 0]
    cov_diag = np.linalg.inv(info)[:, idx, idx]
    se = np.where(free & (cov_diag > 0), np.sqrt(np.abs(cov_diag)), np.inf)
    return np.clip(step, [-0.7, -1.5, -1.5], [0.7, 1.5, 1.5]), se


def _mstep(p: _Params, nodes: F64, r: F64, n: F64, prior: Priors | None, cb: tuple[F64, F64],
           model: str, n_steps: int, step_tol: float = 1e-3) -> tuple[_Params, F64]:
    """Vectorised Fisher-scoring M-step (active set of still-moving items, per-item step halving).

    Returns the new parameters and the working-scale standard errors (J×3) at the entry parameters. An item
    leaves the active set once its step is below ``step_tol`` standard errors.
    """
    free_all = _free_mask(p.free_c, model)
    p = _Params(p.alpha.copy(), p.b.copy(), p.c.copy(), p.free_c)
    active = np.arange(p.b.size)
    se_out = np.full((p.b.size, 3), np.inf)
    for step_no in range(n_steps):
        if active.size == 0:
            break
        sub = _take(p, active)
        r_s, n_s, cb_s = _rows(r, active), _rows(n, active), (cb[0][active], cb[1][active])
        obj, grad, info = _terms(sub, nodes, r_s, n_s, prior, cb_s)
        assert grad is not None and info is not None
        step, se = _solve_steps(grad, info, free_all[active])
        slope = np.einsum("ij,ij->i", step, np.where(free_all[active], grad, 0.0))  # directional derivative
        if step_no == 0:
            se_out = se
        gamma0 = special.logit(np.clip(sub.c, 1e-9, 1 - 1e-9))
        new = _Params(sub.alpha.copy(), sub.b.copy(), sub.c.copy(), sub.free_c)
        pending = np.arange(active.size)
        scale = 1.0
        for _half in range(10):
            trial = _Params(sub.alpha[pending] + scale * step[pending, 0],
                            sub.b[pending] + scale * step[pending, 1],
                            np.where(sub.free_c[pending],
                                     special.expit(gamma0[pending] + scale * step[pending, 2]),
                                     sub.c[pending]),
                            sub.free_c[pending])
            t_obj, _, _ = _terms(trial, nodes, _rows(r_s, pending), _rows(n_s, pending), prior,
                                 (cb_s[0][pending], cb_s[1][pending]), want_grad=False)
            # Armijo sufficient increase: no flip-flopping across curved ridges of weakly identified items
            ok = t_obj >= obj[pending] + 1e-4 * scale * slope[pending] - 1e-12 * (1.0 + np.abs(obj[pending]))
            good = pending[ok]
            new.alpha[good], new.b[good], new.c[good] = trial.alpha[ok], trial.b[ok], trial.c[ok]
            pending = pending[~ok]
            if pending.size == 0:
                break
            scale *= 0.5
        g_new = special.logit(np.clip(new.c, 1e-9, 1 - 1e-9))
        delta = np.stack([new.alpha - sub.alpha, new.b - sub.b, g_new - gamma0], axis=1)
        moved = np.max(np.abs(delta) / se, axis=1)
        p.alpha[active], p.b[active], p.c[active] = new.alpha, new.b, new.c
        if model == "1pl":
            before = p.alpha[0]
            p = _common_slope_step(p, nodes, r, n, prior, cb)
            if abs(p.alpha[0] - before) > 1e-5:
                active = np.arange(p.b.size)
                continue
        active = active[moved > step_tol]
    return p, se_out


def _common_slope_step(p: _Params, nodes: F64, r: F64, n: F64, prior: Priors | None,
                       cb: tuple[F64, F64]) -> _Params:
    """One safeguarded Newton step on the common log-slope of the 1PL."""
    obj, grad, info = _terms(p, nodes, r, n, None, cb)
    assert grad is not None and info is not None
    g = grad[:, 0].sum()
    h = info[:, 0, 0].sum()
    alpha0 = float(p.alpha[0])
    if prior is not None:
        g -= (alpha0 - prior.log_a_mean) / prior.log_a_sd**2
        h += 1.0 / prior.log_a_sd**2
    total = obj.sum() - (0.0 if prior is None else 0.5 * ((alpha0 - prior.log_a_mean) / prior.log_a_sd) ** 2)
    step = float(np.clip(g / max(h, 1e-8), -0.5, 0.5))
    for _ in range(8):
        trial = _Params(np.full_like(p.alpha, alpha0 + step), p.b, p.c, p.free_c)
        t_obj, _, _ = _terms(trial, nodes, r, n, None, cb, want_grad=False)
        t_total = t_obj.sum() - (0.0 if prior is None else
                                 0.5 * ((alpha0 + step - prior.log_a_mean) / prior.log_a_sd) ** 2)
        if t_total >= total - 1e-10 * (1.0 + abs(total)):
            return trial
        step *= 0.5
    return p


class _EStep:
    """Float32 BLAS products for the E-step and the expected counts, with or without missing answers."""

    def __init__(self, data: F64, dtype: type[np.floating]) -> None:
        administered = ~np.isnan(data)
        self.x1 = (data == 1.0).astype(dtype)
        self.complete = bool(administered.all())
        self.mask = None if self.complete else administered.astype(dtype)
        self.dtype = dtype
        self.n_admin = administered.sum(axis=0).astype(np.float64)
        self.n_correct = self.x1.sum(axis=0, dtype=np.float64)

    def loglik(self, p: _Params, nodes: F64) -> F64:
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


def _px_rescale(p: _Params, post: F64, nodes: F64, prior: Priors | None, model: str) -> _Params:
    """Parameter-expansion step: fit the latent mean/SD (μ, σ) given the items, then re-standardise the scale.

    In the expanded model θ ~ N(μ, σ²) the item likelihood does not involve (μ, σ); the priors sit on the
    reduced parameters a·σ and (b − μ)/σ. Maximising the expected latent log-density plus those priors over
    (μ, σ) and mapping back to μ = 0, σ = 1 leaves the posterior mode unchanged but removes EM's slow drift
    of the overall location and scale (PX-EM, Liu, Rubin & Wu 1998).
    """
    n_ex = post.shape[0]
    m1 = float((post @ nodes).sum()) / n_ex
    m2 = float((post @ (nodes * nodes)).sum()) / n_ex
    mu, log_sd = m1, 0.5 * math.log(max(m2 - m1 * m1, 1e-6))
    if prior is not None:
        alpha_items = p.alpha[:1] if model == "1pl" else p.alpha

        def negobj(x: F64) -> tuple[float, F64]:
            """Negative expected latent log-density + item log-priors, and its gradient in (μ, log σ)."""
            m, ls = float(x[0]), float(x[1])
            sd = math.exp(ls)
            lat = n_ex * ls + n_ex * (m2 - 2 * m * m1 + m * m) / (2 * sd * sd)
            g_m = n_ex * (m - m1) / (sd * sd)
            g_ls = n_ex - n_ex * (m2 - 2 * m * m1 + m * m) / (sd * sd)
            za = (alpha_items + ls - prior.log_a_mean) / prior.log_a_sd
            bs = (p.b - m) / sd
            zb = (bs - prior.b_mean) / prior.b_sd
            val = lat + 0.5 * float((za * za).sum()) + 0.5 * float((zb * zb).sum())
            g_ls += float(za.sum()) / prior.log_a_sd - float((zb * bs).sum()) / prior.b_sd
            g_m -= float(zb.sum()) / (prior.b_sd * sd)
            return val, np.array([g_m, g_ls])

        res = optimize.minimize(negobj, np.array([mu, log_sd]), jac=True, method="L-BFGS-B",
                                bounds=[(-3.0, 3.0), (-2.0, 2.0)])
        if res.success or res.fun <= negobj(np.array([mu, log_sd]))[0]:
            mu, log_sd = float(res.x[0]), float(res.x[1])
    sd = math.exp(log_sd)
    return _Params(p.alpha + log_sd, (p.b - mu) / sd, p.c, p.free_c)


class _Refiner:
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


def _posterior(ll: F64, log_w: F64, refiner: _Refiner | None = None) -> tuple[F64, float]:
    """Normalised posterior weights on the nodes (N×Q) and the marginal log-likelihood."""
    lp = ll + log_w[None, :]
    if refiner is not None:
        w, _, total = refiner.posterior(lp)
        return w, total
    norm = special.logsumexp(lp, axis=1)
    return np.exp(lp - norm[:, None]), float(norm.sum())


def fit(
    matrix: ResponseMatrix | NDArray[np.floating],
    model: str = "3pl",
    *,
    item_ids: Sequence[str] | None = None,
    scenarios: Mapping[str, str] | Sequence[str | None] | None = None,
    options_k: OptionsK = None,
    priors: Priors | None = DEFAULT_PRIORS,
    fix_c: float | str | Sequence[float] | None = None,
    min_examinees_3pl: int = 100,
    n_quad: int = 41,
    quad_bound: float = 5.0,
    max_iter: int = 300,
    tol: float = 0.01,
    abs_tol: float = 0.005,
    min_iter: int = 10,
    min_responses: int = 30,
    fit_alpha: float = 1e-3,
    fit_rmsd: float = 0.05,
    plausible_a: float = 4.0,
    plausible_c: float = 0.5,
    embedding_dims: int = 8,
    seed: int | None = None,
    dtype: type[np.floating] = np.float32,
    px: bool = True,
    refine: int = 8,
    m_steps: int = 10,
    callback: Callable[[int, float, float], None] | None = None,
) -> ItemBank:
    """Calibrate a 1PL/2PL/3PL item bank by marginal maximum likelihood (EM) with priors; returns an ItemBank.

    ``matrix`` is a ResponseMatrix or an (examinees × items) array of 1/0/NaN. ``options_k`` gives the number
    of answer options per item (int, sequence or {item: k}); items with k <= 1 (free response) get c = 0, and
    so do items whose k is not given (there is no default number of options: an item's guessing prior comes
    from its own k). ``fix_c`` fixes the guessing parameters (a number, per-item values, or ``"guess"`` for 1/k).
    A 3PL request falls back to the 2PL, with the reason in ``meta["fallback"]``, when there are fewer than
    ``min_examinees_3pl`` examinees (0 = never) or no item has a known number of options.
    ``priors=None`` gives plain (unpenalised) marginal maximum likelihood.

    Convergence: EM converges linearly, so a small step does not by itself mean the estimates are close to
    the optimum (on small samples the steps shrink slowly, and the first iterations contract faster than the
    later ones). Each iteration estimates the contraction rate r from the largest changes of the last three
    iterations and extrapolates the distance still to go, change × r / (1 − r). EM stops when that distance is
    below ``tol`` standard errors *and* below ``abs_tol`` on the working scale (log a, b, logit c), after at
    least ``min_iter`` iterations.

    Flags (per item, also counted in meta): few_responses (< ``min_responses``), no_variance,
    negative_discrimination, poor_fit, implausible_discrimination (a > ``plausible_a``), implausible_guessing
    (c > ``plausible_c``) and poorly_identified (SE(a) > a, SE(b) > 1, or no finite SE).
    ``embedding_dims`` > 0 stores each item's coordinates on the leading principal components of the
    calibration responses (used to stratify adaptive tests; 0 = none). ``seed`` is recorded only: the EM is
    deterministic. ``callback(iteration, log_likelihood, max_change)`` is called after each iteration.
    """
    t0 = time.perf_counter()
    model = model.lower()
    if model not in MODELS:
        raise ConfigError(f"unknown model {model!r}: choose one of {', '.join(MODELS)}")
    if isinstance(matrix, ResponseMatrix):
        data = matrix.data
        ids = list(matrix.item_ids)
    else:
        data = np.asarray(matrix, dtype=np.float64)
        if data.ndim != 2:
            raise ConfigError("the response matrix must be two-dimensional (examinees × items)")
        ids = list(item_ids) if item_ids is not None else [f"item{j + 1}" for j in range(data.shape[1])]
    n_ex, n_it = data.shape
    if n_ex < 2 or n_it < 1:
        raise ConfigError(f"need at least 2 examinees and 1 item, got {n_ex} × {n_it}")
    if len(ids) != n_it:
        raise ConfigError(f"{len(ids)} item ids for {n_it} matrix columns")
    ok_vals = np.isnan(data) | (data == 0.0) | (data == 1.0)
    if not ok_vals.all():
        r, j = np.argwhere(~ok_vals)[0]
        raise ConfigError(f"response matrix holds a value other than 1, 0 or NaN at row {r + 1}, "
                          f"column {j + 1}")

    k = _item_k(options_k, ids)
    requested = model
    fallback = None
    notes: list[str] = []
    if model == "3pl" and n_ex < min_examinees_3pl:
        model = "2pl"
        fallback = (f"3pl requested but only {n_ex} examinees (< {min_examinees_3pl}, see --min-examinees-3pl): "
                    f"fitted the 2pl (c = 0 unless --fix-c is given)")
    elif model == "3pl" and fix_c is None and not np.any(k > 1):
        model = "2pl"
        fallback = ("3pl requested but no item has a known number of answer options (give an item map with a 'k' "
                    "column, or --options-k): fitted the 2pl (c = 0)")
    n_unknown = int(np.sum(k == UNKNOWN_K))
    if model == "3pl" and fix_c is None and n_unknown > 0:
        notes.append(f"{n_unknown} item(s) have no number of answer options: their guessing parameter is fixed "
                     f"at c = 0")
    fixed = _fixed_c(fix_c, np.maximum(k, 0))
    if fixed is not None:
        c0 = fixed
        free_c = np.zeros(n_it, dtype=bool)
    elif model == "3pl":
        free_c = k > 1
        c0 = np.where(free_c, 1.0 / np.maximum(k, 1), 0.0)
    else:
        free_c = np.zeros(n_it, dtype=bool)
        c0 = np.zeros(n_it)
    cb = (priors or DEFAULT_PRIORS).c_beta(np.maximum(k, 1).astype(np.float64))

    nodes = np.linspace(-quad_bound, quad_bound, n_quad)
    log_w = stats.norm.logpdf(nodes)
    log_w -= special.logsumexp(log_w)
    est = _EStep(data, dtype)
    refiner = _Refiner(nodes, refine) if refine > 1 else None

    # ---- start values: a pseudo-posterior centred on each examinee's standardised logit proportion correct
    n_admin_row = (~np.isnan(data)).sum(axis=1)
    prop = (np.nansum(data, axis=1) + 0.5) / (n_admin_row + 1.0)
    lg = special.logit(prop)
    sd = lg.std()
    theta0 = (lg - lg.mean()) / (sd if sd > 0 else 1.0)
    w0 = np.exp(-0.5 * ((nodes[None, :] - theta0[:, None]) / 0.5) ** 2) * np.exp(log_w)[None, :]
    w0 /= w0.sum(axis=1, keepdims=True)
    r, n = est.counts(w0)
    pv = np.clip((est.n_correct + 0.5) / (est.n_admin + 1.0), 0.01, 0.99)
    pstar = np.clip((pv - c0) / (1.0 - c0), 0.02, 0.98)
    alpha_init = priors.log_a_mean if priors is not None else 0.0
    params = _Params(np.full(n_it, alpha_init), -special.logit(pstar) * 1.3, c0.astype(np.float64).copy(),
                     free_c)
    params, _ = _mstep(params, nodes, r, n, priors, cb, model, n_steps=m_steps + 3)

    converged = False
    loglik = -math.inf
    it = 0
    max_change = math.inf
    changes: list[float] = []
    to_go = math.inf
    for it in range(1, max_iter + 1):
        post, loglik = _posterior(est.loglik(params, nodes), log_w, refiner)
        r, n = est.counts(post)
        old = params
        params, se_w = _mstep(params, nodes, r, n, priors, cb, model, n_steps=m_steps)
        if px:
            params = _px_rescale(params, post, nodes, priors, model)
        gamma_old = special.logit(np.clip(old.c, 1e-9, 1 - 1e-9))
        gamma_new = special.logit(np.clip(params.c, 1e-9, 1 - 1e-9))
        delta = np.stack([params.alpha - old.alpha, params.b - old.b, gamma_new - gamma_old], axis=1)
        max_change = float(np.abs(delta / se_w).max())
        if model == "1pl":  # the common slope has no per-item SE: count 0.01 on the log scale as one SE
            max_change = max(max_change, abs(float(params.alpha[0] - old.alpha[0])) / 0.01)
        abs_change = float(np.abs(delta).max())
        if callback is not None:
            callback(it, loglik, max_change)
        # linear convergence: distance still to go ≈ change · r / (1 − r), r = contraction rate per iteration,
        # estimated over the last three iterations (the first ones contract faster than EM does later)
        changes.append(max_change)
        window = len(changes) > 3 and changes[-4] > 0
        rate = min((changes[-1] / changes[-4]) ** (1.0 / 3.0), 0.999) if window else 0.999
        to_go = rate / (1.0 - rate)
        if it >= min_iter and max_change * to_go < tol and abs_change * to_go < abs_tol:
            converged = True
            break

    # ---- final E-step: log-likelihood, posterior for diagnostics, standard errors
    post, loglik = _posterior(est.loglik(params, nodes), log_w, refiner)
    r, n = est.counts(post)
    _, _, info = _terms(params, nodes, r, n, priors, cb)
    assert info is not None
    diag = _diagnostics(est, params, nodes, post, r, n, info, model, n_free=_n_free(model, free_c))
    a = np.exp(params.alpha)
    flags: list[list[str]] = [[] for _ in range(n_it)]
    for j in range(n_it):
        if est.n_admin[j] < min_responses:
            flags[j].append(FLAG_FEW_RESPONSES)
        if est.n_admin[j] > 0 and est.n_correct[j] in (0.0, est.n_admin[j]):
            flags[j].append(FLAG_NO_VARIANCE)
        if diag["point_biserial"][j] < 0:
            flags[j].append(FLAG_NEGATIVE_DISCRIMINATION)
        if diag["fit_p"][j] < fit_alpha and diag["rmsd"][j] > fit_rmsd:
            flags[j].append(FLAG_POOR_FIT)
        if a[j] > plausible_a:
            flags[j].append(FLAG_IMPLAUSIBLE_A)
        if params.c[j] > plausible_c:
            flags[j].append(FLAG_IMPLAUSIBLE_C)
        se_a, se_b = diag["se_a"][j], diag["se_b"][j]
        b_ok = bool(np.isfinite(se_b) and se_b <= 1.0)
        a_ok = model == "1pl" or bool(np.isfinite(se_a) and se_a <= a[j])
        if not (a_ok and b_ok):
            flags[j].append(FLAG_POORLY_IDENTIFIED)

    scen_list: list[str | None] | None = None
    if scenarios is not None:
        if isinstance(scenarios, Mapping):
            scen_list = [scenarios.get(i) for i in ids]
        else:
            scen_list = list(scenarios)
            if len(scen_list) != n_it:
                raise ConfigError(f"{len(scen_list)} scenarios for {n_it} items")
        if all(s is None for s in scen_list):
            scen_list = None
    embedding = item_embedding(data, embedding_dims) if embedding_dims > 0 else None
    seconds = time.perf_counter() - t0
    counts: dict[str, int] = {}
    for fl in flags:
        for f in fl:
            counts[f] = counts.get(f, 0) + 1
    meta: dict[str, Any] = {
        "model": model,
        "requested_model": requested,
        "n_examinees": n_ex,
        "n_items": n_it,
        "n_responses": int(est.n_admin.sum()),
        "log_likelihood": loglik,
        "iterations": it,
        "converged": converged,
        "max_change": max_change,
        "max_change_unit": "standard errors (largest change of any log a, b, logit c in the last iteration)",
        "remaining_estimate": max_change * to_go if math.isfinite(to_go) else None,
        "tol": tol,
        "abs_tol": abs_tol,
        "seconds": round(seconds, 3),
        "priors": None if priors is None else asdict(priors),
        "quadrature": {"n": n_quad, "bound": quad_bound, "population": "N(0, 1)"},
        "fixed_c": fixed is not None,
        "seed": seed,
        "n_flagged": int(sum(1 for f in flags if f)),
        "flag_counts": dict(sorted(counts.items())),
        "embedding_dims": 0 if embedding is None else int(embedding.shape[1]),
        # everything a re-fit on other examinees needs (cross-validated interval calibration does this)
        "fit_options": {
            "model": requested, "priors": None if priors is None else asdict(priors),
            "fix_c": fix_c if fix_c is None or isinstance(fix_c, str | float | int) else list(fix_c),
            "min_examinees_3pl": min_examinees_3pl, "n_quad": n_quad, "quad_bound": quad_bound,
            "max_iter": max_iter, "tol": tol, "abs_tol": abs_tol, "min_iter": min_iter,
            "min_responses": min_responses,
            "plausible_a": plausible_a, "plausible_c": plausible_c, "embedding_dims": embedding_dims,
        },
    }
    if fallback:
        meta["fallback"] = fallback
    if notes:
        meta["notes"] = notes
    return ItemBank(ids=ids, a=a, b=params.b.copy(), c=params.c.copy(), model=model, scenarios=scen_list,
                    k=k, flags=flags, diagnostics=diag, meta=meta, embedding=embedding)


def _n_free(model: str, free_c: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Number of free parameters per item (for the item-fit degrees of freedom)."""
    base = 1.0 if model == "1pl" else 2.0
    return base + free_c.astype(np.float64)


def _diagnostics(est: _EStep, p: _Params, nodes: F64, post: F64, r: F64, n: F64, info: F64, model: str,
                 n_free: F64) -> dict[str, F64]:
    """Standard errors, p-values, item-rest correlations and a grouped item-fit statistic per item."""
    n_it = p.b.size
    a = np.exp(p.alpha)
    # standard errors from the inverse (posterior) information on the working scale, by the delta method
    free = np.ones((n_it, 3), dtype=bool)
    free[:, 2] = p.free_c
    if model == "1pl":
        free[:, 0] = False
    inf = info * (free[:, :, None] & free[:, None, :])
    idx = np.arange(3)
    inf[:, idx, idx] = np.where(free, inf[:, idx, idx], 1.0)
    try:
        cov = np.linalg.inv(inf)
    except np.linalg.LinAlgError:
        cov = np.linalg.pinv(inf)
    var = np.where(free, cov[:, idx, idx], np.nan)
    var = np.where(var > 0, var, np.nan)
    se_a = a * np.sqrt(var[:, 0])
    se_b = np.sqrt(var[:, 1])
    se_c = p.c * (1.0 - p.c) * np.sqrt(var[:, 2])

    # item-rest point-biserial: response vs proportion correct on the examinee's other administered items
    x1 = est.x1
    mask_rows = x1.shape[1] * np.ones(x1.shape[0]) if est.mask is None else est.mask.sum(axis=1, dtype=np.float64)
    score = x1.sum(axis=1, dtype=np.float64)
    denom = np.maximum(mask_rows - 1.0, 1.0)
    u = score / denom  # rest proportion = u − x/denom for administered cells
    v = 1.0 / denom
    dt = x1.dtype

    def mt(vec: F64) -> F64:
        """Sum over administered cells of a per-row vector, per item."""
        if est.complete:
            return np.full(n_it, vec.sum())
        assert est.mask is not None
        return (est.mask.T @ vec.astype(dt)).astype(np.float64)

    def xt(vec: F64) -> F64:
        """Sum over correct cells of a per-row vector, per item."""
        return (x1.T @ vec.astype(dt)).astype(np.float64)

    nj = est.n_admin
    sx = est.n_correct
    s_r = mt(u) - xt(v)
    s_xr = xt(u - v)
    s_rr = mt(u * u) - xt(2 * u * v - v * v)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov_xr = s_xr / nj - (sx / nj) * (s_r / nj)
        var_x = sx / nj - (sx / nj) ** 2
        var_r = s_rr / nj - (s_r / nj) ** 2
        pbis = cov_xr / np.sqrt(var_x * np.maximum(var_r, 0.0))
    pbis = np.where(np.isfinite(pbis), pbis, np.nan)

    # grouped fit (Yen's Q1 style): examinees in ability groups by posterior mean; observed vs expected
    theta_hat = post @ nodes
    n_ex = theta_hat.size
    n_groups = int(min(10, max(2, n_ex // 20)))
    edges = np.quantile(theta_hat, np.linspace(0, 1, n_groups + 1)[1:-1])
    g_idx = np.searchsorted(edges, theta_hat, side="right")
    groups = np.zeros((n_ex, n_groups))
    groups[np.arange(n_ex), g_idx] = 1.0
    obs = (x1.T @ groups.astype(dt)).astype(np.float64)  # J×G correct counts
    pq = p.c[:, None] + (1 - p.c[:, None]) * special.expit(a[:, None] * (nodes[None, :] - p.b[:, None]))
    if est.complete:
        cnt = np.broadcast_to(groups.sum(axis=0)[None, :], (n_it, n_groups)).astype(np.float64)
        expc = pq @ (post.T @ groups)  # J×G expected correct counts
    else:
        assert est.mask is not None
        cnt = (est.mask.T @ groups.astype(dt)).astype(np.float64)
        stacked = (post[:, :, None] * groups[:, None, :]).reshape(n_ex, -1).astype(dt)
        mw = (est.mask.T @ stacked).astype(np.float64).reshape(n_it, nodes.size, n_groups)
        expc = np.einsum("jq,jqg->jg", pq, mw)
    use = cnt >= 5
    with np.errstate(invalid="ignore", divide="ignore"):
        o = obs / cnt
        e = np.clip(expc / cnt, 1e-6, 1 - 1e-6)
        x2 = np.where(use, cnt * (o - e) ** 2 / (e * (1 - e)), 0.0).sum(axis=1)
        tot = np.where(use, cnt, 0.0).sum(axis=1)
        rmsd = np.sqrt(np.where(use, cnt * (o - e) ** 2, 0.0).sum(axis=1) / tot)
    df = use.sum(axis=1) - n_free
    fit_p = np.where(df > 0, stats.chi2.sf(x2, np.maximum(df, 1)), np.nan)
    return {
        "se_a": se_a, "se_b": se_b, "se_c": se_c, "n_responses": nj.copy(),
        "p_value": np.where(nj > 0, sx / np.maximum(nj, 1), np.nan), "point_biserial": pbis,
        "rmsd": np.where(tot > 0, rmsd, np.nan), "fit_chi2": np.where(df > 0, x2, np.nan),
        "fit_df": np.where(df > 0, df, np.nan).astype(np.float64), "fit_p": fit_p,
    }


def fit_like(bank: ItemBank, data: NDArray[np.floating]) -> ItemBank:
    """Calibrate a new bank on other examinees with the settings, items, scenarios and options of ``bank``.

    ``data`` holds the bank's items in the bank's order. Used by cross-validated interval calibration, which
    re-fits the bank without the examinees it then tests.
    """
    opts = dict(bank.meta.get("fit_options") or {})
    if not opts:
        raise ConfigError("the bank does not record how it was fitted (meta.fit_options): re-fit it with "
                          "`climedbench irt fit`")
    pri = opts.pop("priors", None)
    return fit(np.asarray(data, dtype=np.float64), str(opts.pop("model", bank.model)), item_ids=bank.ids,
               scenarios=bank.scenarios, options_k=bank.k, priors=None if pri is None else Priors(**pri),
               **{k: v for k, v in opts.items() if k in _REFIT_KEYS})


_REFIT_KEYS = frozenset({"fix_c", "min_examinees_3pl", "n_quad", "quad_bound", "max_iter", "tol", "abs_tol",
                         "min_iter", "min_responses", "plausible_a", "plausible_c", "embedding_dims"})
