import json

import pytest

from climedbench.data.loaders import RecordError, load_items
from climedbench.suites.climedbench.loader import build_item, parse_options, split_sections

from .conftest import OFFICIAL


def item(suite, code, **record):
    return build_item(record, suite.scenario(code), file="t.jsonl", line=1, default_id="t:1")


@pytest.mark.parametrize("block, expected", [
    ("A: 腰部 MRI, 尿常规\nB: 腰部 CT\nC: 体检\nD: 肠镜检查", ["腰部 MRI, 尿常规", "腰部 CT", "体检", "肠镜检查"]),
    ("A: 股骨头无菌性坏死\n B: 胰腺原位癌\n C: 劳力恶化型心绞痛\n D: 髋关节骨性关节炎",
     ["股骨头无菌性坏死", "胰腺原位癌", "劳力恶化型心绞痛", "髋关节骨性关节炎"]),
    ("A. 乙肝病毒相关肾炎 \nB. 狼疮性肾炎 \nC. 膜增生性肾炎 \nD. 小血管炎 E. 急性肾小球肾炎",
     ["乙肝病毒相关肾炎", "狼疮性肾炎", "膜增生性肾炎", "小血管炎", "急性肾小球肾炎"]),
    ("A：甲\nB：乙\nC：丙", ["甲", "乙", "丙"]),
    ("A．甲\nB．乙", ["甲", "乙"]),
    ("A、甲 B、乙", ["甲", "乙"]),
    ('"A: 丘脑枕 \nB: 灰结节 \nC: 垂体 \nD: 正中隆起 \nE: 丘脑髓纹"', ["丘脑枕", "灰结节", "垂体", "正中隆起", "丘脑髓纹"]),
    # Option text with numbered sub-items and decimals is never split on digits.
    ("A. 1. 糖尿病饮食。2. 继续服用药物治疗，2.5mg qd \nB. 1. 低盐饮食 \nC. ...... \nD. ......",
     ["1. 糖尿病饮食。2. 继续服用药物治疗，2.5mg qd", "1. 低盐饮食", "......", "......"]),
    # A letter inside a word is not a label; the next label must be the next letter.
    ("A: 抗板调脂固斑；DRD 方案化疗；B超复查\nB: 观察\nC: 手术\nD: 放疗", ["抗板调脂固斑；DRD 方案化疗；B超复查", "观察", "手术", "放疗"]),
    ("Ａ．甲\nＢ．乙", ["甲", "乙"]),
])
def test_option_label_variants(block, expected):
    assert list(parse_options(block).values()) == expected
    assert "".join(parse_options(block)) == "ABCDE"[: len(expected)]


def test_sections_with_and_without_newlines_and_fullwidth_colons():
    text = "## 入院情况: 甲...... \n## 诊疗过程：乙。## 选项: A: x\nB: y"
    assert [h for h, _ in split_sections(text)] == ["入院情况", "诊疗过程", "选项"]
    assert dict(split_sections(text))["诊疗过程"] == "乙。"


def test_literal_newline_markers_become_newlines(suite):
    it = item(suite, "ID#1", input="## 入院情况: 腰痛\\n## 选项: A: MRI\\nB: CT\\nC: 体检\\nD: 肠镜", reference="B")
    assert "\\n" not in it.input and it.options == {"A": "MRI", "B": "CT", "C": "体检", "D": "肠镜"}
    assert it.answer == "B"


def test_fit_carries_misleading_and_true_answers(suite):
    it = item(suite, "FIT", input='## 问题: 上丘脑的结构是 \n## 选项: "A: 丘脑枕 \nB: 灰结节 \nC: 垂体 \nD: 正中隆起 '
              '\nE: 丘脑髓纹" ## 参考答案: C', reference="我认为答案 C 并不正确……因此答案应为 E 而不是 C。")
    assert (it.meta["misleading_answer"], it.answer) == ("C", "E")
    with pytest.raises(RecordError, match="equals the misleading"):
        item(suite, "FIT", input="## 问题: q\n## 选项: A: x\nB: y ## 参考答案: A", reference="答案应为 A")
    with pytest.raises(RecordError, match="need a '## 参考答案:' section"):
        item(suite, "FIT", input="## 问题: q\n## 选项: A: x\nB: y", reference="答案应为 A")


def test_prose_reference_and_explicit_answer_must_agree(suite):
    inp = "## 患者症状: 失眠\n## 选项: A: 甲\nB: 乙\nC: 丙\nD: 丁"
    assert item(suite, "MC", input=inp, reference="正确答案是 B, 它的主治功效如下……").answer == "B"
    assert item(suite, "MC", input=inp, reference="正确答案是 B。", answer="B").answer == "B"
    with pytest.raises(RecordError, match="'answer' says C but the reference names B"):
        item(suite, "MC", input=inp, reference="正确答案是 B。", answer="C")
    with pytest.raises(RecordError, match="states no option letter"):
        item(suite, "MC", input=inp, reference="安神补脑液最合适")
    with pytest.raises(RecordError) as e:
        item(suite, "ID#1", input=inp, reference="E")
    assert e.value.field == "reference"


