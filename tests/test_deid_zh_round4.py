"""Recall of `climedbench deid` on Chinese notes for the classes the unseen corpus 7 showed the rules did not
generalise to (issue 21, fourth round), each by a general mechanism: an organisation named by a generic head (…中心,
…站, …馆, …门诊, …厂, …校区) where the note's structure says it is one — a place of the gazetteer at its start, a heading
at a line's start, the value of a field labelled as a body — and a letter's addressee (…医院：); a name before a title
glued to a word (今日|…主任医师); a name glued after a person's role that is no title (保安…, 负责人…, 值班…) or after a
kin word before any word (丈夫…|病情); a signer after what a signer does (审签：, 审阅：); a guardian's name after
its kinship (监护人：父 …); ISBT 128 donation numbers and document numbers (…[2024]…第…号) by their shape; logins after who operated or printed
(操作员 …); phones OCR wrote with l for 1; a full name jieba tags before a verb (…驾驶).
And what the same mechanisms showed to be no organisation: a cue's value that reads as a clause, the state or class
after an employer, a clause before a place, a generic hospital after a clause. Each case also keeps what must stay. All the notes are written for this test, not taken from any corpus."""

from __future__ import annotations

import pytest

from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered as _covered
from tests.support.deid_spans import touched as _touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(ner=False)


