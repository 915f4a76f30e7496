"""Adaptive tests validated on a real response matrix: held-out models, CAT error vs random sampling.

    python bench/cat_real.py MATRIX.csv [--items-map CSV] [--holdout 0.2] [--seeds N]
        [--lengths 50,100,243] [--folds 5] [--draws 20] [--model 3pl] [--json OUT.json]

MATRIX.csv is the `irt matrix` format (examinee id, then one 1/0/empty column per item); `--items-map` is an
`item,scenario[,k]` CSV (scenarios define the overall score as the mean of scenario scores; k gives each item's
guessing prior). For each of `--seeds` splits the models are split into calibration (1 − holdout) and held-out
rows; the bank is fitted and the intervals calibrated (K-fold, `cat calibrate`'s code) on the calibration rows
only; every held-out model then takes the adaptive test from its recorded answers (`cat replay`'s code).

Printed per test length: mean absolute error in points of the predicted full score, mean over splits ± SD
across splits, for
  random      the same number of items drawn at random (plain percent correct; --draws draws per model)
  stratified  the default design (climedbench's CAT)
  fisher      the paper's maximum-information CAT, observed + expected prediction
  fisher-θ    the same tests predicted from θ alone (climedbench before this design)
with the coverage of the nominal 95% intervals over all held-out models of all splits, their mean width, and
the replay wall time per 100 models. Nothing here is simulated: every answer is a recorded answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from climedbench.cat.validate import DESIGNS, heldout_study
from climedbench.irt.matrix import read_item_map, read_matrix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("matrix")
    ap.add_argument("--items-map", default=None)
    ap.add_argument("--holdout", type=float, default=0.2)
    ap.add_argument("--seeds", type=int, default=10, help="splits (each with its own seed)")
    ap.add_argument("--lengths", default="50,100,243")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=20, help="random-sampling draws per held-out model")
    ap.add_argument("--model", default="3pl")
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the study as JSON here")
    a = ap.parse_args()
    t0 = time.perf_counter()
    rm = read_matrix(a.matrix)
    scen = ks = None
    if a.items_map:
        info = read_item_map(a.items_map)
        scen, ks = info.scenarios or None, info.options_k or None
    lengths = [int(v) for v in a.lengths.split(",") if v.strip()]
    print(f"{a.matrix}: {rm.n_examinees} models x {rm.n_items} items, {rm.n_responses} answers; "
          f"{a.seeds} splits, {a.holdout:.0%} held out, model {a.model}", flush=True)
    study = heldout_study(rm, scenarios=scen, options_k=ks, model=a.model, holdout=a.holdout, splits=a.seeds,
                          lengths=lengths, folds=a.folds, random_draws=a.draws,
                          designs=[d for d in a.designs.split(",") if d], seed=a.seed, name=a.matrix,
                          progress=lambda msg: print("  " + msg, file=sys.stderr, flush=True))
    print(f"scenarios: {', '.join(study.scenarios)}; fitted {study.fitted_model}, {study.fit_seconds:.1f} s per split")
    by = {(c.design, c.n_items): c for c in study.cells}
    for n in sorted({c.n_items for c in study.cells}):
        print(f"\n{n} items of {study.n_items}:")
        print(f"  {'design':<11} {'MAE':>6} {'± SD':>6}  {'coverage':>8} {'width':>6}  {'s/100 models':>12}  "
              f"{'splits below random':>19}")
        rnd = by[("random", n)]
        for d in ("random", *DESIGNS):
            c = by.get((d, n))
            if c is None:
                continue
            cov = "" if c.coverage is None else f"{c.coverage:8.3f}"
            wid = "" if c.width is None else f"{c.width:6.2f}"
            sec = "" if c.replay_seconds_per_100 is None else f"{c.replay_seconds_per_100:12.2f}"
            below = ""
            if d != "random":
                wins = int(np.sum(np.array(c.mae_by_split) < np.array(rnd.mae_by_split)))
                below = f"{wins}/{len(c.mae_by_split)}"
            label = "fisher-θ" if d == "fisher-theta" else d
            print(f"  {label:<11} {c.mae:6.2f} {c.mae_sd:6.2f}  {cov:>8} {wid:>6}  {sec:>12}  {below:>19}")
    if study.skipped_lengths:
        print(f"\nnot run: {', '.join(map(str, study.skipped_lengths))} items (the matrix has only {study.n_items})")
    print(f"\nwall time {time.perf_counter() - t0:.0f} s")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(study.model_dump(), fh, indent=1)


if __name__ == "__main__":
    main()
