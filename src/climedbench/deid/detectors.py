"""Detectors that need more than one regular expression: names (Chinese by surname + cue words, English by titles,
cues and credentials, romanised Chinese names), addresses (a gazetteer of Chinese places, US street addresses) and
organisations (hospitals, schools, employers by their suffix). Each returns spans; `patterns.PATTERNS` holds the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from climedbench.deid import lexicon
from climedbench.deid.patterns import ADDRESS, NAME, ORGANIZATION, PATTERNS, PatternSpec


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    entity: str
    score: float
    detector: str


@cache
def _compiled(spec: PatternSpec) -> re.Pattern[str]:
    return re.compile(spec.regex, spec.flags)


def pattern_spans(text: str, specs: tuple[PatternSpec, ...] = PATTERNS) -> list[Span]:
    out = []
    for spec in specs:
        for m in _compiled(spec).finditer(text):
            start, end = (m.start("v"), m.end("v")) if "v" in m.groupdict() and m.group("v") else m.span()
            value = text[start:end].rstrip()
            end = start + len(value)
            if not value:
                continue
            score = spec.score
            if spec.validator is not None and not spec.validator(value):
                score = spec.invalid_score
            if score > 0:
                out.append(Span(start, end, spec.entity, score, spec.name))
    return out


# ---------------------------------------------------------------- Chinese names

@cache
def _zh_name_regexes() -> tuple[re.Pattern[str], re.Pattern[str]]:
    single, compound = lexicon.zh_surnames()
    surname = "(?:" + "|".join(sorted(compound, key=len, reverse=True)) + "|[" + "".join(sorted(single)) + "])"
    before = "|".join(sorted(map(re.escape, lexicon.ZH_NAME_BEFORE), key=len, reverse=True))
    after = "|".join(sorted(map(re.escape, lexicon.ZH_NAME_AFTER), key=len, reverse=True))
    # A cue, an optional separator, then a surname and one or two given characters.
    cued = re.compile(f"(?:{before})[:：\\s]*(?:为|是|叫|名叫)?[:：\\s]*(?P<v>{surname}[\u4e00-\u9fa5]{{1,2}})")
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
    end = start + surname_len + 1
    if end >= max_end or text[end] in lexicon.ZH_AFTER_NAME_CHARS or not "\u4e00" <= text[end] <= "\u9fa5":
        return end
    if surname_len == 1:
        tokens = jieba.lcut(text[start:start + 5])
        if tokens and len(tokens[0]) == 3:
            return end + 1
    return end if _jieba_words().get(text[end:end + 2]) else end + 1


@cache
def _jieba_words() -> dict[str, int]:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    freq: dict[str, int] = jieba.dt.FREQ
    return freq


# What follows a surname-initial medical term rather than a name (马凡综合征, 张力性气胸, 陈旧性, 李斯特菌).
_MEDICAL_AFTER = ("综合征", "综合症", "病", "症", "征", "菌", "性", "炎", "瘤", "癌", "氏", "样", "型", "素", "酶", "胞", "蛋白",
                  "反射", "试验", "评分", "分级", "分期", "手术", "术", "管", "期")


def _looks_like_word(candidate: str) -> bool:
    """A common word or medical term (高热, 黄疸, 白细胞): in jieba's dictionary and not tagged as a proper noun
    (jieba tags names nr, and some names ns/nt/nz: 欧阳建 is 'ns')."""
    import jieba.posseg as pseg

    if _jieba_words().get(candidate, 0) == 0:
        return False
    tags = [p.flag for p in pseg.lcut(candidate)]
    return not (len(tags) == 1 and tags[0].startswith(("nr", "ns", "nt", "nz")))


def _not_a_name(text: str, start: int, end: int, sl: int, strong: bool) -> bool:
    """Whether a cued candidate is a term, not a name: followed by a medical suffix, or (after a weak cue such as
    患者 with no colon) a dictionary word at its first two or three characters."""
    two = start + sl + 1
    if any(text.startswith(m, two) or text.startswith(m, end) for m in _MEDICAL_AFTER):
        return True
    if strong:
        return False
    return _looks_like_word(text[start:two]) or _looks_like_word(text[start:two + 1])


def _zh_name_lists(text: str, found: list[Span]) -> list[Span]:
    """Names listed after a found one (护士签名：潘欣红  薛嘉; 王强、李娜), and a name after a bed number in a header
    (38床  雷杰丽)."""
    single, compound = lexicon.zh_surnames()
    out: list[Span] = []
    queue = [(s.end, True) for s in found] + [(m.end(), False) for m in re.finditer(r"\d+\s?床[ \t\u3000]+", text)]
    # A name alone on its line (a signature), or at a line's start before the sex (欧阳子涵  女  19岁).
    queue += [(m.start(1), False) for m in re.finditer(r"(?m)^[ \t\u3000]*()[\u4e00-\u9fa5]{2,4}(?:[ \t\u3000]*$|"
                                                       r"[ \t\u3000]+(?:[男女]|\d{1,3}岁)[ \t\u3000,，])", text)]
    while queue:
        at, after_name = queue.pop()
        j = at
        if after_name:
            sep = re.match(r"[ \t\u3000]*[、，,和及与/／][ \t\u3000]*|[ \t\u3000]+", text[at:])
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
        if k - j - sl < 1 or (k < len(text) and not re.match(r"[\s，,。、；;：:）)]", text[k])):
            continue
        if _not_a_name(text, j, k, sl, strong=after_name):
            continue
        out.append(Span(j, k, NAME, 0.8, "zh-name-list"))
        queue.append((k, True))
    return out


_NAME_JOINERS = "和与及、同对给让请被由向跟找"
_STRONG_CUES = frozenset(("姓名", "签名", "医师签名", "医生签名", "记录者", "记录人", "联系人", "家属", "监护人", "代理人"))


def zh_names(text: str, deny: frozenset[str] = frozenset()) -> list[Span]:
    _, compound = lexicon.zh_surnames()
    cued, titled = _zh_name_regexes()
    found: list[Span] = []
    pos = 0
    while (m := cued.search(text, pos)) is not None:
        start = m.start("v")
        pos = start  # a rejected candidate may hold the next cue (由哥哥郭凤): search on from its start
        sl = 2 if text[start:start + 2] in compound else 1
        end = _given_length(text, start, sl, m.end("v"))
        cue = text[m.start():start]
        strong = bool(re.search(r"[:：]\s*$", cue)) or cue.rstrip() in _STRONG_CUES
        if sl == 1 and text[start] in lexicon.FUNCTION_SURNAMES and not strong:
            continue
        if not _not_a_name(text, start, end, sl, strong):
            found.append(Span(start, end, NAME, 0.85, "zh-name-cue"))
            pos = end
    found += _zh_name_lists(text, found)
    for m in titled.finditer(text):
        start, end = m.span("v")
        name = text[start:end]
        sl = 2 if name[:2] in compound else 1
        if len(name) < sl:
            continue
        # The surname alone before a title (王医生, 李女士) identifies too; longer names must not be words.
        if len(name) == sl or not _looks_like_word(name):
            # Inside a longer run of Chinese text: only when the run before it is a cue word.
            inside = start > 0 and "\u4e00" <= text[start - 1] <= "\u9fa5" and text[start - 1] not in _NAME_JOINERS
            if inside and not any(text[:start].endswith(w) for w in lexicon.ZH_NAME_BEFORE):
                continue
            found.append(Span(start, end, NAME, 0.8, "zh-name-title"))
    for name in deny:
        for m in re.finditer(re.escape(name), text):
            found.append(Span(m.start(), m.end(), NAME, 1.0, "deny-list"))
    # Names from jieba's tag alone are not spread to other mentions: a tag is weaker evidence than a cue.
    return _propagate(text, found, "zh-name-repeat") + zh_names_jieba(text)


_PERSON_CONTEXT = re.compile(r"(?:[\s，,。；;：:、（(）)/／—-]|$|" + "|".join(lexicon.ZH_NAME_AFTER) +
                             r"|来电|来院|交代|表示|签字|签名|同意|拒绝|陪同|陪护|诉|述|查房|询问|告知|称|说|看护|照顾|前来|到院|"
                             r"发现|送|代|接|的|之|等|及|和|与|同)")


def zh_names_jieba(text: str) -> list[Span]:
    """Person names jieba's HMM part-of-speech tagger finds without any cue (蒋文斌主任查房, 家属钱卫东来电), kept only
    when they start with a known surname, are two to four characters, and are not a term (张力性, 马凡 + 综合征)."""
    import jieba.posseg as pseg

    single, compound = lexicon.zh_surnames()
    out = []
    pos = 0
    for tok in pseg.cut(text):
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
        if not _PERSON_CONTEXT.match(text, start + len(word)):
            continue
        out.append(Span(start, start + len(word), NAME, 0.7, "zh-name-jieba"))
    return out


def _propagate(text: str, spans: list[Span], detector: str, min_len: int = 2) -> list[Span]:
    """Every further occurrence of a detected name in the same note is a name too."""
    names = {text[s.start:s.end] for s in spans if s.end - s.start >= min_len}
    out = list(spans)
    for name in names:
        for m in re.finditer(re.escape(name), text):
            out.append(Span(m.start(), m.end(), NAME, 0.8, detector))
    return out


# ---------------------------------------------------------------- English names

_CAP = r"(?:(?:Mc|Mac|O')[A-Z][a-z]+|[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)"
_INITIAL = r"[A-Z]\.?"


@cache
def _en_name_regexes() -> tuple[re.Pattern[str], ...]:
    full = f"{_CAP}(?:\\s+(?:{_INITIAL}|{_CAP}|[A-Z]{{2,}}(?![a-z]))){{0,3}}"
    titled = re.compile(f"\\b{lexicon.EN_TITLES}\\s+(?P<v>(?:{_INITIAL}\\s+)?{full})")
    cues = "|".join(lexicon.EN_NAME_CUES)
    cued = re.compile(f"\\b(?i:{cues})\\s*[:#-]\\s*(?:(?i:his|her|the|their|patient's)\\s+)?"
                      f"(?:(?i:{cues})\\s+)?(?P<v>(?:{_INITIAL}\\s+)?{full})")
    credential = re.compile(f"(?P<v>(?:{_INITIAL}\\s+)?{full}),?\\s+{lexicon.EN_CREDENTIALS}\\b")
    initials = re.compile(r"\b(?P<v>[A-Z]\.\s?[A-Z]\.(?:\s?[A-Z]\.)?)(?=[\s,;)]|$)")
    last = f"(?:{_CAP}|[A-Z]{{2,}})"
    lastfirst = re.compile(f"\\b(?i:{cues})\\s*[:#-]?\\s*(?P<v>{last},\\s*{last}(?:\\s+{_INITIAL})?)(?![a-z])")
    caps = re.compile(r"(?<![A-Za-z])(?P<v>[A-Z]{2,}(?:[-'][A-Z]+)?,\s?[A-Z]{2,}(?:[-'][A-Z]+)?(?:\s[A-Z]\.?)?)(?![a-z])")
    initial_surname = re.compile(r"(?<![A-Za-z.\d])(?<!\d\s)(?P<v>[A-Z]\.\s?(?:Mc|Mac|O')?[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")
    pinyin = "|".join(sorted(lexicon.pinyin_surnames(), key=len, reverse=True))
    upper = "|".join(sorted((p.upper() for p in lexicon.pinyin_surnames()), key=len, reverse=True))
    romanised = re.compile(f"\\b(?P<v>(?:{pinyin}|{upper})\\s+[A-Z][a-z]{{1,6}}(?:[-\\s]?[a-z]{{2,6}})?)\\b")
    romanised_rev = re.compile(f"\\b(?P<v>[A-Z][a-z]{{1,6}}(?:-[a-z]{{2,6}})?\\s+(?:{pinyin}|{upper}))\\b(?!\\s+[a-z])")
    return titled, cued, credential, initials, lastfirst, romanised, romanised_rev, caps, initial_surname


def _trim_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Drop trailing words that are not name parts (section words, eponym followers); None if nothing is left."""
    words = list(re.finditer(r"[A-Za-z][A-Za-z.'-]*", text[start:end]))
    keep = []
    for w in words:
        if w.group().rstrip(".").lower() in lexicon.EN_NOT_NAMES and len(w.group()) > 2:
            break
        keep.append(w)
    if not keep:
        return None
    e = start + keep[-1].end()
    after = text[e:e + 40].lower().lstrip(" '")
    if after.startswith("s ") or any(after.startswith(f) for f in lexicon.EPONYM_FOLLOWERS):
        return None
    return start, e


