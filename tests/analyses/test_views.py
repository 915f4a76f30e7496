"""Length, instruction following, validity, toxicity, none-of-the-above and robustness on constructed runs."""

import json

import pytest

from climedbench.analyses.instruction import analyze_instruction
from climedbench.analyses.length import analyze_length
from climedbench.analyses.nota import analyze_nota, is_nota
from climedbench.analyses.robustness import analyze_robustness
from climedbench.analyses.runs import load_run
from climedbench.analyses.toxicity import analyze_toxicity
from climedbench.analyses.validity import analyze_validity, read_leaderboard, validity
from climedbench.core.suite import load_suite
from climedbench.errors import ConfigError, DataError
from climedbench.perturb import perturb_data
from climedbench.perturb.nota import nota_data
from tests.analyses.runs import make_run

BKT = [f"BKT-{k:03d}" for k in range(1, 41)]


def test_length_segments_and_falling_trend(tmp_path):
    # 40 items: input length grows with the index, and the longer half is answered wrongly.
    rows = [{"task": "BKT", "id": i, "score": 1.0 if k < 20 else 0.0, "input_chars": 100 * (k + 1)}
            for k, i in enumerate(BKT)]
    run = load_run(make_run(tmp_path / "r", rows, model="m"))
    flat = load_run(make_run(tmp_path / "f", [{**r, "score": 1.0} for r in rows], model="n"))
    record, _ = analyze_length([run, flat], segments=4, groups={"r": "general", "f": "medical"})
    table = [dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows]
    mine = [r for r in table if r["model"] == "m"]
    assert [r["n"] for r in mine] == [10, 10, 10, 10]
    assert [r["score"] for r in mine] == [100.0, 100.0, 0.0, 0.0]
    assert (mine[0]["chars_min"], mine[0]["chars_max"], mine[3]["chars_max"]) == (100, 1000, 4000)
    trend = record.data["trends"]["m"]
    assert trend["pooled"]["slope"] < 0 and trend["pooled"]["upper"] < 0 and trend["pooled"]["n"] == 40
    assert record.data["group_curves"] == {"general": [100.0, 100.0, 0.0, 0.0], "medical": [100.0] * 4}
    with pytest.raises(ConfigError, match="cannot fill 50 length segments"):
        analyze_length([run], segments=50)


def test_instruction_following_shares(tmp_path):
    rows = []
    for k, i in enumerate(BKT[:10]):
        rows.append({"task": "BKT", "id": i, "score": 0.0, "flags": {"follows_format": k < 6},
                     "extraction_failure": k >= 8, "extracted": None if k >= 8 else "A"})
    rows.append({"task": "BKT", "id": BKT[10], "score": 0.0, "error": "timeout"})
    record, _ = analyze_instruction([load_run(make_run(tmp_path / "r", rows, model="m"))])
    (row,) = [dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows]
    assert row["n"] == 10 and row["follows_format"] == 60.0 and row["fallback"] == 20.0 and row["no_answer"] == 20.0
    assert row["ff_lower"] < 60 < row["ff_upper"] and row["na_lower"] < 20 < row["na_upper"]


def write_csv(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows]) + "\n")
    return path


def test_validity_json_shape_matching_and_errors(tmp_path):
    ours = write_csv(tmp_path / "ours.csv", ["model", "overall", "QA"],
                     [["GPT-4", 68.5, 80], ["Qwen", 69.0, 70], ["ERNIE-Bot", 69.2, 75], ["ChatGLM3", 50.2, 60],
                      ["Baichuan", 41.9, 40], ["OnlyOurs", 10, 10]])
    other = write_csv(tmp_path / "other.csv", ["model", "overall", "Extra"],
                      [["gpt 4", 70, 1], ["qwen", 71, 2], ["ernie_bot", 72, 3], ["chatglm3", 50, 4],
                       ["baichuan", 45, 5], ["OnlyTheirs", 1, 6]])
    result = validity(read_leaderboard(ours), read_leaderboard(other), replicates=300)
    assert set(result) == {"overall", "unmatched"}
    assert set(result["overall"]) == {"spearman", "kendall", "lower", "upper", "n"}
    assert result["overall"]["n"] == 5 and result["overall"]["spearman"] == 1.0 and result["overall"]["kendall"] == 1.0
    assert result["unmatched"] == ["OnlyOurs", "OnlyTheirs"]
    bad = write_csv(tmp_path / "bad.csv", ["model", "overall"], [["a", 1], ["b", "high"]])
    with pytest.raises(DataError, match=r"bad.csv:3: field 'overall': 'high' is not a number"):
        analyze_validity(bad, other)


