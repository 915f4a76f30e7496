"""Chinese person names: a surname (Faker's list and the compound ones) after a cue word (患者, 姓名：, 家属, 医师签名)
or before a title (王医生), in lists and signatures, a name before its sex and age (鲍某某，男，50岁), a surname alone
where a staff member signs (医师：钟), nicknames (老蒋, 小钱), spaced OCR names (闫  军), Latin-script names after a
Chinese cue (患者Tom Harris), and the person names jieba's HMM tagger finds where a person fits."""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import jieba_hmm, lexicon, zh_tables
from climedbench.deid.detectors import Span
from climedbench.deid.find import occurrences
from climedbench.deid.patterns import NAME
from climedbench.deid.zh_name_forms import jieba_words as _jieba_words
from climedbench.deid.zh_name_forms import zh_name_forms


@cache
def _zh_name_regexes() -> tuple[re.Pattern[str], re.Pattern[str]]:
    single, compound = lexicon.zh_surnames()
    surname = "(?:" + "|".join(sorted(compound, key=len, reverse=True)) + "|[" + "".join(sorted(single)) + "])"
    before = _cue_alternation()
    after = "|".join(sorted(map(re.escape, lexicon.ZH_NAME_AFTER), key=len, reverse=True))
    # A cue, an optional separator, then a surname and one or two given characters.
    cued = re.compile(f"(?:{before})[:：=_\\s]*(?:为|是|叫|名叫)?[:：_\\s]*(?P<v>{surname}[\u4e00-\u9fa5]{{1,2}})")
    titled = re.compile(f"(?P<v>{surname}[\u4e00-\u9fa5]{{0,2}}?)(?:{after})")
    return cued, titled


def _given_length(text: str, start: int, surname_len: int, max_end: int) -> int:
    """Where a Chinese name starting at `start` ends: the surname and one or two given characters. The second given
    character is dropped when it follows names (因, 于, 男, punctuation...) or starts a word with the next character
    (王丽|沟通, 李娜|签名) unless jieba reads the three characters as one name (韩婷思|过目); after a compound surname,
    the given name is jieba's first word of what follows (长孙|桂建|交代, 尉迟|红|交代)."""
    import jieba

    cjk = re.compile(r"[\u4e00-\u9fa5]{1,2}")
    if surname_len == 2:
        tokens = jieba.lcut(text[start + 2:start + 6])
        if tokens and cjk.fullmatch(tokens[0]):
            return start + 2 + len(tokens[0])
    if any(text.startswith(t, start + surname_len) for t in lexicon.ZH_NAME_AFTER):
        return start + surname_len  # the surname before a title (胡警官)
    end = start + surname_len + 1
    # A third character followed by a boundary (a space, punctuation, the line's end) is the name's (男方：贾正经 36岁).
    if end < max_end and "\u4e00" <= text[end] <= "\u9fa5" and text[end] not in "男女诉述称说因等及和与同也都已将为是在的了" \
            and (end + 1 >= len(text) or text[end + 1] in " \t\u3000\n，,。；;、/／（()）:："):
        return end + 1
    if end >= max_end or text[end] in lexicon.ZH_AFTER_NAME_CHARS or not "\u4e00" <= text[end] <= "\u9fa5":
        return end
    if surname_len == 1:
        tokens = jieba.lcut(text[start:start + 5])
        if tokens and len(tokens[0]) == 3:
            return end + 1
    # The third character is dropped when it starts a word with the next one (王丽|沟通), unless what follows that
    # character is where a person fits (钱卫东|来电, 孙立新 at a line's end).
    nxt = text[end:end + 2]
    if len(nxt) == 2 and "\u4e00" <= nxt[1] <= "\u9fa5" and _jieba_words().get(nxt) and \
            not _PERSON_CONTEXT.match(text, end + 1):
        return end
    return end + 1


def _spaced(chars: str) -> str:
    """A cue word as OCR may space it (姓 名, 患 者 姓 名)."""
    return "[ \u3000]?".join(map(re.escape, chars))


@cache
def _cue_alternation(colon_only: bool = True) -> str:
    """The cue words before a name, longest first, each also OCR-spaced; with `colon_only`, also the words that are
    cues only before a colon (报告：, 复核：, 麻醉：)."""
    cues = [_spaced(w) for w in lexicon.ZH_NAME_BEFORE]
    if colon_only:
        cues += [_spaced(w) + "(?=[ \u3000]?[:：])" for w in lexicon.ZH_NAME_BEFORE_COLON]
    return "|".join(sorted(cues, key=len, reverse=True))


