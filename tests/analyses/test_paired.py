"""Paired comparisons, CoT, compare and ranks on constructed runs."""

import math

import pytest
from scipy import stats

from climedbench.analyses.compare import analyze_compare, analyze_ranks
from climedbench.analyses.cot import analyze_cot
from climedbench.analyses.paired import paired_comparison
from climedbench.analyses.runs import load_run
from climedbench.errors import ConfigError
from tests.analyses.runs import make_run

BKT = [f"BKT-{k:03d}" for k in range(1, 31)]
FTT = [f"FTT-{k:03d}" for k in range(1, 31)]
CPR = [f"CPR-{k:03d}" for k in range(1, 21)]


def rows(task, ids, correct, *, extra=None):
    out = []
    for k, i in enumerate(ids):
        r = {"task": task, "id": i, "score": 1.0 if k in correct else 0.0}
        r.update((extra or {}).get(i, {}))
        out.append(r)
    return out


@pytest.fixture
def pair(tmp_path):
    # BKT: A right on 0–9, B on 0–19 (10 discordant pairs, all for B); FTT: both right on the same 15.
    a = make_run(tmp_path / "a", rows("BKT", BKT, range(10)) + rows("FTT", FTT, range(15)), model="alpha")
    b = make_run(tmp_path / "b", rows("BKT", BKT, range(20)) + rows("FTT", FTT, range(15)), model="beta")
    return load_run(a), load_run(b)


def test_mcnemar_difference_interval_and_holm(pair):
    a, b = pair
    result, _ = paired_comparison(a, b, seed=1, replicates=1000)
    by = {r.key: r for r in result}
    bkt = by["BKT"]
    assert (bkt.n, bkt.a, bkt.b, bkt.difference) == (30, pytest.approx(33.33), pytest.approx(66.67),
                                                      pytest.approx(33.33))
    assert bkt.test == "McNemar exact" and (bkt.a_only, bkt.b_only) == (0, 10)
    assert bkt.p == pytest.approx(2 * 0.5**10)
    assert 10 < bkt.lower < 33.33 < bkt.upper < 60
    assert by["FTT"].difference == 0 and by["FTT"].p == 1.0
    # Holm over BKT, FTT, the hallucination group (FTT alone: not repeated) and overall.
    assert [r.key for r in result] == ["BKT", "FTT", "overall"]
    assert by["overall"].difference == pytest.approx(16.67)
    smallest = min(r.p for r in result)
    assert min(r.p_holm for r in result) == pytest.approx(min(1.0, 3 * smallest))
    assert bkt.verdict("alpha", "beta") == "beta better" and by["FTT"].verdict() == "not separated"


def test_graded_scores_use_wilcoxon_and_errors_are_left_out(tmp_path):
    a_rows = [{"task": "CPR", "id": i, "score": 0.2} for i in CPR]
    b_rows = [{"task": "CPR", "id": i, "score": 0.6} for i in CPR]
    b_rows[0]["error"] = "HTTP 500"
    a = load_run(make_run(tmp_path / "a", a_rows))
    b = load_run(make_run(tmp_path / "b", b_rows))
    (row,), _ = paired_comparison(a, b, replicates=40000)
    assert row.test == "Wilcoxon signed-rank" and row.n == 19 and row.dropped == 1
    assert row.difference == pytest.approx(40.0)
    # Nineteen identical differences do not make a zero-width interval: the shrunk-t interval of the differences on
    # τ's range [-2, 2] (rescaled to [0, 1]: every value 0.6), derived here by hand from its definition.
    n, y = 19, 0.6
    m_adj = (n * y + 0.5) / (n + 1)
    se = math.sqrt((2 * m_adj * (1 - m_adj)) / (n - 1 + 2) / n)
    half = 400 * stats.t.ppf(0.975, n + 1) * se  # ×4 back to τ, ×100 to points
    assert row.lower == pytest.approx(40 - half, abs=1.0) and row.upper == pytest.approx(40 + half, abs=1.0)
    assert 0 < row.lower < 40 < row.upper
    assert row.p < 0.001


def test_no_paired_interval_is_falsely_certain_with_few_items(tmp_path):
    # Two items, both wrong in both runs: the difference is 0 but the data cannot rule out ±several points.
    a = load_run(make_run(tmp_path / "a", rows("BKT", BKT[:2], [])))
    b = load_run(make_run(tmp_path / "b", rows("BKT", BKT[:2], [])))
    (row,), _ = paired_comparison(a, b, replicates=2000, seed=3)
    assert row.difference == 0 and row.lower < -10 and row.upper > 10


def test_cot_analysis_table_prompt_lengths_and_order(tmp_path):
    ids = BKT[:6]
    v = load_run(make_run(tmp_path / "v", rows("BKT", ids, range(2)), model="m"))
    c = load_run(make_run(tmp_path / "c", rows("BKT", ids, range(4)), variant="cot", model="m"))
    record, fig = analyze_cot(v, c, replicates=200)
    assert record.table.columns[:10] == ["task", "n", "vanilla", "cot", "difference", "lower", "upper", "p",
                                         "p_holm", "test"]
    row = dict(zip(record.table.columns, record.table.rows[0], strict=True))
    assert row["task"] == "BKT" and row["n"] == 6 and row["difference"] == pytest.approx(33.33)
    # Prompt lengths are rebuilt from the bundled items: the CoT instruction is the longer one.
    assert row["prompt_ratio"] > 1 and record.data["prompt_unit"] == "characters"
    assert any("Few items in BKT (n=6)" in n for n in record.notes)
    assert fig is not None
    with pytest.raises(ConfigError, match="give the vanilla run first"):
        analyze_cot(c, v)
    with pytest.raises(ConfigError, match="both use the 'vanilla' prompt"):
        analyze_cot(v, v)


def test_compare_verdicts_and_ranks(tmp_path):
    a = load_run(make_run(tmp_path / "a", rows("BKT", BKT, range(5)), model="weak"))
    b = load_run(make_run(tmp_path / "b", rows("BKT", BKT, range(25)), model="strong"))
    c = load_run(make_run(tmp_path / "c", rows("BKT", BKT, range(24)), model="close"))
    record, _ = analyze_compare([a, b, c], replicates=500)
    verdicts = {(r[0], r[1]): r[-1] for r in record.table.rows}
    assert verdicts[("weak", "strong")] == "strong better"
    assert verdicts[("weak", "close")] == "close better"
    assert verdicts[("strong", "close")] == "not separated"
    ranks, _ = analyze_ranks([a, b, c], replicates=500)
    table = {r[0]: dict(zip(ranks.table.columns, r, strict=True)) for r in ranks.table.rows}
    assert [r[0] for r in ranks.table.rows] == ["strong", "close", "weak"]
    assert (table["weak"]["rank_lower"], table["weak"]["rank_upper"]) == (3, 3)
    # strong is right on a superset of close's items: in a resample it is ahead or tied (ties share rank 1).
    assert (table["strong"]["rank_lower"], table["strong"]["rank_upper"]) == (1, 1)
    assert (table["close"]["rank_lower"], table["close"]["rank_upper"]) == (1, 2)


def test_runs_sharing_no_items_are_refused(tmp_path):
    a = load_run(make_run(tmp_path / "a", rows("BKT", BKT[:3], range(1))))
    b = load_run(make_run(tmp_path / "b", rows("FTT", FTT[:3], range(1))))
    with pytest.raises(ConfigError, match="share no answered items"):
        analyze_compare([a, b])
