"""The ``cat simulate``, ``cat replay`` and ``cat calibrate`` sub-commands through Typer's CliRunner."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from climedbench.cat.simulation import METRIC_KEYS
from climedbench.cli.cat import app

runner = CliRunner()
SMALL = ["simulate", "--items", "400", "--examinees", "60", "--test-length", "20", "--calibration", "0",
         "--replications", "4", "--seed", "1"]


def test_simulate_json_has_exactly_the_metric_keys() -> None:
    res = runner.invoke(app, [*SMALL, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert list(out) == list(METRIC_KEYS)
    assert 0 < out["theta_rmse"] < 1 and 0 <= out["p_exact_order"] <= 1
    again = json.loads(runner.invoke(app, [*SMALL, "--json"]).stdout)
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in out.items() if k != "seconds"}


def test_simulate_table_with_calibration_and_exposure() -> None:
    res = runner.invoke(app, ["simulate", "--items", "300", "--examinees", "40", "--test-length", "15",
                              "--calibration", "300", "--replications", "0", "--exposure", "randomesque"])
    assert res.exit_code == 0, res.output
    assert "theta_rmse" in res.stdout and "calibrated on 300 examinees" in res.stdout


def test_simulate_rejects_unknown_options() -> None:
    res = runner.invoke(app, [*SMALL, "--exposure", "magic"])
    assert res.exit_code == 2 and "--exposure must be one of" in res.stderr


def _matrix_and_bank(tmp_path) -> tuple:
    """A 2PL bank fitted by `irt fit` on 150 simulated examinees (two scenarios), and 30 other examinees."""
    from climedbench.cli.irt import app as irt_app
    from climedbench.irt.matrix import ResponseMatrix, write_matrix
    from climedbench.irt.synthetic import generate_bank, simulate_responses

    rng = np.random.default_rng(5)
    truth = generate_bank(60, rng)
    cal = simulate_responses(rng.normal(size=150), truth, rng)
    new = simulate_responses(rng.normal(size=30), truth, rng)
    new[0, :10] = np.nan
    write_matrix(tmp_path / "cal.csv", ResponseMatrix([f"c{i}" for i in range(150)], truth.ids, cal))
    write_matrix(tmp_path / "new.csv", ResponseMatrix([f"m{i}" for i in range(30)], truth.ids, new))
    (tmp_path / "map.csv").write_text("item,scenario\n" + "".join(
        f"{item},{'A' if j < 30 else 'B'}\n" for j, item in enumerate(truth.ids)))
    res = runner.invoke(irt_app, ["fit", str(tmp_path / "cal.csv"), "--model", "2pl", "--items-scenarios",
                                  str(tmp_path / "map.csv"), "--out", str(tmp_path / "bank.json")])
    assert res.exit_code == 0, res.output
    return tmp_path / "cal.csv", tmp_path / "new.csv", tmp_path / "bank.json", new


def test_replay_json_calibrate_then_replay(tmp_path) -> None:
    from climedbench.cat.replay import full_scores
    from climedbench.irt.bank import ItemBank

    cal, new, bank, answers = _matrix_and_bank(tmp_path)
    res = runner.invoke(app, ["replay", str(new), "--bank", str(bank), "--max-items", "20", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "intervals NOT calibrated" in res.stdout and "mean absolute error" in res.stdout
    res = runner.invoke(app, ["calibrate", str(cal), "--bank", str(bank), "--lengths", "10,20", "--folds", "3"])
    assert res.exit_code == 0, res.output
    assert "150 calibration examinees, 3 folds" in res.stdout
    stored = ItemBank.load(bank).meta["interval_calibration"]
    assert stored["lengths"] == [10, 20] and stored["selection"] == "stratified"
    res = runner.invoke(app, ["replay", str(new), "--bank", str(bank), "--max-items", "20", "--seed", "3",
                              "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["examinees"]) == 30 and out["meta"]["max_items"] == 20
    row = out["examinees"][1]
    assert set(row) == {"id", "predicted", "lower", "upper", "se", "n_items", "actual", "scenarios"}
    assert row["lower"] <= row["predicted"] <= row["upper"] and row["n_items"] == 20
    assert set(row["scenarios"]) == {"A", "B"}
    assert "calibrated by cross-validated split conformal" in out["meta"]["interval"]
    assert out["meta"]["multiplier"] == stored["q_overall"][1]  # the stored multiplier at 20 items
    actual, _, _ = full_scores(ItemBank.load(bank), answers)
    assert [e["actual"] for e in out["examinees"]] == pytest.approx(list(actual), abs=1e-4)
    errors = [abs(e["predicted"] - e["actual"]) for e in out["examinees"]]
    assert out["mean_abs_error"] == pytest.approx(np.mean(errors), abs=1e-3)
    # seeded: the same command gives the same report
    again = json.loads(runner.invoke(app, ["replay", str(new), "--bank", str(bank), "--max-items", "20",
                                           "--seed", "3", "--json"]).stdout)
    assert again["examinees"] == out["examinees"]


def test_replay_errors_are_one_line(tmp_path) -> None:
    _, _, bank, _ = _matrix_and_bank(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("model,q01,zzz\nm1,1,0\n")
    res = runner.invoke(app, ["replay", str(bad), "--bank", str(bank)])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {bad}:1: field 'zzz': column 3: item is not in the bank"
    res = runner.invoke(app, ["replay", str(bad), "--bank", str(bank), "--selection", "magic"])
    assert res.exit_code == 2 and "--selection must be one of stratified, fisher, kl" in res.stderr


def test_cat_and_cat_simulate_share_their_defaults() -> None:
    """One default design everywhere: `cat`, `cat replay`, `cat simulate` and the library's simulate()."""
    import inspect

    import typer.main

    from climedbench.cat import engine, simulation
    from climedbench.cli import cat as cli_cat

    assert cli_cat.SELECTIONS == engine.SELECTIONS and cli_cat.EXPOSURES == engine.EXPOSURES
    group = typer.main.get_group(app)
    defaults = {}
    for name, cmd in [("cat", group), *group.commands.items()]:
        params = {p.name: p.default for p in cmd.params}
        if "selection" in params:
            defaults[name] = (params["selection"], params.get("exposure"))
    assert set(defaults) == {"cat", "replay", "calibrate", "simulate"}
    assert set(defaults.values()) == {("stratified", "sympson-hetter")}
    sig = inspect.signature(simulation.simulate).parameters
    assert (sig["selection"].default, sig["exposure"].default) == ("stratified", "sympson-hetter")
    assert engine.CATConfig().selection == "stratified"