# What follows a surname-initial medical term rather than a name (马凡综合征, 张力性气胸, 陈旧性, 李斯特菌).
_MEDICAL_AFTER = ("综合征", "综合症", "病", "症", "征", "菌", "性", "炎", "瘤", "癌", "氏", "样", "型", "素", "酶", "胞", "蛋白",
                  "反射", "试验", "评分", "分级", "分期", "手术", "术", "管", "期")


def _looks_like_word(candidate: str) -> bool:
    """A common word or medical term (高热, 黄疸, 白细胞): in jieba's dictionary and not tagged as a proper noun
    (jieba tags names nr, and some names ns/nt/nz: 欧阳建 is 'ns')."""
    if _jieba_words().get(candidate, 0) == 0:
        return False
    tags = [p.flag for p in jieba_hmm.lcut(candidate)]
    return not (len(tags) == 1 and tags[0].startswith(("nr", "ns", "nt", "nz")))


def _not_a_name(text: str, start: int, end: int, sl: int, strong: bool) -> bool:
    """Whether a cued candidate is a term, not a name: followed by a medical suffix, or (after a weak cue such as
    患者 with no colon) a dictionary word at its first two or three characters."""
    two = start + sl + 1
    # 术 names an operation (张氏术), but 术后 / 术前 / 术中 is a time after a name (患者仇志刚术后第7天).
    if any((text.startswith(m, two) or text.startswith(m, end)) and
           not (m == "术" and text[end + 1:end + 2] in ("后", "前", "中") and text.startswith(m, end)) and
           not (m == "症" and text.startswith("症状", end))  # 症状 "symptoms" after a name (…王某症状轻)
           for m in _MEDICAL_AFTER):
        return True
    if strong:
        return False
    if end == two + 1 and not _looks_like_word(text[start:end]) and _given_name_tagged(text[start:end]):
        return False  # 叶家|荣, 游子|墨, 关|长青: the first two characters are a word, jieba reads a name after them
    return _looks_like_word(text[start:two]) or _looks_like_word(text[start:two + 1])


def _given_name_tagged(candidate: str) -> bool:
    """jieba's tagger reads the end of a three-character candidate as a person's or a place's name (叶家|荣 nr,
    单|立国 ns, 关|长青 nr), or it ends in one character that Faker's Chinese given names use (叶家|明), and its first
    word is no clinical term (房颤|律)."""
    tokens = jieba_hmm.lcut(candidate)
    last = tokens[-1]
    given = last.flag.startswith(("nr", "ns")) or (len(last.word) == 1 and last.word in lexicon.zh_given_name_chars())
    return len(tokens) >= 2 and given and \
        not {tokens[0].word, candidate[:2]} & (lexicon.ZH_CLINICAL_NOT_NAMES | lexicon.ZH_CLINICAL_PREFIXES)


