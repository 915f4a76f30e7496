"""Chinese person names that the cue and title searches of zh_names.py do not reach: a name after any role
label (入院登记员：…, 编码员 …, 医生（…，), whatever its surname (a rare one, or none: 热娜古丽,
扎西次仁); a name with a middle dot (阿依古丽·买买提, 爱新觉罗·恒); a name alone in a table cell or after
a signature dash (…　陈馨　邵咏峰　全麻, —凤霞); a name after a department (请胰腺外科…会诊,
通知儿科…医生)."""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import jieba_hmm, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.patterns import NAME

_CJK = "\u4e00-\u9fa5"
_DOT = "·•・‧"
_BOUNDARY = (r"(?=[ \t\n，,。；;、/／（()）：:]|$"
             r"|本人|同志|先生|女士|等人|参加|陪同|来电|签字)")
# A field starts at a line's start or after a separator
# (参加人员：医生 孔令辉、护士长 薛冬梅；家属 褚国梁).
_FIELD_START = r"(?:^|(?<=[ \t，,。；;：:、（(）)】\]|｜]))"
# Roles a label ends with (入院登记员, 配血者, 被保险人, 测评师, 主检医生, 责任护士, 护士长), and what a signer does
# (审签, 审阅, 复核).
_ROLE_END = ("(?:者|人|员|师|医生|医师|护士|护师|主任|大夫|专家|护士长|家长|家属|监护人|签字|签名|"
             "审签|审阅|签发|审批|批阅)")
# Values after a label that are not a person (本人, 不详, 自行来院, 同上).
_NOT_PERSON_START = ("本人", "不详", "暂无", "未", "无", "同上", "见", "详见", "自行", "患者",
                     "家属", "医生", "护士", "签字", "签名", "日期", "时间", "电话", "联系", "已",
                     "均", "由", "经", "为", "在")
# Roles of people that stand right before a name without being a title after one (…员 of 工作人员 / 督导员, 保安).
_ROLES_GLUED = "人员|[\u4e00-\u9fa5]员|保安|负责人|值班|副驾|路人|人事|司机|店主|房东|老板|班长|队长|组长|教练"
_TITLES = "医生|医师|副主任|主任|大夫|副教授|教授|护士长|老师|会诊|主治医师|主治"
_STAFF_TITLES = "主任医师|副主任医师|主治医师|医师|医生|护士长|护士|副主任|主任|副教授|教授|大夫"
_NOT_PERSON_END = (*"科室院所部组局处队区市省县镇村路号床病症炎术药片液剂素酸类型期级",
                   *"性情况项位例人者员师家方侧度次天年月", "中心")


