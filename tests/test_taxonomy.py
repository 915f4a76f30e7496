from pathlib import Path

import pytest
import yaml

from climedbench.errors import ConfigError
from climedbench.taxonomy import load_suite

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
    assert [s.code for s in suite.scenarios] == list(EXPECTED)
    for s in suite.scenarios:
        assert (s.dimension, s.metric, s.official_size) == EXPECTED[s.code]
        assert s.name_zh and s.name_en and s.who and s.prompt and s.answer_format and s.cot
    assert list(suite.dimensions) == ["clinical_qa", "knowledge_application", "reasoning",
                                      "information_retrieval", "summarization", "hallucination", "toxicity"]
    assert suite.scenario("FIT").misleading_reference and not suite.scenario("BKT").misleading_reference


def test_lookup_accepts_file_stems_and_case(suite):
    assert suite.scenario("id1").code == "ID#1"
    assert suite.scenario("wtd").code == "WTD"
    with pytest.raises(ConfigError, match="unknown scenario code 'XYZ'"):
        suite.scenario("XYZ")
    assert [s.code for s in suite.select(["BKT", "id#1"])] == ["ID#1", "BKT"]


def _write_variant(tmp_path: Path, change) -> Path:
    from importlib import resources

    raw = yaml.safe_load(resources.files("climedbench.suites").joinpath("climedbench.yaml").read_text("utf-8"))
    change(raw)
    p = tmp_path / "suite.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")
    return p


def test_suite_errors_name_the_place(tmp_path):
    def bad_metric(raw):
        raw["scenarios"][5]["metric"] = "accuracy"  # CPR is an order: accuracy cannot score it

    with pytest.raises(ConfigError, match=r"suite.yaml: scenarios.5: .*cannot score answer shape 'order'"):
        load_suite(_write_variant(tmp_path, bad_metric))

    def bad_dim(raw):
        raw["scenarios"][0]["dimension"] = "charisma"

    with pytest.raises(ConfigError, match="unknown dimension 'charisma'"):
        load_suite(_write_variant(tmp_path, bad_dim))
    with pytest.raises(ConfigError, match="cannot read suite file"):
        load_suite(tmp_path / "missing.yaml")
