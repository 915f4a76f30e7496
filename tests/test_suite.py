from pathlib import Path

import pytest
import yaml

from climedbench.core.suite import bundled_root, load_suite
from climedbench.errors import ConfigError

# CLIMEDBENCH.md: the paper's dimension of each scenario, its metric and official size.
EXPECTED = {
    "ID#1": ("clinical_qa", "accuracy", 2639), "ID#2": ("clinical_qa", "accuracy", 6693),
    "ID#3": ("clinical_qa", "accuracy", 1748), "ID#4": ("clinical_qa", "accuracy", 2728),
    "BKT": ("knowledge_application", "accuracy", 4160), "CPR": ("reasoning", "kendall_tau", 95),
    "SSO": ("reasoning", "kendall_tau", 472), "KE": ("information_retrieval", "rouge1", 713),
    "CS": ("summarization", "accuracy", 320), "DS": ("summarization", "accuracy", 4644),
    "FIT": ("hallucination", "accuracy", 3003), "FTT": ("hallucination", "accuracy", 1114),
    "MC": ("toxicity", "accuracy", 661), "WTD": ("toxicity", "similarity", 807),
}


def test_bundled_suite_matches_the_paper(suite):
    assert [t.code for t in suite.tasks] == list(EXPECTED)
    for t in suite.tasks:
        assert (t.groups[0], t.metric, t.official_size) == EXPECTED[t.code]
        assert t.name_zh and t.name_en and t.who and t.prompt.instruction and t.prompt.answer_format and t.prompt.cot
    assert list(suite.dimensions) == ["clinical_qa", "knowledge_application", "reasoning",
                                      "information_retrieval", "summarization", "hallucination", "toxicity"]
    assert suite.task("FIT").loader_options.get("misleading_reference") is True
    assert not suite.task("BKT").loader_options.get("misleading_reference")
    assert suite.overall == "mean_of_tasks" and suite.loader == "climedbench_official"


def test_lookup_accepts_file_stems_and_case(suite):
    assert suite.scenario("id1").code == "ID#1"
    assert suite.scenario("wtd").code == "WTD"
    with pytest.raises(ConfigError, match="unknown task 'XYZ'"):
        suite.scenario("XYZ")
    assert [s.code for s in suite.select(["BKT", "id#1"])] == ["ID#1", "BKT"]


def _write_variant(tmp_path: Path, change) -> Path:
    raw = yaml.safe_load((bundled_root("climedbench") / "suite.yaml").read_text("utf-8"))
    change(raw)
    p = tmp_path / "suite.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")
    return p


def test_suite_errors_name_the_place(tmp_path):
    def no_letters(raw):
        del raw["tasks"][0]["letters"]  # ID#1 is a choice task: it needs its letters

    with pytest.raises(ConfigError, match=r"suite.yaml: tasks\[ID#1\]\.: .*choice tasks need 'letters'"):
        load_suite(_write_variant(tmp_path, no_letters))

    def bad_group(raw):
        raw["tasks"][0]["groups"] = ["charisma"]

    with pytest.raises(ConfigError, match=r"unknown groups \['charisma'\]"):
        load_suite(_write_variant(tmp_path, bad_group))

    def bad_kind(raw):
        raw["tasks"][5]["answer"] = "essay"

    with pytest.raises(ConfigError, match=r"tasks\[CPR\]\.answer: Input should be"):
        load_suite(_write_variant(tmp_path, bad_kind))
    with pytest.raises(ConfigError, match=r"not a bundled suite .* and no such file"):
        load_suite(tmp_path / "missing.yaml")
