"""Recall of `climedbench deid` on Chinese notes for the classes corpus 4 showed missing (issue 21): part of a month
or a year, a month where a date fits, a date with its time range or bracketed weekday, OCR's letter O for zeros, a
year and month; masked mobiles, Hong Kong identity cards, passports with a letter at the end, mediation file
numbers, identifiers after '=' / MRN / 随机号 / …码 / 流水, specimens in brackets after 病理, long letter-and-digit
identifiers; names after a bed number, after staff by their shift or rank, a mother's name before 之子, initials,
upper-case pinyin after Name:, names of five characters after a label; towns and short place names; organisations
by their kind (…医疗中心, …司法鉴定所, …医疗保障局, …国际机场). Each case also keeps what must stay. All the notes are
written for this test, not taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # Part of a month or a year, a month where a date fits; a count of months and a year alone stay.
    ("2022年9月上旬起腰痛，10月中旬加重；2019年秋曾骨折。5月起服药至今，咳嗽2月，病程3个月，2020年初退休。",
     ["2022年9月上旬", "10月中旬", "2019年秋", "5月"], ["咳嗽2月", "3个月", "2020年初"]),
    # A date's time range, a bracketed weekday, a time with 约 / 许, full-width digits of a time.
    ("谈话时间：2021年3月4日 09:10-09:45\n复诊：2021年3月11日（周四）\n受伤时间：2021年2月2日晚约8时许\n"
     "采样时间：２０２１－０３－０５　０７：１５",
     ["2021年3月4日 09:10-09:45", "2021年3月11日（周四）", "2021年2月2日晚约8时许", "２０２１－０３－０５　０７：１５"], []),
    # OCR's letter O for zeros, a year and month in brackets.
    ("报告日期：2O22-1O-O9 1O:3O\n疫苗：乙肝 (2010-05, 2010-11)，已全程。", ["2O22-1O-O9 1O:3O", "2010-05", "2010-11"], []),
    # A masked mobile, a Hong Kong identity card, a passport ending in a letter, a mediation file number.
    ("预留手机：139****2468　身份证明：K583920(3)\nPassport No.: E7736452K\n受理编号：沪调[2022]第317号",
     ["139****2468", "K583920(3)", "E7736452K", "沪调[2022]第317号"], []),
    # Identifiers after '=', MRN, a randomisation number, …码 and 流水; a specimen after 病理; a claim's number.
    ("检查号=CT22050300418  MRN：SHZ-RJ-2230917\n随机号R12-0457，入组。\n捐献码：4401220913006　交易流水：302205031122334455\n"
     "送病理（M22-40871）。理赔案件PA2205031187665已受理。机号12床旁。",
     ["CT22050300418", "SHZ-RJ-2230917", "R12-0457", "4401220913006", "302205031122334455", "M22-40871",
      "PA2205031187665"], []),
    # Names right after a bed number, after staff by shift or rank, before 之子 / 之女; initials; pinyin in capitals.
    ("08:10　15床葛春生诉头晕\n3床左侧肢体无力\n已通知心内科二线臧立群，护士长甄小梅到场。\n新生儿：邬丽华之女（NICU-3）\n"
     "受试者姓名缩写：GCS\nName：SHAO WENJIE　性别：男",
     ["葛春生", "臧立群", "甄小梅", "邬丽华", "GCS", "SHAO WENJIE"], ["左侧肢体", "心内科"]),
    # Organisations whose name starts with a place before a character that is also a function word; the adverb
    # 曾 "once" before 在 is no surname; 申请人 is no organisation's cue (申请 is).
    ("工作：在杭州前进化工有限公司做会计\n产检：在某区后宅街道社区卫生服务中心建卡。患者曾在外院就诊。\n"
     "申请人之父于2021年3月2日入院。",
     ["杭州前进化工有限公司"], ["曾在", "申请人之父"]),
    # A name of five characters after a label, a signature with the relation after it; kin words and a department
    # before a surname stay.
    ("姓名：敖其尔巴图　性别：男\n家属签字：乌云其木（妻）\n代诉人：母亲宓红\n参会：神经内科晏、骨科",
     ["敖其尔巴图", "乌云其木", "宓红"], ["母亲", "神经内科"]),
    # Towns, sumu and sub-districts from the gazetteer, short city names where a place fits, a county by its short
    # name; 城乡 and 乡镇 stay.
    ("患者在枝江市仙女镇务农，后搬回和林格尔县盛乐镇；其女在锦州工作，去年回遵义治疗。城乡居民医保，乡镇卫生院随访。",
     ["仙女镇", "盛乐镇", "锦州", "遵义"], ["城乡", "乡镇卫生院"]),
    # Organisations by their kind.
    ("转诊：宁波明州国际医疗中心\n鉴定：浙江天平司法鉴定所\n医保：南宁市医疗保障局　工作：在成都双流国际机场做安检",
     ["宁波明州国际医疗中心", "浙江天平司法鉴定所", "南宁市医疗保障局", "成都双流国际机场"], []),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_chinese_classes_are_found_and_clinical_text_kept(analyzer, text, phi, keep):
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]
