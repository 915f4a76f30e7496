import json

import pytest

from climedbench.data.loaders import load_items
from climedbench.errors import DataError

GOOD = {"scenario": "ID#1", "input": "## 入院情况: 腰痛\n## 选项: A: MRI\nB: CT\nC: 体检\nD: 肠镜", "reference": "B"}


def test_jsonl_reports_file_line_field(tmp_path, suite):
    p = tmp_path / "mine.jsonl"
    lines = [json.dumps(GOOD | {"id": "1"}, ensure_ascii=False), "",
             "{not json", json.dumps(GOOD | {"id": "2", "reference": "F"}, ensure_ascii=False),
             json.dumps(GOOD | {"id": "3", "scenario": "NOPE"}), json.dumps(GOOD | {"id": "1"}), "[1, 2]",
             '{"id": "4", "question": "q"']
    p.write_text("\n".join(lines) + "\n", "utf-8")
    report = load_items(p, suite)
    assert [i.id for i in report.items] == ["1"]
    probs = [(x.line, x.field) for x in report.problems]
    assert probs == [(3, None), (4, "reference"), (5, "scenario"), (6, "id"), (7, None), (8, None)]
    assert "not valid JSON" in report.problems[0].reason
    # A record cut short: the column of the end of its line, not column 1 of the next.
    assert report.problems[5].reason == "not valid JSON (Expecting ',' delimiter at column 28)"
    assert "unknown task 'NOPE'" in report.problems[2].reason
    assert "duplicate id '1'" in report.problems[3].reason and "mine.jsonl:1" in report.problems[3].reason
    assert report.as_json(suite) == {
        "suite": "climedbench",
        "valid": {"ID#1": 1},
        "splits": {"ID#1": {"test": 1}},
        "invalid": [{"file": str(p), "line": x.line, "field": x.field, "reason": x.reason, "task": x.task}
                    for x in report.problems],
    }
    assert [x.task for x in report.problems] == [None, "ID#1", None, "ID#1", None, None]
    with pytest.raises(DataError, match=r"(?s)6 invalid record\(s\).*mine.jsonl:4: field 'reference'"):
        report.raise_if_invalid()


def test_json_array_lines_and_scenario_keyed_objects(tmp_path, suite):
    p = tmp_path / "items.json"
    p.write_text("[\n  " + json.dumps(GOOD | {"id": "a"}) + ",\n\n  " + json.dumps(GOOD | {"id": "b", "input": ""})
                 + "\n]\n", "utf-8")
    r = load_items(p, suite)
    assert [i.id for i in r.items] == ["a"] and (r.problems[0].line, r.problems[0].field) == (4, "input")
    q = tmp_path / "by_scenario.json"
    rec = {k: v for k, v in GOOD.items() if k != "scenario"}
    q.write_text(json.dumps({"BKT": [rec | {"id": "x", "reference": "D"}], "ID1": [rec]}, indent=1), "utf-8")
    r2 = load_items(q, suite)
    assert sorted(i.task for i in r2.items) == ["BKT", "ID#1"]


def test_csv_with_multiline_fields_and_scenario_from_file_name(tmp_path, suite):
    p = tmp_path / "BKT.csv"
    p.write_text('id,input,reference\n1,"## 问题: 补体\n## 选项: A. 甲\nB. 乙\nC. 丙",C\n2,"## 问题: x",A\n', "utf-8")
    r = load_items(p, suite)
    assert [i.task for i in r.items] == ["BKT"]
    assert (r.problems[0].line, r.problems[0].field) == (6, "input")  # the record on line 6 (the first spans lines 2-5)


def test_directory_and_bad_paths(tmp_path, suite):
    (tmp_path / "ID1.test.jsonl").write_text(json.dumps({k: v for k, v in GOOD.items() if k != "scenario"}) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    assert load_items(tmp_path, suite).valid_counts() == {"ID#1": 1}
    with pytest.raises(DataError, match="no such file or folder"):
        load_items(tmp_path / "nope.jsonl", suite)
    bad = tmp_path / "x.docx"
    bad.write_text("x")
    with pytest.raises(DataError, match="unsupported file type"):
        load_items(bad, suite)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes("{\"input\": \"caf\xe9\"}".encode("latin-1"))
    assert "not UTF-8" in load_items(latin, suite).problems[0].reason