def en_names(text: str, deny: frozenset[str] = frozenset()) -> list[Span]:
    regexes = _en_name_regexes()
    names = ("en-name-title", "en-name-cue", "en-name-credential", "en-initials", "en-name-lastfirst",
             "en-name-pinyin", "en-name-pinyin", "en-name-caps", "en-initial-surname")
    found: list[Span] = []
    for rx, detector in zip(regexes, names, strict=True):
        for m in rx.finditer(text):
            if detector == "en-name-caps" and any(w.lower() in lexicon.EN_NOT_NAMES
                                                  for w in re.findall(r"[A-Za-z]+", m.group("v"))):
                continue
            trimmed = _trim_name(text, *m.span("v")) if detector not in ("en-initials", "en-name-caps") \
                else m.span("v")
            if trimmed is None:
                continue
            value = text[trimmed[0]:trimmed[1]]
            if detector == "en-name-cue" and value.islower():
                continue
            found.append(Span(*trimmed, NAME, 0.85, detector))
    for name in deny:
        for m in re.finditer(r"\b" + re.escape(name) + r"\b", text):
            found.append(Span(m.start(), m.end(), NAME, 1.0, "deny-list"))
    # Each part of a found name (Smith of John Smith) found again elsewhere in the note.
    parts = {p for s in found for p in re.findall(r"[A-Z][a-z]{2,}(?:-[A-Z][a-z]+)?|[A-Z]{3,}", text[s.start:s.end])
             if p.lower() not in lexicon.EN_NOT_NAMES}
    parts |= {p.capitalize() for p in parts if p.isupper()} | {p.upper() for p in parts if not p.isupper()}
    for p in parts:
        for m in re.finditer(r"\b" + re.escape(p) + r"\b", text):
            after = text[m.end():m.end() + 30].lower().lstrip(" '")
            if not (after.startswith("s ") or any(after.startswith(f) for f in lexicon.EPONYM_FOLLOWERS)):
                found.append(Span(m.start(), m.end(), NAME, 0.75, "en-name-repeat"))
    return found


