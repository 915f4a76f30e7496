"""The stratified design: item embeddings find the kinds of items, strata nest in scenarios, Neyman shares."""

from __future__ import annotations

import numpy as np
import pytest

from climedbench.cat.engine import CATConfig, CATEngine
from climedbench.cat.simulation import exposure_rates, run_cat
from climedbench.core.suite import load_suite
from climedbench.irt.bank import ItemBank
from climedbench.irt.embedding import item_embedding
from climedbench.irt.synthetic import generate_bank, suite_layout

CLIMED = suite_layout(load_suite("climedbench"))  # the bank shaped like the 14 CliMedBench scenarios


def _two_skills(rng: np.random.Generator, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Items 0-59 measure skill 1, items 60-119 skill 2 (independent): answers of n examinees, and the truth."""
    theta = rng.normal(size=(n, 2))
    b = rng.normal(size=120)
    skill = np.repeat([0, 1], 60)
    p = 1 / (1 + np.exp(-1.5 * (theta[:, skill] - b[None, :])))
    return (rng.random(p.shape) < p).astype(np.float64), skill


def test_embedding_separates_items_of_different_skills() -> None:
    x, skill = _two_skills(np.random.default_rng(0))
    emb = item_embedding(x, 4)
    assert emb.shape == (120, 5)  # 4 components + the difficulty coordinate
    bank = ItemBank(ids=[f"i{j}" for j in range(120)], a=np.ones(120), b=np.zeros(120), c=np.zeros(120),
                    embedding=emb)
    engine = CATEngine(bank, CATConfig(max_items=8, per_stratum=4))  # 2 strata
    strata = engine.strata
    assert strata is not None and strata.method == "clusters" and strata.n_strata == 2
    # each stratum holds the items of one skill (at most a few strays)
    purity = max(np.mean(strata.labels == skill), np.mean(strata.labels == 1 - skill))
    assert purity >= 0.95


def test_strata_nest_in_scenarios_and_weights_are_score_shares() -> None:
    bank = generate_bank(1400, np.random.default_rng(1), layout=CLIMED)  # 14 CliMedBench scenarios, no embedding
    engine = CATEngine(bank, CATConfig(max_items=100))
    strata = engine.strata
    assert strata is not None and strata.method == "difficulty"
    names, idx = bank.scenario_labels()
    for h in range(strata.n_strata):  # every stratum lies inside one scenario
        assert set(idx[strata.labels == h]) == {strata.scenario[h]}
    assert set(strata.scenario.tolist()) == set(range(len(names)))
    # an item of scenario s weighs 1/(S · N_s) in the overall score: stratum weights add up to 1/S per scenario
    per_scen = np.bincount(strata.scenario, weights=strata.weight, minlength=len(names))
    np.testing.assert_allclose(per_scen, 1 / len(names))
    np.testing.assert_allclose(strata.weight, strata.sizes / (len(names) * np.bincount(idx)[strata.scenario]))


def test_neyman_shares_follow_weight_times_sd_with_a_floor_and_minimum() -> None:
    bank = generate_bank(400, np.random.default_rng(2))
    engine = CATEngine(bank, CATConfig(max_items=40, per_stratum=10, min_per_stratum=0, neyman_floor=0.04))
    strata = engine.strata
    assert strata is not None and strata.n_strata == 4
    pq = np.array([[0.25, 0.09, 0.01, 0.0]])  # SDs 0.5, 0.3, floored 0.2, floored 0.2
    shares = engine._neyman_shares(pq)[0]
    expected = strata.weight * np.array([0.5, 0.3, 0.2, 0.2])
    np.testing.assert_allclose(shares, expected / expected.sum())
    # with min_per_stratum = 3 every stratum gets at least 3 of the 40 items: [19.6, 19.6, 0.4, 0.4] → [17, 17, 3, 3]
    engine = CATEngine(bank, CATConfig(max_items=40, per_stratum=10, min_per_stratum=3, neyman_floor=1e-4))
    shares = engine._neyman_shares(np.array([[0.25, 0.25, 0.0, 0.0]]))[0]
    np.testing.assert_allclose(shares * 40, [17, 17, 3, 3], atol=1e-6)
    # exposure cap: at most max(max_exposure, 2n/N) of a stratum's 100 items: 40 items, cap 0.25 → ≤ 25
    engine = CATEngine(bank, CATConfig(max_items=40, per_stratum=10, min_per_stratum=0, neyman_floor=1e-4,
                                       max_exposure=0.25))  # 2n/N = 0.2 < 0.25
    shares = engine._neyman_shares(np.array([[0.25, 0.0, 0.0, 0.0]]))[0]
    assert shares[0] * 40 == pytest.approx(25.0) and shares.sum() == pytest.approx(1.0)


def test_stratified_tests_follow_their_allocation_and_spread_exposure() -> None:
    bank = generate_bank(3000, np.random.default_rng(3), layout=CLIMED)
    engine = CATEngine(bank, CATConfig(max_items=60))
    rng = np.random.default_rng(4)
    st = run_cat(engine, rng.normal(size=300), rng)
    strata = engine.strata
    assert strata is not None
    counts = st.strat_counts
    assert counts.sum(axis=1).tolist() == [60] * 300
    assert counts.min() >= 1  # every stratum is asked in every test ...
    room = np.maximum(np.floor(engine.exposure_cap * strata.sizes), 1.0)  # ... twice where the cap leaves room
    assert counts[:, room >= 2].min() >= 2
    names, idx = bank.scenario_labels()
    per_scen = np.stack([np.bincount(idx[row], minlength=len(names)) for row in st.items])
    assert per_scen.min() >= 1  # every scenario in every test
    # random choice within strata: no item is given to more than a quarter of the examinees
    assert exposure_rates(st, bank.n_items).max() <= 0.25
    # strong examinees get fewer items from the easiest strata than weak ones (Neyman: where answers vary)
    easy = np.argsort(np.array([bank.b[strata.labels == h].mean() for h in range(strata.n_strata)]))[:3]
    strong, weak = st.theta > 1.0, st.theta < -1.0
    assert counts[strong][:, easy].sum(axis=1).mean() < counts[weak][:, easy].sum(axis=1).mean()
