"""Computerized adaptive testing over a calibrated CliMedBench item bank."""

from climedbench.cat.engine import CATConfig, CATEngine, CATState
from climedbench.cat.predict import ScoreDistribution, ScorePredictor, compare_distributions
from climedbench.cat.session import CATResult, CATSession, compare
from climedbench.cat.simulation import (
    METRIC_KEYS,
    exposure_rates,
    overlap_rate,
    panel_study,
    run_cat,
    simulate,
    sympson_hetter_parameters,
    theta_for_scores,
)

__all__ = [
    "METRIC_KEYS", "CATConfig", "CATEngine", "CATResult", "CATSession", "CATState", "ScoreDistribution",
    "ScorePredictor", "compare", "compare_distributions", "exposure_rates", "overlap_rate", "panel_study",
    "run_cat", "simulate", "sympson_hetter_parameters", "theta_for_scores",
]
