"""The ``cat simulate`` sub-command through Typer's CliRunner."""

from __future__ import annotations

import json

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