@cache
def _regexes() -> dict[str, re.Pattern[str]]:
    latin = r"(?:[A-Za-z][A-Za-z .]{1,20}?(?=[ \t]*[:：]))?"  # the English half of a label (姓名 Name：)
    colon_only = [rf"{re.escape(w)}(?=[ \t]*{latin}[ \t]*[:：])" for w in lexicon.ZH_NAME_BEFORE_COLON]
    cues = "|".join(sorted(map(re.escape, lexicon.ZH_NAME_BEFORE), key=len, reverse=True))
    colon_cues = "|".join(colon_only)
    single, compound = lexicon.zh_surnames()
    surname = "(?:" + "|".join(sorted(compound, key=len, reverse=True)) + "|[" + \
        "".join(sorted(single - lexicon.FUNCTION_SURNAMES)) + "])"
    kin = "|".join(sorted(map(re.escape, lexicon.ZH_KIN), key=len, reverse=True))
    # Two to six characters: a Mongolian or Tibetan name may be six long (额尔登巴特尔).
    value = rf"(?P<v>[{_CJK}]{{2,6}}(?:[{_DOT}][{_CJK}]{{1,6}}){{0,2}})"
    return {
        # A label (a role or a cue word, after up to six characters: 患者姓名; a word that is a cue only before a colon,
        # alone: 器械：, not 植入器械：) then a colon, a space or a bracket, then the name alone in its field (after the
        # kinship written before it: 监护人：母 …).
        "role": re.compile(rf"{_FIELD_START}(?P<cue>[{_CJK}]{{0,6}}?(?:{_ROLE_END}|{cues})|{colon_cues})[ \t]*{latin}"
                           rf"(?P<sep>[:：][ \t]*|[ \t]+|[（(])(?:[父母夫妻子女兄姐弟妹][ \t]+)?{value}{_BOUNDARY}",
                          re.M),
        # A name glued after a person's role that is no title (保安…发现, 负责人…已来院, 工作人员…今日, 副驾…（电话）).
        "role_glued": re.compile(rf"(?:{_ROLES_GLUED})(?P<v>[{_CJK}]{{2,6}}(?:[{_DOT}][{_CJK}]{{1,6}})?)"),
        # A name with a middle dot, up to five characters each side.
        "dot": re.compile(rf"(?P<v>[{_CJK}]{{1,8}}[{_DOT}][{_CJK}]{{1,6}}(?:[{_DOT}][{_CJK}]{{1,6}})?)"),
        # A cell of a table or a list written with spaces (after normalisation the ideographic space is one too).
        "cell": re.compile(rf"(?:^|(?<=[ \t]))(?P<v>{surname}[{_CJK}]{{1,2}})(?=[ \t]|$)", re.M),
        # A relative's name glued to the kin word, whatever its surname (丈夫扎西次仁，, 女儿措姆、, 孙媳…发现).
        "kin": re.compile(rf"(?:{kin})(?P<v>[{_CJK}]{{2,6}}(?:[{_DOT}][{_CJK}]{{1,6}})?)"),
        # A name before a staff title at a field's start or after 由 / 请 / 报告 / 通知, whatever its surname (由…医师,
        # 审核：…护士长, 报告…医师).
        "titled": re.compile(rf"(?:{_FIELD_START}|(?<=[由请告知经向给找]))(?P<v>[{_CJK}]{{3,4}})"
                             rf"(?={_STAFF_TITLES})", re.M),
        # A signature after a dash at a line's end (—凤霞).
        "dash": re.compile(rf"[—–]{{1,2}}[ \t]*(?P<v>[{_CJK}]{{2,3}})[ \t]*$", re.M),
        # A name right after a department, before a title, a consultation or a separator (胸外科…主任, 放疗科…、).
        "department": re.compile(rf"(?<=[科室])(?P<v>{surname}[{_CJK}]{{1,2}}?)"
                                 rf"(?P<after>{_TITLES}|[、，,（()）；;]|[ \t]|$)", re.M),
    }


@cache
def jieba_words() -> dict[str, int]:
    """jieba's dictionary: word → frequency."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    freq: dict[str, int] = jieba.dt.FREQ
    return freq


def _words() -> dict[str, int]:
    return jieba_words()


def _ordinary_words(value: str) -> bool:
    """The value reads as ordinary words: jieba cuts it into dictionary words of two characters or more, none of them
    tagged a proper noun (自行就诊, 巡视病房; not 孔令辉, 热娜古丽)."""
    freq = _words()
    toks = jieba_hmm.lcut(value)
    return all(len(t.word) >= 2 and freq.get(t.word, 0) > 0 and not t.flag.startswith(("nr", "ns", "nt", "nz"))
               for t in toks)


def _person_tagged(value: str) -> bool:
    """jieba's tagger reads the value's first word as a person's (陆晓峰, 邵|咏峰, 凤霞; not 高|危, 全麻)."""
    toks = jieba_hmm.lcut(value)
    return bool(toks) and toks[0].flag.startswith("nr")


