"""Chinese organisations: hospitals, clinics, schools, employers, companies and public bodies by their suffix
(lexicon.ORG_SUFFIXES_ZH), with a place glued before the name (zh_places.place_before), a branch in brackets or a site
or a station after it (…（南岸院区）, …医院本部, …急救中心…分站); university hospitals by their short name (浙大二院); an
employer, a school or an insurer after a cue (工作单位：, 就读于, 在…工作, …员工); a generic head (…中心, …站, …馆, …门诊)
where the note's structure says it is a body (a gazetteer place at its start, a heading, a field labelled as one).
Generic words (我院, 当地医院), departments, and cue values or names that jieba reads as a clause stay."""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.patterns import ORGANIZATION


@cache
def _zh_org_regex() -> re.Pattern[str]:
    suffixes = "|".join(sorted(map(re.escape, lexicon.ORG_SUFFIXES_ZH + lexicon.ORG_SUFFIXES_ZH_MORE), key=len,
                               reverse=True))
    return re.compile(f"(?:{suffixes})")


# A university hospital by its short name (浙大二院, 哈医大一院, 中大附一院).
_ZH_HOSPITAL_SHORT = re.compile(r"[\u4e00-\u9fa5]{1,2}(?:医大|大)(?:附属|附)?[一二三四五六七八九]院")
_ZH_ORG_STOP = set("于在到至转往赴去来自从经由及与的、，。；：:（）()\n \t就诊入住前后送曾请")


def zh_organisations(text: str) -> list[Span]:
    out = []
    for m in _zh_org_regex().finditer(text):
        end = m.end()
        start = m.start()
        while start > 0 and m.start() - start < 16:
            if text[start - 1] in "）)":  # a place in brackets inside the name (唯品会（中国）有限公司)
                inner = re.search(r"[（(][\u4e00-\u9fa5]{2,6}$", text[max(0, start - 9):start - 1])
                if inner is None:
                    break
                start -= len(inner.group()) + 1
            elif (text[start - 1] not in _ZH_ORG_STOP or text.startswith(("自治", "财经"), start - 1 - (text[start - 1] == "经"))
                  or _noun_ends_at(text, start)) and \
                    ("\u4e00" <= text[start - 1] <= "\u9fa5" or text[start - 1].isalnum()):
                start -= 1  # 自 of 自治区 / 自治州 and 经 of 财经 are the name's (广西壮族自治区人民医院, 上海财经大学)
            else:
                break
        # A time before a generic hospital is not part of a name (术后7-10天当地医院拆线).
        lead = re.match(r"\d[\d\-~～]*[天周月年日]?", text[start:m.start()])
        start += lead.end() if lead else 0
        if text.startswith("就近", start - 1):  # 就近社区卫生服务中心: "the nearest", not a name
            start += 1
        start = _past_verbs(text, start, m.start())
        name = text[start:m.start()]
        if _generic_only(name) or _clause_name(name):  # 当地乡镇卫生院, 辖区疾控中心, 可通过|医院: a kind, no name
            continue
        # A label (出生医院：, 就诊医院：), not a name; but a letter's addressee on a line of its own is one (…人民医院：).
        if re.match(r"[ \t]*[:：]", text[end:end + 3]) and not (
                len(name) >= 3 and re.fullmatch(r"[ \t\u3000]*", text[text.rfind("\n", 0, start) + 1:start]) and
                re.match(r"[ \t]*[:：][ \t]*\n", text[end:end + 6])):
            continue
        if not name or name in lexicon.ORG_GENERIC_ZH or (len(name) == 1 and name not in "协华湘齐") or \
                name.endswith(("当地", "附近", "外地", "上级", "基层", "就近")) or re.fullmatch(r"为.", name):
            continue
        out.append(Span(start, _zh_org_tail(text, end), ORGANIZATION, 0.8, "zh-organisation"))
    for m in _ZH_HOSPITAL_SHORT.finditer(text):
        s, e = m.span()
        while text[s] in _ZH_ORG_STOP:
            s += 1
        out.append(Span(s, e, ORGANIZATION, 0.75, "zh-organisation-short"))
    for m in _ZH_ORG_CUE.finditer(text):
        group = next(g for g in ("v", "w", "x") if m.group(g) is not None)
        s, e = m.span(group)
        e = s + len(_ZH_AFTER_EMPLOYER.sub("", text[s:e]))  # …中学（教师）, …学院2021级: the state or class after it
        # 保险 inside a word (…医疗保险已报销, …保险医疗保单) is the insurance, no cue: only before a colon or a bracket.
        if m.group().startswith("保险") and m.start() > 0 and "\u4e00" <= text[m.start() - 1] <= "\u9fa5" and \
                text[m.start() + 2:m.start() + 3] not in ("：", ":", "（", "("):
            continue
        # Not an occupation (职业 退休（原煤矿工人）).
        if text[s:e] not in lexicon.ORG_GENERIC_ZH and e - s >= 2 and not _department(text[s:e]) and \
                not text[s:e].endswith(("工人", "员", "师", "农民", "司机")) and not _clause(text, s, e, group == "w"):
            out.append(Span(s, e, ORGANIZATION, 0.8, "zh-organisation-cue"))
    out += _insurers(text) + _employer_in_brackets(text)
    from climedbench.deid.zh_places import place_before  # a place glued before the name (zh_places.py)

    out += _generic_head_orgs(text)
    spans = []
    for span in out:
        start = _past_clause(text, span.start, span.end)
        spans.append(Span(_places_glued_before(text, place_before(text, start)), span.end, span.entity, span.score,
                          span.detector))
    return spans


