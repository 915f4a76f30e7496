"""Replay adaptive tests from recorded answers: each row of a response matrix takes the test, answering from
its own record, and gets a predicted full-benchmark score.

This is how a CAT is validated before it is trusted: the rows already hold the full-benchmark answers, so the
prediction from a few hundred items can be set against the score the row actually had. An item the row did not
answer (an empty cell) is never chosen; it still counts in the predicted full score, which is over all bank
items.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from climedbench.cat.engine import CATConfig, CATEngine, CATState
from climedbench.cat.estimate import OVERALL_DEFINITION, ScorePrediction, intervals, predict_scores
from climedbench.cat.multipliers import multipliers_for
from climedbench.cat.records import ReplayExaminee, ReplayMeta, ReplayReport, ScoreInterval
from climedbench.errors import DataError
from climedbench.irt.bank import ItemBank
from climedbench.irt.matrix import ResponseMatrix

F64 = NDArray[np.float64]


@dataclass
class Replay:
    """The engine, the final test states and the predictions of a replay (rows = the matrix's rows)."""

    engine: CATEngine
    state: CATState
    prediction: ScorePrediction
    seconds: float


def align(matrix: ResponseMatrix, bank: ItemBank, *, file: str | None = None) -> F64:
    """The matrix's answers in the bank's item order (NaN where a bank item is not a column).

    A column that is not a bank item is an error naming the column.
    """
    pos = {item: j for j, item in enumerate(bank.ids)}
    out = np.full((matrix.n_examinees, bank.n_items), np.nan)
    for col, item in enumerate(matrix.item_ids):
        j = pos.get(item)
        if j is None:
            raise DataError(f"column {col + 2}: item is not in the bank", file=file, line=1, field=item)
        out[:, j] = matrix.data[:, col]
    return out


def replay(bank: ItemBank, answers: F64, config: CATConfig, seed: int = 0, *,
           transforms: dict[str, tuple[float, float]] | None = None) -> Replay:
    """Run the adaptive test for every row of ``answers`` (rows × bank items, 1/0/NaN) at once."""
    t0 = time.perf_counter()
    engine = CATEngine(bank, config)
    x = np.asarray(answers, dtype=np.float64)
    if x.shape[1] != bank.n_items:
        raise DataError(f"the answers have {x.shape[1]} items, the bank {bank.n_items}")
    st = engine.new_state(x.shape[0])
    engine.mark_unavailable(st, np.isnan(x))
    filled = np.nan_to_num(x)
    rng = np.random.default_rng(seed)
    while st.active.any():
        rows = np.flatnonzero(st.active)
        items, values = engine.select(st, rows, rng)
        engine.record(st, rows, items, filled[rows, items], values)
    pred = predict_scores(engine, st, transforms=transforms)
    return Replay(engine=engine, state=st, prediction=pred, seconds=time.perf_counter() - t0)


def full_scores(bank: ItemBank, answers: F64) -> tuple[F64, F64, list[str]]:
    """The full-benchmark scores the rows actually had: (overall, per scenario R × S, scenario names).

    A scenario score is 100 × the proportion correct over the row's answered items of the scenario; the overall
    score is the mean of the scenario scores (NaN if the row answered no item of some scenario).
    """
    names, idx = bank.scenario_labels()
    x = np.asarray(answers, dtype=np.float64)
    onehot = np.zeros((bank.n_items, len(names)))
    onehot[np.arange(bank.n_items), idx] = 1.0
    answered = (~np.isnan(x)).astype(np.float64) @ onehot
    right = np.nan_to_num(x) @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(answered > 0, 100.0 * right / answered, np.nan)
    return per.mean(axis=1), per, names


def replay_matrix(bank: ItemBank, matrix: ResponseMatrix, config: CATConfig, seed: int = 0, *,
                  matrix_name: str = "", bank_name: str = "") -> ReplayReport:
    """Replay every row of a response matrix and report predictions, intervals and errors (see the module)."""
    answers = align(matrix, bank, file=matrix_name or None)
    rep = replay(bank, answers, config, seed)
    q_o, q_s, note = multipliers_for(bank, config, config.max_items)
    pred = rep.prediction
    ol, ou, sl, su = intervals(pred, q_o, q_s)
    actual, _, _ = full_scores(bank, answers)
    n_items = rep.state.n_admin
    rows: list[ReplayExaminee] = []
    for i, ex in enumerate(matrix.examinee_ids):
        scen = {name: ScoreInterval(predicted=_r(pred.scenario[i, s]), lower=_r(sl[i, s]), upper=_r(su[i, s]),
                                    se=_r(pred.scenario_se[i, s]))
                for s, name in enumerate(pred.scenarios)}
        rows.append(ReplayExaminee(id=ex, predicted=_r(pred.overall[i]), lower=_r(ol[i]), upper=_r(ou[i]),
                                   se=_r(pred.overall_se[i]), n_items=int(n_items[i]),
                                   actual=_r(actual[i]) if np.isfinite(actual[i]) else None,
                                   scenarios=scen if len(pred.scenarios) > 1 else {}))
    ok = np.isfinite(actual)
    engine = rep.engine
    meta = ReplayMeta(
        bank=bank_name, matrix=matrix_name, n_examinees=matrix.n_examinees, bank_items=bank.n_items,
        selection=config.selection, exposure="random within strata" if config.selection == "stratified"
        else config.exposure, max_items=config.max_items, seed=seed, level=config.level,
        overall=OVERALL_DEFINITION, estimator=pred.method, interval=note, multiplier=round(q_o, 4),
        scenario_multiplier=round(q_s, 4), strata=None if engine.strata is None else engine.strata.n_strata,
        strata_method=None if engine.strata is None else engine.strata.method,
        capped_discriminations=engine.n_capped, seconds=round(rep.seconds, 3))
    mae = float(np.mean(np.abs(pred.overall[ok] - actual[ok]))) if ok.any() else None
    cov = float(np.mean((ol[ok] <= actual[ok]) & (actual[ok] <= ou[ok]))) if ok.any() else None
    return ReplayReport(examinees=rows, meta=meta, mean_abs_error=None if mae is None else round(mae, 4),
                        coverage=None if cov is None else round(cov, 4))


def _r(x: float) -> float:
    """Round a score for the report."""
    return round(float(x), 4)
