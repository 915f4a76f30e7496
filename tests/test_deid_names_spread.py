"""Person names by two general mechanisms (issue 21, fifth round): a two-character Chinese name padded with a space
to the width of a three-character one where a name stands (deid/zh_name_forms.py `spaced_two`), and a person named
once found at every other mention in the note — the given name alone, the surname as 老/小 or with a title, the
pinyin in a Chinese note, the parts of a Latin name (deid/names_spread.py). Each case also keeps what must stay. All
the notes are written for this test, not taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import check_note


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


SPACED = {
    "in a list of staff before titles, and as a speaker at a line's start": (
        "参加人员：聂志远主任医师、祝 楠护士长、规培医师韦 岚\n祝 楠：同意手术。\n记录：韦岚",
        ["祝 楠", "韦 岚", "韦岚"], ["同意手术"]),
    "in a table cell between rules, and at a line's end after a number": (
        "│08-02 09:00│体温平稳，予翻身拍背。│雷 蕊│\n10:30\u3000118/70\u30000.35\u3000雷 蕊\n",
        ["雷 蕊"], ["体温平稳"]),
    "a rare surname after a role label, and after a department": (
        "访视护士：禚 岩\u30002026年3月1日\n会诊：骨科滕 毅、营养科",
        ["禚 岩", "滕 毅"], ["骨科", "营养科"]),
    "spaced words stay: a side, a department before a title": (
        "左 侧 肢体活动可。\n接诊医生：葛书阳 产科 副主任医师\n血压 正常",
        ["葛书阳"], ["左 侧", "产科 副主任医师", "血压 正常"]),
}


@pytest.mark.parametrize("name", list(SPACED))
def test_spaced_two_character_names(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = SPACED[name]
    check_note(analyzer, text, "zh", phi, keep)


SPREAD_ZH = {
    "the given name alone after a full name in a field": (
        "联系人：钟沁蕾（女儿）  电话：略\n病程记录：沁蕾今晨来院，诉父亲夜间咳嗽加重。",
        ["钟沁蕾", "沁蕾"], ["夜间咳嗽加重"]),
    "the surname as 老 before a verb, not 小程序": (
        "家属：邝志成（儿子）\n午后老邝陪护，程立涛：略。\n患者用小程序记录血糖。",
        ["邝志成", "老邝"], ["小程序"]),
    "the pinyin of a Chinese name, in capitals, either order": (
        "姓名：闫书瑶   拼音：YAN SHUYAO   性别：女\n护照姓名栏为 SHUYAO YAN，已核对。",
        ["闫书瑶", "YAN SHUYAO", "SHUYAO YAN"], ["已核对"]),
    "relatives named after their order of birth or as siblings, a paid carer": (
        "向家属（长女濮蔓青、胞弟濮立山）交代病情。白天由钟点工卓四妹照顾，夜间安静。",
        ["濮蔓青", "濮立山", "卓四妹"], ["交代病情", "夜间安静"]),
}


@pytest.mark.parametrize("name", list(SPREAD_ZH))
def test_names_spread_in_chinese_notes(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = SPREAD_ZH[name]
    check_note(analyzer, text, "zh", phi, keep)


SPREAD_EN = {
    "a surname found in a signature, again in prose and in capitals": (
        "Thanks,\nWilhelmus Quennell\n\nAddendum: QUENNELL to call back re: Parkinson's disease clinic.",
        ["Wilhelmus Quennell", "QUENNELL"], ["Parkinson's disease"]),
}


@pytest.mark.parametrize("name", list(SPREAD_EN))
def test_names_spread_in_english_notes(analyzer: Analyzer, name: str) -> None:
    text, phi, keep = SPREAD_EN[name]
    check_note(analyzer, text, "en", phi, keep)