# Labels glued before a name, no part of it (工作单位…, 开户行…, 接种单位…).
_GLUED_LABELS = ("单位", "地址", "开户行", "患者", "交警", "保险公司")


def _past_clause(text: str, start: int, end: int) -> int:
    """Where a name starts once the words before the first place in it are dropped when they are a clause or a label
    (患者为|新疆…大学, 已提交|…保障局, 本例上报|…委员会, 工作单位|…公司); a brand before its branch's place stays
    (中国农业银行|乌鲁木齐…支行)."""
    from climedbench.deid import jieba_hmm

    place = _place_regex().search(text, start, end)
    if place is None or place.start() == start:
        return start
    prefix = text[start:place.start()]
    if prefix.endswith(_GLUED_LABELS):
        return place.start()
    if _zh_org_regex().search(prefix) or any(w in prefix for w in _BODY_WORDS):  # a brand (…财产保险|无锡分公司)
        return start
    return place.start() if any(t.flag in _CLAUSE_FLAGS - {"a", "m"} for t in jieba_hmm.lcut(prefix)) else start


def _places_glued_before(text: str, start: int) -> int:
    """Where a name starts once the places written right before it are taken in, a province or city before a county
    or district (…市|…区|name): zh_places.place_before takes in one."""
    while (m := _place_regex(True).search(text, max(0, start - 12), start)) is not None and m.end() == start and \
            m.start() < start:
        start = m.start()
    return start


@cache
def _place_regex(at_end: bool = False) -> re.Pattern[str]:
    """A province, city, county or district of JioNLP's gazetteer, full or short name (zh_places); a short name that
    is also an everyday word (jieba frequency of 300 or more and not tagged a place: 合作, 前进) is left out."""
    from climedbench.deid.zh_places import short_place_names

    provinces, lower = lexicon.china_places()
    # A short name that is also an everyday word (合作, 前进: frequent, and not tagged a place) is no place here.
    from climedbench.deid import jieba_hmm

    short = {n for n in short_place_names() if _jieba_freq(n) < 300 or
             [t.flag for t in jieba_hmm.lcut(n)] == ["ns"]}
    names = "|".join(sorted((re.escape(n) for n in provinces | lower | short if len(n) >= 2), key=len, reverse=True))
    return re.compile(f"(?:{names})" + ("$" if at_end else ""))