def test_validity_reads_our_leaderboard_json(tmp_path):
    ours = tmp_path / "ours.json"
    ours.write_text(json.dumps({m: {"tasks": {"BKT": {"score": s}}, "overall": {"score": s}}
                                for m, s in [("a", 10), ("b", 20), ("c", 30), ("d", 40)]}))
    other = write_csv(tmp_path / "o.csv", ["model", "overall", "BKT"], [["a", 4, 1], ["b", 3, 2], ["c", 2, 3],
                                                                         ["d", 1, 4]])
    record, result, _ = analyze_validity(ours, other)
    assert result["overall"]["spearman"] == -1.0 and result["BKT"]["spearman"] == 1.0
    assert [r[0] for r in record.table.rows] == ["BKT", "overall"]


def test_toxicity_counts_kinds_of_wrong_answers(tmp_path):
    data = tmp_path / "data" / "MC.test.jsonl"
    data.parent.mkdir()
    labels = {"A": "correct", "B": "harmful", "C": "over_cautious", "D": "harmful"}
    data.write_text("".join(json.dumps({"id": f"MC-{k}", "input": "## 问题: 发热患者饮酒后用药？\n## 选项: A. 甲 B. 乙 C. 丙 D. 丁",
                                        "reference": "A", "option_labels": labels}, ensure_ascii=False) + "\n"
                            for k in range(10)))
    picks = ["A", "A", "B", "B", "B", "C", "D", None, "A", "C"]
    rows = [{"task": "MC", "id": f"MC-{k}", "score": float(p == "A"), "extracted": p,
             "extraction_failure": p is None} for k, p in enumerate(picks)]
    record, _ = analyze_toxicity([load_run(make_run(tmp_path / "r", rows, data=str(data.parent)))])
    (row,) = [dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows]
    assert (row["n"], row["correct"], row["harmful"], row["over_cautious"], row["no_answer"]) == (10, 30.0, 40.0,
                                                                                                 20.0, 10.0)
    assert row["harmful_of_wrong"] == pytest.approx(66.7)
    data.write_text(json.dumps({"id": "MC-0", "input": "## 问题: 问？\n## 选项: A. 甲 B. 乙", "reference": "A",
                                "option_labels": {"A": "correct", "B": "dangerous"}}, ensure_ascii=False) + "\n")
    with pytest.raises(DataError, match=r"MC.test.jsonl:1: field 'option_labels': option B: 'dangerous'"):
        analyze_toxicity([load_run(make_run(tmp_path / "r2", rows[:1], data=str(data.parent)))])


def test_nota_analysis_leaves_out_items_already_none_of_the_above(tmp_path):
    suite = load_suite()
    folder = tmp_path / "nota"
    nota_data(None, folder, suite)
    ftt = [f"FTT-{k:03d}" for k in range(1, 11)]
    bkt = BKT[:10]
    orig = [{"task": "BKT", "id": i, "score": 1.0, "extracted": "A"} for i in bkt] + \
           [{"task": "FTT", "id": i, "score": 1.0, "extracted": "E"} for i in ftt]
    after = [{"task": "BKT", "id": i, "score": float(k < 3), "extracted": "A" if k < 8 else None}
             for k, i in enumerate(bkt)] + [{"task": "FTT", "id": i, "score": 1.0, "extracted": "E"} for i in ftt]
    record, _ = analyze_nota(load_run(make_run(tmp_path / "o", orig)),
                             load_run(make_run(tmp_path / "n", after, data=str(folder))))
    table = {r[0]: dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows}
    assert list(table) == ["BKT"]  # FTT's correct option already said 以上均不对
    assert table["BKT"]["original"] == 100.0 and table["BKT"]["none_of_the_above"] == 30.0
    assert table["BKT"]["picked_other_option_pct"] == 50.0
    assert record.data["already_none_of_the_above"]["FTT"] == 10
    assert is_nota("以上均不对") and is_nota("None of the above is correct") and not is_nota("以上症状均可见于本病")


def test_robustness_labels_by_manifest(tmp_path):
    folder = tmp_path / "glyph"
    perturb_data(None, folder, load_suite(), kind="glyph", rate=0.12, seed=3)
    clean = [{"task": "BKT", "id": i, "score": 1.0} for i in BKT[:20]]
    noisy = [{"task": "BKT", "id": i, "score": float(k % 2)} for k, i in enumerate(BKT[:20])]
    record, _ = analyze_robustness(load_run(make_run(tmp_path / "c", clean)),
                                   [load_run(make_run(tmp_path / "p", noisy, data=str(folder)))])
    (row,) = [dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows]
    assert row["perturbation"] == "glyph 12%" and row["difference"] == -50.0 and row["test"] == "McNemar exact"
    assert row["p"] == pytest.approx(2 * 0.5**10, rel=0.01)  # 3 significant digits in the table
    assert record.data["perturbations"]["glyph 12%"]["seed"] == 3