def test_orders_cpr_and_sso(suite):
    cpr = item(suite, "CPR", input="## 入院情况: A. 入院 \nB. 查体 \nC. 手术\nD. 化验", reference="ABDC")
    assert cpr.answer == "ABDC" and cpr.letters == "ABCD"
    sso = item(suite, "SSO", input="## 手术名称：阑尾切除术\n## 手术步骤：1. 麻醉\n2.5 孔法建立气腹\n3.____\n4.____\n"
               "## 遮挡文本: A: 切除\nB: 缝合", reference="A→B")
    assert sso.answer == "AB" and sso.options == {"A": "切除", "B": "缝合"}
    with pytest.raises(RecordError, match="not an order of all the letters ABCD"):
        item(suite, "CPR", input="## 入院情况: A. 入院 \nB. 查体 \nC. 手术\nD. 化验", reference="ABD")


def test_keywords_accept_strings_lists_and_run_together(suite):
    assert item(suite, "KE", input="摘要", reference="慢性病；养老；医养结合").targets == ["慢性病", "养老", "医养结合"]
    assert item(suite, "KE", input="摘要", reference=["慢性病", "养老"]).targets == ["慢性病", "养老"]
    assert item(suite, "KE", input="摘要", reference="慢性病养老医养结合延续护理").targets == ["慢性病养老医养结合延续护理"]


def test_structured_question_and_options_render_an_official_input(suite):
    it = item(suite, "BKT", question="补体C3持续下降见于", options=["甲", "乙", "丙", "丁", "戊"], answer="C")
    assert it.input.startswith("## 问题: 补体C3持续下降见于\n## 选项: A. 甲") and it.answer == "C"


def test_official_examples_import(suite):
    """Every option-label and section variant of the 14 official pages; the 3 unscorable pages are named."""
    report = load_items(OFFICIAL, suite)
    got = {i.task: i for i in report.items}
    assert set(got) == {"ID#1", "ID#2", "ID#3", "ID#4", "BKT", "CPR", "KE", "DS", "FIT", "FTT", "WTD"}
    assert got["ID#1"].answer == "B" and got["ID#2"].answer == "A" and got["ID#3"].answer == "C"
    assert len(got["BKT"].options) == 5 and got["BKT"].options["E"] == "急性肾小球肾炎"
    assert got["CPR"].answer == "ABDC" and (got["FIT"].answer, got["FIT"].meta["misleading_answer"]) == ("E", "C")
    assert got["FTT"].options["E"] == "以上均不对" and got["DS"].options["A"].startswith("患者因陈旧性股骨粗隆间骨折入院")
    bad = {(p.line, p.field): p.reason for p in report.problems}
    raw = json.loads(OFFICIAL.read_text("utf-8"))
    assert len(bad) == 3
    codes = {p.task for p in report.problems}
    assert codes == {"CS", "MC", "SSO"}  # CS: prose reference; MC: no options printed; SSO: only A, B printed
    for p in report.problems:
        assert p.file.endswith("official_examples.json") and p.line > 1 and p.field in ("reference", "input")
    assert len(raw) == 14


def test_options_inside_the_question_section(suite):
    """An official-format variant: no '## 选项' header, the options quoted inside '## 问题'."""
    it = item(suite, "FIT", input='## 问题: 上丘脑的结构是 "A: 丘脑枕 \\nB: 灰结节 \\nC: 垂体 \\nD: 正中隆起 \\nE: 丘脑髓纹" '
              '## 参考答案: C', reference="我认为答案 C 并不正确……因此答案应为 E 而不是 C。")
    assert it.options == {"A": "丘脑枕", "B": "灰结节", "C": "垂体", "D": "正中隆起", "E": "丘脑髓纹"}
    assert (it.answer, it.meta["misleading_answer"]) == ("E", "C")
    it2 = item(suite, "BKT", input="## 问题: 补体C3持续下降见于 A. 乙肝病毒相关肾炎 B. 狼疮性肾炎 C. 膜增生性肾炎", reference="C")
    assert list(it2.options) == ["A", "B", "C"] and it2.options["B"] == "狼疮性肾炎"
    with pytest.raises(RecordError, match="no options found"):  # one lettered phrase is not a list of options
        item(suite, "BKT", input="## 问题: 维生素A缺乏的表现是什么", reference="A")
