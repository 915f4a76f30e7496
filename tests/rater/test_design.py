"""Study design: a draw stratified by task, K distinct raters per case with balanced loads, blinded answers."""

from collections import Counter
from pathlib import Path

import pytest

from climedbench.apps.rater.design import (
    Answer,
    Case,
    CaseContent,
    Source,
    answer_cases,
    assign,
    draw,
    plan_study,
    rater_names,
)
from climedbench.apps.rater.rubric import load_rubric
from climedbench.errors import ConfigError
from tests.rater.helpers import MODELS, make_runs


def cases(counts: dict[str, int], answers: int = 0) -> list[Case]:
    out = []
    for task, n in counts.items():
        for k in range(n):
            content = CaseContent(uid=f"{task}/test/{k}", task=task, task_name=task, input=f"{task} {k}")
            out.append(Case(content=content, answers=[Answer(model=f"m{j}", run="r", text=f"a{j}")
                                                      for j in range(answers)]))
    return out


def test_draw_is_stratified_by_task_and_seeded():
    pool = cases({"WTD": 10, "HospSumm": 5, "PatientEdu": 2})
    drawn, counts = draw(pool, 4, seed=1)
    assert counts == {"WTD": (10, 4), "HospSumm": (5, 4), "PatientEdu": (2, 2)}
    assert Counter(c.content.task for c in drawn) == {"WTD": 4, "HospSumm": 4, "PatientEdu": 2}
    again, _ = draw(pool, 4, seed=1)
    other, _ = draw(pool, 4, seed=2)
    uids = [c.content.uid for c in drawn]
    assert uids == [c.content.uid for c in again]
    assert uids != [c.content.uid for c in other]
    everything, counts = draw(pool, 0, seed=1)
    assert len(everything) == 17 and counts["WTD"] == (10, 10)


@pytest.mark.parametrize(("n_cases", "raters", "k"), [(10, 4, 2), (7, 3, 2), (9, 5, 3), (4, 2, 2)])
def test_every_case_goes_to_k_distinct_raters_with_balanced_loads(n_cases, raters, k):
    names = [f"r{j}" for j in range(raters)]
    given = assign(n_cases, names, k, seed=3)
    per_case = Counter(c for r in names for c in given[r])
    assert per_case == dict.fromkeys(range(n_cases), k)
    assert all(len(set(given[r])) == len(given[r]) for r in names)  # never the same case twice to one rater
    loads = [len(given[r]) for r in names]
    assert sum(loads) == n_cases * k and max(loads) - min(loads) <= 1
    assert given == assign(n_cases, names, k, seed=3)


def test_each_rater_gets_an_own_random_order():
    given = assign(12, ["a", "b"], 2, seed=0)
    assert sorted(given["a"]) == sorted(given["b"]) == list(range(12))
    assert given["a"] != given["b"]


def test_more_raters_per_case_than_raters_is_refused():
    with pytest.raises(ConfigError, match="--per-item 3 needs at least 3 raters"):
        assign(5, ["a", "b"], 3, seed=0)


def test_rater_names():
    assert rater_names("3") == ["rater-1", "rater-2", "rater-3"]
    assert rater_names("ana, bo ,chen") == ["ana", "bo", "chen"]
    with pytest.raises(ConfigError, match="bo given twice"):
        rater_names("bo,ana,bo")
    with pytest.raises(ConfigError, match="not a usable name"):
        rater_names("ana,<b>")


def test_answers_are_blinded_and_shown_in_an_order_per_rater(tmp_path: Path):
    from climedbench.analyses.runs import load_runs

    paths, _ = make_runs(tmp_path, n=12)
    found, notes = answer_cases(load_runs(paths), None, seed=0)
    assert len(found) == 12 and not notes
    # Neutral numbering is random per item: each model holds number 1 on some items.
    assert {c.answers[0].model for c in found} == set(MODELS)
    plan = plan_study(found, rubric=load_rubric("answer"), raters=["a", "b", "c"], per_item=2, per_task=0, seed=0,
                      source=Source(kind="runs", paths=[str(p) for p in paths], suite="climedbench"), lang="zh")
    orders = [tuple(a.answer_order) for rows in plan.assignments.values() for a in rows]
    assert all(sorted(o) == [1, 2] for o in orders)
    assert set(orders) == {(1, 2), (2, 1)}  # raters see the answers in different orders


def test_answers_need_runs_and_items_need_data(tmp_path):
    pool = cases({"WTD": 3})
    src = Source(kind="items", paths=["x"], suite="climedbench")
    with pytest.raises(ConfigError, match="rates model answers"):
        plan_study(pool, rubric=load_rubric("answer"), raters=["a"], per_item=1, per_task=0, seed=0, source=src,
                   lang="zh")


def test_without_the_data_the_logged_prompt_is_the_case_text(tmp_path):
    import shutil

    from climedbench.analyses.runs import load_runs
    from climedbench.errors import DataError
    from tests.analyses.runs import make_run

    data = tmp_path / "gone"
    data.mkdir()
    prompt = [{"role": "system", "content": "你是医生"}, {"role": "user", "content": "病例：患者头痛，医生开了阿司匹林。"}]
    with_prompt = make_run(tmp_path / "a", [{"task": "WTD", "id": "WTD-001", "score": 0.5, "raw": "不合适",
                                             "messages": prompt, "gold": "参考"}], model="m1", data=str(data))
    without = make_run(tmp_path / "b", [{"task": "WTD", "id": "WTD-001", "score": 0.2, "raw": "合适"}], model="m2",
                       data=str(data))
    shutil.rmtree(data)
    found, _ = answer_cases(load_runs([with_prompt, without]), None, seed=0)
    assert [(c.content.input, c.content.reference) for c in found] == [("病例：患者头痛，医生开了阿司匹林。", "参考")]
    assert sorted(a.model for a in found[0].answers) == ["m1", "m2"]
    with pytest.raises(DataError, match=r"b/run\.json: field 'data': .* cannot be read again"):
        answer_cases(load_runs([without]), None, seed=0)