# Heads that name an organisation's kind but are also everyday words (…中心, …站, …馆, …门诊, …厂, …校区): a run of
# characters ending in one is an organisation only where the note's structure says so — with a province, city, county
# or district written at its start (…市…护养中心, …区…监测站), as a heading at a line's start, or as the value of a
# field whose label names a body (转出单位：, 抄送：, 分站：) — and where its name is no kind or department alone.
_GENERIC_HEAD = re.compile(r"中心|分站|站|馆|门诊|厂|校区|所|局|社")
_ORG_LABEL = re.compile(r"(?:单位|机构|抄送|门诊|分站|站点|医院|学校|公司|厂家|采血点|送往|转往)[ \t]*[:：][ \t]*$")
_HEAD_FOLLOW = re.compile(r"[ \t\u3000]{2,}|[ \t\u3000]*(?:\n|$)|[】）)，,。；;、]|[:：][ \t]*\n")
_ZH_STRONG_SUFFIX = re.compile("|".join(lexicon.ORG_SUFFIXES_ZH))
# jieba's tags of words that make a run no name (期间, 已经, 我们, 因为, 的): time, adverb, pronoun, position, particle.
_NOT_NAME_FLAGS = ("t", "d", "p", "r", "f", "u", "c", "q", "y")


def _generic_head_orgs(text: str) -> list[Span]:
    from climedbench.deid import jieba_hmm

    out = []
    for m in _GENERIC_HEAD.finditer(text):
        start, end = m.span()
        if end < len(text) and _jieba_freq(text[end - 1:end + 1]) > 0:  # the head starts a word (社区, 所以, 局部)
            continue
        while start > 0 and end - start < 22 and text[start - 1] not in _ZH_ORG_STOP and \
                ("\u4e00" <= text[start - 1] <= "\u9fa5" or text[start - 1].isalnum()):
            start -= 1
        place = _place_regex().search(text, start, m.start())
        line_start = text.rfind("\n", 0, start) + 1
        heading = re.fullmatch(r"[ \t\u3000【\[]*", text[line_start:start]) is not None and \
            _HEAD_FOLLOW.match(text, end) is not None
        field = _ORG_LABEL.search(text, max(0, start - 12), start) is not None and _HEAD_FOLLOW.match(text, end) is not None
        if place is not None and place.start() > start and not heading and not field:
            start = place.start()  # the name starts at the place (院外|兰州…, 联系|黑龙江省…)
        name = text[(place.end() if place is not None and place.start() == start else start):end]
        head = m.group()
        words = jieba_hmm.lcut(name[:-len(head)]) if len(name) > len(head) else []
        if len(name) - len(head) < 2 or "院" in name or "科" in name or _generic_only(name[:-len(head)]) or \
                any(w.flag.startswith(_NOT_NAME_FLAGS) and not w.word.isdigit() for w in words):
            continue
        # With a place alone as the evidence: no verb of one character (…开面馆), no body before a department of it
        # (…卫生中心|…门诊), no kind of place before the head (…街道社区门诊).
        placed = place is not None and place.start() == start and not any(
            w.flag == "v" and len(w.word) == 1 for w in jieba_hmm.lcut(name)) and _ZH_STRONG_SUFFIX.search(name[:-len(head)]) is None \
            and not name[:-len(head)].endswith(("社区", "街道", "乡", "镇", "村"))
        proper = any(w.flag.startswith(("ns", "nr", "nz", "nt")) or
                     (len(w.word) >= 2 and _jieba_freq(w.word) == 0 and not w.word.isascii()) for w in words)
        # A field labelled as a body holds one (转出单位：…口岸国际门诊); a heading needs a proper noun in the name.
        if placed or (heading and proper) or (field and len(words) >= 2):
            out.append(Span(start, end, ORGANIZATION, 0.75, "zh-organisation-kind"))
    return out


def _jieba_freq(word: str) -> int:
    from climedbench.deid.zh_name_forms import jieba_words

    return jieba_words().get(word, 0)


