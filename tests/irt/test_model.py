"""The 3PL probability, log-probability and information functions, cross-checked against catsim."""

from __future__ import annotations

import numpy as np
import pytest
from catsim import irt as catsim_irt

from climedbench.irt.model import characteristic_curve, information, kl_divergence, log_prob, prob


@pytest.fixture()
def params() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return np.exp(rng.normal(0, 0.5, 50)), rng.normal(0, 1.2, 50), rng.uniform(0, 0.35, 50)


def test_probability_and_information_match_catsim(params: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    a, b, c = params
    items = np.column_stack([a, b, c, np.ones_like(a)])
    for theta in (-2.5, -0.3, 0.0, 1.7):
        np.testing.assert_allclose(prob(theta, a, b, c), catsim_irt.icc_hpc(theta, items), rtol=1e-9)
        np.testing.assert_allclose(information(theta, a, b, c), catsim_irt.inf_hpc(theta, items), rtol=1e-7)


def test_information_is_squared_slope_over_bernoulli_variance(params: tuple[np.ndarray, ...]) -> None:
    a, b, c = params
    th = np.linspace(-3, 3, 13)[:, None]
    h = 1e-6
    dp = (prob(th + h, a, b, c) - prob(th - h, a, b, c)) / (2 * h)
    p = prob(th, a, b, c)
    np.testing.assert_allclose(information(th, a, b, c), dp**2 / (p * (1 - p)), rtol=1e-5)


def test_log_prob_is_stable_where_probabilities_underflow() -> None:
    lp, lq = log_prob(np.array([-40.0, 0.0, 40.0]), 3.0, 0.0, 0.0)
    assert np.all(np.isfinite(lp)) and np.all(np.isfinite(lq))
    np.testing.assert_allclose(lp[1], np.log(0.5))
    lp, lq = log_prob(np.linspace(-3, 3, 7), 1.3, 0.2, 0.25)
    p = prob(np.linspace(-3, 3, 7), 1.3, 0.2, 0.25)
    np.testing.assert_allclose(lp, np.log(p), rtol=1e-12)
    np.testing.assert_allclose(lq, np.log1p(-p), rtol=1e-12)


def test_guessing_floor_and_kl_properties() -> None:
    assert prob(-50.0, 1.0, 0.0, 0.2) == pytest.approx(0.2)
    assert kl_divergence(0.5, 0.5, 1.2, 0.0, 0.2) == pytest.approx(0.0, abs=1e-15)
    assert kl_divergence(0.5, 1.5, 1.2, 0.0, 0.2) > 0
    tcc = characteristic_curve(np.array([-1.0, 0.0, 1.0]), np.ones(3), np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(tcc, prob(np.array([-1.0, 0.0, 1.0]), 1.0, 0.0))