def _drug_word(words: list[str], text: str) -> bool:
    """A one-word "person" that is a drug: it ends in a generic drug-name stem, or the note also writes it in lower
    case (names are capitalised; "Apixaban was held" beside "started apixaban")."""
    if len(words) != 1:
        return False
    w = words[0].strip(".,;:")
    return w.lower().endswith(lexicon.DRUG_STEMS) or re.search(rf"\b{re.escape(w.lower())}\b", text) is not None


def spacy_persons(doc: object, text: str) -> list[Span]:
    """PERSON entities of an English spaCy pipeline, without eponyms and section words."""
    out = []
    for ent in getattr(doc, "ents", ()):
        if ent.label_ != "PERSON":
            continue
        trimmed = _trim_name(text, ent.start_char, ent.end_char)
        if trimmed is None:
            continue
        value = text[trimmed[0]:trimmed[1]]
        words = value.split()
        if not re.search(r"[A-Z][a-z]{2,}", value) or re.search(r"\d", value) or \
                any(w.lower() in lexicon.EN_NOT_NAMES for w in words) or _drug_word(words, text):
            continue
        out.append(Span(*trimmed, NAME, 0.7, "spacy-person"))
    return out


# ---------------------------------------------------------------- addresses

@cache
def _zh_place_regex() -> re.Pattern[str]:
    provinces, lower = lexicon.china_places()
    places = sorted(set(provinces) | set(lower), key=len, reverse=True)
    tail = lexicon.ADDRESS_TAIL_ZH
    # After the place: chunks that each end in an address word (区, 路, 号, 村, 组, 室, ...), as many as follow.
    detail = f"(?:[\u4e00-\u9fa5A-Za-z0-9０-９\\-#－—]{{0,12}}?[{tail}])*"
    return re.compile(f"(?:{'|'.join(map(re.escape, places))}){detail}"
                      f"(?:[0-9０-９]+(?:[-－][0-9０-９]+)*[号室楼栋层组]?)?(?:附近|一带|周边|对面)?")