def _noun_ends_at(text: str, start: int) -> bool:
    """A stop character that ends a noun of the name (神经 of …神经医学中心): jieba's dictionary tags the two
    characters before `start` a noun."""
    from climedbench.deid import jieba_hmm

    word = text[max(0, start - 2):start]
    if len(word) < 2 or _jieba_freq(word) == 0:
        return False
    tokens = jieba_hmm.lcut(word)
    return len(tokens) == 1 and tokens[0].flag == "n"


# Verbs and adverbs that the backward scan may take in before a name (可联系…, 已告知…, 已通知…, 建议…).
_ZH_ORG_VERBS = ("联系", "告知", "通知", "报告", "上报", "建议", "申请", "咨询", "前往", "返回", "回到", "送往", "介绍",
                 "推荐", "转介", "已", "可", "需", "请", "应", "拟", "并")
# Words that only say what kind of place it is (辖区, 私人, 三甲); with lexicon.ORG_GENERIC_ZH.
_ZH_ORG_KIND_WORDS = ("辖区", "私人", "个体", "民营", "私营", "正规", "大型", "小型", "三甲", "二甲", "乡镇", "当地", "上级",
                      "附近", "社区", "基层", "养老机构", "医疗机构")


def _past_verbs(text: str, start: int, end: int) -> int:
    """Where a name starts once the verbs and adverbs the scan took in before it are dropped (可联系|当地…)."""
    moved = True
    while moved:
        moved = False
        for w in _ZH_ORG_VERBS:
            # An adverb of one character only before a verb or a generic word (已|告知, 可|联系; 可克达拉市 stays).
            if text.startswith(w, start) and start + len(w) <= end and \
                    (len(w) > 1 or text.startswith((*_ZH_ORG_VERBS, *_ZH_ORG_KIND_WORDS), start + 1)):
                start += len(w)
                moved = True
                break
    return start


@cache
def _generic_words() -> tuple[str, ...]:
    """lexicon.ORG_GENERIC_ZH and `_ZH_ORG_KIND_WORDS` of two characters or more, longest first."""
    return tuple(sorted((w for w in (*lexicon.ORG_GENERIC_ZH, *_ZH_ORG_KIND_WORDS) if len(w) >= 2), key=len,
                        reverse=True))


def _generic_only(name: str) -> bool:
    """A name made of generic words only (当地乡镇, 上级三甲, 辖区, 养老机构和社区), which names no organisation."""
    words = _generic_words()
    rest = name
    while rest:
        w = next((w for w in words if rest.startswith(w)), None)
        if w is None:
            return False
        rest = rest[len(w):]
        if rest[:1] in ("和", "及", "或", "与", "、") and len(rest) > 1:  # 养老机构和社区: two kinds
            rest = rest[1:]
    return bool(name)


def _zh_org_tail(text: str, end: int) -> int:
    """Where an organisation's name ends: past a branch in brackets (（深圳福田分院）, （成都锦江店）, （广州）) and, after a
    university, past the centre of it that is named (中山大学|肿瘤防治中心)."""
    provinces, lower = lexicon.china_places()
    m = re.match(r"[（(]([\u4e00-\u9fa5]{2,10})[）)]", text[end:end + 12])
    if m is not None and (m.group(1).endswith(("院", "店", "中心", "部", "校区", "院区")) or m.group(1) in provinces or
                          m.group(1) in lower or m.group(1) + "市" in lower):
        return end + m.end()
    if text[:end].endswith(("院", "中心")):
        unit = _ZH_UNIT_AFTER.match(text, end)
        if unit is not None:
            return unit.end()
    if text[:end].endswith(("大学", "学院")):
        unit = re.match(r"[\u4e00-\u9fa5]{2,10}?(?:中心|研究所|研究院)", text[end:end + 14])
        if unit is not None:
            return end + unit.end()
    return end


