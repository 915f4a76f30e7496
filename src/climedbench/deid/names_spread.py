"""A person named once, found at every other mention in the note (issue 21): whatever detector found the name
first (a cue, a table, a signature, a role field), the note writes the same person again in shorter or other forms —
the parts of an English name alone or in capitals (Ms Okonkwo-Reid … OKONKWO-REID), a Chinese name's given name
alone (欧阳建国 … 建国), its surname with a title or as a nickname (王主任, 老王), its pinyin in any order and case
(周一鸣 … ZHOU Yiming, Yiming Zhou). The guards keep what is a word as well: a part that is a common or clinical
word, before an eponym's follower (Parkinson's disease), or a given name that jieba knows as a word (建设)."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from climedbench.deid import en_words, lexicon
from climedbench.deid.detectors import Span
from climedbench.deid.find import occurrences
from climedbench.deid.patterns import NAME

# Detectors whose finds are too weak to spread (a tag without a structural cue).
_WEAK = ("zh-name-jieba", "spacy-person")
_CJK_NAME = re.compile(r"[\u4e00-\u9fa5]{2,4}")
_LATIN_PART = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z][A-Za-z'’]*)*")
_TITLES_ZH = "|".join(sorted(lexicon.ZH_NAME_AFTER, key=len, reverse=True))


def spread(text: str, spans: list[Span]) -> list[Span]:
    """Further mentions of the names in `spans` (NAME spans of any detector but the weak ones)."""
    names = {text[s.start:s.end].strip() for s in spans if s.entity == NAME and not _weak(s.detector)}
    out: list[Span] = []
    for name in names:
        if _CJK_NAME.fullmatch(name):
            out += _chinese(text, name)
        elif re.search(r"[A-Za-z]", name):
            out += _latin_parts(text, name)
    return out


def _weak(detector: str) -> bool:
    return all(d in _WEAK for d in detector.split("+"))


def _latin_parts(text: str, name: str) -> list[Span]:
    """Each part of a Latin-script name (three letters or more) wherever else the note writes it, as written, in
    capitals or capitalised; not a common or clinical word unless Faker knows it as a name, not before an eponym's
    follower (Parkinson's disease)."""
    out = []
    for part in {m.group() for m in _LATIN_PART.finditer(name) if len(m.group()) >= 3}:
        if en_words.function_word(part) or part.lower() in lexicon.EN_NOT_NAMES or lexicon.clinical_word(part) or \
                (en_words.common_word(part) and not en_words.known_name(part)):
            continue
        for form in {part, part.upper(), part.capitalize()}:
            for start, end in occurrences(text, form, whole_word=True):
                after = text[end:end + 30].lower().lstrip(" '’")
                if after.startswith(("s ", *lexicon.EPONYM_FOLLOWERS)):
                    continue
                out.append(Span(start, end, NAME, 0.7, "name-spread"))
    return out


def _chinese(text: str, name: str) -> list[Span]:
    single, compound = lexicon.zh_surnames()
    sl = 2 if name[:2] in compound else 1 if name[0] in single else 0
    if not sl or len(name) - sl not in (1, 2):
        return []
    found = occurrences(text, name)
    out = [Span(s, e, NAME, 0.75, "name-spread") for s, e in found]
    surname, given = name[:sl], name[sl:]
    # The given name alone (two characters, no word of jieba's dictionary, not a clinical term).
    if len(given) == 2 and _given_alone_ok(given):
        inside = {i for s, e in found for i in range(s, e)}
        for s, e in occurrences(text, given):
            if s not in inside and _alone(text, s):
                out.append(Span(s, e, NAME, 0.7, "name-spread"))
    # The surname with a title or as a nickname (王主任, 老王, 小王).
    for m in re.finditer(rf"(?:[老小]{re.escape(surname)}|{re.escape(surname)}(?=(?:{_TITLES_ZH})))", text):
        # 老/小 and the surname only where a person fits after it (小周，…; not 小程|序).
        if m.group()[0] in "老小" and not _person_after(text, m.end()):
            continue
        out.append(Span(*m.span(), NAME, 0.7, "name-spread"))
    out += _pinyin(text, surname, given)
    return out


def _person_after(text: str, end: int) -> bool:
    from climedbench.deid.zh_names import person_context

    return person_context(text, end)


def _given_alone_ok(given: str) -> bool:
    from climedbench.deid.zh_name_forms import jieba_words

    return jieba_words().get(given, 0) == 0 and given not in lexicon.ZH_CLINICAL_NOT_NAMES and \
        not any(c.isdigit() for c in given)


@cache
def _before_words() -> tuple[str, ...]:
    return (*lexicon.ZH_KIN, *lexicon.ZH_NAME_BEFORE, *"叫喊和与及同给让请对被由向跟找问")


def _alone(text: str, s: int) -> bool:
    """The given name starts a run of Chinese text or follows a kin word, a cue or a joiner (儿子建国, 叫建国), not
    the inside of a longer word."""
    return s == 0 or not "\u4e00" <= text[s - 1] <= "\u9fa5" or text.endswith(_before_words(), 0, s)


@lru_cache(maxsize=2)  # the note at hand only
def _lower(text: str) -> str:
    return text.lower()


@cache
def _syllables(chars: str) -> tuple[str, ...]:
    from pypinyin import Style, lazy_pinyin

    return tuple(lazy_pinyin(chars, style=Style.NORMAL))


def _pinyin(text: str, surname: str, given: str) -> list[Span]:
    """The name in pinyin: surname first or last, any case, the given syllables joined, hyphened or spaced
    (ZHOU Yiming, Zhou Yi-Ming, Yiming ZHOU, ZHOU, Yiming)."""
    if text.isascii() or not re.search(r"[A-Za-z]{2}", text):
        return []
    sur = "".join(_syllables(surname))
    giv = _syllables(given)
    if not sur.isalpha() or not all(g.isalpha() for g in giv):
        return []
    if sur not in _lower(text):  # no search (and no pattern compiled) where the surname's pinyin is absent
        return []
    given_rx = "[ -]?".join(map(re.escape, giv))
    sur_rx = re.escape(sur)
    rx = re.compile(rf"(?<![A-Za-z])(?i:{sur_rx},?[ \t]{{1,2}}{given_rx}|{given_rx}[ \t]{{1,2}}{sur_rx})(?![A-Za-z])")
    return [Span(*m.span(), NAME, 0.7, "name-spread") for m in rx.finditer(text)]