def _zh_name_lists(text: str, found: list[Span]) -> list[Span]:
    """Names listed after a found one (护士签名：潘欣红  薛嘉; 王强、李娜), and a name after a bed number in a header
    (38床  雷杰丽)."""
    single, compound = lexicon.zh_surnames()
    queue = [(s.end, True) for s in found] + [(m.end(), False) for m in re.finditer(r"\d+\s?床[ \t\u3000]+", text)]
    out: list[Span] = _after_bed(text)
    # A name alone on its line (a signature), or at a line's start before the sex (欧阳子涵  女  19岁).
    queue += [(m.start(1), False) for m in re.finditer(r"(?m)^[ \t\u3000]*()[\u4e00-\u9fa5]{2,4}(?:[ \t\u3000]*$|"
                                                       r"[ \t\u3000]+(?:[男女]|\d{1,3}岁)[ \t\u3000,，])", text)]
    while queue:
        at, after_name = queue.pop()
        j = at
        if after_name:
            # Past a bracket after the name (程曦（神经外科）、莫文静).
            sep = re.match(r"(?:[（(][^）)\n]{1,10}[）)])?(?:[ \t\u3000]*[、，,和及与/／][ \t\u3000]*|[ \t\u3000]+)", text[at:])
            if sep is None:
                continue
            j = at + sep.end()
        sl = 2 if text[j:j + 2] in compound else 1 if text[j:j + 1] in single else 0
        if not sl or text[j] in lexicon.FUNCTION_SURNAMES:
            continue
        k = j + sl
        while k < len(text) and k - j - sl < 2 and "\u4e00" <= text[k] <= "\u9fa5" and \
                text[k] not in lexicon.ZH_AFTER_NAME_CHARS:
            k += 1
        # A listed name of two given characters that ends at a separator, whatever its last character (…、娄光年).
        if after_name and k < j + sl + 2 and re.fullmatch(r"[\u4e00-\u9fa5]{2}", text[j + sl:j + sl + 2]) and \
                re.match(r"[ \t\u3000\n，,。、；;）)]|$", text[j + sl + 2:j + sl + 3]):
            k = j + sl + 2
        # What follows the name: a boundary, or after a listed name what a person does (…、涂某在场, …、某某陪同).
        if k - j - sl < 1 or (k < len(text) and not re.match(r"[\s，,。、；;：:）)（(]", text[k]) and
                              not (after_name and re.match("在场|陪同|陪护|参加|签字|到场|同意|表示|送[入来至到回往]|护送|等人?[，,。；;参陪在送]", text[k:]))):
            continue
        if _not_a_name(text, j, k, sl, strong=after_name):
            continue
        # The next field's label, not a listed name (一助：某某  麻醉：全麻).
        if text[k:k + 1] in (":", "：") and (_jieba_words().get(text[j:k], 0) >= 100 or _looks_like_word(text[j:k])):
            continue
        # After a name and only spaces, a table's next cell may be a word (陈馨　全麻　…): inside a row, a name is no
        # dictionary word (the last name of a line of signers may be one: 护士签名：于志刚  方志).
        if after_name and not re.search(r"[、，,和及与/／]", text[at:j]) and re.match(r"[ \t]*[^\s]", text[k:]) and \
                (_looks_like_word(text[j:k]) or text[j:k] in lexicon.ZH_CLINICAL_NOT_NAMES):
            continue
        out.append(Span(j, k, NAME, 0.8, "zh-name-list"))
        queue.append((k, True))
    return out


def _after_bed(text: str) -> list[Span]:
    """A name written right after a bed number, without a space (26床王某某诉胸闷, 9床李某（术后第1天）): the given
    name's length as `_given_length` reads it; not a word (3床左侧, 5床床旁)."""
    single, compound = lexicon.zh_surnames()
    out = []
    for m in re.finditer(r"(?<![\d-])\d{1,3}\s?床(?=[\u4e00-\u9fa5])", text):
        j = m.end()
        sl = 2 if text[j:j + 2] in compound else 1 if text[j] in single and text[j] not in lexicon.FUNCTION_SURNAMES else 0
        if not sl:
            continue
        end = _given_length(text, j, sl, min(len(text), j + sl + 2))
        if end - j > sl and not _not_a_name(text, j, end, sl, strong=False) and \
                text[j:end] not in lexicon.ZH_CLINICAL_NOT_NAMES:
            out.append(Span(j, end, NAME, 0.8, "zh-name-bed"))
    return out


_NAME_JOINERS = "和与及、同对给让请被由向跟找谢员知问诉"  # …谢谢曹医生, 管理员闫护士, 通知李医生
_STRONG_CUES = frozenset(("姓名", "签名", "医师签名", "医生签名", "记录者", "记录人", "联系人", "家属", "监护人", "代理人"))


_SECOND_CUES = tuple(w for w in lexicon.ZH_NAME_BEFORE if len(w) >= 2)


