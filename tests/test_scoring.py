"""The extract → score step: a response cut off at the token limit is not read by guessing rules."""

from climedbench.core.types import Item
from climedbench.scoring import Scorer


def test_cut_off_responses_are_not_guessed_from_the_last_option_mentioned(suite):
    task = suite.task("BKT")
    item = Item(id="x", task="BKT", input="问题", options={"A": "青霉素G", "B": "红霉素", "C": "庆大霉素",
                                                          "D": "甲硝唑", "E": "万古霉素"}, answer="E")
    cut = "患者为耐药菌株感染，宜使用万古霉素"  # a finished sentence, or one cut off at the limit
    scorer = Scorer()
    finished = scorer.score(task, item, cut, finish_reason="stop")
    assert finished.extracted == "E" and finished.method == "option_text"  # a finished text naming E is read
    truncated = scorer.score(task, item, cut, finish_reason="length")
    assert truncated.extracted is None and truncated.method == "cut_off_option_text"
    assert truncated.extraction_failure and truncated.score == 0.0
    # A stated answer before the cut still counts.
    stated = scorer.score(task, item, "答案：E。\n解析：万古霉素用于耐药……青霉素", finish_reason="length")
    assert stated.extracted == "E" and stated.method == "marker"
