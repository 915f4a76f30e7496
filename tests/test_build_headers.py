"""Section headers in the styles of different hospitals' exports, recognised through the guideline's aliases
(build/segments.py): enumerations, decorations, spaced labels, headers on their own line, English headers without a
colon and abbreviations; running text that merely starts with a header word is no header; numbered lists split into
items without a number left dangling. The notes below were written here for these tests (development material, not
copied from any record set); the expected sections are what a reader of the note sees."""

from __future__ import annotations

import pytest

from climedbench.build.keys import diagnosis_names, first_item
from climedbench.build.segments import load_guideline, split_sections, split_sentences


def _types(text: str, lang: str = "zh") -> list[tuple[str, str]]:
    """(content type, body) per section."""
    return [(s.ctype, s.text) for s in split_sections(text, load_guideline(lang), "rec")]


@pytest.mark.parametrize("note", [
    "三、主诉\n咳嗽5天。\n四、现病史\n5天前受凉后咳嗽。\n",              # Chinese numerals
    "(一) 主诉：咳嗽5天。\n(二) 现病史：5天前受凉后咳嗽。\n",          # bracketed numerals and a colon
    "1、主诉：咳嗽5天。\n2、现病史：5天前受凉后咳嗽。\n",              # Arabic numbers
    "① 主诉\n咳嗽5天。\n② 现病史\n5天前受凉后咳嗽。\n",                # circled numbers
    "■ 主诉\n咳嗽5天。\n■ 现病史\n5天前受凉后咳嗽。\n",                # a square before the label
    "《主诉》咳嗽5天。\n《现病史》5天前受凉后咳嗽。\n",                  # book-title brackets, text after them
    "〔主诉〕\n咳嗽5天。\n〔现病史〕\n5天前受凉后咳嗽。\n",
    "主　　诉：咳嗽5天。\n现 病 史：5天前受凉后咳嗽。\n",              # spaced labels
    "★主诉　咳嗽5天。\n★现病史　5天前受凉后咳嗽。\n",                  # text after a full-width space
])
def test_chinese_header_styles_give_the_same_sections(note):
    assert _types("某某医院 住院病历\n姓名：某某\n" + note) == [
        ("chief_complaint", "咳嗽5天。"), ("present_illness", "5天前受凉后咳嗽。")]


def test_qualified_and_colon_inside_brackets_headers():
    note = ("辅助检查（入院当天 08:30）：\n血常规：WBC 12.1×10^9/L。\n"
            "◆手术记录（2024年3月2日）\n麻醉满意后取仰卧位。\n"
            "十二、出院医嘱：\n注意休息。\n")
    assert _types(note) == [("investigations", "血常规：WBC 12.1×10^9/L。"),
                            ("operation", "麻醉满意后取仰卧位。"), ("discharge_advice", "注意休息。")]


def test_english_headers_on_their_own_line_in_capitals_title_case_and_abbreviations():
    note = ("GENERAL HOSPITAL - ADMISSION NOTE\nCHIEF COMPLAINT\nShortness of breath.\nHPI\n70-year-old woman with "
            "two days of dyspnea.\nPMH: COPD.\nPSH: appendectomy.\nROS: negative for fever.\nPhysical exam\nWheezes "
            "bilaterally.\nLabs (admission)\nWBC 11.2.\nAdmission diagnoses\n1. COPD exacerbation\nA/P: nebulizers "
            "and steroids.\n## Hospital Course ##\nTreated with prednisone.\nOperative Note - 03/02/2025\nBronchoscopy "
            "performed.\nDischarge Instructions\nUse inhalers.\n")
    assert [t for t, _ in _types(note, "en")] == [
        "chief_complaint", "present_illness", "history", "history", "history", "exam", "investigations",
        "diagnosis", "other", "course", "operation", "discharge_advice"]


