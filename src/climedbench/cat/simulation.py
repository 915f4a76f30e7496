"""Simulation studies of the adaptive test: vectorised CAT runs, Sympson–Hetter parameters, paper panel."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

from climedbench.cat.engine import CATConfig, CATEngine, CATState
from climedbench.cat.estimate import intervals, predict_scores
from climedbench.cat.multipliers import normal_multiplier
from climedbench.cat.predict import ScoreDistribution, compare_distributions
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.calibrate import fit
from climedbench.irt.linking import link
from climedbench.irt.model import prob
from climedbench.irt.synthetic import Layout, generate_bank, simulate_responses

F64 = NDArray[np.float64]

#: The keys of :func:`simulate`'s result, in order.
METRIC_KEYS = ("theta_bias", "theta_rmse", "se_mean", "se_empirical", "exposure_max", "overlap", "spearman",
               "p_exact_order", "seconds")


def run_cat(engine: CATEngine, theta: F64, rng: np.random.Generator, *, true_bank: ItemBank | None = None,
            answers: NDArray[np.bool_] | None = None) -> CATState:
    """Run the adaptive test for every simulee at once; answers come from ``answers`` (N × J) or are drawn.

    Without ``answers``, each answer is a fresh Bernoulli draw from ``true_bank`` (default: the engine's bank)
    at the simulee's true θ.
    """
    theta = np.asarray(theta, dtype=np.float64)
    truth = true_bank if true_bank is not None else engine.bank
    if truth.n_items != engine.bank.n_items:
        raise ConfigError("the true bank must hold the same items as the CAT bank")
    st = engine.new_state(theta.size)
    while st.active.any():
        rows = np.flatnonzero(st.active)
        items, values = engine.select(st, rows, rng)
        if answers is not None:
            x = answers[rows, items].astype(np.float64)
        else:
            p = prob(theta[rows], truth.a[items], truth.b[items], truth.c[items])
            x = (rng.random(rows.size) < p).astype(np.float64)
        engine.record(st, rows, items, x, values)
    return st


def exposure_rates(st: CATState, n_items: int, rows: NDArray[np.int64] | None = None) -> F64:
    """Share of examinees (``rows``, default all) who were administered each item."""
    items = st.items if rows is None else st.items[rows]
    n = items.shape[0]
    return np.bincount(items[items >= 0], minlength=n_items) / max(n, 1)


def overlap_rate(st: CATState, n_items: int, rows: NDArray[np.int64] | None = None) -> float:
    """Mean share of items two examinees have in common: Σ_i n_i(n_i − 1) / (N(N − 1)·mean length)."""
    items = st.items if rows is None else st.items[rows]
    n = items.shape[0]
    if n < 2:
        return float("nan")
    counts = np.bincount(items[items >= 0], minlength=n_items).astype(np.float64)
    mean_len = (items >= 0).sum() / n
    return float((counts * (counts - 1)).sum() / (n * (n - 1) * mean_len))


def sympson_hetter_parameters(bank: ItemBank, config: CATConfig, *, r_max: float = 0.15,
                              max_exposure: float = 0.2, n_simulees: int = 1000, n_iter: int = 30,
                              seed: int | None = 0) -> F64:
    """Sympson–Hetter exposure parameters k_i by iterated simulation on θ ~ N(prior mean, prior SD).

    Each round runs the CAT with the current k on fresh simulees, estimates P(selected) per item and sets
    k_i = r_max / P(selected) where that exceeds r_max (else 1), so that P(administered) ≈ k_i·P(selected)
    stays near r_max. The rounds converge slowly: restricting the most exposed items sends examinees to the next
    ones, which then exceed r_max in the following round. So the rounds go on until the simulated maximum
    exposure of a round is at most ``max_exposure`` (at most ``n_iter`` rounds), and the k used in that round is
    returned (the k of the round with the lowest maximum if none reaches it).
    """
    if not 0 < r_max <= 1:
        raise ConfigError("r_max must be in (0, 1]")
    if not r_max <= max_exposure <= 1:
        raise ConfigError("max_exposure must be in [r_max, 1]")
    rng = np.random.default_rng(seed)
    cfg = dataclasses.replace(config, exposure="sympson-hetter", sh_parameters=np.ones(bank.n_items))
    engine = CATEngine(bank, cfg)
    k = np.ones(bank.n_items)
    best = (np.inf, k)
    for _ in range(n_iter):
        engine.sh_k = k
        theta = rng.normal(cfg.prior_mean, cfg.prior_sd, n_simulees)
        st = run_cat(engine, theta, rng)
        worst = float(exposure_rates(st, bank.n_items).max())
        if worst < best[0]:
            best = (worst, k)
        if worst <= max_exposure:
            return k
        p_sel = st.sh_selected / n_simulees
        k = np.where(p_sel > r_max, r_max / np.maximum(p_sel, 1e-12), 1.0)
    return best[1]


def expected_overall(bank: ItemBank, theta: float) -> float:
    """Expected CliMedBench overall score (mean of scenario scores) at θ under the bank's parameters."""
    names, idx = bank.scenario_labels()
    p = prob(theta, bank.a, bank.b, bank.c)
    per = np.bincount(idx, weights=p, minlength=len(names)) / np.bincount(idx, minlength=len(names))
    return float(100.0 * per.mean())


def theta_for_scores(bank: ItemBank, scores: Mapping[str, float], lo: float = -6.0,
                     hi: float = 6.0) -> dict[str, float]:
    """θ at which each target overall score is the bank's expected score (clipped to the attainable range)."""
    out = {}
    f_lo, f_hi = expected_overall(bank, lo), expected_overall(bank, hi)
    for name, score in scores.items():
        if score <= f_lo:
            out[name] = lo
        elif score >= f_hi:
            out[name] = hi
        else:
            out[name] = float(optimize.brentq(lambda t, s=score: expected_overall(bank, t) - s, lo, hi,
                                              xtol=1e-10))
    return out


def realised_overall(bank: ItemBank, answers: NDArray[np.bool_]) -> F64:
    """Full-benchmark overall score of each answer sheet (rows of N × J booleans): mean of scenario scores."""
    names, idx = bank.scenario_labels()
    onehot = np.zeros((bank.n_items, len(names)))
    onehot[np.arange(bank.n_items), idx] = 1.0
    per = (answers.astype(np.float64) @ onehot) / onehot.sum(axis=0)
    return 100.0 * per.mean(axis=1)


def panel_study(true_bank: ItemBank, engine: CATEngine, rng: np.random.Generator, *,
                scores: Mapping[str, float], replications: int = 100) -> dict[str, Any]:
    """Replicate the paper's rapid assessment: simulees whose expected full score equals each model's score
    (`scores`, e.g. a suite's `published_overall`).

    Each replication gives every model a fresh answer sheet for the whole bank (answers drawn from the true
    parameters); the CAT reads its answers from that sheet and predicts the overall score with the engine's
    (estimated) bank. The true full-benchmark score is the sheet's realised overall score. Returns the mean
    absolute error, interval coverage, p_exact_order (share of replications whose predicted ranking of all
    models equals the ranking of their expected scores), and per-model and adjacent-pair summaries.
    """
    names = list(scores)
    m = len(names)
    thetas = theta_for_scores(true_bank, scores)
    theta_vec = np.tile(np.array([thetas[n] for n in names]), replications)
    answers = np.empty((theta_vec.size, true_bank.n_items), dtype=bool)
    for s in range(0, theta_vec.size, 128):
        p = prob(theta_vec[s:s + 128, None], true_bank.a, true_bank.b, true_bank.c)
        answers[s:s + 128] = rng.random(p.shape) < p
    true_scores = realised_overall(true_bank, answers)
    st = run_cat(engine, theta_vec, rng, answers=answers)
    pred = predict_scores(engine, st)
    z = normal_multiplier(engine.cfg.level)  # simulated answers follow the model: no calibration needed
    lower, upper, _, _ = intervals(pred, z)
    point, se = pred.overall, pred.overall_se
    err = point - true_scores
    covered = (lower <= true_scores) & (true_scores <= upper)
    expected = np.array([scores[n] for n in names])
    true_rank = np.argsort(-expected, kind="stable")
    pred_rank = np.argsort(-point.reshape(replications, m), axis=1, kind="stable")
    exact = np.all(pred_rank == true_rank[None, :], axis=1)
    per_model = {}
    for i, name in enumerate(names):
        sl = slice(i, None, m)
        per_model[name] = {
            "theta": thetas[name], "expected": scores[name], "predicted_mean": float(point[sl].mean()),
            "mae": float(np.abs(err[sl]).mean()), "coverage": float(covered[sl].mean()),
            "interval_width": float((upper[sl] - lower[sl]).mean()), "items": float(st.n_admin[sl].mean())}
    pairs = []
    order = [names[j] for j in true_rank]
    for hi_name, lo_name in itertools.pairwise(order):
        i, j = names.index(hi_name), names.index(lo_name)
        sep = []
        right = []
        for r in range(min(replications, 50)):
            ra, rb = r * m + i, r * m + j
            da = ScoreDistribution(np.ones(1), point[ra:ra + 1], se[ra:ra + 1] ** 2)
            db = ScoreDistribution(np.ones(1), point[rb:rb + 1], se[rb:rb + 1] ** 2)
            cmp = compare_distributions(da, db, level=engine.cfg.level)
            sep.append(cmp["separated"])
            right.append(cmp["difference"] > 0)
        pairs.append({"pair": f"{hi_name} > {lo_name}", "true_gap": scores[hi_name] - scores[lo_name],
                      "separated_rate": float(np.mean(sep)), "correct_order_rate": float(np.mean(right))})
    return {"mae": float(np.abs(err).mean()), "coverage": float(covered.mean()), "bias": float(err.mean()),
            "p_exact_order": float(exact.mean()), "models": per_model, "pairs": pairs,
            "mean_items": float(st.n_admin.mean())}


def simulate(n_items: int = 33735, n_examinees: int = 500, test_length: int = 243, seed: int = 0, *,
             n_calibration: int = 1000, exposure: str = "sympson-hetter", selection: str = "stratified",
             content: str = "bank", se_target: float | None = None, randomesque_n: int = 5,
             sh_r_max: float = 0.15, panel_replications: int = 50, linking: str = "stocking-lord",
             layout: Layout | None = None, panel_scores: Mapping[str, float] | None = None) -> dict[str, float]:
    """Simulation study of the whole pipeline; returns exactly the keys in ``METRIC_KEYS``.

    1. Draw a true bank of ``n_items`` items over the tasks of ``layout`` (sizes proportional to the official
       ones; see :func:`climedbench.irt.synthetic.suite_layout` and ``generate_bank``), one group without it.
    2. If ``n_calibration`` > 0: simulate that many N(0, 1) examinees answering every item, calibrate a 3PL
       with priors, and link the estimated scale to the true one (Stocking–Lord or mean–sigma). With 0 the
       CAT uses the true parameters ("known parameters").
    3. Run the CAT (``test_length`` items, or fewer with ``se_target``) on ``n_examinees`` fresh N(0, 1)
       simulees whose answers come from the TRUE parameters. The defaults are the command line's: the
       stratified design; Sympson–Hetter exposure control when ``selection`` is fisher or kl.

    Metrics: theta_bias / theta_rmse = mean / RMS of θ̂ − θ; se_mean = mean reported SE; se_empirical = SD of
    θ̂ − θ; exposure_max = largest share of simulees given one item; overlap = mean share of items two
    simulees share; spearman = rank correlation of θ̂ and θ; p_exact_order = share of ``panel_replications``
    replications in which the CAT's predicted overall scores rank a panel of simulees — placed at the
    abilities whose expected full-bank scores are ``panel_scores`` (a suite's ``published_overall``: for
    CliMedBench the paper's seven overall scores) — exactly in the order of those scores (NaN with 0 replications
    or no panel scores); seconds = wall time of the whole study.
    """
    t0 = time.perf_counter()
    if n_items < 1 or n_examinees < 2 or test_length < 1:
        raise ConfigError("need n_items >= 1, n_examinees >= 2 and test_length >= 1")
    rng = np.random.default_rng(seed)
    truth = generate_bank(n_items, rng, layout=layout)
    if n_calibration > 0:
        theta_cal = rng.normal(size=n_calibration)
        data = simulate_responses(theta_cal, truth, rng)
        opts = truth.k if truth.k is not None else 4
        est = fit(data, "3pl", item_ids=truth.ids, scenarios=truth.scenarios, options_k=opts)
        del data
        bank, _, _ = link(est, truth, method=linking)  # type: ignore[arg-type]
    else:
        bank = truth
    cfg = CATConfig(max_items=min(test_length, n_items), se_target=se_target, selection=selection,  # type: ignore[arg-type]
                    exposure=exposure, content=content, randomesque_n=randomesque_n)  # type: ignore[arg-type]
    if exposure == "sympson-hetter" and selection != "stratified":
        k = sympson_hetter_parameters(bank, dataclasses.replace(cfg, exposure="none"), r_max=sh_r_max,
                                      n_simulees=max(500, n_examinees), seed=int(rng.integers(2**31)))
        cfg = dataclasses.replace(cfg, sh_parameters=k)
    engine = CATEngine(bank, cfg)
    theta = rng.normal(size=n_examinees)
    st = run_cat(engine, theta, rng, true_bank=truth)
    err = st.theta - theta
    rates = exposure_rates(st, n_items)
    p_exact = float("nan")
    if panel_replications > 0 and panel_scores:
        p_exact = panel_study(truth, engine, rng, scores=panel_scores, replications=panel_replications)["p_exact_order"]
    return {
        "theta_bias": float(err.mean()), "theta_rmse": float(np.sqrt((err**2).mean())),
        "se_mean": float(st.se.mean()), "se_empirical": float(err.std(ddof=1)),
        "exposure_max": float(rates.max()), "overlap": overlap_rate(st, n_items),
        "spearman": float(stats.spearmanr(st.theta, theta).statistic), "p_exact_order": p_exact,
        "seconds": time.perf_counter() - t0,
    }


def with_exposure_parameters(bank: ItemBank, config: CATConfig, *, seed: int = 0,
                             n_simulees: int = 500) -> CATConfig:
    """The config with Sympson–Hetter parameters filled in when its design needs them (fisher/kl selection,
    sympson-hetter exposure, none given): computed by simulation on the bank (see sympson_hetter_parameters)."""
    if config.selection == "stratified" or config.exposure != "sympson-hetter" or config.sh_parameters is not None:
        return config
    k = sympson_hetter_parameters(bank, dataclasses.replace(config, exposure="none"), n_simulees=n_simulees,
                                  seed=seed)
    return dataclasses.replace(config, sh_parameters=k)