def zh_names(text: str, deny: frozenset[str] = frozenset()) -> list[Span]:
    _, compound = lexicon.zh_surnames()
    cued, titled = _zh_name_regexes()
    found: list[Span] = []
    pos = 0
    while (m := cued.search(text, pos)) is not None:
        start = m.start("v")
        pos = start  # a rejected candidate may hold the next cue (由哥哥郭凤): search on from its start
        sl = 2 if text[start:start + 2] in compound else 1
        # A second cue word, not a name, after the first (家属：母亲韦春花, 孙女聂小雨): search on from it.
        if text.startswith(_SECOND_CUES, start):
            continue
        end = _given_length(text, start, sl, m.end("v"))
        cue = text[m.start():start]
        word = re.sub(r"[\s:：_]", "", cue)
        strong = (bool(re.search(r"[:：]\s*$", cue)) and word not in lexicon.ZH_NAME_BEFORE_COLON) or \
            word in _STRONG_CUES
        if sl == 1 and text[start] in lexicon.FUNCTION_SURNAMES and not strong:
            continue
        # A surname that is also an adverb before a preposition or a verb (患者曾在外院, 患者常于夜间): no name.
        if not strong and end - start == sl + 1 and text[start + sl] in "在于因被把将已经是有从到":
            continue
        if not strong and _goes_to_place(text, start):  # 随丈夫来兰州打工: 来 is "came to", not a surname
            continue
        if not _not_a_name(text, start, end, sl, strong):
            found.append(Span(start, end, NAME, 0.85, "zh-name-cue"))
            pos = end
    found += zh_name_forms(text)
    found += more_zh_names(text, found)
    tagged = zh_names_jieba(text)
    found += _zh_name_lists(text, found + tagged)  # a list may start at a name jieba tagged (何…、杨…)
    found += [s for s in zh_tables.table_spans(text) if s.entity == NAME]
    for m in titled.finditer(text):
        start, end = m.span("v")
        name = text[start:end]
        if len(name) >= 3 and name[0] in lexicon.FUNCTION_SURNAMES:  # 由邵楠医生: 由 is "by", not a surname here
            start, name = start + 1, name[1:]
        # Thanks before the title (谢谢严医生, 感谢谢医生, 多谢王医生, 谢谢医生): 谢 of 谢谢 / 感谢 / 多谢 is no surname.
        thanks = 1 if text[start - 1:start + 1] in ("感谢", "多谢") else 2 if name.startswith("谢谢") else 0
        if thanks:
            if len(name) == thanks:
                continue
            start, name = start + thanks, name[thanks:]
        sl = 2 if name[:2] in compound else 1
        # A role before the title, not a name (管床 of 管床医生, 值班 of 值班医师).
        if len(name) < sl or any(text.startswith(w, start) and len(w) > len(name) for w in lexicon.ZH_NAME_BEFORE):
            continue
        if len(name) == 1 and name in lexicon.FUNCTION_SURNAMES:  # 由 of 由护士长查看 is "by"
            continue
        # The surname alone before a title (王医生, 李女士) identifies too; longer names must not be words.
        if len(name) == sl or not _looks_like_word(name):
            # Inside a longer run of Chinese text: only when the run before it is a cue word.
            inside = start > 0 and "\u4e00" <= text[start - 1] <= "\u9fa5" and text[start - 1] not in _NAME_JOINERS
            if inside and not any(text[:start].endswith(w) for w in lexicon.ZH_NAME_BEFORE) and \
                    not _word_then_name(text, start, end, sl):
                continue
            found.append(Span(start, end, NAME, 0.8, "zh-name-title"))
    for name in deny:
        for m in re.finditer(re.escape(name), text):
            found.append(Span(m.start(), m.end(), NAME, 1.0, "deny-list"))
    # Names from jieba's tag alone are not spread to other mentions: a tag is weaker evidence than a cue.
    return _propagate(text, found, "zh-name-repeat") + tagged


def _verb_after(text: str, start: int, word: str) -> bool:
    """A surname and two given characters, tagged a person's as a whole, before a verb of two characters or more
    (…|驾驶, …|骑行): someone doing something."""
    if len(word) != 3:
        return False
    nxt = jieba_hmm.lcut(text[start + 3:start + 7])
    return bool(nxt) and len(nxt[0].word) >= 2 and nxt[0].flag == "v"


def _word_then_name(text: str, start: int, end: int, sl: int) -> bool:
    """A surname and two given characters before a title glued to a word before them (今日|…主任, 随|…主任医师, 急诊|…
    医师): jieba cuts a word off before the surname and tags the surname (or the whole name) a person's."""
    if end - start != sl + 2:
        return False
    left = max(0, start - 4)
    pos = left
    for tok in jieba_hmm.lcut(text[left:end]):
        if pos == start:
            return tok.flag.startswith("nr") and tok.word in (text[start:start + sl], text[start:end])
        pos += len(tok.word)
    return False


def _goes_to_place(text: str, start: int) -> bool:
    """A verb of coming or going (来, 去, 回) before a place's short name (来兰州, 去岳阳), read as a surname and a
    given name after a cue."""
    from climedbench.deid.zh_places import place_names  # zh_places imports nothing of this module

    return text[start] in "来去回" and any(text[start + 1:start + 1 + k] in place_names() for k in (2, 3, 4))


