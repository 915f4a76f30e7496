"""The item-by-item session API, score prediction intervals and the separation check."""

from __future__ import annotations

import json

import numpy as np
import pytest

from climedbench.cat.engine import CATConfig, CATEngine
from climedbench.cat.predict import ScorePredictor
from climedbench.cat.session import CATResult, CATSession, compare
from climedbench.cat.simulation import expected_overall, panel_study, realised_overall, theta_for_scores
from climedbench.core.suite import load_suite
from climedbench.errors import ConfigError
from climedbench.irt.bank import ItemBank
from climedbench.irt.model import prob
from climedbench.irt.synthetic import generate_bank, suite_layout

CLIMED = suite_layout(load_suite("climedbench"))  # the bank shaped like the 14 CliMedBench scenarios


@pytest.fixture(scope="module")
def bank() -> ItemBank:
    return generate_bank(3000, np.random.default_rng(3), layout=CLIMED)


def _drive(bank: ItemBank, theta: float, seed: int, **kw: object) -> CATResult:
    session = CATSession(bank, CATConfig(**{"max_items": 60, **kw}), seed=seed)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed + 100)
    idx = {item: j for j, item in enumerate(bank.ids)}
    while not session.done:
        item = session.next_item()
        assert session.next_item() == item  # stable until recorded
        j = idx[item]
        session.record(item, bool(rng.random() < prob(theta, bank.a[j], bank.b[j], bank.c[j])))
    return session.result()


def test_session_drives_item_by_item_and_logs(bank: ItemBank) -> None:
    res = _drive(bank, 0.8, seed=1)
    assert res.n_items == 60 == len(res.items) == len(set(res.items)) == len(res.log)
    first, last = res.log[0], res.log[-1]
    assert set(first) >= {"step", "item", "scenario", "information", "theta", "se", "response"}
    assert first["theta_before"] == 0.0 and first["se_before"] == pytest.approx(1.0, abs=1e-3)
    assert last["se"] < first["se"] and last["theta"] == res.theta
    assert abs(res.theta - 0.8) < 4 * res.se
    o = res.overall
    assert o["lower"] < o["score"] < o["upper"]
    assert set(res.scenarios) == set(bank.scenario_labels()[0])
    # plain records: the result survives JSON
    again = CATResult.from_dict(json.loads(json.dumps(res.to_dict())))
    assert again.overall == res.overall and again.distribution is not None


def test_same_seed_same_test(bank: ItemBank) -> None:
    a = _drive(bank, -0.5, seed=7, exposure="randomesque")
    b = _drive(bank, -0.5, seed=7, exposure="randomesque")
    assert a.items == b.items and a.theta == b.theta


def test_record_rejects_bad_input(bank: ItemBank) -> None:
    session = CATSession(bank, CATConfig(max_items=2))
    item = session.next_item()
    with pytest.raises(ConfigError, match="must be in"):
        session.record(item, 2)
    with pytest.raises(ConfigError, match="not in the bank"):
        session.record("nope", 1)
    session.record(item, 1)
    with pytest.raises(ConfigError, match="already administered"):
        session.record(item, 0)
    session.record(session.next_item(), 0.5)  # graded scores in [0, 1] are accepted
    assert session.done
    with pytest.raises(ConfigError, match="finished"):
        session.next_item()


def test_prediction_is_the_mean_of_scenario_scores(bank: ItemBank) -> None:
    engine = CATEngine(bank, CATConfig())
    pred = ScorePredictor(bank, engine.grid)
    g = np.argmin(np.abs(engine.grid - 0.3))
    names, idx = bank.scenario_labels()
    p = prob(engine.grid[g], bank.a, bank.b, bank.c)
    per = [100 * p[idx == s].mean() for s in range(len(names))]
    assert pred.overall_mean[g] == pytest.approx(np.mean(per))
    assert expected_overall(bank, engine.grid[g]) == pytest.approx(np.mean(per))
    theta = theta_for_scores(bank, {"m": 55.0})["m"]
    assert expected_overall(bank, theta) == pytest.approx(55.0, abs=1e-6)


def test_interval_covers_the_realised_full_score(bank: ItemBank) -> None:
    """Honesty in simulation: ≥ 90% of nominal-95% intervals cover the realised full-benchmark score."""
    engine = CATEngine(bank, CATConfig(max_items=60, selection="fisher"))
    out = panel_study(bank, engine, np.random.default_rng(4), scores={"hi": 70.0, "mid": 50.0, "lo": 36.0},
                      replications=40)
    assert out["coverage"] >= 0.9
    assert out["mae"] < 3.0


def test_realised_overall_is_scenario_mean(bank: ItemBank) -> None:
    sheet = np.zeros((1, bank.n_items), dtype=bool)
    names, idx = bank.scenario_labels()
    sheet[0, idx == 0] = True  # everything right in one scenario only
    assert realised_overall(bank, sheet)[0] == pytest.approx(100 / len(names))


def test_compare_separates_only_clear_differences(bank: ItemBank) -> None:
    strong, weak = _drive(bank, 1.2, seed=2), _drive(bank, -1.2, seed=3)
    verdict = compare(strong, weak)
    assert verdict["separated"] and verdict["lower"] > 0 and verdict["p_a_better"] > 0.99
    assert verdict["verdict"] == "separated at 95%"
    twin_a, twin_b = _drive(bank, 0.3, seed=4), _drive(bank, 0.3, seed=5)
    same = compare(twin_a, twin_b)
    assert same["lower"] < same["difference"] < same["upper"]
    assert compare(twin_b, twin_a)["difference"] == pytest.approx(-same["difference"], abs=1e-9)
    # The verdict is the interval's: separated exactly when the interval excludes 0.
    assert same["separated"] == (same["lower"] > 0 or same["upper"] < 0)
    assert same["verdict"] == ("separated at 95%" if same["separated"] else "not separated at 95%")
    identical = compare(twin_a, twin_a)
    assert identical["difference"] == pytest.approx(0, abs=1e-9) and not identical["separated"]
    assert identical["verdict"] == "not separated at 95%"
