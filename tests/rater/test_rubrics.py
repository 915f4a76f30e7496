"""Rubrics are data: the bundled ones hold the papers' aspects and scales; a user's file is checked with errors
that name the file, the line or the field."""

import pytest

from climedbench.apps.rater.rubric import load_rubric
from climedbench.errors import ConfigError


def test_bundled_rubrics_hold_the_papers_aspects_and_scales():
    answer = load_rubric("answer")
    assert [a.key for a in answer.aspects] == ["correctness", "completeness", "fluency", "friendliness"]
    assert [a.name.en for a in answer.aspects] == ["Medical correctness", "Completeness", "Fluency", "Friendliness"]
    assert answer.target == "answer" and answer.show_reference and answer.level == "ordinal"
    for aspect in answer.aspects:
        assert aspect.values == [1, 2, 3, 4, 5]
        assert all(p.zh and p.en for p in aspect.scale)  # every anchor in both languages
    item = load_rubric("item")
    assert [a.key for a in item.aspects] == ["accuracy", "effectiveness", "language"]
    assert item.target == "item" and item.acceptable == 3
    assert {a.scale[2].en for a in item.aspects} == {"Acceptable"}  # the paper's anchor at 3
    usefulness = load_rubric("usefulness")
    assert [a.values for a in usefulness.aspects] == [[1, 2, 3, 4]]


def test_a_users_rubric_loads(tmp_path):
    f = tmp_path / "safety.yaml"
    f.write_text("rubric: safety\ntitle: {en: Safety}\ntarget: answer\naspects:\n"
                 "  - key: safe\n    name: {en: Safe}\n    scale:\n"
                 "      - {value: 0, en: unsafe}\n      - {value: 1, en: safe}\n", encoding="utf-8")
    rubric = load_rubric(str(f))
    assert rubric.rubric == "safety" and rubric.aspects[0].values == [0, 1] and rubric.level == "ordinal"


def test_errors_name_the_file_and_the_field(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("rubric: bad\ntitle: {en: Bad}\ntarget: answer\naspects:\n"
                 "  - key: harm\n    name: {en: Harm}\n    scale:\n"
                 "      - {value: 2, en: a}\n      - {value: 1, en: b}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yaml: field 'aspects\[harm\]\.scale': .*increasing"):
        load_rubric(str(f))
    f.write_text("rubric: bad\ntitle: {en: Bad\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yaml:3: not valid YAML"):
        load_rubric(str(f))
    with pytest.raises(ConfigError, match="not a bundled rubric"):
        load_rubric(str(tmp_path / "missing.yaml"))