CASES = [
    # A generic head with a place at its start, in prose: the organisation, not the words around it.
    ("患者近半年居于大连市甘井子区松鹤颐养中心，夜间跌倒。", ["大连市甘井子区松鹤颐养中心"], ["夜间跌倒"]),
    ("伤前在佛山市顺德区华宝五金制品厂车间打磨工件。", ["佛山市顺德区华宝五金制品厂"], ["车间打磨工件"]),
    ("经协调，联系湖南省潜水医学治疗中心，次日转运。", ["湖南省潜水医学治疗中心"], ["次日转运"]),
    # A heading at a line's start, and the value of a field labelled as a body.
    ("临沂市120紧急救援指挥中心  院前急救记录\n接警时间：08:10", ["临沂市120紧急救援指挥中心"], ["院前急救记录"]),
    ("杭州青藤国医馆  中药处方\n处方号：略", ["杭州青藤国医馆"], ["中药处方"]),
    ("转出单位：瑞丽姐告边境国际门诊      转入单位：本院感染科", ["瑞丽姐告边境国际门诊"], ["本院感染科"]),
    ("抄送：苏州市医疗保障基金结算中心", ["苏州市医疗保障基金结算中心"], []),
    # A letter addressed to a hospital, on a line of its own; a label (就诊医院：) stays no name.
    ("双向转诊单\n普洱市第一人民医院：\n    现转诊患者一名。\n就诊医院：\n本院", ["普洱市第一人民医院"], ["就诊医院"]),
    # Not organisations: a kind of place alone, a verb before a shop's kind, a sub-district's community clinic.
    ("检验中心  报告单\n丈夫在宝鸡开面馆，每日视频。在海淀区学院路街道社区门诊输液。\n抄送：常州市医疗保障基金结算中心",
     ["常州市医疗保障基金结算中心"], ["检验中心", "开面馆", "门诊输液"]),
    # A name before a title glued to a word before it (a time, 随, a department without 科).
    ("今日龚立新主任医师查房，随蒋宏伟副主任医师会诊。已电话告知急诊覃建国医师。", ["龚立新", "蒋宏伟", "覃建国"],
     ["今日", "查房", "急诊"]),
    # A name glued after a role that is no title, or after a kin word before any word.
    ("小区保安欧阳栋发现其倒地。工地负责人姚振华已来院。值班祁海东已知晓。已告知丈夫贺明远病情危重。",
     ["欧阳栋", "姚振华", "祁海东", "贺明远"], ["发现", "已来院", "病情危重"]),
    # Roles that make a longer word with what follows are no names (护士长, 值班表, 保安人员).
    ("护士长查房后交代。值班表已更新。保安人员到场。门卫保安邝振宁发现后报警。", ["邝振宁"], ["护士长", "值班表", "保安人员"]),
    # A signer after what a signer does; an ordinary word after it stays.
    ("记录者：齐可   审签：萧振邦\n审阅：單裕和\n考核：优秀  审核：同意", ["萧振邦", "單裕和"], ["优秀", "同意"]),
    # A noun of the name that ends in a character the backward scan stops at (神经 of …神经医学中心).
    ("宁波雪窦山神经医学中心  功能神经外科\n姓名：略", ["宁波雪窦山神经医学中心"], ["功能神经外科"]),
    # ISBT 128 donation numbers by their shape, in a table's rows without a label; a lab value stays.
    ("血袋号          开始     结束\n  =X5678 25 030117 4     09:10   09:55\n  X5678 25 030118 2     10:00\n"
     "Hb 86 g/L", ["=X5678 25 030117 4", "X5678 25 030118 2"], ["Hb 86 g/L", "09:10"]),
    # A login in lower case after who operated or printed, a handle glued to 用户; a word after a label stays.
    ("终端 10.1.2.3  操作员 zhaoxq | 打印者：liumh\n宝妈（用户tangtang_baba_0301）：医生，孩子发热。使用者 Lisa",
     ["zhaoxq", "liumh", "tangtang_baba_0301"], ["医生"]),
    # A guardian's kinship before the name in a field; an address under 居所 / 住所.
    ("监护人：父 施德昆（某鞋厂业务员）\n居所：翔鹭片区侨商社区5号楼0902", ["施德昆", "翔鹭片区侨商社区5号楼0902"], ["业务员"]),
    # A document number by its shape on a line of its own; a phone OCR wrote with l for 1; the section stays.
    ("                  宁海司鉴[2025]法鉴字第0419号\n一、基本情况\n委 托 人: 某 某 (妻)   电 话: l39l2345678",
     ["宁海司鉴[2025]法鉴字第0419号", "l39l2345678"], ["基本情况"]),
    # A full name jieba tags a person's before a verb of two characters (someone doing something).
    ("据委托书载：当日18时许，邓国强驾驶小型轿车行驶至路口。", ["邓国强"], ["小型轿车", "行驶"]),
    # A full name right after a department before what that person does; a department's own words stay.
    ("检验科冼佳琪电话报告，责任护士已接听。外科手术史阴性。眼科检查未见异常。", ["冼佳琪"], ["手术史", "检查未见"]),
    # Precision: a cue's value that reads as a clause is no organisation (平台|规定…, 工作|正常, 学校|心理老师跟进).
    ("医生：平台规定不能私下加好友，可在平台内复诊。\n结论：起搏器工作正常。学校心理老师跟进。\n平台：康语在线",
     ["康语在线"], ["规定不能私下加好友", "正常", "心理老师跟进"]),
    # The state, job or class written after an employer or a school is not its name; a clause or a label before the
    # place an organisation's name starts with is not its name (患者为|…, 已提交|…, 工作单位|…); a brand before its
    # branch's place is.
    ("工作单位：渭南师范学院（退休）\n学校：宝鸡市第三中学高二　　监护人：略\n患者为湖北文理学院在读研究生。"
     "申请已提交伊金霍洛旗人力资源和社会保障局。就职单位绍兴柯桥新纺物流有限公司，于当日受伤。"
     "账户：中国农业银行乌鲁木齐雅山支行",
     ["渭南师范学院", "宝鸡市第三中学", "湖北文理学院", "伊金霍洛旗人力资源和社会保障局", "绍兴柯桥新纺物流有限公司",
      "中国农业银行乌鲁木齐雅山支行"], ["退休", "高二", "患者为", "已提交", "就职单位"]),
    # A generic hospital after a clause (可通过|医院, 也可关注|医院) is no name; a single verb or adjectives may be one.
    ("如有疑问可通过医院预约电话咨询，也可关注医院公众号。随访于解放医院，曾在中日友好医院就诊。",
     ["解放医院", "中日友好医院"], ["可通过医院", "关注医院"]),
]


@pytest.mark.parametrize(("text", "phi", "keep"), CASES)
def test_round4_chinese_classes_are_found_and_clinical_text_kept(analyzer, text, phi, keep):
    spans = analyzer.analyze(text, "zh")
    missed = [v for v in phi if not _covered(text, spans, v)]
    touched = [v for v in keep if _touched(text, spans, v)]
    assert (missed, touched) == ([], []), [(text[s.start:s.end], s.entity, s.detector) for s in spans]
