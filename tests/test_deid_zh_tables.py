"""Chinese tables written as text: a cell is read by its column's name (姓名, 探视人, 术者, 年龄, 条码号, 用户, 住址, 日期),
and the words of the other columns stay. All the notes are written for this test, not taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # Names under 姓名 and under a role (术者), drawn with bars; an age of 90 and over under 年龄; words stay.
    ("序号｜病区　｜姓名　｜年龄｜术式　　　　　｜术者　｜麻醉\n1　｜骨科3床｜宁海波｜92　｜髋关节置换术｜舒长风｜全麻\n"
     "2　｜骨科7床｜贺秋　｜45　｜膝关节镜　　｜舒长风｜腰麻",
     ["宁海波", "92", "舒长风", "贺秋"], ["髋关节置换术", "膝关节镜", "45", "全麻", "腰麻"]),
    # A name before a bracketed relation or bed, a visitor's Latin name, whitespace-aligned cells.
    ("时间　　患者（床号）　　探视人　　关系　电话\n09:10　牛德旺（6床）　牛小川　　父子　13512345678\n"
     "10:40　柴玉英（9床）　Linda Chai　孙女　13698765432",
     ["牛德旺", "牛小川", "柴玉英", "Linda Chai"], ["父子", "孙女"]),
    # An identifier under 条码号, found again below the table; a name; the test and reason stay.
    ("条码号　　　姓名　　床号　项目　　退回原因\n3307120045　阚立群　08床　血常规　凝块\n\n说明：3307120045 请重采。",
     ["3307120045", "阚立群"], ["血常规", "凝块"]),
    # An account under 用户 and an address under 现住址; a date under 日期.
    ("日期　　用户　　　　操作　　　病人ID\n3/14　zy_wangf07　查看病历　K0099821\n\n"
     "序号　姓名　　现住址　　　　　　体温\n1　　栾建业　城关镇幸福街12号　38.2",
     ["3/14", "zy_wangf07", "K0099821", "栾建业", "城关镇幸福街12号"], ["查看病历", "38.2"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_table_cells_are_read_by_their_column(analyzer, text, phi, keep):
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]


def test_a_table_identifier_is_found_again_below_the_table(analyzer):
    text = "条码号　　　姓名　　床号　项目\n3307120045　阚立群　08床　血常规\n\n说明：3307120045 请重采。"
    spans = analyzer.analyze(text, "zh")
    at = text.rindex("3307120045")
    assert any(s.start <= at and s.end >= at + 10 for s in spans), [(text[s.start:s.end], s.detector) for s in spans]
