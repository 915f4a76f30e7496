"""SE multipliers of a bank's stored interval calibration: "score ± q · SE" with q read from the bank when it was
calibrated for the test's design (:mod:`climedbench.cat.intervals` makes the calibration), the normal quantile
otherwise."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from climedbench.cat.config import CATConfig
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank

METHOD = "cross-validated split conformal (normalised errors on re-fitted banks)"


@dataclass
class IntervalCalibration:
    """SE multipliers by test length for one design, and how they were obtained."""

    level: float
    selection: str
    lengths: list[int]
    q_overall: list[float]
    q_scenario: list[float]
    n_examinees: int
    folds: int
    replications: int
    seed: int
    method: str = METHOD
    guaranteed: bool = True
    seconds: float = 0.0
    design: dict[str, Any] = field(default_factory=dict)

    def multipliers(self, n_items: int) -> tuple[float, float]:
        """(overall, scenario) multipliers at a test length (log-linear between calibrated lengths)."""
        x = np.log(np.asarray(self.lengths, dtype=np.float64))
        t = math.log(max(n_items, 1))
        return (float(np.interp(t, x, self.q_overall)), float(np.interp(t, x, self.q_scenario)))

    def covers_length(self, n_items: int) -> bool:
        """True if the length lies within the calibrated range."""
        return min(self.lengths) <= n_items <= max(self.lengths)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (stored in the bank's meta as ``interval_calibration``)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, obj: Any) -> IntervalCalibration:
        """Inverse of :meth:`to_dict` (ConfigError if malformed)."""
        try:
            cal = cls(**obj)
        except TypeError as exc:
            raise ConfigError(f"malformed interval_calibration in the bank: {exc}") from None
        if not (len(cal.lengths) == len(cal.q_overall) == len(cal.q_scenario) > 0):
            raise ConfigError("malformed interval_calibration in the bank: lengths and multipliers differ")
        return cal


def normal_multiplier(level: float) -> float:
    """The normal quantile z_{(1 + level)/2} (used when no calibration applies)."""
    return float(stats.norm.ppf(0.5 + level / 2.0))


def multipliers_for(bank: ItemBank, config: CATConfig, n_items: int) -> tuple[float, float, str]:
    """(overall, scenario) SE multipliers for a test and a note on where they come from.

    The bank's stored calibration is used when it was made for the same design; otherwise the normal quantile,
    with a note saying the intervals are not calibrated.
    """
    raw = bank.meta.get("interval_calibration")
    z = normal_multiplier(config.level)
    if not raw:
        return z, z, ("intervals NOT calibrated on held-out examinees (normal quantile × design SE); run "
                      "`climedbench cat calibrate` on the calibration matrix")
    cal = IntervalCalibration.from_dict(raw)
    if cal.selection != config.selection or abs(cal.level - config.level) > 1e-9:
        return z, z, (f"the bank's interval calibration is for selection {cal.selection!r} at level {cal.level}, "
                      f"not {config.selection!r} at {config.level}: intervals NOT calibrated")
    qo, qs = cal.multipliers(n_items)
    note = (f"intervals calibrated by {cal.method} on {cal.n_examinees} calibration examinees "
            f"({cal.folds} folds, lengths {', '.join(map(str, cal.lengths))})")
    if not cal.covers_length(n_items):
        note += f"; {n_items} items is outside the calibrated lengths (nearest used)"
    if not cal.guaranteed:
        note += "; too few calibration examinees for the conformal guarantee"
    return qo, qs, note
