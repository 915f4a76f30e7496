"""Recall of `climedbench deid` on Chinese notes for general classes of names and organisations that corpora 4-6
showed missing (issue 21, third round): a relative's name glued to the kin word whose last character and the name's
first make a rare dictionary word (儿子|格桑…: 子格 is no sign of a kin word going on, 父亲 is); a listed name whose
last character is one that usually follows a name (…、金光年), a listed name before what a companion does (…、某某送入,
…等人陪同). Each case also keeps what must stay. All the notes are written for this test, not taken from any
corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # A relative's name after the kin word although 子格 is a (rare) word; 其父亲 / 其母亲 hold no name.
    ("术后由儿子格桑多吉陪同复查。其父亲体健，其母亲已故。",
     ["格桑多吉"], ["父亲体健", "母亲已故"]),
    # A second signer whose given name ends in 年 (a character that usually follows a name) at the line's end.
    ("复核医师：焦玉林　金光年\n复核日期：2025-02-11",
     ["焦玉林", "金光年"], ["复核日期"]),
    # Names listed after a found one, before 送入 / 护送.
    ("由同事韩晓东、邢丽娟送入急诊。由室友洪海、魏小梅护送来院。",
     ["韩晓东", "邢丽娟", "洪海", "魏小梅"], ["急诊"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_general_chinese_classes(analyzer: Analyzer, text: str, phi: list[str], keep: list[str]) -> None:
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]
