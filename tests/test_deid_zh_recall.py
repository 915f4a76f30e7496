"""Recall of `climedbench deid` on Chinese notes, class by class: a date with its time of day, names after any role
label and with any surname (rare ones, none at all, with a middle dot), names in table cells, after a signature dash,
after a department, after a second cue word, spaced out before the next label; addresses with their province;
named organisations across 自治州, bracketed branches and agencies; identifiers after 卡 / 编码 / 代码 / 条码. Each
case also keeps what must stay (words in a table, a province alone, a generic hospital, a diagnosis code). All the
notes are written for this test, not taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # A date and its time of day are one identifier.
    ("入院时间：2022年4月3日 08:15　　记录时间：2022-04-03 10:05:33",
     ["2022年4月3日 08:15", "2022-04-03 10:05:33"], []),
    ("出生时间：2021年11月30日22时47分　体重3100g", ["2021年11月30日22时47分"], ["3100g"]),
    ("2022/6/1 07:30　交班，生命体征平稳。\n会诊时间 2022年5月9日 下午　地点：病房",
     ["2022/6/1 07:30", "2022年5月9日 下午"], ["生命体征平稳"]),
    ("执行：孙立（2-11 09:40）、孙立（2-12 09:35）\n予甘露醇 2023-05-01 1500ml 静滴",
     ["2-11 09:40", "2-12 09:35", "2023-05-01"], ["1500ml"]),
    # Rare surnames (JioNLP's list) after a cue, and names after any role label, whatever the surname.
    ("姓名：宓文涛　性别：男\n配血者：訾婷　复核：蒯强", ["宓文涛", "訾婷", "蒯强"], []),
    ("入院登记员：热依娜　床位：肝胆外科12床\n陪护人：其木格（妻子）", ["热依娜", "其木格"], ["肝胆外科"]),
    ("姓名 Name：宓文君 （MI Wenjun）　性别：女", ["宓文君"], []),
    ("签字：訾大伟　冉萍", ["訾大伟", "冉萍"], []),
    # 术后 after a name is a time, not an operation's name; the English half of a bilingual label is no name.
    ("查房：患者阎立刚术后第5天，切口愈合。\n医生 Doctor：司徒文杰　签名日期", ["阎立刚", "司徒文杰"], ["Doctor", "术后"]),
    ("医生（宓志成，市儿童医院）：不建议常规交替用药。", ["宓志成"], ["常规"]),
    # A name with a middle dot, without the cue glued before it.
    ("申请人：阿卜杜热合曼·吐尔洪　性别：男\n监护人：爱新觉罗·恒　关系：父亲\n患者丈夫努尔江·阿不都陪同就诊。",
     ["阿卜杜热合曼·吐尔洪", "爱新觉罗·恒", "努尔江·阿不都"], ["患者丈夫", "陪同"]),
    # Names alone in a table's cells (not the words beside them) and after a signature dash.
    ("日期　　　　级别　术者　一助　麻醉\n2022-05-01　三级　邵雨峰　顾晓芃　全麻　　荀立华\n常规　方案　高危　甘精　贝那",
     ["邵雨峰", "顾晓芃", "荀立华"], ["全麻", "三级", "常规", "方案", "高危", "甘精", "贝那"]),
    ("2022/6/1 09:00　翻身，皮肤完好。—谭翠苹\n2022/6/1 11:00　鼻饲200ml。—谭翠苹", ["谭翠苹"], ["皮肤完好"]),
    # A name after a department, with or without a title, even when it is also a word (毛利).
    ("请心内科骆振华会诊。危急值已通知儿科毛利医生。", ["骆振华", "毛利"], ["心内科", "儿科"]),
    # A second cue word is not the name (母亲 after 家属：), and a list goes on past a bracket.
    ("家属：母亲宁春花，从外地赶来。\n参加：林晓（神经外科）、莫文静（影像科）", ["宁春花", "林晓", "莫文静"],
     ["母亲", "神经外科", "影像科"]),
    # A name spaced out by OCR right before the next label.
    ("检验：黎 莉   审核：常 亮\n术者：邱 咏　助手：朱 泽 璋", ["黎 莉", "常 亮", "邱 咏"], []),
    # An address keeps its province; a province alone stays; the next field is not the address's.
    ("住址：河南省开封市鼓楼区自由路西段88号\n患者来自广东省。", ["河南省开封市鼓楼区自由路西段88号"], ["广东省"]),
    ("联系地址：浙江省宁波市海曙区中山西路77弄3号501室　手机：13905741234",
     ["浙江省宁波市海曙区中山西路77弄3号501室", "13905741234"], []),
    # Organisations: across 自治州, a bracketed place or branch, agencies and police units, a university's centre.
    ("邀请单位：楚雄彝族自治州人民医院　受邀专家：罗主任", ["楚雄彝族自治州人民医院"], []),
    ("单位：京东（北京）物流有限公司　处方流转至：益丰大药房（长沙岳麓店）",
     ["京东（北京）物流有限公司", "益丰大药房（长沙岳麓店）"], []),
    ("委托单位：广州市公安局交通警察支队天河大队\n调解机构：南京市医疗纠纷人民调解委员会",
     ["广州市公安局交通警察支队天河大队", "南京市医疗纠纷人民调解委员会"], []),
    ("送检：复旦大学肿瘤防治中心\n就诊医院：当地卫生院，后转上级医院。", ["复旦大学肿瘤防治中心"], ["就诊医院", "上级医院"]),
    # A mobile right after a bracketed relation, and one in groups of four, four and three.
    ("监护人：郑建华（父）13923017745；郑凤（母）13607914429\n妻子：陈雪　1386 7781 204　工资卡",
     ["13923017745", "13607914429", "1386 7781 204"], []),
    # Identifiers after a card, a code or a barcode; a diagnosis code stays.
    ("就诊卡：7302 1188 4509　献血者编码：3301024410050017\n组织机构代码：45510023-7　标签条码 240301B5521 有误\n"
     "疾病编码 J18.900　主要诊断 社区获得性肺炎　I25.100\n疾病筛查卡号FS-2207-3391-05，手术操作编码 47.0901",
     ["7302 1188 4509", "3301024410050017", "45510023-7", "240301B5521", "FS-2207-3391-05"],
     ["J18.900", "I25.100", "47.0901"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_chinese_identifiers_are_found_and_clinical_text_kept(analyzer, text, phi, keep):
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]



def test_a_date_with_its_time_is_shifted_and_the_time_kept():
    from climedbench.deid.dates import shift_date

    assert [shift_date(t, 10) for t in ("2023-03-15 11:20", "2023年10月9日 21时15分", "2022年12月31日23时58分",
                                        "Tue 10/10/2023 09:14")] == \
        ["2023-03-25 11:20", "2023年10月19日 21时15分", "2023年1月10日23时58分", "Fri 10/20/2023 09:14"]
