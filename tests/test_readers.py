"""Everyday friction in reading data (issue 20): big JSON arrays in linear time, files that are not UTF-8, a
table lacking a column. Real files in temporary folders; conversions with the real `iconv`."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.data.readers import read_records

BKT = {"scenario": "BKT", "reference": "C"}


def bkt(i: int) -> dict[str, str]:
    """A valid BKT record whose text has Chinese characters (multi-byte in UTF-8 and GB18030)."""
    return {"id": f"q{i}", **BKT, "input": f"## 问题: 第{i}题，患者首选？\n## 选项: A. 甲{i}\nB. 乙\nC. 丙\nD. 丁"}


def jsonl_text(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def csv_text(records: list[dict]) -> str:
    lines = ["id,scenario,reference,input"]
    lines += [",".join(json.dumps(r[k], ensure_ascii=False) for k in ("id", "scenario", "reference", "input"))
              for r in records]
    return "\n".join(lines) + "\n"


# -- linear time ---------------------------------------------------------------------------------------------

def _read_seconds(path: Path) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(3):
        t0 = time.perf_counter()
        count = sum(1 for rec in read_records(path) if rec.data is not None)
        best = min(best, time.perf_counter() - t0)
    return best, count


def test_a_json_array_reads_in_linear_time(tmp_path):
    # Issue 20: the old reader counted the newlines from the start of the text for every record (10 MB: 34 s).
    # Eight times the records must take well under 8 x 8 = 64 times as long; the bound leaves room for a loaded
    # machine (the best of three reads is taken) while a quadratic reader needs about 50 times as long.
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    small.write_text(json.dumps([bkt(i) for i in range(2000)], ensure_ascii=False, indent=1), "utf-8")
    big.write_text(json.dumps([bkt(i) for i in range(16000)], ensure_ascii=False, indent=1), "utf-8")
    t_small, n_small = _read_seconds(small)
    t_big, n_big = _read_seconds(big)
    assert (n_small, n_big) == (2000, 16000)
    assert t_big / t_small < 20, (t_small, t_big)


def test_json_records_keep_their_start_lines_and_survive_a_syntax_error(tmp_path, suite):
    records = [bkt(i) for i in range(6)]
    records[2]["reference"] = "Z"  # invalid: the problem names the line where this record starts
    text = json.dumps(records, ensure_ascii=False, indent=2)
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines, start=1) if line == "  {"]
    broken = "\n".join(lines[: starts[4] - 1]) + '\n  {"id": "q4", oops}\n]\n'  # records 0-3 then a broken one
    p = tmp_path / "BKT.json"
    p.write_text(broken, "utf-8")
    report = load_items(p, suite)
    assert [i.id for i in report.items] == ["q0", "q1", "q3"]
    assert [i.line for i in report.items] == [starts[0], starts[1], starts[3]]
    assert [(x.line, x.field) for x in report.problems] == [(starts[2], "reference"), (starts[4], None)]
    with pytest.raises(json.JSONDecodeError) as python:
        json.loads(broken)
    assert python.value.lineno == starts[4]
    assert report.problems[1].reason == f"not valid JSON ({python.value.msg} at column {python.value.colno})"


def test_records_keyed_by_id_stream_with_their_lines(tmp_path):
    # PubMedQA's ori_pqal.json: {pmid: {...}, ...}.
    suite = load_suite("clinicbench")
    keyed = {str(1000 + i): {"QUESTION": f"Does drug {i} work?", "CONTEXTS": [f"Context {i}."],
                             "final_decision": ["yes", "no", "maybe"][i % 3]} for i in range(5)}
    keyed["1003"]["final_decision"] = "perhaps"
    text = json.dumps(keyed, indent=1)
    p = tmp_path / "PubMedQA" / "ori_pqal.json"
    p.parent.mkdir()
    p.write_text(text, "utf-8")
    report = load_items(p, suite)
    line_of = {k: n for n, line in enumerate(text.splitlines(), start=1) for k in keyed if line == f' "{k}": {{'}
    assert [(i.id, i.line) for i in report.items] == [(k, line_of[k]) for k in keyed if k != "1003"]
    assert [(x.line, x.id) for x in report.problems] == [(line_of["1003"], "1003")]


# -- encodings -------------------------------------------------------------------------------------------------

def _convert_as_told(reason: str, cwd: Path) -> None:
    """Run the iconv command the message gives, as a user would paste it."""
    command = re.search(r"`(iconv [^`]+)`", reason)
    assert command is not None, reason
    subprocess.run(["bash", "-c", command.group(1)], cwd=cwd, check=True, timeout=60)


@pytest.mark.parametrize(("name", "encoding", "told"), [
    ("BKT.jsonl", "gb18030", "GB18030"), ("BKT.csv", "gbk", "GB18030"), ("BKT.jsonl", "utf-16", "UTF-16"),
    ("BKT.json", "utf-16-le", "UTF-16LE"),
])
def test_a_file_in_another_encoding_gets_one_line_with_the_encoding_and_the_command(tmp_path, suite, monkeypatch,
                                                                                      name, encoding, told):
    records = [bkt(i) for i in range(8)]
    text = {"BKT.jsonl": jsonl_text, "BKT.csv": csv_text, "BKT.json": lambda r: json.dumps(r, ensure_ascii=False,
                                                                                           indent=1)}[name](records)
    raw = text.encode(encoding)
    (tmp_path / name).write_bytes(raw)
    with pytest.raises(UnicodeDecodeError) as bad:
        raw.decode("utf-8")
    first_bad = bad.value.start
    monkeypatch.chdir(tmp_path)
    report = load_items(Path(name), suite)
    assert report.items == []
    assert len(report.problems) == 1
    problem = report.problems[0]
    assert problem.line == raw[:first_bad].count(b"\n") + 1
    assert f"first bad byte 0x{raw[first_bad]:02x} at line {problem.line}, byte offset {first_bad}" in problem.reason
    assert f"it reads as {told}" in problem.reason
    assert f"iconv -f {told} -t UTF-8 {name} >" in problem.reason
    assert "\n" not in str(problem)
    _convert_as_told(problem.reason, tmp_path)
    converted = load_items(tmp_path / name.replace(".", ".utf8."), suite)
    assert converted.problems == []
    assert [(i.id, i.input) for i in converted.items] == [(r["id"], r["input"]) for r in records]


@pytest.mark.parametrize("name", ["BKT.jsonl", "BKT.json", "BKT.csv"])
def test_one_bad_byte_names_its_line_and_the_other_records_are_read(tmp_path, suite, name):
    records = [bkt(i) for i in range(10)]
    text = {"BKT.jsonl": jsonl_text, "BKT.csv": csv_text,
            "BKT.json": lambda r: json.dumps(r, ensure_ascii=False, indent=1)}[name](records)
    raw = text.encode("utf-8")
    at = raw.index("甲6".encode())  # inside record q6
    raw = raw[:at] + b"\xff" + raw[at + 1:]  # one byte of 甲 damaged
    p = tmp_path / name
    p.write_bytes(raw)
    report = load_items(p, suite)
    assert [i.id for i in report.items] == [r["id"] for r in records if r["id"] != "q6"]
    assert len(report.problems) == 1
    problem = report.problems[0]
    line_start = raw.rfind(b"\n", 0, at) + 1
    assert problem.line == raw[:at].count(b"\n") + 1
    assert f"byte 0xff at column {at - line_start + 1} (byte offset {at})" in problem.reason
    assert "not UTF-8" in problem.reason and "other records are read" in problem.reason


# -- a table lacking a column ----------------------------------------------------------------------------------

def _write_table(path: Path, header: list[str], rows: list[list[str]]) -> None:
    if path.suffix == ".xlsx":
        import openpyxl

        wb = openpyxl.Workbook()
        ws = wb.active
        for row in [header, *rows]:
            ws.append(row)
        wb.save(path)
        return
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter="\t" if path.suffix == ".tsv" else ",").writerows([header, *rows])


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".xlsx"])
def test_a_table_lacking_a_required_column_is_one_error(tmp_path, suffix):
    suite = load_suite("clinicbench")
    header = ["id", "query", "options", "answer_idx"]  # 'question' misspelt
    rows = [[f"m{i}", f"Which drug {i}?", json.dumps({"A": "x", "B": "y", "C": "z", "D": "w"}), "B"]
            for i in range(40)]
    p = tmp_path / "MedQA" / f"test{suffix}"
    p.parent.mkdir()
    _write_table(p, header, rows)
    report = load_items(p, suite)
    assert report.items == []
    assert len(report.problems) == 1
    assert str(report.problems[0]).startswith(
        f"{p}: no column 'question' or 'sent1' (columns: {', '.join(header)}); {len(rows)} row(s) unread")
    # With the column, every row reads (the error was the header's, nothing else).
    header[1] = "question"
    _write_table(p, header, rows)
    fixed = load_items(p, suite)
    assert fixed.problems == [] and len(fixed.items) == len(rows)


def test_a_loader_reading_its_own_format_gets_the_same_message(tmp_path):
    # The IOB loader opens its .txt files itself: a UTF-16 file raised UnicodeDecodeError out of load_items.
    suite = load_suite("clinicbench")
    d = tmp_path / "NCBI-disease"
    d.mkdir()
    text = "Hereditary\tB\ncolorectal\tI\ncancer\tI\nis\tO\nrare\tO\n\nThe\tO\ngene\tO\n"
    (d / "test.txt").write_bytes(text.encode("utf-16"))
    report = load_items(tmp_path, suite)
    assert report.items == []
    assert len(report.problems) == 1
    assert str(report.problems[0]).startswith(f"{d / 'test.txt'}:1: not UTF-8 text (first bad byte 0xff at line 1, "
                                              "byte offset 0); it reads as UTF-16")
    _convert_as_told(report.problems[0].reason, tmp_path)
    (d / "test.txt").unlink()
    converted = load_items(tmp_path, suite)
    assert converted.problems == [] and [i.targets for i in converted.items] == [["Hereditary colorectal cancer"], []]