def test_running_text_that_starts_with_a_header_word_is_no_header():
    zh = ("【诊疗经过】\n诊断明确后予抗感染治疗。\n诊断为社区获得性肺炎，予头孢曲松。\n主诉症状逐渐缓解。\n"
          "1. 诊断依据充分，继续治疗。\n")
    assert [t for t, _ in _types(zh)] == ["course"]
    en = ("HOSPITAL COURSE\nExam unremarkable on day 2.\nCourse complicated by delirium.\nHPI was obtained from the "
          "daughter.\nLabs improved.\n")
    assert [t for t, _ in _types(en, "en")] == ["course"]
    # an unknown label is no header without 【】: the line stays in the section above it
    assert _types("【现病史】\n咳嗽3天。\n病情摘要与评估\n无。\n") == [("present_illness", "咳嗽3天。\n病情摘要与评估\n无。")]


def test_numbered_list_on_one_line_splits_into_items_without_dangling_numbers():
    assert split_sentences("1. 右侧慢性硬膜下血肿（钻孔引流术后）2. 高血压病3级 3. 2型糖尿病", "zh") == [
        "1. 右侧慢性硬膜下血肿（钻孔引流术后）", "2. 高血压病3级", "3. 2型糖尿病"]
    assert split_sentences("1、胆囊结石伴胆囊炎 2、脂肪肝", "zh") == ["1、胆囊结石伴胆囊炎", "2、脂肪肝"]
    assert split_sentences("1. Community-acquired pneumonia 2. Acute kidney injury", "en") == [
        "1. Community-acquired pneumonia", "2. Acute kidney injury"]
    # numbers that are no list: a decimal, a number that does not follow the previous item, 'day 2.' in prose
    assert split_sentences("血钾3.7mmol/L，2. 5小时后复查", "zh") == ["血钾3.7mmol/L，2. 5小时后复查"]
    assert split_sentences("Extubated on day 2. Her pain improved.", "en") == [
        "Extubated on day 2.", "Her pain improved."]


def test_keys_of_a_one_line_numbered_diagnosis_list():
    g = load_guideline("zh")
    secs = [s for s in split_sections("【出院诊断】1. 右侧慢性硬膜下血肿（钻孔引流术后）2. 高血压病 3. 2型糖尿病\n", g, "r")
            if s.ctype == "diagnosis"]
    assert first_item(secs, g) == ("右侧慢性硬膜下血肿（钻孔引流术后）", "r:diagnosis:0")
    got = diagnosis_names(secs, g)
    assert got is not None and got[0] == "右侧慢性硬膜下血肿；高血压病；2型糖尿病"


def test_sso_takes_the_operation_section_with_the_steps_not_the_operation_records_title():
    from climedbench.build.generate import Skip
    from climedbench.build.kinds import build_unit
    from climedbench.build.preprocess import Kept
    from climedbench.build.records import BuildNote
    from climedbench.build.scenarios import load_scenarios

    g = load_guideline("zh")
    text = ("【主诉】\n右上腹痛3天。\n【手术记录】\n麻醉：全麻\n手术经过：全麻下行腹腔镜胆囊切除术：建立气腹，"
            "解剖胆囊三角，确认胆囊管及胆囊动脉后夹闭切断，顺行剥离胆囊，胆囊床电凝止血，放置腹腔引流管1根。\n")
    note = BuildNote(record="r", patient="p", text=text, where="test:r", lang="zh", specialty=None, note_type=None)
    c = build_unit(load_scenarios()["SSO"], Kept(note, split_sections(text, g, "r")), g, [], None)  # type: ignore[arg-type]
    assert not isinstance(c, Skip)
    assert c.item["input"].startswith("## 手术名称：腹腔镜胆囊切除术\n## 手术步骤：1. 建立气腹\n")


def test_an_english_main_diagnosis_keeps_its_bracket_whole():
    g = load_guideline("en")
    note = ("DISCHARGE DIAGNOSES\n1. Acute on chronic systolic heart failure (HFrEF, LVEF 20%), NYHA III on admission\n"
            "2. Acute kidney injury, resolved\n")
    secs = [s for s in split_sections(note, g, "r") if s.ctype == "diagnosis"]
    assert first_item(secs, g) == ("Acute on chronic systolic heart failure (HFrEF, LVEF 20%)", "r:diagnosis:0")