def _plausible(value: str) -> bool:
    bare = re.sub(f"[{_DOT}]", "", value)
    return not (value.startswith(_NOT_PERSON_START) or value.endswith(_NOT_PERSON_END) or
                re.match("[一二三四五六七八九十百两零〇]{2}", value) or
                bare in lexicon.ZH_CLINICAL_NOT_NAMES or _ordinary_words(bare) or
                any(bare.endswith(m) for m in ("综合征", "蛋白", "评分", "试验")))


def _surname_first(value: str) -> bool:
    single, compound = lexicon.zh_surnames()
    return value[:2] in compound or (value[0] in single and value[0] not in lexicon.FUNCTION_SURNAMES)


def _strip_cue(text: str, start: int, end: int) -> int:
    """Where a dotted name starts once a cue glued before it is dropped (患者丈夫买买提江·吐尔逊)."""
    left = text[start:end]
    best = 0
    for w in (*lexicon.ZH_NAME_BEFORE, *lexicon.ZH_NAME_AFTER):
        i = left.rfind(w)
        if i >= 0 and i + len(w) < len(left):
            best = max(best, i + len(w))
    best = max(best, len(left) - 6)
    while best < len(left) - 1 and left[best] in "和与及、请给由向叫是为的":
        best += 1
    return start + best


def _name_end(text: str, start: int, end: int) -> int:
    """Where the part after a middle dot ends: before what follows names (陪同, 要求, 因, 的, a title)."""
    for i in range(start + 1, end):
        if text.startswith(_AFTER_DOTTED, i):
            return i
    return end


# Words after a transliterated name, never inside one (阿依古丽·买买提 is a name; 都, 提, 丽 are its parts).
_AFTER_DOTTED = (*lexicon.ZH_NAME_AFTER, "陪同", "陪护", "要求", "来", "诉", "称", "说", "表示", "签",
                 "同意", "拒绝", "等", "及", "和", "与", "的", "因", "于", "在", "为", "是", "入院",
                 "出院", "就诊", "患", "女士", "先生", "男", "女", "今", "昨", "现", "已", "前", "后",
                 "之", "询问", "电话", "办理", "本人")


_KIN_WORDS = tuple(w for w in lexicon.ZH_NAME_BEFORE if len(w) >= 2)
# What may follow a relative's name glued to the kin word: punctuation, a space, a line's end, or what a relative does.
_KIN_AFTER = (r"[ \t\n，,。；;、/／（()）：:\"“”]|$|陪同|陪护|签字|签名|来电|探视|代领|代办|发现|报警|呼叫|在场|"
              r"翻译|告知|交代|表示|要求|询问|同意|拒绝|称|说|诉|在|于|为|已|无|有|患|系|曾|也|等|及|和|与|明天|今天|"
              r"昨天|一直|已经")
# First characters of what follows a kin word and is no name (代诉, 携…, 照顾…, 负责…, 送…).
_NOT_KIN_NAME_START = set("代携照负送带接请让叫通联电护签陪健体均已未不无在患有系也都均尚仍现曾将因于")


def _kin_names(text: str, rx: re.Pattern[str], detector: str = "zh-name-kin") -> list[Span]:
    """After each kin word, the longest run of two to six characters that ends where a relative's name may end
    (`_KIN_AFTER`, or any word after a surname and two given characters: 丈夫…|病情) and reads as a name (`_kin_name`):
    巴图孟和|发现, not 巴图孟|和; 欧美玲|及女儿, not 欧美玲及女儿."""
    out = []
    after = re.compile(_KIN_AFTER)
    for m in rx.finditer(text):
        s, e = m.span("v")
        # A role word and what follows may be one word (护士长, 值班表); a kin word is one whatever jieba cuts.
        if detector != "zh-name-kin" and not _boundary_at(text, m.start(), s):
            continue
        end = next((k for k in range(e, s + 1, -1)
                    if (after.match(text, k) or _full_name_before_word(text, s, k)) and _kin_name(text, s, k) and
                    not text[s + 1:k].endswith(lexicon.ZH_NAME_AFTER)), None)  # …|护士: a surname and a title
        if end is not None:
            out.append(Span(s, end, NAME, 0.75, detector))
    return out