_PERSON_CONTEXT = re.compile(r"(?:[\s，,。；;：:、（(）)/／—-]|$|" + "|".join(lexicon.ZH_NAME_AFTER) +
                             r"|来电|来院|交代|表示|签字|签名|同意|拒绝|陪同|陪护|诉|述|查房|询问|告知|称|说|看护|照顾|前来|到院|"
                             r"发现|送|代|接|的|之|等|及|和|与|同)")


def person_context(text: str, at: int) -> bool:
    """What follows a name at `at` is where a person fits (a boundary, a title, a verb of speech or consent)."""
    return _PERSON_CONTEXT.match(text, at) is not None


_JIEBA_BEFORE = (*lexicon.ZH_NAME_BEFORE, *lexicon.ZH_NAME_AFTER, "子女", "领导", "亲属", "孩子", "儿女", "亲友")


def zh_names_jieba(text: str) -> list[Span]:
    """Person names jieba's HMM part-of-speech tagger finds without any cue (蒋文斌主任查房, 家属钱卫东来电), kept only
    when they start with a known surname, are two to four characters, and are not a term (张力性, 马凡 + 综合征)."""
    single, compound = lexicon.zh_surnames()
    out = []
    pos = 0
    for tok in jieba_hmm.cut(text):  # jieba.posseg.cut, faster
        start, word = pos, tok.word
        pos += len(word)
        if tok.flag != "nr" or not 2 <= len(word) <= 4 or not re.fullmatch(r"[\u4e00-\u9fa5]+", word):
            continue
        sl = 2 if word[:2] in compound else 1 if word[0] in single else 0
        if not sl or len(word) == sl or (sl == 1 and word[0] in lexicon.FUNCTION_SURNAMES):
            continue
        # A dictionary word (甘露醇, 金刚 of 美金刚, 朱砂) is not taken on jieba's tag alone: names found this way are
        # the ones its HMM pieced together.
        if _jieba_words().get(word, 0) > 0 or word in lexicon.ZH_CLINICAL_NOT_NAMES:
            continue
        if word[-1] in "性症征病炎瘤癌菌氏型素酶科区院室部" or _not_a_name(text, start, start + len(word), sl, strong=True):
            continue
        # Only where a person fits: before a role, a verb of speech or consent, a bracket, punctuation or a line end
        # (jieba also tags transliterated drug and eponym parts as names: 阿奇|霉素, 霍奇金|淋巴瘤).
        if not _PERSON_CONTEXT.match(text, start + len(word)) and not _verb_after(text, start, word):
            continue
        # Inside a run of Chinese text, only after a cue, a joiner or a department (肾内科周静): otherwise the tag
        # took the end of a term (依折|麦布, 坦|索罗辛, 切除|左叶).
        if start > 0 and "\u4e00" <= text[start - 1] <= "\u9fa5" and text[start - 1] not in _NAME_JOINERS + "科室组" \
                and not any(text.endswith(w, 0, start) for w in _JIEBA_BEFORE) \
                and not any(text.startswith(w, start + len(word)) for w in (*lexicon.ZH_NAME_AFTER, "总")):
            continue
        # A finding and its degree (张力高, 肌力低): a clinical word at the start, not a surname and a given name.
        if len(word) == 3 and word[2] in "高低大小增减" and word[:2] in lexicon.ZH_CLINICAL_PREFIXES:
            continue
        out.append(Span(start, start + len(word), NAME, 0.7, "zh-name-jieba"))
    return out


def _propagate(text: str, spans: list[Span], detector: str, min_len: int = 2) -> list[Span]:
    """Every further occurrence of a detected name in the same note is a name too."""
    names = {text[s.start:s.end] for s in spans if s.end - s.start >= min_len}
    out = list(spans)
    for name in names:
        for start, end in occurrences(text, name):
            out.append(Span(start, end, NAME, 0.8, detector))
    return out


_CJK1 = "[\u4e00-\u9fa5]"
_GAP = "[ \t\u3000]"
# A name in Latin or Cyrillic letters (Tom Harris, YANG HUI, Huang J., T. Anderson, Hans Müller, Алексей Смирнов).
_LATIN_WORD = r"(?:[A-Z][a-zà-öø-ÿ]+(?:[-'][A-Z]?[a-zà-öø-ÿ]+)?|[A-Z]{2,}(?![a-z]))"
_LATIN_NAME = (rf"(?:(?:[A-Z]\.[ ]?)?{_LATIN_WORD}(?:[ ]{{1,2}}(?:{_LATIN_WORD}|[A-Z]\.))*(?:[ ][A-Z]\.)?"
               r"|[А-ЯЁ][а-яё]+(?:[ ][А-ЯЁ][а-яё]+)*)")
