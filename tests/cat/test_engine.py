"""CAT engine: selection against catsim, exposure control, content balancing, SE behaviour, seeding."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from climedbench.cat.engine import CATConfig, CATEngine
from climedbench.cat.simulation import exposure_rates, overlap_rate, run_cat, sympson_hetter_parameters
from climedbench.core.suite import load_suite
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.synthetic import generate_bank, suite_layout

CLIMED = suite_layout(load_suite("climedbench"))  # the bank shaped like the 14 CliMedBench scenarios


@pytest.fixture(scope="module")
def bank() -> ItemBank:
    return generate_bank(1500, np.random.default_rng(1), layout=CLIMED)


def test_fisher_selection_matches_catsim_max_info(bank: ItemBank) -> None:
    import catsim
    from catsim.item_bank import ItemBank as CatsimBank
    from catsim.selection import MaxInfoSelector

    small = bank.subset(np.arange(300))
    engine = CATEngine(small, CATConfig(max_items=20, content="none", selection="fisher"))
    cb = CatsimBank(np.column_stack([small.a, small.b, small.c, np.ones(small.n_items)]))
    rng = np.random.default_rng(0)
    thetas = np.array([-2.3, -0.71, 0.0, 0.437, 1.9])
    st = engine.new_state(thetas.size)
    st.theta[:] = thetas
    given = [list(rng.choice(300, size=5 * i, replace=False)) for i in range(thetas.size)]
    for row, items in enumerate(given):
        st.used[row, items] = True
    chosen, _ = engine.select(st, np.arange(thetas.size), rng)
    ref = [MaxInfoSelector().select(item_bank=cb, administered_items=items, est_theta=float(t))
           for t, items in zip(thetas, given, strict=True)]
    assert catsim is not None
    np.testing.assert_array_equal(chosen, ref)


def _run(bank: ItemBank, n: int = 300, seed: int = 0, **kw: object) -> tuple:
    cfg = CATConfig(**{"max_items": 30, "selection": "fisher", **kw})  # type: ignore[arg-type]
    engine = CATEngine(bank, cfg)
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    return engine, run_cat(engine, theta, rng), theta


def test_seeded_runs_are_identical_and_seeds_matter(bank: ItemBank) -> None:
    _, a, _ = _run(bank, exposure="randomesque", seed=4)
    _, b, _ = _run(bank, exposure="randomesque", seed=4)
    _, c, _ = _run(bank, exposure="randomesque", seed=5)
    np.testing.assert_array_equal(a.items, b.items)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert not np.array_equal(a.items, c.items)


def test_exposure_control_lowers_maximum_exposure(bank: ItemBank) -> None:
    none = exposure_rates(_run(bank)[1], bank.n_items).max()
    rand = exposure_rates(_run(bank, exposure="randomesque")[1], bank.n_items).max()
    cfg = CATConfig(max_items=30, selection="fisher")
    k = sympson_hetter_parameters(bank, cfg, r_max=0.2, max_exposure=0.25, n_simulees=300, n_iter=6, seed=3)
    _, st_sh, theta = _run(bank, seed=9, exposure="sympson-hetter", sh_parameters=k)
    sh = exposure_rates(st_sh, bank.n_items).max()
    assert none == pytest.approx(1.0)  # everyone starts at θ = 0 with the same best item
    assert rand < 0.75 * none  # randomesque only spreads the early, shared items
    assert sh < rand
    assert sh < 0.3
    assert overlap_rate(st_sh, bank.n_items) < overlap_rate(_run(bank)[1], bank.n_items)
    # the price of exposure control is small: precision stays close
    assert np.sqrt(np.mean((st_sh.theta - theta) ** 2)) < 0.45


def test_content_balancing_follows_target_shares(bank: ItemBank) -> None:
    engine, st, _ = _run(bank, n=100, max_items=70)
    names, idx = bank.scenario_labels()
    assert len(names) == 14
    counts = np.stack([np.bincount(idx[row], minlength=14) for row in st.items])
    assert (counts >= 1).all()  # every scenario represented in every test
    expected = engine.targets * 70
    assert np.abs(counts - expected[None, :]).max() <= 1.0 + 1e-9
    _, st_eq, _ = _run(bank, n=50, max_items=70, content="equal")
    counts_eq = np.stack([np.bincount(idx[row], minlength=14) for row in st_eq.items])
    assert counts_eq.min() >= 4 and counts_eq.max() <= 6


def test_content_mapping_and_unknown_scenario(bank: ItemBank) -> None:
    engine = CATEngine(bank, CATConfig(max_items=20, content={"ID#1": 1.0, "BKT": 1.0}, min_per_scenario=0,
                                       selection="fisher"))
    st = run_cat(engine, np.zeros(5), np.random.default_rng(0))
    names, idx = bank.scenario_labels()
    assert set(np.array(names)[np.unique(idx[st.items])]) == {"ID#1", "BKT"}
    with pytest.raises(ConfigError, match="unknown scenarios"):
        CATEngine(bank, CATConfig(content={"nope": 1.0}, selection="fisher"))


def test_standard_error_decreases_and_se_stopping(bank: ItemBank) -> None:
    _, st, _ = _run(bank, n=200, max_items=40)
    mean_se = st.se_after.mean(axis=0)
    assert np.all(np.diff(mean_se) < 0)
    assert mean_se[-1] < 0.5 * mean_se[0]
    _, st2, _ = _run(bank, n=200, max_items=200, se_target=0.3)
    assert np.all((st2.se <= 0.3) | (st2.n_admin == 200))
    assert st2.n_admin.max() < 200 and st2.n_admin.min() >= 1


def test_kl_selection_works_and_estimates(bank: ItemBank) -> None:
    _, st, theta = _run(bank, n=100, selection="kl")
    assert np.corrcoef(st.theta, theta)[0, 1] > 0.9
    assert (st.items >= 0).all()


def test_no_item_twice_and_exhausting_a_small_bank() -> None:
    small = generate_bank(40, np.random.default_rng(2), layout=CLIMED)
    engine = CATEngine(small, CATConfig(max_items=40, exposure="randomesque", selection="fisher"))
    st = run_cat(engine, np.random.default_rng(0).normal(size=20), np.random.default_rng(1))
    for row in st.items:
        assert sorted(row.tolist()) == list(range(40))


def test_sympson_hetter_needs_parameters(bank: ItemBank) -> None:
    with pytest.raises(ConfigError, match="Sympson"):
        CATEngine(bank, CATConfig(exposure="sympson-hetter", selection="fisher"))
    with pytest.raises(ConfigError, match="one probability"):
        CATEngine(bank, dataclasses.replace(CATConfig(selection="fisher"), exposure="sympson-hetter",
                                            sh_parameters=np.ones(3)))


def test_sympson_hetter_iterates_until_the_exposure_target_is_met(bank: ItemBank) -> None:
    """The rounds go on until a round's maximum exposure is at most max_exposure; on fresh simulees the
    maximum stays within sampling error of it (binomial SE at 0.2 over 300 simulees: 0.023)."""
    small = bank.subset(np.arange(0, bank.n_items, 2))
    cfg = CATConfig(max_items=20, selection="fisher", content="none")
    k = sympson_hetter_parameters(small, cfg, r_max=0.15, max_exposure=0.2, n_simulees=300, n_iter=30, seed=5)
    assert np.any(k < 1)
    _, st, _ = _run(small, n=300, seed=6, max_items=20, content="none", exposure="sympson-hetter",
                    sh_parameters=k)
    assert exposure_rates(st, small.n_items).max() <= 0.27
    with pytest.raises(ConfigError, match="max_exposure"):
        sympson_hetter_parameters(bank, cfg, r_max=0.3, max_exposure=0.2)
