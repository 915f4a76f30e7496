"""Predicted full-benchmark scores from an adaptive test: the answers actually given, plus the rest.

**Overall score, everywhere in climedbench:** the mean of the scenario scores (each scenario weighs the same,
CliMedBench's and the Open LLM Leaderboard's convention); a scenario score is 100 × the proportion correct over
*all* of the scenario's bank items. A bank without scenarios is one scenario, so its overall score is the
percent correct over all bank items.

Per scenario, the predicted score counts every asked item as answered and predicts only the others:

* ``stratified`` design (items random within strata): the model-assisted (difference) estimator of survey
  sampling. In stratum h with N_h items, n_h of them asked, and residuals r_i = x_i − P̄_i (answer minus its
  posterior-expected probability), total_h = Σ_h P̄_i + N_h · mean(r) — that is, observed answers + model
  expectation on the unasked items + the mean residual of the asked items carried over to the unasked ones.
  Because the asked items are a random sample of the stratum, the correction removes the model's bias where
  the IRT model misfits (real LLM data misfit a unidimensional 3PL; θ alone misses by points). Variance:
  N_h (N_h − n_h) s²_h / n_h, with s²_h the residual variance shrunk towards the model's mean P(1 − P) with
  two pseudo-observations; a stratum nobody asked is predicted by the model alone.
* ``fisher``/``kl`` designs (items chosen for information, not at random): observed answers + posterior-
  expected answers on the unasked items; variance = the variance of that expectation over the θ posterior +
  Σ P(1 − P) of the unasked items.

Both variances leave out whatever the design cannot see (calibration error, misfit beyond the strata); the
reported interval multiplies the SE by a factor calibrated on held-out calibration examinees
(:mod:`climedbench.cat.intervals`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from climedbench.cat.engine import CATEngine, CATState
from climedbench.irt.model import prob

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: Pseudo-observations of the model's P(1 − P) added to a stratum's residual variance.
VARIANCE_PRIOR_WEIGHT = 2.0

OVERALL_DEFINITION = ("mean of the scenario scores (each scenario weighs the same); a scenario score is 100 × the "
                      "proportion correct over all of the scenario's bank items; without scenarios, the percent "
                      "correct over all bank items")


@dataclass
class ScorePrediction:
    """Predicted scores per examinee (rows): overall and per scenario, each with a design-based SE."""

    overall: F64
    overall_se: F64
    scenario: F64  # R × S
    scenario_se: F64  # R × S
    scenarios: list[str]
    method: str
    low: F64  # per scenario: the smallest and largest score the scale allows
    high: F64

    @property
    def overall_range(self) -> tuple[float, float]:
        """The smallest and largest overall score the scale allows."""
        return float(self.low.mean()), float(self.high.mean())


def _asked(st: CATState, rows: I64) -> tuple[I64, F64, NDArray[np.bool_]]:
    """Items, answers and a validity mask of the rows' administered items (R × L)."""
    items = st.items[rows]
    ok = items >= 0
    return np.maximum(items, 0), np.where(ok, st.responses[rows], 0.0), ok


def _asked_p(engine: CATEngine, items: I64, w: F64) -> tuple[F64, F64]:
    """Posterior-expected P and P(1 − P) of each asked item (R × L), and the per-node P (for variances)."""
    b = engine.bank
    p = prob(engine.grid[None, None, :], b.a[items][..., None], b.b[items][..., None], b.c[items][..., None])
    return np.einsum("rlg,rg->rl", p, w), p


