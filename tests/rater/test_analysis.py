"""Agreement statistics, checked against published values and reference implementations (the `krippendorff`
package on its raw-matrix path, scikit-learn's cohen_kappa_score, scipy's spearmanr)."""

import math

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from climedbench.apps.rater.analysis import (
    agreement,
    agreement_json,
    group_means,
    human_vs_auto,
    krippendorff_alpha,
    pair_kappas,
    weighted_kappa,
)
from climedbench.apps.rater.export import ratings_csv, read_ratings_csv
from climedbench.apps.rater.rubric import load_rubric
from climedbench.core.types import Rating
from climedbench.errors import DataError

NA = None
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the worked example: 4 observers, 12 units.
# Published: nominal 0.743, ordinal 0.815, interval 0.849.
EXAMPLE = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    "C": [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
}


def ratings_of(matrix: dict[str, list], aspect: str = "x") -> list[Rating]:
    return [Rating(item=f"u{k}", rater=r, aspect=aspect, score=v) for r, row in matrix.items()
            for k, v in enumerate(row) if v is not None]


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_alpha_reproduces_krippendorffs_worked_example(level, published):
    a = krippendorff_alpha(ratings_of(EXAMPLE), [1, 2, 3, 4, 5], level, replicates=200, seed=0)
    assert round(a.alpha, 3) == published
    assert a.n_items == 11  # unit 12 has a single value and cannot be paired
    assert a.n_raters == 4 and a.n_ratings == 40
    assert a.lower < a.alpha < a.upper <= 1


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_the_krippendorff_package_on_raw_matrices_with_missing_ratings(level):
    import krippendorff

    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, 40)
    matrix = {}
    for r in range(5):
        row = np.clip(truth + rng.integers(-1, 2, 40), 1, 5).astype(float)
        row[rng.random(40) < 0.3] = np.nan
        matrix[f"r{r}"] = [None if math.isnan(v) else int(v) for v in row]
    ours = krippendorff_alpha(ratings_of(matrix), [1, 2, 3, 4, 5], level, replicates=0).alpha
    reference = krippendorff.alpha(
        reliability_data=[[np.nan if v is None else v for v in row] for row in matrix.values()],
        value_domain=[1, 2, 3, 4, 5], level_of_measurement=level)
    assert ours == pytest.approx(reference, abs=1e-12)


def test_alpha_interval_is_seeded_and_undefined_without_variation():
    rs = ratings_of(EXAMPLE)
    a = krippendorff_alpha(rs, [1, 2, 3, 4, 5], "ordinal", replicates=300, seed=4)
    b = krippendorff_alpha(rs, [1, 2, 3, 4, 5], "ordinal", replicates=300, seed=4)
    assert (a.lower, a.upper) == (b.lower, b.upper)
    same = ratings_of({"A": [3, 3, 3], "B": [3, 3, 3]})
    flat = krippendorff_alpha(same, [1, 2, 3, 4, 5], "ordinal", replicates=50)
    assert flat.alpha is None and flat.lower is None and flat.n_items == 3



def test_alpha_of_one_item_is_not_computable_not_zero():
    # Issue 20: one item rated 2 and 4 by two raters gave α 0.0 [0.0, 0.0], read as "measured: no agreement".
    one = ratings_of({"A": [2, 5], "B": [4, NA]})  # the second item has one rating: not pairable
    a = krippendorff_alpha(one, [1, 2, 3, 4, 5], "ordinal", replicates=50)
    assert (a.alpha, a.lower, a.upper, a.n_items) == (None, None, None, 1)
    assert a.reason is not None and "at least 2 items" in a.reason and "found 1" in a.reason
    out = agreement_json(agreement(one, replicates=50))["x"]
    assert out["alpha"] is None and out["lower"] is None and out["reason"] == a.reason
    two = krippendorff_alpha(ratings_of({"A": [2, 5], "B": [4, 5]}), [1, 2, 3, 4, 5], "ordinal", replicates=0)
    assert two.alpha is not None and two.reason is None

@pytest.mark.parametrize("weights", ["linear", "quadratic", "none"])
def test_weighted_kappa_matches_scikit_learn(weights):
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(5, 40))
        a = rng.integers(1, 6, n)
        b = np.clip(a + rng.integers(-2, 3, n), 1, 5)
        ours = weighted_kappa(a.tolist(), b.tolist(), [1, 2, 3, 4, 5], weights)
        ref = cohen_kappa_score(a, b, labels=[1, 2, 3, 4, 5], weights=None if weights == "none" else weights)
        assert ours == pytest.approx(ref, abs=1e-12)


def test_kappa_pairs_use_the_units_both_rated():
    rs = ratings_of({"A": [1, 2, 3, 4], "B": [1, 2, 4, NA], "C": [NA, NA, NA, 4]})
    pairs = {p.raters: p for p in pair_kappas(rs, [1, 2, 3, 4, 5], "linear")}
    assert pairs[("A", "B")].n == 3
    assert pairs[("A", "B")].kappa == pytest.approx(cohen_kappa_score([1, 2, 3], [1, 2, 4], labels=[1, 2, 3, 4, 5],
                                                                      weights="linear"))
    assert pairs[("A", "C")].n == 1 and pairs[("A", "C")].kappa is None  # one shared unit: undefined
    assert pairs[("B", "C")].n == 0


