"""Intervals that cover on real data: the SE multiplier calibrated on held-out calibration examinees.

The design-based SE of a predicted score (:mod:`climedbench.cat.estimate`) does not see calibration error or
the ways real answers misfit the model. So the multiplier q in "score ± q · SE" is calibrated empirically, by
cross-validated split-conformal prediction over the *calibration* examinees (the rows the bank was fitted on):

1. split them into K folds; for each fold, re-fit the bank on the other folds with the same settings
   (:func:`climedbench.irt.calibrate.fit_like`) and replay the adaptive test on the fold's rows;
2. every replayed row gives a normalised error |predicted − actual full score| / SE;
3. q(n) = the ⌈(m + 1)·level⌉-th smallest of the m normalised errors at test length n (the split-conformal
   quantile: if new examinees are exchangeable with the calibration ones, score ± q · SE covers their full
   score with probability ≥ level).

Scenario intervals get their own multiplier, from the errors of all scenario scores pooled. Each calibration
row is replayed ``replications`` times with different seeds, so that small calibration sets still give a
stable quantile (the rows, not the replications, are what the guarantee counts: with fewer than
⌈1/(1 − level)⌉ − 1 rows, 19 at 95%, the bound is the largest error seen and guarantees nothing; this is
recorded). Test lengths between the calibrated ones use q interpolated on log n; outside them, the nearest.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from climedbench.cat.config import CATConfig
from climedbench.cat.multipliers import IntervalCalibration
from climedbench.cat.replay import full_scores, replay
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.calibrate import fit_like

F64 = NDArray[np.float64]

def conformal_quantile(scores: F64, level: float, n_units: int) -> tuple[float, bool]:
    """The split-conformal quantile of normalised errors and whether it carries the guarantee.

    ``n_units`` is the number of exchangeable units (calibration rows); the rank is taken on the pooled scores
    scaled to that many units.
    """
    s = np.sort(np.asarray(scores, dtype=np.float64)[np.isfinite(scores)])
    if s.size == 0:
        raise ConfigError("no finite normalised errors to calibrate the intervals on")
    rank = math.ceil((n_units + 1) * level)
    if rank > n_units:
        return float(s[-1]), False
    # the rank-th smallest of n_units scores; with replications, the same share of the pooled scores
    idx = min(s.size, math.ceil(rank * s.size / n_units)) - 1
    return float(s[idx]), True


@dataclass
class FoldBank:
    """A bank re-fitted without one fold of the calibration examinees, and that fold's rows."""

    rows: NDArray[np.int64]
    bank: ItemBank


def cross_fit(bank: ItemBank, answers: F64, folds: int = 5, seed: int = 0) -> list[FoldBank]:
    """K banks, each fitted (like ``bank``) on all calibration rows but one fold."""
    x = np.asarray(answers, dtype=np.float64)
    n = x.shape[0]
    if folds < 2 or folds > n:
        raise ConfigError(f"--folds must be between 2 and the number of calibration examinees ({n})")
    fold_of = np.random.default_rng(seed).permutation(n) % folds
    return [FoldBank(rows=np.flatnonzero(fold_of == k), bank=fit_like(bank, x[fold_of != k]))
            for k in range(folds)]


def calibrate_intervals(bank: ItemBank, answers: F64, config: CATConfig, lengths: Sequence[int], *,
                        folds: int = 5, replications: int | None = None, seed: int = 0,
                        progress: Any = None, fold_banks: list[FoldBank] | None = None) -> IntervalCalibration:
    """Cross-validated conformal SE multipliers for ``config``'s design at each test length.

    ``answers`` are the calibration examinees' rows (rows × bank items, 1/0/NaN, in the bank's item order).
    ``fold_banks`` (from :func:`cross_fit`) lets several designs share the re-fitted banks.
    """
    t0 = time.perf_counter()
    x = np.asarray(answers, dtype=np.float64)
    n = x.shape[0]
    lengths = sorted({int(v) for v in lengths})
    if not lengths or lengths[0] < 1:
        raise ConfigError("give at least one test length >= 1")
    truth, truth_s, _ = full_scores(bank, x)
    usable = np.isfinite(truth)
    reps = replications if replications is not None else int(min(10, max(1, math.ceil(200 / max(n, 1)))))
    if fold_banks is None:
        fold_banks = cross_fit(bank, x, folds, seed)
    folds = len(fold_banks)
    err_o: dict[int, list[F64]] = {v: [] for v in lengths}
    err_s: dict[int, list[F64]] = {v: [] for v in lengths}
    for k, fb in enumerate(fold_banks):
        test = fb.rows[usable[fb.rows]]
        if test.size == 0:
            continue
        sub = fb.bank
        for length in lengths:
            cfg = dataclasses.replace(config, max_items=length)
            for r in range(reps):
                rep = replay(sub, x[test], cfg, seed=seed + 1000 * k + r)
                pred = rep.prediction
                err_o[length].append(np.abs(pred.overall - truth[test]) / np.maximum(pred.overall_se, 1e-9))
                es = np.abs(pred.scenario - truth_s[test]) / np.maximum(pred.scenario_se, 1e-9)
                err_s[length].append(es[np.isfinite(es)])
            if progress:
                progress(k + 1, folds, length)
    m = int(usable.sum())
    q_o, q_s = [], []
    guaranteed = True
    for length in lengths:
        qo, g1 = conformal_quantile(np.concatenate(err_o[length]), config.level, m)
        qs, g2 = conformal_quantile(np.concatenate(err_s[length]), config.level, m)
        guaranteed &= g1 and g2
        q_o.append(round(qo, 4))
        q_s.append(round(qs, 4))
    design = {k: v for k, v in dataclasses.asdict(config).items()
              if k in ("selection", "exposure", "per_stratum", "neyman_floor", "pilot", "min_per_stratum", "a_max",
                       "content", "prior_mean", "prior_sd")}
    return IntervalCalibration(level=config.level, selection=config.selection, lengths=lengths, q_overall=q_o,
                               q_scenario=q_s, n_examinees=m, folds=folds, replications=reps, seed=seed,
                               guaranteed=guaranteed, seconds=round(time.perf_counter() - t0, 2), design=design)
