"""Per-item diagnostics of a calibrated bank: standard errors, p-values, item-rest correlations and a grouped
item-fit statistic."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from climedbench.irt.em import Params
from climedbench.irt.estep import EStep

F64 = NDArray[np.float64]


def free_parameters(model: str, free_c: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Number of free parameters per item (for the item-fit degrees of freedom)."""
    base = 1.0 if model == "1pl" else 2.0
    return base + free_c.astype(np.float64)


def diagnostics(est: EStep, p: Params, nodes: F64, post: F64, r: F64, n: F64, info: F64, model: str,
                n_free: F64) -> dict[str, F64]:
    """Standard errors, p-values, item-rest correlations and a grouped item-fit statistic per item."""
    se_a, se_b, se_c = _standard_errors(p, info, model)
    pbis = _point_biserial(est, p.b.size)
    x2, df, rmsd, tot = _grouped_fit(est, p, nodes, post, n_free)
    nj = est.n_admin
    sx = est.n_correct
    fit_p = np.where(df > 0, stats.chi2.sf(x2, np.maximum(df, 1)), np.nan)
    return {
        "se_a": se_a, "se_b": se_b, "se_c": se_c, "n_responses": nj.copy(),
        "p_value": np.where(nj > 0, sx / np.maximum(nj, 1), np.nan), "point_biserial": pbis,
        "rmsd": np.where(tot > 0, rmsd, np.nan), "fit_chi2": np.where(df > 0, x2, np.nan),
        "fit_df": np.where(df > 0, df, np.nan).astype(np.float64), "fit_p": fit_p,
    }


def _standard_errors(p: Params, info: F64, model: str) -> tuple[F64, F64, F64]:
    """SE of a, b and c from the inverse (posterior) information on the working scale, by the delta method."""
    n_it = p.b.size
    a = np.exp(p.alpha)
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
    return se_a, se_b, se_c


def _point_biserial(est: EStep, n_it: int) -> F64:
    """Item-rest point-biserial: response vs proportion correct on the examinee's other administered items."""
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
    return np.where(np.isfinite(pbis), pbis, np.nan)


def _grouped_fit(est: EStep, p: Params, nodes: F64, post: F64, n_free: F64) -> tuple[F64, F64, F64, F64]:
    """Grouped fit (Yen's Q1 style): examinees in ability groups by posterior mean; observed vs expected.
    Returns the χ² statistic, its degrees of freedom, the RMSD and the examinees counted, per item."""
    n_it = p.b.size
    a = np.exp(p.alpha)
    x1 = est.x1
    dt = x1.dtype
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
    return x2, df, rmsd, tot