def _boundary_at(text: str, left: int, at: int) -> bool:
    """jieba cuts text[left:at + 3] at `at`."""
    pos = left
    for tok in jieba_hmm.lcut(text[left:at + 3]):
        if pos >= at:
            return pos == at
        pos += len(tok.word)
    return True


def _full_name_before_word(text: str, start: int, end: int) -> bool:
    """A known surname and two given characters, no word as a whole, before a dictionary word of two characters or more
    (侯…|病情, 叶…|已来院 is _KIN_AFTER's)."""
    value = text[start:end]
    # Not a verb of going before a place (来…|打工), nor a last character that follows names (…在|外地, …和|工友).
    if end - start != 3 or not _surname_first(value) or _words().get(value, 0) > 0 or \
            value[0] in "来去回到往赴" or value[2] in lexicon.ZH_AFTER_NAME_CHARS or value[2] in "有陪和在没无是" or \
            not _boundary_at(text, start, end):
        return False
    nxt = jieba_hmm.lcut(text[end:end + 4])
    return bool(nxt) and len(nxt[0].word) >= 2 and _words().get(nxt[0].word, 0) > 0 and not nxt[0].flag.startswith("nr")


def _titled_name(text: str, start: int, end: int) -> bool:
    """A name of three or four characters before a staff title whatever its surname (由…医师): not a label (转出医师：),
    not a role or a department before the title (值班医师, 内一科护士, 麻醉科蒋医师); none of jieba's words in it is a
    dictionary word other than a proper noun, and one of them is tagged a proper noun (边|巴顿|珠, 拉巴次仁)."""
    value = text[start:end]
    if len(value) < 3 or re.match(r"[^:：\n]{0,5}[:：]", text[end:end + 6]) or \
            text.startswith(lexicon.ZH_NAME_BEFORE, start) or value[0] in _NOT_KIN_NAME_START or \
            value[0] in "于因是的了和与及为被把对" or not _plausible(value) or \
            re.search("[科室院部区市县组]", value) or value.startswith(("谢谢", "感谢", "多谢")):  # 感谢谢医生: thanks
        return False
    tokens = jieba_hmm.lcut(value)
    proper = ("nr", "ns", "nz")
    return any(t.flag.startswith(proper) for t in tokens) and \
        not any(len(t.word) >= 2 and _words().get(t.word, 0) > 0 and not t.flag.startswith(proper) for t in tokens)


def _kin_name(text: str, start: int, end: int) -> bool:
    """A name after a kin word, whatever its surname: not the kin word's own end (其父|亲), not a word nor made of one
    (体健, 均体健, 患糖尿病, 满满): none of jieba's words of two characters or more in it is a dictionary word other
    than a proper noun, and the first is no adverb, preposition or conjunction (仅会…)."""
    freq = _words()
    value = text[start:end]
    tokens = jieba_hmm.lcut(re.sub(f"[{_DOT}]", "", value))
    one_name = len(tokens) == 1 and tokens[0].flag.startswith("nr") and freq.get(value, 0) == 0  # 和丽君
    # The kin word's end and the first character are a common word (其父|亲, 其母|亲); a rare one (子格) is no sign.
    if (not one_name and (value[0] in _NOT_KIN_NAME_START or value[0] in "于因是的了和与及为被把对等诉说称")) or \
            freq.get(text[start - 1:start + 1], 0) >= 50:
        return False
    # A known surname and a given name that is also a word (黄|国庆, 柳|如月): the name is no word as a whole.
    if len(value) == 3 and _surname_first(value) and freq.get(value, 0) == 0 and \
            value not in lexicon.ZH_CLINICAL_NOT_NAMES and (_plausible(value) or value[-1] in "月年天"):
        return True
    if not _plausible(value):
        return False
    return tokens[0].flag not in ("d", "p", "c", "u", "r") and \
        not any(len(t.word) >= 2 and freq.get(t.word, 0) > 0 and not t.flag.startswith(("nr", "ns", "nz"))
                for t in tokens)


