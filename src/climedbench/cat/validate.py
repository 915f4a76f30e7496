"""Held-out validation of adaptive tests on a real response matrix (what `bench/cat_real.py` prints).

For each split (seeded): the rows (models) are split into calibration rows and held-out rows; the bank is fitted
on the calibration rows only, and the intervals are calibrated on them by cross-validation
(:mod:`climedbench.cat.intervals`); then every held-out row is replayed (:mod:`climedbench.cat.replay`, the same
code as `climedbench cat replay`) with each design, and its predicted full score is set against its actual full
score. The baseline asks the same number of items drawn uniformly at random from the row's answered items and
reports their plain percent correct (per scenario, then the mean of the scenarios, when the bank has
scenarios), averaged over ``random_draws`` draws per row.

Designs: ``stratified`` (the default design), ``fisher`` (the paper's maximum-information CAT, no exposure
control, observed + expected prediction) and ``fisher-theta`` (the same tests predicted from θ alone, as before
this module existed: the expected full score at the ability posterior, interval = normal quantile of the
θ-and-answer-noise predictive distribution, no calibration).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from climedbench.cat.engine import CATConfig
from climedbench.cat.estimate import intervals
from climedbench.cat.intervals import FoldBank, calibrate_intervals, cross_fit
from climedbench.cat.predict import ScorePredictor
from climedbench.cat.records import HeldOutCell, HeldOutStudy
from climedbench.cat.replay import full_scores, replay
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.calibrate import fit
from climedbench.irt.matrix import ResponseMatrix

F64 = NDArray[np.float64]

DESIGNS = ("stratified", "fisher", "fisher-theta")


def random_sampling(answers: F64, truth: F64, scen_idx: NDArray[np.int64], n_items: int, draws: int,
                    rng: np.random.Generator) -> F64:
    """Mean over draws of |estimate − actual| per row for ``n_items`` random answered items (see module)."""
    n_s = int(scen_idx.max()) + 1
    err = np.zeros(answers.shape[0])
    for i, row in enumerate(answers):
        avail = np.flatnonzero(~np.isnan(row))
        k = min(n_items, avail.size)
        for _ in range(draws):
            pick = rng.choice(avail, size=k, replace=False)
            x, s = row[pick], scen_idx[pick]
            right = np.bincount(s, weights=x, minlength=n_s)
            cnt = np.bincount(s, minlength=n_s)
            pooled = 100.0 * x.mean()
            per = np.where(cnt > 0, 100.0 * right / np.maximum(cnt, 1), pooled)
            err[i] += abs(per.mean() - truth[i])
    return err / draws


@dataclass
class _Cells:
    """Per (design, test length): each split's mean absolute error, and per held-out row whether the interval
    covered, its width, and the replay time."""

    mae: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    covered: dict[tuple[str, int], list[F64]] = field(default_factory=dict)
    widths: dict[tuple[str, int], list[F64]] = field(default_factory=dict)
    secs: dict[tuple[str, int], list[float]] = field(default_factory=dict)

    def summary(self) -> list[HeldOutCell]:
        cells = []
        for (design, length), maes in sorted(self.mae.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            key = (design, length)
            cells.append(HeldOutCell(
                design=design, n_items=length, mae=round(float(np.mean(maes)), 3),
                mae_sd=round(float(np.std(maes, ddof=1)) if len(maes) > 1 else 0.0, 3),
                mae_by_split=[round(v, 3) for v in maes],
                coverage=round(float(np.concatenate(self.covered[key]).mean()), 3) if key in self.covered else None,
                width=round(float(np.concatenate(self.widths[key]).mean()), 2) if key in self.widths else None,
                replay_seconds_per_100=round(float(np.mean(self.secs[key])), 2) if key in self.secs else None))
        return cells


def _replay_design(design: str, bank: ItemBank, cal_rows: F64, test_rows: F64, truth: F64, lengths: list[int],
                   seed: int, fold_banks: list[FoldBank], cells: _Cells) -> None:
    """Replay the held-out rows with one design at every length, adding each cell's errors and coverage."""
    cfg = CATConfig(selection="stratified" if design == "stratified" else "fisher", exposure="none")
    cal_iv = None
    if design != "fisher-theta":
        cal_iv = calibrate_intervals(bank, cal_rows, cfg, lengths, seed=seed, fold_banks=fold_banks)
    for length in lengths:
        c = CATConfig(selection=cfg.selection, exposure="none", max_items=length)
        rep = replay(bank, test_rows, c, seed=seed)
        if design == "fisher-theta":
            pred = ScorePredictor(rep.engine.bank, rep.engine.grid)
            out = pred.predict(rep.engine.posterior_weights(rep.state.logpost), scenarios=False)["overall"]
            point, lo, hi = out["score"], out["lower"], out["upper"]
        else:
            assert cal_iv is not None
            qo, qs = cal_iv.multipliers(length)
            point = rep.prediction.overall
            lo, hi, _, _ = intervals(rep.prediction, qo, qs)
        key = (design, length)
        cells.mae.setdefault(key, []).append(float(np.abs(point - truth).mean()))
        cells.covered.setdefault(key, []).append((lo <= truth) & (truth <= hi))
        cells.widths.setdefault(key, []).append(hi - lo)
        cells.secs.setdefault(key, []).append(rep.seconds * 100.0 / max(int(truth.size), 1))


