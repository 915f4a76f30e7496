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
from scipy import special, stats

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
from climedbench.irt.diagnostics import diagnostics, free_parameters
from climedbench.irt.em import DEFAULT_PRIORS, Params, Priors, mstep, px_rescale, terms
from climedbench.irt.embedding import item_embedding
from climedbench.irt.estep import EStep, Refiner, posterior
from climedbench.irt.matrix import ResponseMatrix
from climedbench.irt.model import MODELS

F64 = NDArray[np.float64]


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


@dataclass
class _Guessing:
    """The model actually fitted and how its guessing parameters are set."""

    model: str
    fallback: str | None
    notes: list[str]
    fixed: F64 | None  # per-item fixed c (None: c estimated where free_c)
    free_c: NDArray[np.bool_]
    c0: F64  # start values of c


@dataclass
class _EMRun:
    """Where EM stopped."""

    params: Params
    loglik: float
    iterations: int
    converged: bool
    max_change: float
    to_go: float


def _read_matrix(matrix: ResponseMatrix | NDArray[np.floating],
                 item_ids: Sequence[str] | None) -> tuple[F64, list[str]]:
    """The (examinees × items) array of 1/0/NaN and the item ids; ConfigError when either is unusable."""
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
    return data, ids


def _guessing(model: str, n_ex: int, k: NDArray[np.int64], fix_c: float | str | Sequence[float] | None,
              min_examinees_3pl: int) -> _Guessing:
    """The 3PL falls back to the 2PL with too few examinees or no known number of options; c fixed or free."""
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
    n_it = k.size
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
    return _Guessing(model, fallback, notes, fixed, free_c, c0)


def _quadrature(n_quad: int, quad_bound: float) -> tuple[F64, F64]:
    """Equally spaced nodes on [−bound, bound] and the log-weights of the N(0, 1) population on them."""
    nodes = np.linspace(-quad_bound, quad_bound, n_quad)
    log_w = stats.norm.logpdf(nodes)
    log_w -= special.logsumexp(log_w)
    return nodes, log_w


def _start(data: F64, est: EStep, nodes: F64, log_w: F64, g: _Guessing, priors: Priors | None,
           cb: tuple[F64, F64], m_steps: int) -> Params:
    """Start values: a pseudo-posterior centred on each examinee's standardised logit proportion correct."""
    n_admin_row = (~np.isnan(data)).sum(axis=1)
    prop = (np.nansum(data, axis=1) + 0.5) / (n_admin_row + 1.0)
    lg = special.logit(prop)
    sd = lg.std()
    theta0 = (lg - lg.mean()) / (sd if sd > 0 else 1.0)
    w0 = np.exp(-0.5 * ((nodes[None, :] - theta0[:, None]) / 0.5) ** 2) * np.exp(log_w)[None, :]
    w0 /= w0.sum(axis=1, keepdims=True)
    r, n = est.counts(w0)
    pv = np.clip((est.n_correct + 0.5) / (est.n_admin + 1.0), 0.01, 0.99)
    pstar = np.clip((pv - g.c0) / (1.0 - g.c0), 0.02, 0.98)
    alpha_init = priors.log_a_mean if priors is not None else 0.0
    params = Params(np.full(data.shape[1], alpha_init), -special.logit(pstar) * 1.3,
                    g.c0.astype(np.float64).copy(), g.free_c)
    params, _ = mstep(params, nodes, r, n, priors, cb, g.model, n_steps=m_steps + 3)
    return params


def _iterate(params: Params, est: EStep, nodes: F64, log_w: F64, refiner: Refiner | None, priors: Priors | None,
             cb: tuple[F64, F64], model: str, o: dict[str, Any],
             callback: Callable[[int, float, float], None] | None) -> _EMRun:
    """EM iterations until the extrapolated distance to go is small (see :func:`fit`) or ``max_iter``."""
    converged = False
    loglik = -math.inf
    it = 0
    max_change = math.inf
    changes: list[float] = []
    to_go = math.inf
    for it in range(1, o["max_iter"] + 1):
        post, loglik = posterior(est.loglik(params, nodes), log_w, refiner)
        r, n = est.counts(post)
        old = params
        params, se_w = mstep(params, nodes, r, n, priors, cb, model, n_steps=o["m_steps"])
        if o["px"]:
            params = px_rescale(params, post, nodes, priors, model)
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
        if it >= o["min_iter"] and max_change * to_go < o["tol"] and abs_change * to_go < o["abs_tol"]:
            converged = True
            break
    return _EMRun(params, loglik, it, converged, max_change, to_go)


def _final(em: _EMRun, est: EStep, nodes: F64, log_w: F64, refiner: Refiner | None, priors: Priors | None,
           cb: tuple[F64, F64], g: _Guessing) -> dict[str, F64]:
    """The final E-step: the log-likelihood (into ``em``), the posterior for the diagnostics, standard errors."""
    post, em.loglik = posterior(est.loglik(em.params, nodes), log_w, refiner)
    r, n = est.counts(post)
    _, _, info = terms(em.params, nodes, r, n, priors, cb)
    assert info is not None
    return diagnostics(est, em.params, nodes, post, r, n, info, g.model, n_free=free_parameters(g.model, g.free_c))