def zh_name_forms(text: str) -> list[Span]:
    out: list[Span] = []
    rx = _regexes()
    for m in rx["role"].finditer(text):
        s, e = m.span("v")
        value = m.group("v")
        # A kin word before the name is not the name's (代诉人：母亲李某某); a name and 之子 is a newborn's label.
        kin = next((w for w in _KIN_WORDS if value.startswith(w) and len(value) - len(w) >= 2), "")
        s, value = s + len(kin), value[len(kin):]
        if len(value) == 5 and re.search("[之科室院部区市县组]", value):  # 胸外科某某: a department and a name
            continue
        bracket = m.group("sep").strip() in ("（", "(")
        if bracket and not re.match(r"[，,）)]", text[e:e + 1]):
            continue
        # After a space or a bracket (no colon), the value starts with a surname (护士 巡视, 患者 神志清 are not names).
        if not m.group("sep").strip().startswith((":", "：")) and not _surname_first(value):
            continue
        # Two words (not a compound surname and a given name: 完颜|志军, which jieba tags a person's).
        two_words = len(value) == 4 and value[:2] not in lexicon.zh_surnames()[1] and \
            _words().get(value[:2], 0) > 0 and _words().get(value[2:], 0) > 0 and not _person_tagged(value)
        # Six characters only when no part is an ordinary word (额尔登巴特尔, not 术前评估气道).
        long_words = len(value) >= 6 and any(len(t.word) >= 2 and _words().get(t.word, 0) > 0 and
                                             not t.flag.startswith(("nr", "ns", "nz")) for t in jieba_hmm.lcut(value))
        if _plausible(value) and not (two_words and not bracket) and not long_words:
            out.append(Span(s, e, NAME, 0.8, "zh-name-role"))
    for m in rx["dot"].finditer(text):
        s, e = m.span("v")
        dot = next(i for i in range(s, e) if text[i] in _DOT)
        s = _strip_cue(text, s, dot)
        e = _name_end(text, dot + 1, e)
        if text.startswith(("综合征", "病", "氏", "菌", "反应"), e) or s == dot:
            continue
        out.append(Span(s, e, NAME, 0.8, "zh-name-dot"))
    for m in rx["cell"].finditer(text):
        s, e = m.span("v")
        line_start = text.rfind("\n", 0, s) + 1
        line_end = text.find("\n", e) % (len(text) + 1)
        # A cell: another field on the same line (a table row, a list of signers), not a lone word.
        if not text[line_start:line_end].strip().replace(text[s:e], "", 1).strip():
            continue
        if _plausible(text[s:e]) and _words().get(text[s:e], 0) == 0 and _person_tagged(text[s:e]):
            out.append(Span(s, e, NAME, 0.75, "zh-name-cell"))
    out += _kin_names(text, rx["kin"])
    out += _kin_names(text, rx["role_glued"], "zh-name-role-glued")
    out += [Span(*m.span("v"), NAME, 0.75, "zh-name-titled") for m in rx["titled"].finditer(text)
            if _titled_name(text, *m.span("v"))]
    for m in rx["dash"].finditer(text):
        if _plausible(m.group("v")) and _words().get(m.group("v"), 0) == 0 and _person_tagged(m.group("v")):
            out.append(Span(*m.span("v"), NAME, 0.75, "zh-name-dash"))
    for m in rx["department"].finditer(text):
        titled = re.fullmatch(_TITLES, m.group("after")) is not None
        if titled or (_plausible(m.group("v")) and _words().get(m.group("v"), 0) == 0):
            out.append(Span(*m.span("v"), NAME, 0.75, "zh-name-department"))
    out += _after_department(text)
    return out + spaced_two(text)


