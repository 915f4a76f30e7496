"""Keys, options and events are cut at a sentence or clause boundary, never mid-word or inside a bracket; a text
with no boundary within the limit is not used (the item is skipped with its reason). Hand-made segments."""

from __future__ import annotations

import re

from climedbench.build.keys import exam_names, first_item, whole_section
from climedbench.build.segments import Section, load_guideline

ZH = load_guideline("zh")
OPEN, CLOSE = "（([【", "）)]】"


def sec(text: str, sentences: list[str] | None = None) -> Section:
    return Section(segment_id="s1", header="h", ctype="x", text=text, sentences=sentences or [text])


def closed(text: str) -> bool:  # an independent check: as many closing brackets as opening ones, in order
    depth = 0
    for ch in text:
        depth += ch in OPEN
        depth -= ch in CLOSE
        if depth < 0:
            return False
    return depth == 0


def test_a_diagnosis_with_a_space_inside_its_bracket_is_kept_whole():
    got = first_item([sec("股骨颈骨折（Garden Ⅲ型） 骨质疏松症")], ZH)
    assert got is not None and got[0] == "股骨颈骨折（Garden Ⅲ型）"


def test_exam_names_do_not_end_with_the_word_that_starts_the_result():
    got = exam_names([sec("胰岛自身抗体GADA、IA-2A、ZnT8A均阴性；糖化血红蛋白 9.8%")], ZH)
    assert got is not None
    names = got[0].split("，")
    assert names[0] == "胰岛自身抗体GADA、IA-2A、ZnT8A" and not any(n.endswith("均") for n in names)


def test_a_long_sentence_is_cut_at_its_last_clause_boundary_within_the_limit():
    long = "出院后低盐低脂饮食，规律口服阿司匹林肠溶片及阿托伐他汀钙片（睡前服用），两周后心内科门诊复查血脂肝功能及心电图变化情况"
    got = whole_section([sec(long)], ZH, max_chars=40)
    assert got is not None
    text = got[0]
    assert len(text) <= 40 and long.startswith(text) and closed(text)
    # the last clause boundary within 40 characters: here the comma after the closed bracket
    last = max(m.end() for m in re.finditer(r"[，。；）]", long[:41]))
    assert text == long[:last].rstrip("，")
    assert text.endswith("）")


def test_no_boundary_within_the_limit_means_no_key_and_never_an_open_bracket():
    unbroken = "规律口服阿司匹林肠溶片及阿托伐他汀钙片睡前服用两周后心内科门诊复查血脂肝功能及心电图变化情况"
    assert whole_section([sec(unbroken)], ZH, max_chars=30) is None
    opened = "出院后继续口服抗血小板药物（阿司匹林肠溶片100mg每日一次，氯吡格雷75mg每日一次，至少十二个月）"
    got = whole_section([sec(opened)], ZH, max_chars=40)
    assert got is None  # the only boundaries within 40 characters are inside the open bracket


# Any digit-and-date-word pattern: an independent, deliberately broad check that no date is left.
DATE_LEFT = re.compile(r"\d+\s*[年月日号]|\d{4}[-/.]\d|\d/\d{1,2}/\d|(?i:\b(?:March|Mar)\b)")


def test_discharge_advice_keys_and_options_carry_no_dates():
    sents = ["患者于2023年3月12日出院。", "低盐低脂饮食，阿司匹林100mg每日一次。", "定于2023-03-26心内科门诊复查（3月26日）。"]
    got = whole_section([sec("".join(sents), sents)], ZH)
    assert got is not None
    assert not DATE_LEFT.search(got[0])
    assert "阿司匹林100mg每日一次" in got[0] and "心内科门诊复查" in got[0]
    en = load_guideline("en")
    sents_en = ["Discharged home on March 12, 2023.", "Follow up in cardiology clinic 3/26/2023.",
                "Recheck labs on 2023-03-20."]
    got_en = whole_section([sec(" ".join(sents_en), sents_en)], en)
    assert got_en is not None and not DATE_LEFT.search(got_en[0])
    assert "cardiology clinic" in got_en[0]