_ZH_ADDRESS_CUE = re.compile(r"(?:住址|地址|家住|住在|现住|现居|居住于|居住地|户籍地址?|户籍|户口所在地|通讯地址|联系地址|工作单位地址|"
                             r"家庭住址|出生地|常住地址?)[:：\s]*(?P<v>[^，。；;,\n\t（(]{3,40})")
_ZH_STREET = re.compile(r"(?P<v>[\u4e00-\u9fa5]{1,10}?(?:路|街|大道|大街|巷|胡同|弄)\d+(?:号|弄)(?:[\u4e00-\u9fa5\d\-]{0,12}?"
                        r"(?:室|楼|栋|幢|单元|号|院))*(?:\d+(?:-\d+)*)?)")
_ZH_STOP_BEFORE = "于在到至转往赴去来自从经由及和与的、，。；：（）()\n 住家居"
_ORG_ENDINGS = (*lexicon.ORG_SUFFIXES_ZH, "院")


def zh_addresses(text: str) -> list[Span]:
    provinces, _ = lexicon.china_places()
    out = []
    for m in _zh_place_regex().finditer(text):
        start, end = m.span()
        value = text[start:end]
        # A province on its own may stay (Safe Harbor keeps the state); below it is identifying.
        lead = next((p for p in sorted(provinces, key=len, reverse=True) if value.startswith(p)), "")
        if lead:
            start += len(lead)
            value = text[start:end]
        if len(value) < 2 or value in provinces or value.endswith(_ORG_ENDINGS):
            continue
        # A place name that is part of an organisation's name is found as the organisation.
        if re.match(r"[\u4e00-\u9fa5]{0,8}(?:医院|大学|学院|中学|小学|公司|卫生院|中心)", text[end:end + 12]):
            continue
        out.append(Span(start, end, ADDRESS, 0.85, "zh-gazetteer"))
    for rx, name in ((_ZH_ADDRESS_CUE, "zh-address-cue"), (_ZH_STREET, "zh-street")):
        for m in rx.finditer(text):
            s, e = m.span("v")
            value = text[s:e]
            lead = next((p for p in sorted(provinces, key=len, reverse=True) if value.startswith(p)), "")
            s += len(lead)
            if name == "zh-street":
                place = _zh_place_regex().search(text, s, e)
                if place is not None:
                    s = place.start() + len(next((p for p in sorted(provinces, key=len, reverse=True)
                                                  if text.startswith(p, place.start())), ""))
                while s < e and text[s] in _ZH_STOP_BEFORE:
                    s += 1
            if e - s >= 2:
                out.append(Span(s, e, ADDRESS, 0.85, name))
    return out