def predict_scores(engine: CATEngine, st: CATState, rows: I64 | None = None, *,
                   transforms: dict[str, tuple[float, float]] | None = None, chunk: int = 128) -> ScorePrediction:
    """Predicted overall and per-scenario scores (×100) for the given rows (default all) of a test state.

    ``transforms`` maps a scenario name to (scale, offset) applied to its score (Kendall's τ binarised as
    (τ + 1)/2 is reported as 2·score − 100, see :mod:`climedbench.irt.binarize`).
    """
    rows = np.arange(st.theta.size) if rows is None else np.asarray(rows, dtype=np.int64)
    names = _scenarios(engine)[0]
    n_s = len(names)
    scale = np.array([(transforms or {}).get(nm, (1.0, 0.0))[0] for nm in names])
    offset = np.array([(transforms or {}).get(nm, (1.0, 0.0))[1] for nm in names])
    out_s = np.empty((rows.size, n_s))
    var_s = np.empty((rows.size, n_s))
    out_o = np.empty(rows.size)
    var_o = np.empty(rows.size)
    tables = _scenario_tables(engine)
    lo = np.minimum(offset, 100.0 * scale + offset)
    hi = np.maximum(offset, 100.0 * scale + offset)
    for start in range(0, rows.size, chunk):
        sl = slice(start, start + chunk)
        r = rows[sl]
        if engine.strata is not None:
            tot, var, cov_o = _greg(engine, st, r, tables)
        else:
            tot, var, cov_o = _observed_expected(engine, st, r, tables)
        n_items = tables.sizes
        c = 100.0 * scale / n_items  # score per unit of a scenario's total
        # The difference estimator can step past the scale's ends (a scenario at −2 points); a score cannot.
        out_s[sl] = np.clip(c[None, :] * tot + offset[None, :], lo[None, :], hi[None, :])
        var_s[sl] = (c**2)[None, :] * var
        out_o[sl] = out_s[sl].mean(axis=1)
        var_o[sl] = cov_o(c / n_s)
    return ScorePrediction(overall=out_o, overall_se=np.sqrt(np.maximum(var_o, 0.0)), scenario=out_s,
                           scenario_se=np.sqrt(np.maximum(var_s, 0.0)), scenarios=names,
                           method="stratified difference estimator" if engine.strata is not None
                           else "observed + expected", low=lo, high=hi)


@dataclass
class _Tables:
    """Per scenario: number of bank items and Σ P, Σ P(1 − P) at every grid node (G × S); model-only parts."""

    sizes: F64
    p_sum: F64
    pq_sum: F64


def _scenarios(engine: CATEngine) -> tuple[list[str], I64]:
    """The bank's scenarios (the score's definition), whatever content balancing the engine uses."""
    names, idx = engine.bank.scenario_labels()
    return list(names), idx


def _scenario_tables(engine: CATEngine) -> _Tables:
    """Scenario tables over all bank items (cached on the engine)."""
    cached = getattr(engine, "_estimate_tables", None)
    if isinstance(cached, _Tables):
        return cached
    b = engine.bank
    names, sidx = _scenarios(engine)
    n_s = len(names)
    p_sum = np.zeros((engine.grid.size, n_s))
    pq_sum = np.zeros((engine.grid.size, n_s))
    onehot = np.zeros((b.n_items, n_s))
    onehot[np.arange(b.n_items), sidx] = 1.0
    for s in range(0, b.n_items, 4096):
        sl = slice(s, s + 4096)
        p = prob(engine.grid[None, :], b.a[sl, None], b.b[sl, None], b.c[sl, None])  # J × G
        p_sum += p.T @ onehot[sl]
        pq_sum += (p * (1.0 - p)).T @ onehot[sl]
    out = _Tables(sizes=onehot.sum(axis=0), p_sum=p_sum, pq_sum=pq_sum)
    engine._estimate_tables = out  # type: ignore[attr-defined]
    return out


_Parts = tuple[F64, F64, Callable[[F64], F64]]


def _observed_expected(engine: CATEngine, st: CATState, rows: I64, tables: _Tables) -> _Parts:
    """Observed + posterior-expected totals per scenario; variances; overall-variance function."""
    w = engine.posterior_weights(st.logpost[rows])  # R × G
    items, x, ok = _asked(st, rows)
    _, p_node = _asked_p(engine, items, w)  # R × L × G
    names, sidx = _scenarios(engine)
    n_s = len(names)
    scen = sidx[items]
    onehot = np.zeros((*items.shape, n_s))
    np.put_along_axis(onehot, scen[..., None], 1.0, axis=2)
    onehot *= ok[..., None]
    obs = np.einsum("rl,rls->rs", x, onehot)
    asked_p = np.einsum("rlg,rls->rgs", p_node, onehot)  # R × G × S
    asked_pq = np.einsum("rlg,rls->rgs", p_node * (1.0 - p_node), onehot)
    unasked = tables.p_sum[None] - asked_p  # R × G × S: expected total of the unasked items at each node
    unasked_pq = tables.pq_sum[None] - asked_pq
    mean_u = np.einsum("rg,rgs->rs", w, unasked)
    tot = obs + mean_u
    dev = unasked - mean_u[:, None, :]
    var = np.einsum("rg,rgs->rs", w, dev**2) + np.einsum("rg,rgs->rs", w, unasked_pq)

    def overall_var(coef: F64) -> F64:
        """θ-parts move together across scenarios; answer noise is independent."""
        lin = np.einsum("rgs,s->rg", dev, coef)
        return np.einsum("rg,rg->r", w, lin**2) + np.einsum("rg,rgs,s->r", w, unasked_pq, coef**2)

    return tot, var, overall_var