# A hospital's site or a centre's station glued after it (…医院本部, …急救中心信都分站); a department written on
# (…医院神经内科) stays, as departments do.
_ZH_UNIT_AFTER = re.compile(r"本部|院本部|[\u4e00-\u9fa5]{2,4}?(?:分站|分部)(?![\u4e00-\u9fa5])")
_ZH_ORG_CUE = re.compile(r"(?:工作单位|单位名称|就职于|任职于|供职于|就读于|学校|雇主|所在单位|申请了?(?!人)|援助机构|平台|保险公司|"
                         r"保险|工作(?!通道|腔|能力|量|时|日|人员)|经营|外企员工|职业[^\n，。]{0,8}[（(])[:：\s（(]*"
                         r"(?P<v>[A-Z][A-Za-z&.'-]*(?: [A-Z][A-Za-z&.'-]*){0,4}"
                         r"|[\u4e00-\u9fa5A-Za-z0-9]{2,24}?(?:[（(][\u4e00-\u9fa5]{2,4}[）)])?[\u4e00-\u9fa5A-Za-z]*?)"
                         r"(?=[\s，。；;,、\n）)]|援助|项目|$)"
                         r"|在(?P<w>[\u4e00-\u9fa5A-Za-z（）()]{2,20}?)(?:工作|任职|上班|就职|打工|实习)"
                         r"|(?<![\u4e00-\u9fa5])(?P<x>[\u4e00-\u9fa5A-Za-z（）()]{2,20}?)(?:快递员|职工|员工|工人|骑手|外卖员|司机|店员)")


# jieba's tags of words that make a cue's value a clause, not a name (不能, 已, 及, 的, 每日, 正常): adverbs, prepositions,
# conjunctions, particles, pronouns, times, positions, numbers and measures, adjectives; and verbs.
_CLAUSE_FLAGS = frozenset(("d", "p", "c", "u", "uj", "ul", "r", "t", "y", "f", "q", "m", "a", "ad", "z", "zg", "v"))
# Words that say a value names a body whatever else is in it.
_BODY_WORDS = ("集团", "银行", "保险", "人寿", "合作社", "厂", "店", "公司", "中学", "小学", "大学", "学院")


def _clause(text: str, start: int, end: int, workplace: bool = False) -> bool:
    """A cue's value that reads as a clause (平台|规定不能…, 学校|心理老师跟进, 工作|正常, 胫骨平台|骨折切开复位…): a word of
    `_CLAUSE_FLAGS` in it and nothing that names a body — no organisation's suffix or kind, no place of the gazetteer,
    no proper noun, no word of `_BODY_WORDS`; a short value right after a colon stays a name (平台：…在线), and
    between 在 and 工作 only function words make one (`workplace`)."""
    from climedbench.deid import jieba_hmm

    value = text[start:end]
    if text[max(0, start - 2):start].strip(" \t").endswith((":", "：")) and len(value) <= 6:
        return False
    tokens = jieba_hmm.lcut(value)
    # Between 在 and 工作 / 任职 a workplace stands: only function words make it a clause (在新…天地任职).
    flags = ("d", "p", "c", "u", "uj", "ul", "r", "y") if workplace else _CLAUSE_FLAGS
    if not any(t.flag in flags for t in tokens):
        return False
    return not (_zh_org_regex().search(value) or _GENERIC_HEAD.search(value) or _place_regex().search(value) or
                any(t.flag.startswith(("nr", "ns", "nt", "nz")) for t in tokens) or any(w in value for w in _BODY_WORDS))


# A state, a job or a class written after an employer or a school, not its name (（退休）, （教师）, 高二, 2021级, 大班),
# and a bracket left open at the value's end.
_ZH_AFTER_EMPLOYER = re.compile(r"(?:[（(](?:已|原)?(?:退休|离休|在职|兼职|[\u4e00-\u9fa5]{0,4}[员师工])[）)]|[（(][^（）()]{0,8}"
                                r"|[高初][一二三]|[一二三四五六]年级|\d{4}级|[大中小]班|大[一二三四五])$")


