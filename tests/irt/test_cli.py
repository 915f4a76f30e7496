"""The ``irt fit`` and ``irt abilities`` sub-commands through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from climedbench.cli.irt import app
from climedbench.irt.bank import ItemBank
from climedbench.irt.matrix import ResponseMatrix, write_matrix
from climedbench.irt.synthetic import generate_bank, simulate_responses

runner = CliRunner()


def _matrix(tmp_path: Path, n: int = 300, items: int = 12) -> Path:
    rng = np.random.default_rng(0)
    bank = generate_bank(items, rng)
    x = simulate_responses(rng.normal(size=n), bank, rng, missing_rate=0.1)
    path = tmp_path / "matrix.csv"
    write_matrix(path, ResponseMatrix([f"m{i}" for i in range(n)], bank.ids, x))
    return path


def test_fit_then_abilities(tmp_path: Path) -> None:
    m = _matrix(tmp_path)
    mapping = tmp_path / "map.csv"
    mapping.write_text("item,scenario,k\n" + "".join(f"q{j + 1:02d},{'A' if j < 6 else 'B'},4\n"
                                                     for j in range(12)))
    res = runner.invoke(app, ["fit", str(m), "--model", "3pl", "--out", str(tmp_path / "bank.json"),
                              "--items-scenarios", str(mapping), "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "12 items, 300 examinees" in res.stdout and "flagged items:" in res.stdout
    loaded = ItemBank.load(tmp_path / "bank.json")
    assert loaded.model == "3pl" and loaded.scenarios == ["A"] * 6 + ["B"] * 6
    assert loaded.k is not None and loaded.k.tolist() == [4] * 12
    assert loaded.meta["seed"] == 3
    res = runner.invoke(app, ["abilities", str(m), "--bank", str(tmp_path / "bank.json"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out) == 300 and set(out["m0"]) == {"theta", "se"}
    res = runner.invoke(app, ["abilities", str(m), "--bank", str(tmp_path / "bank.json"), "--method", "map"])
    assert res.exit_code == 0 and res.stdout.splitlines()[0].split() == ["examinee", "theta", "se", "items"]


def test_bad_matrix_is_one_line_with_file_line_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("id,q1,q2\nm1,1,0\nm2,1,x\n")
    res = runner.invoke(app, ["fit", str(bad), "--out", str(tmp_path / "b.json")])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"{bad}:3:" in lines[0] and "column 3" in lines[0] and "'x'" in lines[0]
    assert not (tmp_path / "b.json").exists()


def test_abilities_rejects_items_missing_from_bank(tmp_path: Path) -> None:
    m = _matrix(tmp_path, n=120, items=6)
    assert runner.invoke(app, ["fit", str(m), "--model", "2pl", "--out", str(tmp_path / "bank.json")]).exit_code == 0
    other = tmp_path / "other.csv"
    other.write_text("id,q1,zzz\nm1,1,0\n")
    res = runner.invoke(app, ["abilities", str(other), "--bank", str(tmp_path / "bank.json")])
    assert res.exit_code == 2 and "field 'zzz'" in res.stderr and "not in the bank" in res.stderr


def test_3pl_without_numbers_of_options_falls_back_with_the_reason(tmp_path: Path) -> None:
    """No silent global number of options: without k the 3PL request becomes a 2PL and says why."""
    m = _matrix(tmp_path)
    res = runner.invoke(app, ["fit", str(m), "--out", str(tmp_path / "bank.json")])
    assert res.exit_code == 0, res.output
    assert "fallback: 3pl requested but no item has a known number of answer options" in res.stdout
    bank = ItemBank.load(tmp_path / "bank.json")
    assert bank.model == "2pl" and np.all(bank.c == 0) and bank.k is None  # no item has a number of options
    # --options-k gives every item the same k explicitly, and the 3PL is fitted
    res = runner.invoke(app, ["fit", str(m), "--out", str(tmp_path / "b3.json"), "--options-k", "4"])
    assert res.exit_code == 0 and "fallback" not in res.stdout
    assert ItemBank.load(tmp_path / "b3.json").model == "3pl"
    # too few examinees for the 3PL: the printed reason names the threshold option
    res = runner.invoke(app, ["fit", str(m), "--out", str(tmp_path / "b4.json"), "--options-k", "4",
                              "--min-examinees-3pl", "500"])
    assert "only 300 examinees (< 500, see --min-examinees-3pl)" in res.stdout
