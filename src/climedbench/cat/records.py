"""The records of adaptive testing written to disk: `climedbench cat replay --json` (:class:`ReplayReport`) and the
held-out validation study of `bench/cat_real.py` (:class:`HeldOutStudy`). Moved unchanged from core/types.py,
which keeps the records every stage shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ScoreInterval(BaseModel):
    """A predicted score (×100) with its interval."""

    model_config = ConfigDict(extra="forbid")

    predicted: float
    lower: float
    upper: float
    se: float


class ReplayExaminee(BaseModel):
    """One row of a replayed response matrix: its predicted full score, interval and items asked.

    `actual` is the full-benchmark score the row's own recorded answers give (the quantity predicted).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    predicted: float
    lower: float
    upper: float
    se: float
    n_items: int
    actual: float | None = None
    scenarios: dict[str, ScoreInterval] = Field(default_factory=dict)


class ReplayMeta(BaseModel):
    """How a replay was run."""

    model_config = ConfigDict(extra="forbid")

    bank: str
    matrix: str
    n_examinees: int
    bank_items: int
    selection: str
    exposure: str
    max_items: int
    seed: int
    level: float
    overall: str
    estimator: str
    interval: str
    multiplier: float
    scenario_multiplier: float
    strata: int | None = None
    strata_method: str | None = None
    capped_discriminations: int = 0
    seconds: float


class ReplayReport(BaseModel):
    """`climedbench cat replay --json`: every examinee, the run's settings, and the errors against the actual
    full scores (rows that answered every scenario)."""

    model_config = ConfigDict(extra="forbid")

    examinees: list[ReplayExaminee]
    meta: ReplayMeta
    mean_abs_error: float | None = None
    coverage: float | None = None


class HeldOutCell(BaseModel):
    """One design at one test length in a held-out validation study (`bench/cat_real.py`).

    Errors are |predicted − actual full score| in points, averaged over the held-out rows of each split;
    `mae` is the mean over splits and `mae_sd` their standard deviation. Coverage is over all held-out rows
    of all splits.
    """

    model_config = ConfigDict(extra="forbid")

    design: str
    n_items: int
    mae: float
    mae_sd: float
    mae_by_split: list[float]
    coverage: float | None = None
    width: float | None = None
    replay_seconds_per_100: float | None = None


class HeldOutStudy(BaseModel):
    """A held-out validation study of adaptive tests on one response matrix."""

    model_config = ConfigDict(extra="forbid")

    matrix: str
    n_examinees: int
    n_items: int
    scenarios: list[str]
    holdout: float
    splits: int
    random_draws: int
    folds: int
    model: str
    fitted_model: str
    cells: list[HeldOutCell]
    skipped_lengths: list[int] = Field(default_factory=list)
    fit_seconds: float
    seconds: float