def test_means_average_raters_within_a_unit_first():
    rs = [Rating(item="i1", answer="1", rater="a", aspect="x", score=4, model="M"),
          Rating(item="i1", answer="1", rater="b", aspect="x", score=5, model="M"),
          Rating(item="i2", answer="1", rater="a", aspect="x", score=3, model="M"),
          Rating(item="i1", answer="2", rater="a", aspect="x", score=2, model="N")]
    means = {m.group: m for m in group_means(rs, lambda r: r.model, 1, 5)}
    assert means["M"].mean == pytest.approx((4.5 + 3) / 2) and means["M"].n == 2
    assert means["N"].mean == 2 and means["N"].n == 1
    for m in means.values():
        assert 1 <= m.lower <= m.mean <= m.upper <= 5
    assert (means["N"].lower, means["N"].upper) == (1, 5)  # one unit: the bounded interval spans the scale


def test_agreement_json_has_the_documented_keys_per_aspect():
    rs = ratings_of(EXAMPLE, "fluency") + ratings_of(EXAMPLE, "correctness")
    result = agreement_json(agreement(rs, rubric=load_rubric("answer"), replicates=100))
    assert list(result) == ["correctness", "fluency"]  # the rubric's order
    for aspect in result.values():
        assert {"alpha", "lower", "upper", "n_items", "n_raters"} <= set(aspect)
        assert round(aspect["alpha"], 3) == 0.815 and aspect["level"] == "ordinal"
        assert len(aspect["kappa"]) == 6  # every pair of 4 raters


def test_scores_off_the_rubrics_scale_are_an_error():
    rs = [Rating(item="i", rater="a", aspect="usefulness", score=5), Rating(item="i", rater="b", aspect="usefulness",
                                                                             score=4)]
    with pytest.raises(DataError, match="a scored i 5 on usefulness, off the rubric's scale 1–4"):
        agreement(rs, rubric=load_rubric("usefulness"))


def test_human_vs_automatic_is_spearman_per_task_and_aspect():
    rng = np.random.default_rng(2)
    auto, rs = {}, []
    for k in range(12):
        for model in ("M", "N"):
            auto[(model, f"WTD/test/{k}")] = float(rng.random())
            for rater in ("a", "b"):
                rs.append(Rating(item=f"WTD/test/{k}", answer="1" if model == "M" else "2", rater=rater,
                                 aspect="correctness", score=int(rng.integers(1, 6)), model=model, task="WTD"))
    found = {(c.task, c.aspect): c for c in human_vs_auto(rs, auto, replicates=200)}
    keys = sorted(auto)
    human = [np.mean([r.score for r in rs if (r.model, r.item) == key]) for key in keys]
    expected = spearmanr(human, [auto[k] for k in keys]).statistic
    assert found[("WTD", "correctness")].rho == pytest.approx(expected)
    assert found[("WTD", "correctness")].n == 24
    assert found[("WTD", "all")].rho == pytest.approx(expected)  # one aspect: 'all' is the same
    with pytest.raises(DataError, match="--unblind"):
        human_vs_auto([r.model_copy(update={"model": None}) for r in rs], auto)


def test_csv_round_trip_and_errors_name_file_line_and_field(tmp_path):
    rs = [Rating(item="WTD/test/1", answer="2", rater="a", aspect="fluency", score=4, model="M", task="WTD",
                 time="2026-01-01T00:00:00+00:00")]
    f = tmp_path / "r.csv"
    f.write_text(ratings_csv(rs), encoding="utf-8")
    assert read_ratings_csv(f) == rs
    f.write_text("item,rater,aspect,score\nx,a,fluency,4\nx,b,fluency,four\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"r\.csv:3: field 'score': 'four' is not a number"):
        read_ratings_csv(f)
    f.write_text("item,rater,score\nx,a,4\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"r\.csv:1: missing column\(s\) aspect"):
        read_ratings_csv(f)
    f.write_text("item,rater,aspect,score\nx,a,fluency,4\nx,a,fluency,5\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"r\.csv:3: field 'score': a rated x on fluency twice \(first on line 2\)"):
        read_ratings_csv(f)


def test_spearman_interval_equals_scipy_on_every_resample():
    from climedbench.apps.rater.analysis import spearman

    rng = np.random.default_rng(5)
    x = rng.integers(1, 6, 30).astype(float)  # ratings: many ties
    y = x + rng.normal(0, 1.5, 30)
    rho, lo, hi = spearman(x, y, replicates=300, seed=9)
    assert rho == pytest.approx(spearmanr(x, y).statistic)
    idx = np.random.default_rng(9).integers(0, 30, (300, 30))
    ref = [spearmanr(x[i], y[i]).statistic for i in idx if np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0]
    assert (lo, hi) == pytest.approx(tuple(np.percentile(ref, [2.5, 97.5])), abs=1e-12)
    assert lo < rho < hi
    assert all(math.isnan(v) for v in spearman([1, 2], [3, 4]))


def test_a_csv_without_answer_numbers_tells_answers_apart_by_model(tmp_path):
    f = tmp_path / "by-model.csv"
    f.write_text("item,model,rater,aspect,score\n"
                 "q1,M,a,fluency,4\nq1,N,a,fluency,2\nq1,M,b,fluency,4\nq1,N,b,fluency,2\n"
                 "q2,M,a,fluency,5\nq2,N,a,fluency,3\nq2,M,b,fluency,5\nq2,N,b,fluency,3\n", encoding="utf-8")
    result = agreement(read_ratings_csv(f), replicates=0)["fluency"]
    assert result.n_items == 4 and result.alpha == 1.0  # four answers, each rated alike by both raters
    assert {m: v.mean for m, v in result.models.items()} == {"M": 4.5, "N": 2.5}