_SEX_AGE = (rf"{_GAP}*[，,、|｜/／{_GAP[1:-1]}]?{_GAP}*[男女]性?{_GAP}*[，,、|｜/／{_GAP[1:-1]}]{_GAP}*"
            r"(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*(?:岁|周岁|[yY](?![a-z])|月龄|个月|天)")
_NOT_NAME_ENDINGS = tuple("者人员儿科床室号院区市省县镇村部组队班")


@cache
def _more_regexes() -> dict[str, re.Pattern[str]]:
    single, compound = lexicon.zh_surnames()
    names_single = "".join(sorted(single - lexicon.FUNCTION_SURNAMES))
    surname = "(?:" + "|".join(sorted(compound, key=len, reverse=True)) + f"|[{names_single}])"
    cue = _cue_alternation()
    end = rf"(?={_GAP}|$|[，,。；;、/／（()）]|\n)"
    return {
        # A surname alone where a staff member signs (医师：钟, 术者：蔺, 送检医生 丁).
        "surname-alone": re.compile(rf"(?:{cue}){_GAP}*[:：]?{_GAP}*(?P<v>[{names_single}]){end}", re.M),
        # A name spaced out by OCR after its cue (患者   闫  军, 姓 名:沈 芳).
        "spaced": re.compile(rf"(?:{cue}){_GAP}*[:：]?{_GAP}*(?P<v>{surname}(?:{_GAP}{{1,3}}{_CJK1}){{1,2}})"
                             rf"(?={_GAP}{{2,}}|{_GAP}*(?:$|[，,。；;])|{_GAP}+{_CJK1}{{1,6}}[:：])", re.M),
        # A name before its sex and age (鲍某某，男，50岁; 【基本信息】某某｜男｜81岁; Sophie Martin  女  33y).
        "sex-age": re.compile(rf"(?:^|(?<=[\s，,。；;：:、（(）)】\]|｜]))(?P<v>{_CJK1}{{2,7}}|{_LATIN_NAME})(?={_SEX_AGE})",
                              re.M),
        # A nickname: 老/小 and a surname (老蒋交代, 侄子小钱, 护士：小白).
        "nickname": re.compile(rf"(?:(?P<cue>{cue}){_GAP}*[:：（(]?{_GAP}*|(?<!{_CJK1}))(?P<v>[老小][{names_single}])"
                               rf"(?!{_CJK1}{{0,1}}[时年儿便孩组便])"),
        # A Latin-script name after a Chinese cue (患者Tom Harris, 住院医师 Huang J., 治疗师：Wang Lei).
        "latin": re.compile(rf"(?:{cue}|Dr\.?|Miss|Mr\.?|Mrs\.?|Ms\.?|(?<![A-Za-z])(?:Name|Patient)(?=[ \t]*[:：])){_GAP}*"
                            rf"[:：]?{_GAP}*(?P<v>{_LATIN_NAME})"),
        # A Chinese surname after an English title (Dr. 梁, Miss 赵).
        "title-surname": re.compile(rf"(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?{_GAP}*(?P<v>{surname}{_CJK1}{{0,2}}?){end}"),
        # A mother's name that names her newborn (李某某之子, 王某之女), and initials for a name (姓名缩写：ZJH).
        "newborn": re.compile(rf"(?<!{_CJK1})(?P<v>{surname}{_CJK1}{{1,2}}?)之[子女](?!{_CJK1}{{0,1}}[病症])"),
        "initials": re.compile(r"(?:姓名缩写|名字缩写|缩写|首字母)[ \t]*[:：][ \t]*(?P<v>[A-Z]{2,4})(?![A-Za-z])"),
        # The anaesthetist after the anaesthesia (麻醉：全麻（某某）, 麻醉某某（腰硬联合）), and a staff member after a
        # department or the blood bank, before what they do there (新生儿科某某在场, 血库某某发放).
        "anaesthetist": re.compile(rf"(?:(?:全麻|局麻|腰硬联合|硬膜外|腰麻|神经阻滞|静脉麻醉|全身麻醉|局部麻醉)[（(]"
                                   rf"(?P<v>{surname}{_CJK1}{{1,2}})(?=[）)])|麻醉(?P<w>{surname}{_CJK1}{{1,2}}?)(?=[（(]))"),
        "department-staff": re.compile(rf"(?<=[科库])(?P<v>{surname}{_CJK1}{{1,2}}?)"
                                       r"(?=在场|到场|发放|翻译|负责|陪同|协助|签字)"),
        # The name a person gives in quotes (自称"某某").
        "self-named": re.compile(rf"自称[为是叫]?[“\"「『](?P<v>{surname}{_CJK1}{{1,2}})[”\"」』]"),
        # A husband as Taiwan's notes name him, 先生 before the name where no surname stands before it (先生某某陪同).
        "husband": re.compile(rf"(?:^|(?<=[\s，,。；;：:、）)]))先生(?P<v>{surname}{_CJK1}{{1,2}})", re.M),
        # A surname after a department (麻醉科鲁医师, 肿瘤内科尚、胸外科柏).
        "department": re.compile(rf"(?<=[科室])(?P<v>[{names_single}])(?=[、，,（(]|医师|医生|主任|大夫|教授)"),
    }