def heldout_study(matrix: ResponseMatrix, *, scenarios: dict[str, str] | None = None,
                  options_k: dict[str, int] | None = None, model: str = "3pl", holdout: float = 0.2,
                  splits: int = 5, lengths: Sequence[int] = (50, 100, 243), folds: int = 5,
                  random_draws: int = 20, designs: Sequence[str] = DESIGNS, seed: int = 0,
                  name: str = "", progress: Callable[[str], None] | None = None) -> HeldOutStudy:
    """Run the study (see the module docstring)."""
    t_all = time.perf_counter()
    if not 0 < holdout < 1:
        raise ConfigError("--holdout must be between 0 and 1")
    unknown = sorted(set(designs) - set(DESIGNS))
    if unknown:
        raise ConfigError(f"unknown design(s) {', '.join(unknown)}: choose from {', '.join(DESIGNS)}")
    x_all = matrix.data
    n_rows, n_items = x_all.shape
    n_test = max(1, round(holdout * n_rows))
    if n_rows - n_test < max(folds, 3):
        raise ConfigError(f"{n_rows} examinees leave too few calibration rows for {folds} folds")
    ok_len = [v for v in sorted(set(lengths)) if v < n_items]
    skipped = [v for v in sorted(set(lengths)) if v >= n_items]
    cells = _Cells()
    fit_secs = 0.0
    names: list[str] = ["all"]
    fitted = model
    for split in range(splits):
        rng = np.random.default_rng(seed + split)
        perm = rng.permutation(n_rows)
        test, cal = perm[:n_test], perm[n_test:]
        t0 = time.perf_counter()
        bank = fit(x_all[cal], model, item_ids=matrix.item_ids, scenarios=scenarios, options_k=options_k)
        fit_secs += time.perf_counter() - t0
        fitted = bank.model
        names, sidx = bank.scenario_labels()
        fold_banks = cross_fit(bank, x_all[cal], folds, seed + split)
        truth, _, _ = full_scores(bank, x_all[test])
        ok = np.isfinite(truth)
        for length in ok_len:
            err = random_sampling(x_all[test][ok], truth[ok], sidx, length, random_draws, rng)
            cells.mae.setdefault(("random", length), []).append(float(err.mean()))
        for design in designs:
            _replay_design(design, bank, x_all[cal], x_all[test][ok], truth[ok], ok_len, seed + split, fold_banks,
                           cells)
        if progress:
            progress(f"split {split + 1}/{splits} done ({time.perf_counter() - t_all:.0f} s)")
    return HeldOutStudy(matrix=name, n_examinees=n_rows, n_items=n_items, scenarios=list(names), holdout=holdout,
                        splits=splits, random_draws=random_draws, folds=folds, model=model, fitted_model=fitted,
                        cells=cells.summary(),
                        skipped_lengths=skipped, fit_seconds=round(fit_secs / max(splits, 1), 2),
                        seconds=round(time.perf_counter() - t_all, 1))

