"""audit-items: option-only rules are flagged when they find the key above chance, and only then."""

import json
import subprocess
import sys

import pytest

from climedbench.audit import (
    agrees_with_others,
    audit_task,
    catch_all,
    has_feature,
    longest,
    longest_but_shown,
    only_with,
    shares_question_wording,
)
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
    assert "always none of the above" in ftt["flagged"]
    assert {t["task"] for t in data["tasks"]} >= {"ID#1", "BKT", "CS", "DS", "FIT", "FTT", "MC"}


def _fit(i, options, answer, shown):
    return Item(id=str(i), task="FIT", input="## 问题: 题干", options=options, answer=answer,
                meta={"misleading_answer": shown})


def test_the_one_option_with_a_feature_counts_only_items_where_exactly_one_option_has_it():
    dose = "；口服，一次6g，一日2次"
    items = [  # by hand: items 0-2 have exactly one dosed option (the key in 0 and 1, a distractor in 2)
        _item(0, {"A": "甲丸" + dose, "B": "乙丸", "C": "丙丸", "D": "丁丸"}, "A"),
        _item(1, {"A": "甲丸", "B": "乙丸" + dose, "C": "丙丸", "D": "丁丸"}, "B"),
        _item(2, {"A": "甲丸", "B": "乙丸", "C": "丙丸" + dose, "D": "丁丸"}, "A"),
        _item(3, {"A": "甲丸" + dose, "B": "乙丸" + dose, "C": "丙丸", "D": "丁丸"}, "A"),  # two: not counted
        _item(4, {"A": "甲丸", "B": "乙丸", "C": "丙丸", "D": "丁丸"}, "D"),  # none: not counted
    ]
    audit = audit_task("MC", items)
    dosing = audit.rule("the one option with dosing instructions")
    assert (dosing.correct, dosing.n, dosing.chance) == (2, 3, 0.25)
    assert dosing.flagged  # 67% against 25%
    assert only_with(items[0], "dosing instructions") == "A" and only_with(items[3], "dosing instructions") is None
    assert audit.rule("the one option with parentheses").n == 0
    # a catch-all option does not count as a negation; a real negation does
    nota = _item(5, {"A": "甲", "B": "乙", "C": "丙", "D": "以上均不对"}, "D")
    assert not has_feature(nota.options["D"], "a negation") and catch_all(nota) == "D"
    assert has_feature("无需复诊", "a negation") and has_feature("not indicated", "a negation")
    assert not has_feature("Once 5 mg", "parentheses") and has_feature("CT肺动脉造影（CTPA）", "parentheses")


def test_longest_other_than_the_shown_reference_and_ties_credited_one_over_t():
    items = [
        _fit(0, {"A": "长长长长长长", "B": "长长长长", "C": "短", "D": "短", "E": "短"}, "B", "A"),  # B: 1
        _fit(1, {"A": "长长长长", "B": "长长长长", "C": "短", "D": "短", "E": "长长长长长长"}, "A", "E"),  # A,B tie: 1/2
        _fit(2, {"A": "短", "B": "长长长", "C": "短", "D": "短", "E": "短"}, "C", "D"),  # B: 0
    ]
    audit = audit_task("FIT", items, "misleading_answer")
    r = audit.rule("longest option other than the shown reference")
    assert r.n == 3 and r.correct == 1.5 and r.chance == 0.25 and r.tied == 1  # chance 1/(5-1)
    assert longest_but_shown(items[0], "misleading_answer") == "B"
    assert longest_but_shown(items[1], "misleading_answer") is None
    plain = audit.rule("longest option")  # the shown A/E is longest in items 0 and 1: 0 + 0 + 0
    assert plain.correct == 0 and plain.chance == pytest.approx(0.2)


def test_always_none_of_the_above_is_measured_where_a_catch_all_option_exists():
    items = [_item(i, {"A": "甲方案", "B": "乙方案", "C": "丙方案", "D": "丁方案", "E": "以上均不对"},
                   "E" if i < 3 else "A") for i in range(4)]
    audit = audit_task("FTT", items)
    r = audit.rule("always none of the above")
    assert (r.correct, r.n, r.chance) == (3, 4, 0.2) and r.flagged
    assert audit_task("BKT", [_item(0, {"A": "甲", "B": "乙"}, "A")]).rule("always none of the above") is None