_EN_STREET = re.compile(
    r"(?<![\w-])\d{1,6}\s+(?:(?:[NSEW]|NE|NW|SE|SW)\.?\s+)?(?:[A-Z0-9][A-Za-z0-9'-]*\.?\s+){0,4}" +
    lexicon.EN_STREET + r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|#)\.?\s*#?\w+)?"
    r"(?:(?:,\s*|\s*\n\s*)[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})?(?:,?\s+(?:" + "|".join(lexicon.US_STATES) + r"))?"
    r"(?:\s+\d{5}(?:-\d{4})?)?")
_EN_CITY_ZIP = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2},\s+(?:" + "|".join(lexicon.US_STATES) +
                          r")\s+\d{5}(?:-\d{4})?\b")
_EN_ZIP_CUE = re.compile(r"(?:zip(?:\s+code)?|postal\s+code|邮编|邮政编码)[:：\s]*(?P<v>\d{5,6}(?:-\d{4})?)", re.IGNORECASE)
_EN_PO_BOX = re.compile(r"\bP\.?\s?O\.?\s+Box\s+\d+\b", re.IGNORECASE)


def en_addresses(text: str) -> list[Span]:
    out = []
    for rx, name in ((_EN_STREET, "en-street"), (_EN_CITY_ZIP, "en-city-zip"), (_EN_PO_BOX, "en-po-box")):
        out += [Span(*m.span(), ADDRESS, 0.85, name) for m in rx.finditer(text)]
    out += [Span(*m.span("v"), ADDRESS, 0.85, "zip-cue") for m in _EN_ZIP_CUE.finditer(text)]
    return out


