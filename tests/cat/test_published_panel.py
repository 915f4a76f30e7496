"""`cat simulate`'s ranking panel is suite data: a suite's `published_overall` scores (CliMedBench's are the paper's
Table 2 row means), and a suite without them gets no ranking figure rather than another suite's models."""

from __future__ import annotations

import csv
import json
import math
from decimal import ROUND_HALF_UP, Decimal

from typer.testing import CliRunner

from climedbench.cli.cat import app
from climedbench.core.suite import load_suite

SMALL = ["simulate", "--items", "300", "--examinees", "30", "--test-length", "15", "--calibration", "0",
         "--replications", "2", "--seed", "3", "--json"]


def test_climedbench_published_overall_is_its_table2_row_means() -> None:
    suite = load_suite("climedbench")
    with suite.published_files()["table2"].open(encoding="utf-8") as fh:
        rows = {r.pop("model"): [Decimal(v) for v in r.values()] for r in csv.DictReader(fh)}
    means = {m: float((sum(v) / len(v)).quantize(Decimal("0.1"), ROUND_HALF_UP)) for m, v in rows.items()}
    assert len(suite.published_overall) == 7
    assert suite.published_overall == {m: means[m] for m in suite.published_overall}


def test_the_panel_comes_from_the_chosen_suite() -> None:
    runner = CliRunner()
    ours = runner.invoke(app, [*SMALL, "--suite", "climedbench"])
    assert ours.exit_code == 0, ours.output
    assert 0 <= json.loads(ours.stdout)["p_exact_order"] <= 1
    other = runner.invoke(app, [*SMALL, "--suite", "clinicbench"])
    assert other.exit_code == 0, other.output
    assert math.isnan(json.loads(other.stdout)["p_exact_order"])
    assert "suite clinicbench has no published_overall scores" in other.stderr
