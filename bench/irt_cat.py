"""Benchmark of climedbench's IRT calibration and adaptive test against the targets (PASS/FAIL per target).

    python bench/irt_cat.py           # full size: 33,735 items (several minutes on 2 cores)
    python bench/irt_cat.py --quick   # 5,000 items: a smoke run; speed targets are for the full size

Simulated data throughout (answers drawn from a known 3PL): this checks the machinery, θ recovery, speed and
exposure. How well the designs predict full scores on *real* LLM answers is `bench/cat_real.py`.

Simulation design (all drawn from one seed): a true bank over CliMedBench's 14 scenarios with the official
item counts (2639, 6693, ... 807; scaled down with --quick), log a ~ N(0, 0.5), b ~ N(scenario mean, 1) with
scenario means ~ N(0, 1), c ~ Beta with mode 1/k for k-option scenarios and c = 0 for ordering/free-text
ones. Examinees θ ~ N(0, 1). The calibrated bank of target 2 is reused for the paper panel (target 6), so
the panel's predictions carry real calibration error.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any

import numpy as np

from climedbench.cat.engine import CATConfig, CATEngine
from climedbench.cat.replay import replay
from climedbench.cat.simulation import (
    exposure_rates,
    overlap_rate,
    panel_study,
    run_cat,
    simulate,
    sympson_hetter_parameters,
)
from climedbench.core.suite import load_suite
from climedbench.irt.calibrate import fit
from climedbench.irt.linking import link
from climedbench.irt.synthetic import generate_bank, simulate_responses, suite_layout

ROWS: list[tuple[str, str, str, bool | None]] = []


def report(name: str, measured: float, target: str, ok: bool | None, fmt: str = "{:.3f}") -> None:
    """Record and print one target line."""
    status = "PASS" if ok else ("FAIL" if ok is not None else "info")
    value = fmt.format(measured)
    ROWS.append((name, value, target, ok))
    print(f"  {status:<4}  {name:<58} {value:>9}   target {target}", flush=True)


def main() -> None:
    """Run every measurement and print the summary."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5,000-item bank and fewer replications")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--replications", type=int, default=None, help="paper-panel replications (default 100)")
    args = ap.parse_args()
    t_start = time.perf_counter()
    n_items = 5000 if args.quick else 33735
    n_sim = 300 if args.quick else 500
    reps = args.replications or (30 if args.quick else 100)
    rng = np.random.default_rng(args.seed)
    size_note = " (quick run: full-size target)" if args.quick else ""
    print(f"IRT/CAT benchmark: {n_items} items, seed {args.seed}{' [quick]' if args.quick else ''}")

    suite = load_suite("climedbench")
    layout = suite_layout(suite)
    truth = generate_bank(n_items, rng, layout=layout)

    # 1-2. calibration speed and recovery
    print("calibration (3PL, priors, EM):")
    for n_ex, limit in ((200, 30.0), (1000, 60.0)):
        x = simulate_responses(rng.normal(size=n_ex), truth, rng)
        t0 = time.perf_counter()
        est = fit(x, "3pl", item_ids=truth.ids, scenarios=truth.scenarios, options_k=truth.k)
        secs = time.perf_counter() - t0
        del x
        report(f"fit 3PL {n_ex} x {n_items} seconds{size_note}", secs, f"<= {limit:g} s", secs <= limit,
               "{:.1f}")
        print(f"        ({est.meta['iterations']} EM iterations, converged={est.meta['converged']}, "
              f"{est.meta['n_flagged']} flagged items)")
    free_c = truth.k > 1
    rb = float(np.corrcoef(est.b, truth.b)[0, 1])
    ra = float(np.corrcoef(est.a, truth.a)[0, 1])
    rc = float(np.sqrt(np.mean((est.c[free_c] - truth.c[free_c]) ** 2)))
    report("recovery (1000 examinees): corr(b_hat, b)", rb, ">= 0.95", rb >= 0.95)
    report("recovery (1000 examinees): corr(a_hat, a)", ra, ">= 0.80", ra >= 0.80)
    report("recovery (1000 examinees): RMSE(c), items with k > 1", rc, "<= 0.08", rc <= 0.08)
    linked, slope, intercept = link(est, truth)
    print(f"        (Stocking-Lord link to the true scale: A = {slope:.3f}, B = {intercept:.3f})")

    # 3-4. CAT with known parameters: precision, speed, exposure
    print("adaptive test (the paper's maximum information), 243 items, known parameters, content balanced to "
          "the full benchmark's shares:")
    cfg = CATConfig(max_items=243, selection="fisher")
    engine = CATEngine(truth, cfg)
    theta = rng.normal(size=n_sim)
    t0 = time.perf_counter()
    st = run_cat(engine, theta, rng)
    secs = time.perf_counter() - t0
    err = st.theta - theta
    rmse = float(np.sqrt(np.mean(err**2)))
    report("theta RMSE (maximum information, no exposure control)", rmse, "<= 0.10", rmse <= 0.10)
    report(f"{n_sim} simulees x 243 items seconds", secs, "<= 10 s", secs <= 10.0, "{:.2f}")
    print(f"        (bias {err.mean():+.4f}, mean SE {st.se.mean():.4f}, empirical SD {err.std():.4f}, "
          f"max exposure {exposure_rates(st, n_items).max():.2f})")
    st_r = run_cat(CATEngine(truth, dataclasses.replace(cfg, exposure="randomesque")), theta, rng)
    report("max exposure, randomesque top-5", exposure_rates(st_r, n_items).max(), "(none)", None)
    t0 = time.perf_counter()
    k = sympson_hetter_parameters(truth, cfg, r_max=0.15, n_simulees=n_sim, seed=args.seed)
    sh_secs = time.perf_counter() - t0
    st_sh = run_cat(CATEngine(truth, dataclasses.replace(cfg, exposure="sympson-hetter", sh_parameters=k)),
                    theta, rng)
    exp_sh = float(exposure_rates(st_sh, n_items).max())
    rmse_sh = float(np.sqrt(np.mean((st_sh.theta - theta) ** 2)))
    report("max exposure, Sympson-Hetter (r_max 0.15, fresh simulees)", exp_sh, "<= 0.25", exp_sh <= 0.25)
    report("theta RMSE with Sympson-Hetter", rmse_sh, "(none)", None)
    print(f"        (SH parameters by simulation rounds until a round's maximum is <= 0.2, {sh_secs:.1f} s; "
          f"overlap {overlap_rate(st, n_items):.3f} -> {overlap_rate(st_sh, n_items):.3f})")

    print("adaptive test, default stratified design, 243 items, known parameters:")
    strat = CATEngine(truth, CATConfig(max_items=243))
    t0 = time.perf_counter()
    st_st = run_cat(strat, theta, rng)
    secs = time.perf_counter() - t0
    exp_st = float(exposure_rates(st_st, n_items).max())
    report("max exposure, stratified design (exposure cap 0.15 per stratum)", exp_st, "<= 0.25", exp_st <= 0.25)
    report("theta RMSE, stratified design", float(np.sqrt(np.mean((st_st.theta - theta) ** 2))), "(none)", None)
    report(f"{n_sim} simulees x 243 items seconds, stratified", secs, "<= 10 s", secs <= 10.0, "{:.2f}")
    sheets = simulate_responses(theta[:100], truth, rng)
    t0 = time.perf_counter()
    rep = replay(truth, sheets, CATConfig(max_items=243), seed=args.seed)
    secs = time.perf_counter() - t0
    report(f"replay 100 answer sheets x 243 items of {n_items}, seconds (with predictions)", secs, "<= 60 s",
           secs <= 60.0, "{:.2f}")
    del sheets, rep

    # 5-6. the paper panel: seven models at the paper's overall scores, predicted with the calibrated bank
    print(f"paper panel, stratified design: 7 models x {reps} replications, 243 items, bank calibrated on 1000 "
          "examinees:")
    panel_st = panel_study(truth, CATEngine(linked, CATConfig(max_items=243)), rng,
                           scores=suite.published_overall, replications=reps)
    report("stratified: MAE of predicted overall score (paper: 2.45)", panel_st["mae"], "(none)", None)
    report("stratified: 95% interval covers the realised full score", panel_st["coverage"], ">= 0.90",
           panel_st["coverage"] >= 0.90)
    print(f"paper panel, maximum information: 7 models x {reps} replications, 243 items, bank calibrated on 1000 "
          "examinees:")
    panel = panel_study(truth, CATEngine(linked, cfg), rng, scores=suite.published_overall, replications=reps)
    report("MAE of predicted overall score (paper: 2.45)", panel["mae"], "<= 1.5", panel["mae"] <= 1.5)
    report("95% interval covers the realised full score", panel["coverage"], ">= 0.90",
           panel["coverage"] >= 0.90)
    report("p_exact_order (all 7 ranked exactly)", panel["p_exact_order"], "(none)", None)
    print(f"        {'model':<11} {'full':>6} {'pred':>7} {'MAE':>6} {'cover':>6} {'width':>6}")
    for name, m in panel["models"].items():
        print(f"        {name:<11} {m['expected']:>6.1f} {m['predicted_mean']:>7.2f} {m['mae']:>6.2f} "
              f"{m['coverage']:>6.2f} {m['interval_width']:>6.2f}")
    for pair in panel["pairs"]:
        sep, right = 100 * pair["separated_rate"], 100 * pair["correct_order_rate"]
        print(f"        {pair['pair']:<24} gap {pair['true_gap']:>5.1f}: separated at 95% in {sep:.0f}% of "
              f"replications, right order {right:.0f}%")

    # the packaged end-to-end study (calibrate, link, CAT with exposure control), as `cat simulate` runs it
    print("simulate(): end-to-end study, defaults (stratified design):")
    metrics: dict[str, Any] = simulate(n_items, n_sim, 243, args.seed, n_calibration=1000,
                                       panel_replications=min(reps, 50), layout=layout,
                                       panel_scores=suite.published_overall)
    print("        " + ", ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
    report("simulate(): exposure_max, defaults", metrics["exposure_max"], "<= 0.25",
           metrics["exposure_max"] <= 0.25)
    print("simulate(): end-to-end study, maximum information with Sympson-Hetter exposure control:")
    metrics = simulate(n_items, n_sim, 243, args.seed, n_calibration=1000, selection="fisher",
                       exposure="sympson-hetter", panel_replications=min(reps, 50), layout=layout,
                       panel_scores=suite.published_overall)
    print("        " + ", ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
    report("simulate(): exposure_max with Sympson-Hetter", metrics["exposure_max"], "<= 0.25",
           metrics["exposure_max"] <= 0.25)

    total = time.perf_counter() - t_start
    n_fail = sum(1 for r in ROWS if r[3] is False)
    n_pass = sum(1 for r in ROWS if r[3] is True)
    print(f"summary: {n_pass} PASS, {n_fail} FAIL; wall time {total:.0f} s")


if __name__ == "__main__":
    main()
