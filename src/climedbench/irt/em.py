"""The EM machinery of item calibration (:mod:`climedbench.irt.calibrate`): item priors, working parameters on the
(log a, b, logit c) scale, the expected complete-data log-posterior with its gradient and information, the
vectorised Fisher-scoring M-step and the parameter-expansion rescaling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

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
class Params:
    """Working item parameters on the optimisation scale."""

    alpha: F64  # log a
    b: F64
    c: F64
    free_c: NDArray[np.bool_]


def terms(p: Params, nodes: F64, r: F64, n: F64, prior: Priors | None, cb: tuple[F64, F64],
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


def _take(p: Params, idx: NDArray[np.int64]) -> Params:
    """The working parameters of a subset of items."""
    return Params(p.alpha[idx], p.b[idx], p.c[idx], p.free_c[idx])


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


def mstep(p: Params, nodes: F64, r: F64, n: F64, prior: Priors | None, cb: tuple[F64, F64],
           model: str, n_steps: int, step_tol: float = 1e-3) -> tuple[Params, F64]:
    """Vectorised Fisher-scoring M-step (active set of still-moving items, per-item step halving).

    Returns the new parameters and the working-scale standard errors (J×3) at the entry parameters. An item
    leaves the active set once its step is below ``step_tol`` standard errors.
    """
    free_all = _free_mask(p.free_c, model)
    p = Params(p.alpha.copy(), p.b.copy(), p.c.copy(), p.free_c)
    active = np.arange(p.b.size)
    se_out = np.full((p.b.size, 3), np.inf)
    for step_no in range(n_steps):
        if active.size == 0:
            break
        sub = _take(p, active)
        r_s, n_s, cb_s = _rows(r, active), _rows(n, active), (cb[0][active], cb[1][active])
        obj, grad, info = terms(sub, nodes, r_s, n_s, prior, cb_s)
        assert grad is not None and info is not None
        step, se = _solve_steps(grad, info, free_all[active])
        slope = np.einsum("ij,ij->i", step, np.where(free_all[active], grad, 0.0))  # directional derivative
        if step_no == 0:
            se_out = se
        gamma0 = special.logit(np.clip(sub.c, 1e-9, 1 - 1e-9))
        new = Params(sub.alpha.copy(), sub.b.copy(), sub.c.copy(), sub.free_c)
        pending = np.arange(active.size)
        scale = 1.0
        for _half in range(10):
            trial = Params(sub.alpha[pending] + scale * step[pending, 0],
                            sub.b[pending] + scale * step[pending, 1],
                            np.where(sub.free_c[pending],
                                     special.expit(gamma0[pending] + scale * step[pending, 2]),
                                     sub.c[pending]),
                            sub.free_c[pending])
            t_obj, _, _ = terms(trial, nodes, _rows(r_s, pending), _rows(n_s, pending), prior,
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


def _common_slope_step(p: Params, nodes: F64, r: F64, n: F64, prior: Priors | None,
                       cb: tuple[F64, F64]) -> Params:
    """One safeguarded Newton step on the common log-slope of the 1PL."""
    obj, grad, info = terms(p, nodes, r, n, None, cb)
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
        trial = Params(np.full_like(p.alpha, alpha0 + step), p.b, p.c, p.free_c)
        t_obj, _, _ = terms(trial, nodes, r, n, None, cb, want_grad=False)
        t_total = t_obj.sum() - (0.0 if prior is None else
                                 0.5 * ((alpha0 + step - prior.log_a_mean) / prior.log_a_sd) ** 2)
        if t_total >= total - 1e-10 * (1.0 + abs(total)):
            return trial
        step *= 0.5
    return p


def px_rescale(p: Params, post: F64, nodes: F64, prior: Priors | None, model: str) -> Params:
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
    return Params(p.alpha + log_sd, (p.b - mu) / sd, p.c, p.free_c)
