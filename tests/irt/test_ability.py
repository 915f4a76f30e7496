"""Ability estimation (EAP/MAP) cross-checked against girth and catsim, with missing answers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from climedbench.irt.ability import estimate_abilities, total_information
from climedbench.irt.synthetic import generate_bank, simulate_responses


@pytest.fixture(scope="module")
def setting() -> tuple:
    rng = np.random.default_rng(21)
    bank = generate_bank(30, rng)
    theta = rng.normal(size=400)
    return bank, theta, simulate_responses(theta, bank, rng)


def test_eap_matches_girth(setting: tuple) -> None:
    """girth integrates the same posterior with 41 Gauss–Legendre points on ±4.5: agreement to 0.005.

    (Posterior SDs here are ~0.3, so 0.005 is 1/60 of an SE.)
    """
    import girth
    bank, _, x = setting
    mine, se = estimate_abilities(x[:100], bank, "eap")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = girth.ability_3pl_eap(x[:100].T.astype(int), bank.b, bank.a, bank.c)
    np.testing.assert_allclose(mine, ref, atol=0.005)
    assert se.min() > 0.15


def test_map_with_flat_prior_matches_catsim_mle(setting: tuple) -> None:
    """With a very wide prior the MAP is the MLE; catsim's bounded search finds the same maximum (to 1e-3)."""
    import catsim
    from catsim.estimation import NumericalSearchEstimator
    from catsim.item_bank import ItemBank as CatsimBank

    bank, _, x = setting
    rows = [i for i in range(60) if 0 < np.nansum(x[i]) < x.shape[1]][:25]  # finite MLE only
    mine, _ = estimate_abilities(x[rows], bank, "map", prior_sd=1e4)
    cb = CatsimBank(np.column_stack([bank.a, bank.b, bank.c, np.ones(bank.n_items)]))
    est = NumericalSearchEstimator(tol=1e-8)
    ref = [est.estimate(item_bank=cb, administered_items=list(range(bank.n_items)),
                        response_vector=[bool(v) for v in x[i]], est_theta=0.0) for i in rows]
    assert catsim is not None
    np.testing.assert_allclose(mine, ref, atol=1e-3)


def test_posterior_sd_is_an_honest_standard_error(setting: tuple) -> None:
    bank, theta, x = setting
    for method in ("eap", "map"):
        est, se = estimate_abilities(x, bank, method)
        rmse = np.sqrt(np.mean((est - theta) ** 2))
        assert 0.8 < rmse / np.sqrt(np.mean(se**2)) < 1.25, method
        assert np.corrcoef(est, theta)[0, 1] > 0.85


def test_missing_answers_equal_estimation_on_the_administered_items(setting: tuple) -> None:
    bank, _, x = setting
    row = x[0].copy()
    keep = np.arange(bank.n_items) % 3 != 0
    row[~keep] = np.nan
    both, _ = estimate_abilities(row[None, :], bank)
    only, _ = estimate_abilities(x[0, keep][None, :], bank.subset(np.flatnonzero(keep)))
    assert both[0] == pytest.approx(only[0], abs=1e-12)
    empty, se = estimate_abilities(np.full((1, bank.n_items), np.nan), bank, prior_mean=0.5, prior_sd=2.0)
    assert empty[0] == pytest.approx(0.5, abs=1e-6) and se[0] == pytest.approx(2.0, rel=1e-3)


def test_many_items_sharp_posterior_is_integrated_accurately() -> None:
    """Thousands of items: posterior SD ~0.03, below the base grid spacing; the refined EAP stays honest."""
    rng = np.random.default_rng(8)
    bank = generate_bank(4000, rng)
    theta = rng.normal(size=60)
    x = simulate_responses(theta, bank, rng)
    est, se = estimate_abilities(x, bank)
    info = total_information(est, bank)
    np.testing.assert_allclose(se, 1 / np.sqrt(info + 1), rtol=0.1)
    assert 0.7 < np.sqrt(np.mean((est - theta) ** 2)) / np.sqrt(np.mean(se**2)) < 1.35
