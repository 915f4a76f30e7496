"""Item response theory for CliMedBench: 1PL/2PL/3PL models, response matrices, EM calibration, abilities."""

from climedbench.irt.ability import estimate_abilities, log_likelihood_grid, total_information
from climedbench.irt.bank import ItemBank
from climedbench.irt.calibrate import DEFAULT_PRIORS, Priors, fit
from climedbench.irt.linking import link, mean_sigma, stocking_lord
from climedbench.irt.matrix import ItemInfo, ResponseMatrix, read_item_map, read_matrix, write_matrix
from climedbench.irt.model import MODELS, characteristic_curve, information, kl_divergence, log_prob, prob

__all__ = [
    "DEFAULT_PRIORS",
    "MODELS",
    "ItemBank",
    "ItemInfo",
    "Priors",
    "ResponseMatrix",
    "characteristic_curve",
    "estimate_abilities",
    "fit",
    "information",
    "kl_divergence",
    "link",
    "log_likelihood_grid",
    "log_prob",
    "mean_sigma",
    "prob",
    "read_item_map",
    "read_matrix",
    "stocking_lord",
    "total_information",
    "write_matrix",
]
