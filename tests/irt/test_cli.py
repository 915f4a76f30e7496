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
    bank = generate_bank(items, rng, scenarios=False)
    x = simulate_responses(rng.normal(size=n), bank, rng, missing_rate=0.1)
    path = tmp_path / "matrix.csv"
    write_matrix(path, ResponseMatrix([f"m{i}" for i in range(n)], bank.ids, x))
    return path


def test_fit_then_abilities(tmp_path: Path) -> None:
    m = _matrix(tmp_path)
    mapping = tmp_path / "map.csv"
    mapping.write_text("item,scenario\n" + "".join(f"q{j + 1:02d},{'A' if j < 6 else 'B'}\n" for j in range(12)))
    res = runner.invoke(app, ["fit", str(m), "--model", "3pl", "--out", str(tmp_path / "bank.json"),
                              "--items-scenarios", str(mapping), "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "12 items, 300 examinees" in res.stdout and "flagged items:" in res.stdout
    loaded = ItemBank.load(tmp_path / "bank.json")
    assert loaded.model == "3pl" and loaded.scenarios == ["A"] * 6 + ["B"] * 6
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