# ---------------------------------------------------------------- organisations

@cache
def _zh_org_regex() -> re.Pattern[str]:
    suffixes = "|".join(sorted(map(re.escape, lexicon.ORG_SUFFIXES_ZH + lexicon.ORG_SUFFIXES_ZH_MORE), key=len,
                               reverse=True))
    return re.compile(f"(?:{suffixes})")


_ZH_ORG_STOP = set("于在到至转往赴去来自从经由及与的、，。；：:（）()\n \t就诊入住前后送曾请")


def zh_organisations(text: str) -> list[Span]:
    out = []
    for m in _zh_org_regex().finditer(text):
        end = m.end()
        start = m.start()
        while start > 0 and m.start() - start < 16 and text[start - 1] not in _ZH_ORG_STOP and \
                ("\u4e00" <= text[start - 1] <= "\u9fa5" or text[start - 1].isalnum()):
            start -= 1
        name = text[start:m.start()]
        if not name or name in lexicon.ORG_GENERIC_ZH or (len(name) == 1 and name not in "协华湘齐"):
            continue
        out.append(Span(start, end, ORGANIZATION, 0.8, "zh-organisation"))
    for m in _ZH_ORG_CUE.finditer(text):
        s, e = m.span("v")
        if text[s:e] not in lexicon.ORG_GENERIC_ZH and e - s >= 2:
            out.append(Span(s, e, ORGANIZATION, 0.8, "zh-organisation-cue"))
    return out


_ZH_ORG_CUE = re.compile(r"(?:工作单位|单位名称|就职于|任职于|供职于|就读于|学校|雇主|所在单位|申请了?|援助机构)[:：\s]*"
                         r"(?P<v>[\u4e00-\u9fa5A-Za-z0-9（）()]{2,24}?)(?=[\s，。；;,、\n]|援助|项目|$)")


_EN_ORG = re.compile(r"(?:\b(?:St\.?|Saint|Mount|Mt\.?)\s+)?(?:\b[A-Z][A-Za-z'&.-]*\s+(?:(?:of|and|&|for|the)\s+)*){1,6}(?:" +
                     "|".join(lexicon.ORG_SUFFIXES_EN) + r")\b(?:\s+of\s+(?:[A-Z][a-z]+\s?){1,4})?")


_EN_ORG_CUE = re.compile(r"(?i:works?\s+(?:at|for)|worked\s+(?:at|for)|employed\s+(?:at|by)|employer|retired\s+from|"
                         r"community\s+resources?|school|attends|student\s+at|home\s+health|agency)[:\s(]*"
                         r"(?P<v>[A-Z][A-Za-z'.-]*(?:\s+(?:(?:of|and|&|for|the|on)\s+)*[A-Z0-9][A-Za-z0-9'.-]*){0,7})")


def en_organisations(text: str) -> list[Span]:
    out = []
    for m in _EN_ORG_CUE.finditer(text):
        value = m.group("v").rstrip(".")
        if value.lower() not in lexicon.EN_NOT_NAMES:
            out.append(Span(m.start("v"), m.start("v") + len(value), ORGANIZATION, 0.8, "en-organisation-cue"))
    for m in _EN_ORG.finditer(text):
        value = m.group().strip()
        first = value.split()[0].lower()
        if first in {"the", "this", "our", "a", "an", "outside", "local", "community", "general"} and \
                len(value.split()) <= 2:
            continue
        start = m.start()
        out.append(Span(start, start + len(value), ORGANIZATION, 0.8, "en-organisation"))
    return out
