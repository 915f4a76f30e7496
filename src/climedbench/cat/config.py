"""The settings of an adaptive test (:class:`CATConfig`, checked by ``validate``) and the per-examinee state a batch
of tests carries (:class:`CATState`); the engine that uses them is :mod:`climedbench.cat.engine`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from climedbench.errors import ConfigError

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

SELECTIONS = ("stratified", "fisher", "kl")
EXPOSURES = ("none", "randomesque", "sympson-hetter")


@dataclass
class CATConfig:
    """Settings of an adaptive test (all seeded behaviour comes from the Generator given to the engine)."""

    max_items: int = 243
    min_items: int = 1
    se_target: float | None = None
    selection: Literal["stratified", "fisher", "kl"] = "stratified"
    # exposure control applies to fisher/kl; the stratified design draws items at random within strata
    exposure: Literal["none", "randomesque", "sympson-hetter"] = "none"
    randomesque_n: int = 5
    sh_parameters: F64 | None = None
    content: str | Mapping[str, float] = "bank"
    min_per_scenario: int = 1
    prior_mean: float = 0.0
    prior_sd: float = 1.0
    grid_size: int = 321
    grid_halfwidth: float = 6.0
    exclude_flagged: bool = False
    level: float = 0.95
    a_max: float | None = 4.0
    # the stratified design (see the module docstring)
    per_stratum: float = 4.0
    neyman_floor: float = 0.05
    pilot: float = 0.3
    min_per_stratum: int = 2
    strata_seed: int = 0
    max_exposure: float | None = 0.15

    def validate(self) -> None:
        """Raise ConfigError for inconsistent settings."""
        if self.max_items < 1:
            raise ConfigError("max_items must be >= 1")
        if not 1 <= self.min_items <= self.max_items:
            raise ConfigError("min_items must be between 1 and max_items")
        if self.se_target is not None and self.se_target <= 0:
            raise ConfigError("se_target must be > 0")
        if self.selection not in SELECTIONS:
            raise ConfigError(f"unknown selection {self.selection!r}: choose {' or '.join(SELECTIONS)}")
        if self.exposure not in EXPOSURES:
            raise ConfigError(f"unknown exposure control {self.exposure!r}: choose one of "
                              f"{', '.join(EXPOSURES)}")
        if self.randomesque_n < 1:
            raise ConfigError("randomesque_n must be >= 1")
        if self.prior_sd <= 0:
            raise ConfigError("prior_sd must be > 0")
        if not 0 < self.level < 1:
            raise ConfigError("level must be between 0 and 1")
        if isinstance(self.content, str) and self.content not in ("bank", "equal", "none"):
            raise ConfigError(f"unknown content balancing {self.content!r}: choose bank, equal, none or a "
                              "mapping")
        if self.a_max is not None and self.a_max <= 0:
            raise ConfigError("a_max must be > 0 (or None for no cap)")
        if self.per_stratum < 1:
            raise ConfigError("per_stratum must be >= 1")
        if not 0 <= self.neyman_floor <= 0.25:
            raise ConfigError("neyman_floor must be in [0, 0.25]")
        if not 0 <= self.pilot <= 1:
            raise ConfigError("pilot must be in [0, 1]")
        if self.min_per_stratum < 0:
            raise ConfigError("min_per_stratum must be >= 0")
        if self.max_exposure is not None and not 0 < self.max_exposure <= 1:
            raise ConfigError("max_exposure must be in (0, 1] (or None)")


@dataclass
class CATState:
    """Per-examinee arrays of a batch of adaptive tests (row = examinee)."""

    logpost: F64
    theta: F64
    se: F64
    n_admin: I64
    used: NDArray[np.bool_]
    items: I64
    responses: F64
    info: F64
    theta_after: F64
    se_after: F64
    counts: I64
    avail: I64
    active: NDArray[np.bool_]
    sh_selected: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    strat_counts: I64 = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    strat_avail: I64 = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