def _clause_name(name: str) -> bool:
    """A name before a generic suffix made of clause words only (可通过|医院, 也可关注|医院, 你们|医院, 不想跑|医院): adverbs,
    verbs, prepositions, pronouns, times; a single verb may name a hospital (解放), and adjectives do (中日|友好)."""
    from climedbench.deid import jieba_hmm

    tokens = jieba_hmm.lcut(name)
    if not tokens or not all(t.flag in ("d", "p", "c", "u", "uj", "r", "t", "y", "v") for t in tokens):
        return False
    return len(tokens) >= 2 or tokens[0].flag in ("d", "p", "c", "u", "uj", "r", "t", "f", "y")


def _department(value: str) -> bool:
    """A hospital department or a generic word (心外科, 医院, 家中), which may stay."""
    return (value.endswith(("科", "室", "部门", "病房", "中心")) and len(value) <= 6) or value in ("家中", "本院", "医院", "外院", "当地")


# An insurer by its brand and its kind (…人寿, …保险, …财险) at a word's start or after a verb of holding or paying
# (持…保险医疗保单, 用于…人寿理赔); a kind of insurance (医疗保险, 商业保险, 工伤保险) is no insurer.
_ZH_INSURER = re.compile(r"(?:(?<![\u4e00-\u9fa5])|(?<=[持用于向由经从在买投保参]))"
                         r"(?![持用于向由经从在买投参])(?P<v>[\u4e00-\u9fa5]{2,4}?)(?:人寿|财险|寿险|保险)(?![\u4e00-\u9fa5]{0,2}[:：])")
_INSURANCE_KINDS = ("医疗", "商业", "社会", "养老", "失业", "工伤", "生育", "大病", "意外", "伤害", "重疾", "疾病",
                    "人身", "健康", "居民", "农村", "补充", "住院", "责任", "财产", "车辆", "机动车", "交强", "护理",
                    "医保", "雇主", "学生", "学平", "团体", "个人", "百万", "惠民", "普惠", "防癌", "旅游", "旅行", "境外",
                    "出境", "公费", "自费", "失能", "儿童", "少儿", "女性", "定期", "终身", "分红", "万能", "投资", "社保",
                    "职工", "城镇", "城乡", "新农", "合作", "长期", "短期", "综合", "家庭", "运输", "货物", "信用",
                    "有", "无", "未", "已", "的", "购买", "参加", "参保", "投保", "相关", "其他", "各类", "各种", "任何")


def _insurers(text: str) -> list[Span]:
    out = []
    for m in _ZH_INSURER.finditer(text):
        value = m.group("v")
        if not value.endswith(_INSURANCE_KINDS) and not value.startswith(_INSURANCE_KINDS) and \
                not value.startswith(("医", "社", "商", "保险")):
            out.append(Span(m.start("v"), m.end(), ORGANIZATION, 0.75, "zh-organisation-insurer"))
    return out


# An employer in brackets after a job that has one (程序员（…）, 骑手（…）, 会计（…）): not a shift, a rank or a state
# (夜班, 退休, 兼职), nor a department (…科, …室).
_ZH_EMPLOYER_BRACKET = re.compile(r"(?:程序员|工程师|职员|员工|店员|司机|骑手|快递员|外卖员|销售|会计|文员|保安|客服|"
                                  r"经理|主管|技术员|工人|设计师|分析师|运营)[（(](?P<v>[\u4e00-\u9fa5A-Za-z0-9]{2,12})[）)]")


def _employer_in_brackets(text: str) -> list[Span]:
    from climedbench.deid.zh_name_forms import jieba_words

    out = []
    for m in _ZH_EMPLOYER_BRACKET.finditer(text):
        value = m.group("v")
        if jieba_words().get(value, 0) == 0 and not _department(value) and value not in lexicon.ORG_GENERIC_ZH and \
                not re.search(r"[班岗职休聘退工期年月日]$|^[已未曾原前现兼]", value):
            out.append(Span(m.start("v"), m.end("v"), ORGANIZATION, 0.75, "zh-organisation-employer"))
    return out
