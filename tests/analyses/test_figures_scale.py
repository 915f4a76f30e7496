"""Analysis figures on the metric's whole ×100 scale with their intervals, and the mark for unreadable answers
(issue 24 part 5), on run directories written from constructed samples."""

import json

import matplotlib
import pytest
from matplotlib.collections import PolyCollection
from scipy import stats

from climedbench.analyses.compare import analyze_compare, analyze_ranks
from climedbench.analyses.cot import analyze_cot
from climedbench.analyses.instruction import analyze_instruction
from climedbench.analyses.length import analyze_length
from climedbench.analyses.nota import analyze_nota
from climedbench.analyses.robustness import analyze_robustness
from climedbench.analyses.runs import load_run
from tests.analyses.runs import make_run
from tests.support.cli import run_cli

matplotlib.use("Agg")
BKT = [f"BKT-{k:03d}" for k in range(1, 5)]
FTT = [f"FTT-{k:03d}" for k in range(1, 5)]
UNREADABLE = {"score": 0.0, "extracted": None, "extraction_failure": True, "raw": "### 问题分析\n本题考查"}


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def rows(task, ids, correct=(), unreadable=()):
    """Items of one task: those in `correct` right, those in `unreadable` with no readable answer, the rest wrong."""
    out = []
    for k, i in enumerate(ids):
        r = {"task": task, "id": i, "score": 1.0 if k in correct else 0.0, "input_chars": 100 + 37 * k}
        if k in unreadable:
            r.update(UNREADABLE)
        out.append(r)
    return out


def jeffreys(x, n):
    """The Jeffreys 95% interval ×100 (0 and n successes take the one-sided end), from scipy.stats directly."""
    lo = 0.0 if x == 0 else stats.beta.ppf(0.025, x + 0.5, n - x + 0.5)
    hi = 1.0 if x == n else stats.beta.ppf(0.975, x + 0.5, n - x + 0.5)
    return 100 * lo, 100 * hi


def whiskers(ax):
    """(lower, upper) of every bar's error bar, series by series, from the axes' containers."""
    out = []
    for c in ax.containers:
        if getattr(c, "errorbar", None) is None:
            continue
        segments = c.errorbar.lines[2][0].get_segments()
        out.append([(round(s[0][1], 2), round(s[1][1], 2)) for s in segments])
    return out


def run(tmp_path, name, rows_, **kw):
    return load_run(make_run(tmp_path / name, rows_, **kw))


