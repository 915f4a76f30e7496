"""Recall of `climedbench deid` on Chinese notes for the classes corpora 5 and 6 showed missing (issue 21): Taiwan's
Republic-of-China dates; organisations by their kind (…职业病防治院, …救援中心, …服务中心, factories, travel agencies,
newspapers), a site or a station after a hospital or a centre, university hospitals by their short name (浙大二院),
财经 universities; short place names with their district's word, after 来 or before 一家, sights and streets without a
number after a place's word, a flat's number after its building; staff after a workplace role, the anaesthetist,
staff after a department, a Taiwanese husband, a Cantonese son; a machine's serial, identifiers listed after a cued
one, an ISBT 128 donation number; a name in quotes after 自称, after 证实为 / 核实为 and 儿童：, a highway without its
kilometre post, a surname before a title after thanks (谢谢严医生). Each case also keeps what must stay. All the notes are written for this test, not
taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.dates import shift_date
from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # Republic-of-China years, with 民國 / 中華民國 or three digits; counts of three digits stay.
    ("出生：民國61年7月9日　身分證字號：略\n開立日期：中華民國112年11月3日\n日期：112年5月6日　白班\n共113例，住院112天。",
     ["民國61年7月9日", "中華民國112年11月3日", "112年5月6日"], ["113例", "112天"]),
    # Organisations by their kind; a generic one and a department written after a hospital stay.
    ("转诊至盘锦市职业病防治院。随访单位：营口市站前区康泰居家护理服务中心\n院前急救：绵阳市紧急医疗救援中心\n"
     "退休前在株洲纺织机械厂做会计，导游（苍山国际旅行社）陪同，登报于《海滨都市报》。于就近社区卫生服务中心复查。",
     ["盘锦市职业病防治院", "营口市站前区康泰居家护理服务中心", "绵阳市紧急医疗救援中心", "株洲纺织机械厂",
      "苍山国际旅行社", "海滨都市报"], ["社区卫生服务中心"]),
    # A site or a station after a hospital or a centre, a branch in brackets, a university hospital by its short
    # name, a 财经 university; a department after a hospital stays, 经 before a hospital is "through".
    ("急救站：德阳市急救中心旌阳分站\n长治市人民医院本部　眼科\n宜宾市第一人民医院（南岸院区）\n之前在川大二院看过，"
     "经与湘大一院联系。患者从西南财经大学毕业。转入营口市第二人民医院神经内科。经当地医院治疗好转。",
     ["德阳市急救中心旌阳分站", "长治市人民医院本部", "宜宾市第一人民医院（南岸院区）", "川大二院", "湘大一院",
      "西南财经大学"], ["神经内科", "经当地医院"]),
    # Short place names with their district's word, after 来, before 一家 or a herder's work; sights and streets
    # without a number after a place's word; a flat's number after its building. Streets of everyday words stay.
    ("先生在鳳山區經營機車行。随丈夫来兰州打工。发病前在常德一家米粉店帮工。平时在同仁县放牧。\n"
     "上午我去北环路那边看一下。9月3日在滨河东路走失。晚上在凤凰古城聚餐，行至阿尔山国家森林公园时腹痛。\n"
     "居住：桂花园小区8栋201，独居。更换管路时诉不适。在高速公路上发生车祸。",
     ["鳳山區", "兰州", "常德", "同仁县", "北环路", "滨河东路", "凤凰古城", "阿尔山国家森林公园", "桂花园小区8栋201"],
     ["随丈夫来", "管路", "高速公路"]),
    # Staff after a workplace role, the anaesthetist, staff after a department or the blood bank, a Taiwanese
    # husband, a Cantonese son, the first of a list after 名单; the anaesthesia and the next field's label stay.
    ("班长乌兰和工友将其抬出。材料由单位人事柏静办理。被申请人：某医院，法定代表人闻国强。\n"
     "术者：方志远  一助：钱明  麻醉：全麻（房立新）\n手术人员：主刀刘志远，麻醉孔丹（全麻），新生儿科苗青在场。\n"
     "血浆由血库包丽华发放。\n先生林冠宇陪同就诊。病人話個仔陳家樂每次陪診。\n病例名单：滕浩然、雷诗涵。麻醉成功后消毒。",
     ["乌兰", "柏静", "闻国强", "房立新", "孔丹", "苗青", "包丽华", "林冠宇", "陳家樂", "滕浩然"],
     ["麻醉：", "全麻）", "麻醉成功"]),
    # The name a person gives in quotes, a name found out later (证实为, 核实为), a child after 儿童：, a highway
    # without its kilometre post; what a person says of themselves and a diagnosis found out stay.
    ("送来一名老年男性，自称\"贾德旺\"，说不清住址。\n姓名：不详（后证实为申屠海）　男　约40岁\n醉酒，后经民警核实为洪九。\n"
     "儿童：欧阳乐　性别：男\n事故：G30连霍高速嘉峪关段大货车侧翻。自称头晕。证实为肺炎。",
     ["贾德旺", "申屠海", "洪九", "欧阳乐", "G30连霍高速"], ["头晕", "肺炎"]),
    # A machine's serial, the next of a list of blood bags, an ISBT 128 donation number; a machine's station stays.
    ("透析机：某品牌（机号5008X-3C44120）\n悬浮红细胞 2U（血袋号0223E0911201、0223E0911218）\n"
     "献血码：=W1234 24 556677　发血时间：略\n透析机号：3　床号：5",
     ["5008X-3C44120", "0223E0911201", "0223E0911218", "=W1234 24 556677"], ["机号：3"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES)
def test_chinese_phi_by_kind(analyzer: Analyzer, text: str, phi: list[str], keep: list[str]) -> None:
    spans = analyzer.analyze(text, "zh")
    assert [v for v in phi if not _covered(text, spans, v)] == []
    assert [v for v in keep if _touched(text, spans, v)] == []


def test_a_place_after_lai_is_an_address_not_a_name(analyzer: Analyzer) -> None:
    text = "2019年起随丈夫来兰州打工。"
    spans = analyzer.analyze(text, "zh")
    assert [(text[s.start:s.end], s.entity) for s in spans] == [("兰州", "ADDRESS")]


@pytest.mark.parametrize(("date", "days", "moved"), [
    ("民國61年7月9日", 10, "民國61年7月19日"),
    ("112年12月30日", 5, "113年1月4日"),
    ("中華民國113年3月1日", -1, "中華民國113年2月29日"),  # 2024, a leap year
    ("民国112年5月", 40, "民国112年6月"),
])
def test_republic_of_china_dates_move_in_their_own_years(date: str, days: int, moved: str) -> None:
    assert shift_date(date, days) == moved


def test_thanks_before_a_surname_and_a_title(analyzer: Analyzer) -> None:
    # 谢 of 谢谢 / 感谢 is no surname: the name is the surname before the title; 谢谢医生 holds no name.
    text = "好的谢谢严医生！感谢谢医生的帮助。多谢王医生。谢谢医生。"
    spans = analyzer.analyze(text, "zh")
    assert sorted((s.start, text[s.start:s.end]) for s in spans) == [(4, "严"), (10, "谢"), (19, "王")]
