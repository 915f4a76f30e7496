"""Recall of `climedbench deid` on Chinese notes for general classes of names and organisations that corpora 4-6
showed missing (issue 21, third round): a relative's name glued to the kin word whose last character and the name's
first make a rare dictionary word (儿子|格桑…: 子格 is no sign of a kin word going on, 父亲 is); a listed name whose
last character is one that usually follows a name (…、金光年), a listed name before what a companion does (…、某某送入,
…等人陪同); an insurer
by its brand and its kind (…保险, …人寿) after a verb of holding or paying, not a kind of insurance (医疗保险); an
employer in brackets after a job (程序员（…）), not a shift or a state (司机（夜班）); places of care named by their kind only, after verbs the scan
took in (可联系当地乡镇卫生院, 已告知疾控中心, 上级三甲医院) stay. Each case also keeps what must stay. All the notes are written for this test, not taken from any
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
    # An insurer by its brand and its kind after a verb of holding or paying (traditional script too); kinds of
    # insurance and what follows 保险 inside a word stay.
    ("患者持安泰保险意外险保单。用于康宁人寿理赔。備註：持恆昌保險醫療保單。有商业保险，医疗保险已报销，未购买大病保险。",
     ["安泰保险", "康宁人寿", "恆昌保險"], ["商业保险", "医疗保险已报销", "大病保险", "意外险保单", "醫療保單"]),
    # An employer in brackets after a job; a shift, a state or a room in brackets stays.
    ("患者系工程师（星河微电子科技），经常加班。丈夫：司机（夜班）；母亲：会计（退休）；技术员（CT室）在场。",
     ["星河微电子科技"], ["夜班", "退休", "CT室"]),
    # Generic places of care before which the scan took in verbs or kind words: they name no organisation; a named
    # one after a verb is still found whole (已联系…, 可克达拉市 keeps its 可).
    ("出院后可联系当地乡镇卫生院随访；已告知疾控中心；已通知辖区疾控中心；曾在私人诊所理疗；建议到上级三甲医院复查；"
     "需与养老机构和社区卫生服务中心衔接。已联系青岭市中心医院；转可克达拉市人民医院。",
     ["青岭市中心医院", "可克达拉市人民医院"],
     ["当地乡镇卫生院", "告知疾控中心", "辖区疾控中心", "私人诊所", "上级三甲医院", "养老机构和社区卫生服务中心"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_general_chinese_classes(analyzer: Analyzer, text: str, phi: list[str], keep: list[str]) -> None:
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]