def test_all_wrong_runs_are_drawn_on_0_to_100_with_intervals(tmp_path):
    # The case: every answer wrong, so every score is 0 and only the axis and intervals tell the story.
    clean = run(tmp_path, "clean", rows("BKT", BKT) + rows("FTT", FTT))
    glyph = run(tmp_path, "glyph", rows("BKT", BKT) + rows("FTT", FTT))
    record, fig = analyze_robustness(clean, [glyph], replicates=200)
    bars, diffs = fig.axes
    assert bars.get_ylim() == (0.0, 100.0)
    expected = [pytest.approx(jeffreys(0, 4), abs=0.01)] * 2
    assert whiskers(bars) == [expected, expected]  # clean and perturbed, BKT and FTT, each with its interval
    assert diffs.get_xlim() == (-100.0, 100.0)

    record, fig = analyze_length([clean], segments=2)
    (ax,) = fig.axes
    assert ax.get_ylim() == (0.0, 100.0)
    (band,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    table = [dict(zip(record.table.columns, r, strict=True)) for r in record.table.rows]
    ys = band.get_paths()[0].vertices[:, 1]
    assert min(ys) == pytest.approx(min(r["lower"] for r in table), abs=0.01)
    assert max(ys) == pytest.approx(max(r["upper"] for r in table), abs=0.01) and max(ys) > 0


def test_cot_and_nota_bars_carry_each_runs_interval(tmp_path):
    vanilla = run(tmp_path, "v", rows("BKT", BKT, correct=range(1)))
    cot = run(tmp_path, "c", rows("BKT", BKT, correct=range(3)), variant="cot")
    _, fig = analyze_cot(vanilla, cot, replicates=200)
    bars = fig.axes[0]
    assert bars.get_ylim() == (0.0, 100.0)
    assert whiskers(bars) == [[pytest.approx(jeffreys(1, 4), abs=0.01)], [pytest.approx(jeffreys(3, 4), abs=0.01)]]
    assert fig.axes[1].get_xlim() == (-100.0, 100.0)
    nota = run(tmp_path, "n", rows("BKT", BKT, correct=range(2)))
    _, fig = analyze_nota(vanilla, nota, replicates=200)
    assert fig.axes[0].get_ylim() == (0.0, 100.0)
    assert whiskers(fig.axes[0]) == [[pytest.approx(jeffreys(1, 4), abs=0.01)],
                                     [pytest.approx(jeffreys(2, 4), abs=0.01)]]


def test_a_signed_metric_is_drawn_on_minus_100_to_100(tmp_path):
    # SSO is scored by Kendall's τ in [−1, 1]: its whole scale is −100…100.
    sso = [{"task": "SSO", "id": f"SSO-{k:03d}", "score": s, "input_chars": 100 + k}
           for k, s in enumerate([0.2, -0.4, 0.0, 0.6], start=1)]
    a, b = run(tmp_path, "a", sso), run(tmp_path, "b", sso)
    _, fig = analyze_robustness(a, [b], replicates=200)
    assert fig.axes[0].get_ylim() == (-100.0, 100.0)
    _, fig = analyze_length([a], segments=2)
    assert fig.axes[0].get_ylim() == (-100.0, 100.0)


def figure_text(fig):
    return "\n".join(t.get_text() for t in fig.texts)


def every_analysis(tmp_path, unreadable):
    """Each analysis over a vanilla run with `unreadable` BKT items and clean other runs."""
    v = run(tmp_path, "vanilla", rows("BKT", BKT, correct=range(2, 3), unreadable=unreadable) + rows("FTT", FTT))
    c = run(tmp_path, "cot", rows("BKT", BKT, correct=range(2)) + rows("FTT", FTT), variant="cot")
    p = run(tmp_path, "glyph", rows("BKT", BKT, correct=range(1)) + rows("FTT", FTT))
    n = run(tmp_path, "nota", rows("BKT", BKT) + rows("FTT", FTT))
    other = run(tmp_path, "other", rows("BKT", BKT, correct=range(4)) + rows("FTT", FTT), model="o")
    return {"cot": analyze_cot(v, c, replicates=200), "length": analyze_length([v], segments=2),
            "robustness": analyze_robustness(v, [p], replicates=200), "nota": analyze_nota(v, n, replicates=200),
            "instruction": analyze_instruction([v, c]), "compare": analyze_compare([v, other], replicates=200),
            "ranks": analyze_ranks([v, other], replicates=200)}


def test_unreadable_answers_are_marked_on_table_and_figure(tmp_path):
    for kind, (record, fig) in every_analysis(tmp_path, unreadable=(0, 1)).items():
        # Only the vanilla run's BKT items 1 and 2 have no readable answer; nota leaves out FTT (its correct
        # options already say none of the above), so it counts BKT only.
        n = 4 if kind == "nota" else 8
        assert record.data["unreadable"]["vanilla"] == {"unreadable": 2, "n": n}, kind
        note = record.notes[0]
        assert note.startswith(f"2 of {n * (1 if kind in ('length',) else 2)} answers unreadable (vanilla 2 of {n})"), \
            (kind, note)
        assert "answers unreadable (vanilla 2 of" in figure_text(fig), kind


def test_no_mark_when_every_answer_was_read(tmp_path):
    for kind, (record, fig) in every_analysis(tmp_path, unreadable=()).items():
        assert all(c["unreadable"] == 0 for c in record.data["unreadable"].values()), kind
        assert not any("unreadable" in note for note in record.notes), kind
        assert figure_text(fig) == "", kind


def test_the_printed_table_says_how_many_answers_were_unreadable(tmp_path):
    clean = make_run(tmp_path / "clean", rows("BKT", BKT, unreadable=(0, 1, 2)))
    glyph = make_run(tmp_path / "glyph", rows("BKT", BKT))
    out = tmp_path / "out"
    proc = run_cli("analyze", "robustness", str(clean), str(glyph), "--out", str(out))
    assert "3 of 8 answers unreadable (clean 3 of 4)" in " ".join(proc.stdout.split())
    assert "answers unreadable (clean 3 of 4)" in (out / "robustness.svg").read_text(encoding="utf-8")
    saved = json.loads((out / "robustness.json").read_text(encoding="utf-8"))
    assert saved["data"]["unreadable"] == {"clean": {"unreadable": 3, "n": 4}, "glyph": {"unreadable": 0, "n": 4}}
