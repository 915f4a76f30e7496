"""audit-items: option-only rules are flagged when they find the key above chance, and only then."""

import json
import subprocess
import sys

from climedbench.audit import agrees_with_others, audit_task, longest, shares_question_wording
from climedbench.core.types import Item


def _item(i, options, answer, question="## 问题: 题干"):
    return Item(id=str(i), task="BKT", input=question, options=options, answer=answer)


def test_rules_pick_what_they_say():
    it = _item(1, {"A": "短", "B": "这是一个明显更长的选项文本", "C": "中等长度", "D": "短句"}, "B")
    assert longest(it) == "B"
    it2 = _item(2, {"A": "急性心肌梗死", "B": "急性心包炎", "C": "主动脉夹层", "D": "急性心肌炎"}, "A",
                question="## 问题: 胸痛三小时，心电图 ST 段抬高，最可能的诊断是急性心肌梗死吗")
    assert shares_question_wording(it2) == "A"
    assert agrees_with_others(_item(3, {"A": "甲乙丙丁", "B": "甲乙丙戊", "C": "甲乙丙己", "D": "庚辛"}, "A")) is None  # tie


def test_a_longest_option_cue_is_flagged_and_a_balanced_set_is_not():
    cued = [_item(i, {"A": "短" * (1 + i % 3), "B": "长" * 40, "C": "中" * 5, "D": "小" * 4}, "B") for i in range(30)]
    audit = audit_task("BKT", cued)
    by = {r.rule: r for r in audit.rules}
    assert by["longest option"].accuracy == 1.0 and by["longest option"].flagged
    assert by["always B"].flagged and audit.key_shares == {"B": 1.0}
    letters = "ABCD"
    balanced = []
    for i in range(40):
        key = letters[i % 4]
        opts = {k: f"选项{k}{'甲乙丙丁'[(i + j) % 4] * (3 + (i * 7 + j * 3) % 5)}" for j, k in enumerate(letters)}
        balanced.append(_item(i, opts, key, question=f"## 问题: 第{i}题"))
    audit2 = audit_task("BKT", balanced)
    assert not any(r.flagged for r in audit2.rules), [r.as_json() for r in audit2.rules if r.flagged]
    assert audit2.key_shares == {k: 0.25 for k in letters}


def test_near_duplicates_and_options_repeating_the_case():
    case = "## 病例: 患者男性六十岁反复咳嗽咳痰二十年加重三天伴发热"
    items = [_item(1, {"A": "慢性阻塞性肺疾病急性加重", "B": "反复咳嗽咳痰二十年加重三天", "C": "肺炎", "D": "哮喘"}, "A", case),
             _item(2, {"A": "甲", "B": "乙", "C": "丙", "D": "丁"}, "A", case + "。")]
    audit = audit_task("BKT", items)
    assert [(a, b) for a, b, _ in audit.near_duplicates] == [("1", "2")]
    assert ("1", "B") in audit.options_in_case


def test_cli_audit_of_the_demo_names_the_ftt_design():
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "audit-items", "--json"], capture_output=True,
                          text=True, check=True)
    data = json.loads(proc.stdout)
    ftt = next(t for t in data["tasks"] if t["task"] == "FTT")
    assert ftt["key_shares"] == {"E": 100.0} and "always E" in ftt["flagged"]  # by design: none of the above
    assert {t["task"] for t in data["tasks"]} >= {"ID#1", "BKT", "CS", "DS", "FIT", "FTT", "MC"}
