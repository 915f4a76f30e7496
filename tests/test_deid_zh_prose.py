"""Recall of `climedbench deid` on Chinese places and names written in prose without a label (issue 21): a county,
district or city by its short name after a word of where someone is, comes from or goes (在…务农, 转诊至…, 于…进食,
…籍), a city after its province (河北唐山), a municipality after such a word (从天津赶来), villages and residential
compounds, streets without a number and cities abroad after such a word (在…屯, 住进…花园, 在…路与, 在马德里); relatives named right after a kin word whatever their surname;
notes in traditional characters; each case also keeps what must stay (marble after 在, everyday
words that are also short names, generic villages and compounds). All the notes are written for this test, not taken
from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # A county's and a district's short name after 在 / 回; a city's after 至 / 于 / 自 and before 籍.
    ("患者长期在昌黎务农，半年前回海淀居住。", ["昌黎", "海淀"], ["务农", "居住"]),
    ("建议转诊至绵阳，家属同意。3天前于珠海进食海鲜后腹泻。医保：韶关籍，异地就医。", ["绵阳", "珠海", "韶关"], ["海鲜"]),
    # A city right after its province, a municipality after a place's word; a county with its 县 in a sentence.
    ("其子在外打工（河北唐山），母亲从天津赶来陪护。上月去涞源县探亲。", ["河北唐山", "天津", "涞源县"], ["打工", "陪护"]),
    # Villages and compounds after a place's word.
    ("病前在柳河屯放羊，后搬到翠湖花园与女儿同住；回到老家石桥村过年。", ["柳河屯", "翠湖花园", "石桥村"], ["放羊", "过年"]),
    # A street without a number after a place's word, a road's section, a crossing after 途经, a city abroad, a
    # county with its 县 before a town; streets that are everyday words stay.
    ("骑车在东风北路与货车相撞，于昆明市盘龙区北京路三段受伤。下班途经解放路与中山大道交叉口时摔倒。2018年在"
     "马德里做过手术。上月在梁河县芒东镇采茶。在回家路上、过马路时、在高速公路上均无不适。",
     ["东风北路", "昆明市盘龙区北京路三段", "解放路与中山大道交叉口", "马德里", "梁河县芒东镇"],
     ["回家路上", "马路", "高速公路"]),
    # The next places of a pair or a list after a found one.
    ("常往返绥芬河与黑河。发病前去过大理、丽江旅游。", ["绥芬河", "黑河", "大理", "丽江"], ["旅游"]),
    # Words that stay: marble after 在, short names that are everyday words, generic villages and compounds, a
    # village's clinic (an organisation's name, found as one).
    ("在大理石地面滑倒。在合作医疗报销；病情在前进中好转。在新农村建设工地受伤，住在本村，在度假村游玩。",
     [], ["大理石", "合作医疗", "前进", "新农村", "本村", "度假村"]),
    # Relatives named right after a kin word, whatever their surname (a Tibetan, a Mongolian, a Dai name), and kin
    # words written with 其 / 表 / 孙媳 / 老婆; what follows a kin word and is no name stays.
    ("陪护：丈夫格桑多吉　电话略。家属（女儿卓嘎、女婿顿珠次旺）同意。其孙巴图孟和发现后呼叫。老婆岩香说不要紧。",
     ["格桑多吉", "卓嘎", "顿珠次旺", "巴图孟和", "岩香"], []),
    ("其表姐韦小燕陪同。孙媳侯雅琴夜间陪护。老婆梅淑芬说他不打呼了。", ["韦小燕", "侯雅琴", "梅淑芬"], []),
    ("丈夫体健，女儿均体健。父亲患糖尿病，母亲健在。其父亲因胃癌去世。女儿代诉：头痛。母亲仅会藏语。",
     [], ["体健", "均体健", "患糖尿病", "健在", "其父亲因", "代诉", "仅会藏语"]),
    # A name whose first two characters are a word (叶家, 游子, 关长) after a cue without a colon.
    ("通知值班医生叶家明。已请上级医师游子轩复核。", ["叶家明", "游子轩"], []),
    # A known surname before a given name that is also a word (…|国庆, …|如月), a name jieba tags as one whose surname
    # is a function word (和…), a compound surname jieba knows after a label, a name of four characters or more
    # after 患者 before the sex and age; counts and months after a kin word stay.
    ("姐姐许如月患乳腺癌。其丈夫潘国庆为退伍军人。室友和丽君陪同。\n申请人：完颜志刚　性别：男\n"
     "患者吉克阿呷，女，46岁。女儿三个月前体检正常。",
     ["许如月", "潘国庆", "和丽君", "完颜志刚", "吉克阿呷"], ["三个月前"]),
    # A listed name after one jieba tagged or before 在场; a name of six characters after a label ending in 家属; a
    # phrase of six characters after a label and a city that is its country's name (a nationality) stay.
    ("聚餐时（同事高建军、常斌在场）突发腹痛。\n可联系家属：额尔敦巴雅尔（子），电话略\n"
     "周医师：术前评估气道，张口度正常。患者为新加坡籍华人。",
     ["常斌", "额尔敦巴雅尔"], ["术前评估气道", "新加坡"]),
    # A name without a known surname after a longer label (患者姓名：), a certificate's opening, a follow-up's subject;
    # a brand after a label ending in a word that is a cue only alone before a colon (植入器械：) stays.
    ("患者姓名：阿苏木呷    住院号：略\n兹证明 贾长顺 同志，因病休息。\n对象：上官云本人\n植入器械：美敦力 起搏器",
     ["阿苏木呷", "贾长顺", "上官云"], ["美敦力"]),
    # People named right after 患者家属 / 联系人 / 项目经理 / 太太 / 我妈 / 申请人之父, before a bracket, a space, 及,
    # 明天 or 于; what follows such a word and is no name stays.
    ("患者家属次旦多吉（父亲）询问。联系人玉罕  电话略。项目经理祝令辉（电话略）。太太欧美玲及女儿探视。我妈"
     "喻桂兰明天陪我去。申请人之父童根水于去年去世。\n患者之子陪同。家属表示理解。联系人电话：略",
     ["次旦多吉", "玉罕", "祝令辉", "欧美玲", "喻桂兰", "童根水"], ["陪同", "表示理解", "联系人电话"]),
    # A name of three or four characters before a staff title whatever its surname (a Tibetan name, a rare surname);
    # a label before a title and a role before it stay; 由 before a title is "by", not a surname.
    ("由次仁多吉医师护送。审核：扎西平措护士长\n转出医师：王 \n由值班医师处理。改由护士长查看。",
     ["次仁多吉", "扎西平措"], ["转出医师", "值班医师", "由护士长"]),
    # Notes in traditional characters (Taiwan, Hong Kong): read through their simplified forms, one character for
    # one, so every span lands on the original characters.
    ("醫師：區嘉慧\n聯絡人：兒子馮志強，電話見病歷。家屬（妻子譚詠詩）陪同。患者長期在屏東務農，上月於澳門進食海鮮。",
     ["區嘉慧", "馮志強", "譚詠詩", "屏東", "澳門"], ["海鮮"]),
    ("診斷：帕金森病。處方：阿司匹林100mg qd。複診：兩週後。", [], ["帕金森病", "阿司匹林", "兩週後"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES)
def test_places_and_names_in_prose(analyzer: Analyzer, text: str, phi: list[str], keep: list[str]) -> None:
    spans = analyzer.analyze(text, "zh")
    assert [v for v in phi if not _covered(text, spans, v)] == []
    assert [v for v in keep if _touched(text, spans, v)] == []