# Where a name stands before a two-character name padded to three (…：陆 巍, 、吴 敏, │麦 琳│, 介入科钟 毅, line start).
_SLOT_BEFORE = re.compile(rf"(?:^|[:：、，,;；│|｜（(]|[ \t]{{2,}}|\u3000|[科室组]|(?:{_ROLE_END}))[ \t]*$")
_STRONG_BEFORE = re.compile(rf"(?:[:：、]|{_ROLE_END})[ \t]*$")
_TITLE_AFTER = re.compile(rf"(?:{_STAFF_TITLES}|住院医师|规培医师|进修医师)")
_SLOT_AFTER = re.compile(rf"(?:\s|$|[:：、，,;；│|｜（()）\d]|{_STAFF_TITLES}|住院医师|汇报|指示|总结|发言|补充)")


def spaced_two(text: str) -> list[Span]:
    """A two-character name written with a space between surname and given name, as Chinese forms pad it to the width
    of a three-character one (医师：陆 巍, 吴 敏护士长, │麦 琳│): a surname that is no function word, one space, a
    character that can end a name, standing where a name stands — after a label's
    colon, a list separator, a table's rule, a department or a role, or at a line's start — and before a boundary or a
    title; then every other place the note writes it, spaced or not."""
    single = lexicon.zh_surnames()[0] - lexicon.FUNCTION_SURNAMES
    out: list[Span] = []
    names: set[str] = set()
    for m in re.finditer(rf"(?=[{_CJK}][ \u3000][{_CJK}])", text):
        s = m.start()
        if text[s] in lexicon.FUNCTION_SURNAMES or text[s + 2] in lexicon.ZH_AFTER_NAME_CHARS:
            continue
        line_start = text.rfind("\n", 0, s) + 1
        titled = _TITLE_AFTER.match(text, s + 3) is not None
        labelled = _STRONG_BEFORE.search(text, line_start, s) is not None
        strong = titled or labelled
        # A surname of Faker's lists, or a rarer one (锁, 折, 玄) where a label, a role or a title says a name stands.
        if (text[s] not in single and not labelled) or \
                _TITLE_AFTER.match(text, s + 2):  # 产科 副主任医师: a title, not a given name, after the space
            continue
        # After one space, only as the last word of its line (…0.40 何 苗).
        line_end = s + 3 >= len(text) or text[s + 3] == "\n"
        if text[line_start:s].strip() and not _SLOT_BEFORE.search(text, line_start, s) and not titled and \
                not (line_end and text[s - 1] in " \t"):
            continue
        if s + 3 < len(text) and not _SLOT_AFTER.match(text, s + 3):
            continue
        # A word spaced out (左 侧) only where a label, a list or a role says a name stands (接收医生宁 波).
        if _words().get(text[s] + text[s + 2], 0) > 0 and not strong:
            continue
        out.append(Span(s, s + 3, NAME, 0.75, "zh-name-spaced"))
        names.add(text[s] + text[s + 2])
    for name in names:  # the same name elsewhere, spaced or not (陆 巍主任 … 审签：陆巍)
        for m in re.finditer(rf"{name[0]}[ \u3000]?{name[1]}", text):
            out.append(Span(*m.span(), NAME, 0.7, "zh-name-spaced"))
    return out


def _after_department(text: str) -> list[Span]:
    """A full name right after a department before what that person does (检验科…|电话报告): a known surname and two
    given characters, no word as a whole, that jieba's tagger reads as a person's, before a dictionary word."""
    out = []
    for m in re.finditer(rf"(?<=[科室])[{_CJK}]{{3}}", text):
        s, e = m.span()
        if _full_name_before_word(text, s, e) and _person_tagged(text[s:e]) and _plausible(text[s:e]):
            out.append(Span(s, e, NAME, 0.75, "zh-name-department"))
    return out