def _greg(engine: CATEngine, st: CATState, rows: I64, tables: _Tables) -> _Parts:
    """Stratified difference estimator per scenario; variances; overall-variance function."""
    strata = engine.strata
    assert strata is not None
    w = engine.posterior_weights(st.logpost[rows])  # R × G
    items, x, ok = _asked(st, rows)
    pbar, _ = _asked_p(engine, items, w)
    n_h = strata.n_strata
    lab = strata.labels[items]
    valid = ok & (lab >= 0)
    onehot = np.zeros((*items.shape, n_h))
    np.put_along_axis(onehot, np.maximum(lab, 0)[..., None], 1.0, axis=2)
    onehot *= valid[..., None]
    resid = np.where(valid, x - pbar, 0.0)
    cnt = onehot.sum(axis=1)  # R × H
    rsum = np.einsum("rl,rlh->rh", resid, onehot)
    rmean = np.where(cnt > 0, rsum / np.maximum(cnt, 1.0), 0.0)
    rss = np.einsum("rl,rlh->rh", resid**2, onehot) - cnt * rmean**2
    pq_model = w @ strata.pq_mean  # R × H: posterior-expected mean P(1 − P) in each stratum
    s2 = (np.maximum(rss, 0.0) + VARIANCE_PRIOR_WEIGHT * pq_model) / (np.maximum(cnt - 1.0, 0.0)
                                                                        + VARIANCE_PRIOR_WEIGHT)
    t_model = w @ strata.p_sum  # R × H: posterior-expected total of each stratum
    size = strata.sizes[None, :]
    total_h = t_model + size * rmean
    var_h = np.where(cnt > 0, size * np.maximum(size - cnt, 0.0) * s2 / np.maximum(cnt, 1.0), 0.0)
    # a stratum without any asked item: model only (θ posterior spread + answer noise)
    none = cnt == 0
    if none.any():
        spread = w @ strata.p_sum**2 - t_model**2
        var_h = np.where(none, np.maximum(spread, 0.0) + size * pq_model, var_h)
    n_s = len(_scenarios(engine)[0])
    to_s = np.zeros((n_h, n_s))
    to_s[np.arange(n_h), strata.scenario] = 1.0
    tot = total_h @ to_s
    var = var_h @ to_s
    # items outside every stratum (excluded from selection): model only
    outside = _outside_tables(engine)
    if outside is not None:
        mean_o = w @ outside.p_sum
        tot += mean_o
        var += np.maximum(w @ outside.p_sum**2 - mean_o**2, 0.0) + w @ outside.pq_sum

    def overall_var(coef: F64) -> F64:
        """Strata are independent."""
        return var @ coef**2

    return tot, var, overall_var


def _outside_tables(engine: CATEngine) -> _Tables | None:
    """Scenario tables of the items no stratum holds (None if every item is in a stratum)."""
    strata = engine.strata
    assert strata is not None
    out = strata.labels < 0
    if not out.any():
        return None
    b = engine.bank
    idx = np.flatnonzero(out)
    p = prob(engine.grid[None, :], b.a[idx, None], b.b[idx, None], b.c[idx, None])
    names, sidx = _scenarios(engine)
    onehot = np.zeros((idx.size, len(names)))
    onehot[np.arange(idx.size), sidx[idx]] = 1.0
    return _Tables(sizes=onehot.sum(axis=0), p_sum=p.T @ onehot, pq_sum=(p * (1 - p)).T @ onehot)


def intervals(pred: ScorePrediction, multiplier: float, scenario_multiplier: float | None = None
              ) -> tuple[F64, F64, F64, F64]:
    """(overall lower, overall upper, scenario lower, scenario upper): score ± multiplier × SE, clipped."""
    ms = multiplier if scenario_multiplier is None else scenario_multiplier
    lo_o, hi_o = pred.overall_range
    ol = np.clip(pred.overall - multiplier * pred.overall_se, lo_o, hi_o)
    ou = np.clip(pred.overall + multiplier * pred.overall_se, lo_o, hi_o)
    sl = np.clip(pred.scenario - ms * pred.scenario_se, pred.low[None, :], pred.high[None, :])
    su = np.clip(pred.scenario + ms * pred.scenario_se, pred.low[None, :], pred.high[None, :])
    return ol, ou, sl, su