def _flags(est: EStep, params: Params, diag: dict[str, F64], model: str, o: dict[str, Any]) -> list[list[str]]:
    """The flags of each item (see :func:`fit`)."""
    a = np.exp(params.alpha)
    flags: list[list[str]] = [[] for _ in range(params.b.size)]
    for j in range(params.b.size):
        if est.n_admin[j] < o["min_responses"]:
            flags[j].append(FLAG_FEW_RESPONSES)
        if est.n_admin[j] > 0 and est.n_correct[j] in (0.0, est.n_admin[j]):
            flags[j].append(FLAG_NO_VARIANCE)
        if diag["point_biserial"][j] < 0:
            flags[j].append(FLAG_NEGATIVE_DISCRIMINATION)
        if diag["fit_p"][j] < o["fit_alpha"] and diag["rmsd"][j] > o["fit_rmsd"]:
            flags[j].append(FLAG_POOR_FIT)
        if a[j] > o["plausible_a"]:
            flags[j].append(FLAG_IMPLAUSIBLE_A)
        if params.c[j] > o["plausible_c"]:
            flags[j].append(FLAG_IMPLAUSIBLE_C)
        se_a, se_b = diag["se_a"][j], diag["se_b"][j]
        b_ok = bool(np.isfinite(se_b) and se_b <= 1.0)
        a_ok = model == "1pl" or bool(np.isfinite(se_a) and se_a <= a[j])
        if not (a_ok and b_ok):
            flags[j].append(FLAG_POORLY_IDENTIFIED)
    return flags


def _scenario_list(scenarios: Mapping[str, str] | Sequence[str | None] | None,
                   ids: list[str]) -> list[str | None] | None:
    """Each item's scenario (None when no item has one)."""
    if scenarios is None:
        return None
    if isinstance(scenarios, Mapping):
        scen_list = [scenarios.get(i) for i in ids]
    else:
        scen_list = list(scenarios)
        if len(scen_list) != len(ids):
            raise ConfigError(f"{len(scen_list)} scenarios for {len(ids)} items")
    return None if all(s is None for s in scen_list) else scen_list


def _meta(o: dict[str, Any], requested: str, g: _Guessing, em: _EMRun, est: EStep, data: F64,
          flags: list[list[str]], embedding: F64 | None, seconds: float) -> dict[str, Any]:
    """The bank's meta: what was fitted, how EM ended, the flag counts and the options a re-fit needs."""
    priors: Priors | None = o["priors"]
    fix_c = o["fix_c"]
    counts: dict[str, int] = {}
    for fl in flags:
        for f in fl:
            counts[f] = counts.get(f, 0) + 1
    meta: dict[str, Any] = {
        "model": g.model,
        "requested_model": requested,
        "n_examinees": data.shape[0],
        "n_items": data.shape[1],
        "n_responses": int(est.n_admin.sum()),
        "log_likelihood": em.loglik,
        "iterations": em.iterations,
        "converged": em.converged,
        "max_change": em.max_change,
        "max_change_unit": "standard errors (largest change of any log a, b, logit c in the last iteration)",
        "remaining_estimate": em.max_change * em.to_go if math.isfinite(em.to_go) else None,
        "tol": o["tol"],
        "abs_tol": o["abs_tol"],
        "seconds": round(seconds, 3),
        "priors": None if priors is None else asdict(priors),
        "quadrature": {"n": o["n_quad"], "bound": o["quad_bound"], "population": "N(0, 1)"},
        "fixed_c": g.fixed is not None,
        "seed": o["seed"],
        "n_flagged": int(sum(1 for f in flags if f)),
        "flag_counts": dict(sorted(counts.items())),
        "embedding_dims": 0 if embedding is None else int(embedding.shape[1]),
        # everything a re-fit on other examinees needs (cross-validated interval calibration does this)
        "fit_options": {
            "model": requested, "priors": None if priors is None else asdict(priors),
            "fix_c": fix_c if fix_c is None or isinstance(fix_c, str | float | int) else list(fix_c),
            "min_examinees_3pl": o["min_examinees_3pl"], "n_quad": o["n_quad"], "quad_bound": o["quad_bound"],
            "max_iter": o["max_iter"], "tol": o["tol"], "abs_tol": o["abs_tol"], "min_iter": o["min_iter"],
            "min_responses": o["min_responses"],
            "plausible_a": o["plausible_a"], "plausible_c": o["plausible_c"], "embedding_dims": o["embedding_dims"],
        },
    }
    if g.fallback:
        meta["fallback"] = g.fallback
    if g.notes:
        meta["notes"] = g.notes
    return meta


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
    # the options, by name, for the helpers and the bank's meta (the data arguments and the callback left out)
    o = {key: value for key, value in locals().items() if key not in ("matrix", "item_ids", "scenarios",
                                                                        "options_k", "callback")}
    t0 = time.perf_counter()
    requested = model.lower()
    if requested not in MODELS:
        raise ConfigError(f"unknown model {requested!r}: choose one of {', '.join(MODELS)}")
    data, ids = _read_matrix(matrix, item_ids)
    k = _item_k(options_k, ids)
    g = _guessing(requested, data.shape[0], k, fix_c, min_examinees_3pl)
    cb = (priors or DEFAULT_PRIORS).c_beta(np.maximum(k, 1).astype(np.float64))
    nodes, log_w = _quadrature(n_quad, quad_bound)
    est = EStep(data, dtype)
    refiner = Refiner(nodes, refine) if refine > 1 else None
    em = _iterate(_start(data, est, nodes, log_w, g, priors, cb, m_steps), est, nodes, log_w, refiner, priors, cb,
                  g.model, o, callback)
    diag = _final(em, est, nodes, log_w, refiner, priors, cb, g)
    flags = _flags(est, em.params, diag, g.model, o)
    embedding = item_embedding(data, embedding_dims) if embedding_dims > 0 else None
    meta = _meta(o, requested, g, em, est, data, flags, embedding, time.perf_counter() - t0)
    return ItemBank(ids=ids, a=np.exp(em.params.alpha), b=em.params.b.copy(), c=em.params.c.copy(), model=g.model,
                    scenarios=_scenario_list(scenarios, ids), k=k, flags=flags, diagnostics=diag, meta=meta,
                    embedding=embedding)


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