_NEEDS = {"self-named": "自称", "husband": "先生", "newborn": "之"}


def more_zh_names(text: str, found: list[Span]) -> list[Span]:
    """The name forms the cue and title searches do not reach (see the module's docstring); `found` are the names
    found so far, whose aliases in brackets (Grace Wu（吴某某）) are names too."""
    out: list[Span] = []
    for name, rx in _more_regexes().items():
        if name in _NEEDS and _NEEDS[name] not in text:  # a form's own word is absent: no search (speed)
            continue
        for m in rx.finditer(text):
            s, e = m.span("v" if m.group("v") is not None else "w")
            value = text[s:e].rstrip()
            e = s + len(value)
            if name == "sex-age" and _CJK1_RE.fullmatch(value):
                whole = len(value)
                value, s = _strip_cue(value, s)
                # Five characters or more only after a cue word (患者尔古阿呷，女，46岁).
                if len(value) < 2 or value.endswith(_NOT_NAME_ENDINGS) or (whole > 4 and len(value) == whole) or \
                        (_looks_like_word(value) and not value.startswith(("老", "小"))):
                    continue
            if name == "nickname" and not m.group("cue") and (_jieba_words().get(value, 0) > 0 or
                                                               not _PERSON_CONTEXT.match(text, e)):
                continue
            if name == "husband":
                e = _given_length(text, s, 2 if value[:2] in lexicon.zh_surnames()[1] else 1, e)
                value = text[s:e]
            if name in ("newborn", "anaesthetist", "department-staff", "husband") and _looks_like_word(value):
                continue
            # Not the English half of a bilingual label (医生 Doctor：, 姓名 Name：).
            if name == "latin" and (value.lower() in lexicon.EN_NOT_NAMES or re.match(r"[ \t]*[:：]", text[e:e + 3])):
                continue
            out.append(Span(s, e, NAME, 0.8, f"zh-name-{name}"))
    out += _aliases(text, [*found, *out])
    return out


_CJK1_RE = re.compile(r"[\u4e00-\u9fa5]+")


def _strip_cue(value: str, start: int) -> tuple[str, int]:
    for w in sorted(lexicon.ZH_NAME_BEFORE, key=len, reverse=True):
        if value.startswith(w) and len(value) >= len(w) + 2:
            return value[len(w):], start + len(w)
    return value, start


def _aliases(text: str, names: list[Span]) -> list[Span]:
    """A name in brackets right after a name is the same person's other name (Xu Duoduo（徐朵朵）, 贝贝（唐贝））."""
    single, compound = lexicon.zh_surnames()
    rx = re.compile(rf"[ \t]*[（(][ \t]*(?P<v>{_CJK1}{{2,4}}|{_LATIN_NAME})[ \t]*[）)，,]")
    out = []
    for n in names:
        m = rx.match(text, n.end)
        if m is None:
            continue
        value = m.group("v")
        # Not a word in brackets after a name (某某（全麻）): an alias is a name.
        if (_CJK1_RE.fullmatch(value) and (not (value[0] in single or value[:2] in compound) or _looks_like_word(value))) or \
                value.lower() in lexicon.EN_NOT_NAMES:
            continue
        out.append(Span(m.start("v"), m.end("v"), NAME, 0.8, "zh-name-alias"))
    return out
