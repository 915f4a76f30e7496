"""Response-matrix I/O: round trips and one-line errors naming file, line and column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from climedbench.errors import DataError
from climedbench.irt.matrix import ResponseMatrix, read_item_map, read_matrix, write_matrix


def _write(tmp_path: Path, text: str, name: str = "m.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_csv_round_trip_keeps_missing_answers(tmp_path: Path) -> None:
    data = np.array([[1, 0, np.nan], [np.nan, 1, 1], [0, 0, 0]], dtype=float)
    rm = ResponseMatrix(["gpt4", "qwen", "glm"], ["q1", "q2", "q3"], data)
    write_matrix(tmp_path / "m.csv", rm)
    back = read_matrix(tmp_path / "m.csv")
    assert back.examinee_ids == rm.examinee_ids and back.item_ids == rm.item_ids
    np.testing.assert_array_equal(back.data, data)
    assert back.n_responses == 7


def test_parquet_round_trip(tmp_path: Path) -> None:
    data = np.array([[1, np.nan], [0, 1]], dtype=float)
    rm = ResponseMatrix(["a", "b"], ["i1", "i2"], data)
    write_matrix(tmp_path / "m.parquet", rm)
    np.testing.assert_array_equal(read_matrix(tmp_path / "m.parquet").data, data)


def test_accepts_bom_whitespace_and_na(tmp_path: Path) -> None:
    p = tmp_path / "m.csv"
    p.write_bytes("\ufeffid,q1,q2\nx, 1 ,NA\ny,0.0,1.0\n\n".encode())
    rm = read_matrix(p)
    np.testing.assert_array_equal(rm.data, np.array([[1, np.nan], [0, 1]]))


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("id,q1,q2\nm1,1,0\nm2,1,2\n", 3, "column 3: value '2' is not 1, 0 or empty"),
        ("id,q1,q2\nm1,1,yes\n", 2, "column 3: value 'yes'"),
        ("id,q1,q1\nm1,1,0\n", 1, "column 3: duplicate item id"),
        ("id,q1,\nm1,1,0\n", 1, "column 3: empty item id"),
        ("id,q1,q2\nm1,1,0\nm1,0,0\n", 3, "duplicate examinee id 'm1'"),
        ("id,q1,q2\nm1,1\n", 2, "expected 3 columns"),
        ("id,q1,q2\n,1,0\n", 2, "column 1: empty examinee id"),
    ],
)
def test_bad_matrix_gives_one_clear_line(tmp_path: Path, text: str, line: int, needle: str) -> None:
    p = _write(tmp_path, text)
    with pytest.raises(DataError) as err:
        read_matrix(p)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}:{line}: ")
    assert needle in msg
    assert err.value.line == line and err.value.file == str(p)


def test_bad_value_names_the_item(tmp_path: Path) -> None:
    p = _write(tmp_path, "id,q1,q2\nm1,1,0.5\n")
    with pytest.raises(DataError) as err:
        read_matrix(p)
    assert err.value.field == "q2" and "field 'q2'" in str(err.value)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="empty file"):
        read_matrix(_write(tmp_path, ""))
    with pytest.raises(DataError, match="no examinee rows"):
        read_matrix(_write(tmp_path, "id,q1\n"))
    with pytest.raises(DataError, match="cannot open"):
        read_matrix(tmp_path / "nope.csv")


def test_parquet_bad_value(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a", "b"], "q1": [1.0, 3.0]}), tmp_path / "m.parquet")
    with pytest.raises(DataError) as err:
        read_matrix(tmp_path / "m.parquet")
    assert err.value.line == 2 and err.value.field == "q1" and "column 2" in str(err.value)


def test_item_map(tmp_path: Path) -> None:
    info = read_item_map(_write(tmp_path, "item,scenario,k\nq1,ID#1,4\nq2,CPR,0\n", "map.csv"))
    assert info.scenarios == {"q1": "ID#1", "q2": "CPR"} and info.options_k == {"q1": 4, "q2": 0}
    # the layout `climedbench irt matrix` / `mps` write: extra columns, empty k for non-multiple-choice items
    info = read_item_map(_write(tmp_path, "item,scenario,k,metric,transform,threshold\n"
                                          "q1,ID#1,4,accuracy,identity,0.5\nq2,SSO,,kendall_tau,tau,0.6\n", "m2.csv"))
    assert info.options_k == {"q1": 4, "q2": 0} and info.scenarios["q2"] == "SSO"
    with pytest.raises(DataError, match=r"map\.csv:3: field 'k': column 3: 'x' is not an integer"):
        read_item_map(_write(tmp_path, "item,scenario,k\nq1,ID#1,4\nq2,CPR,x\n", "map.csv"))
    with pytest.raises(DataError, match="duplicate item id"):
        read_item_map(_write(tmp_path, "item,scenario\nq1,A\nq1,B\n", "map.csv"))
