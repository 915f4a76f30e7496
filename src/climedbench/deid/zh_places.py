"""Chinese places the gazetteer of provinces, cities and counties (lexicon.china_places) does not reach: towns,
townships, sub-districts and sumu (…镇, …乡, …街道, …苏木) from JioNLP's full location list, with the villages and
groups written after them; an autonomous county by its short name (琼中县 for 琼中黎族苗族自治县); and a city or a
county or a district by its short name alone where a place fits (回延吉治疗, 家属在喀什, 在滦南务农, 转诊至成都，,
潮州籍), a municipality after a place's word (从北京赶来), a city right after its province (广东东莞); and villages and
residential compounds named after a place's word (在柳河屯放羊, 搬到翠湖花园)."""

from __future__ import annotations

import contextlib
import io
import re
from functools import cache
from pathlib import Path

from climedbench.deid import tables

_TOWN_ENDINGS = ("街道", "苏木", "镇", "乡")
# What may follow a town: villages, groups, house numbers (…镇青石村3组, …乡前进村12号).
_AFTER_TOWN = re.compile(r"(?:[\u4e00-\u9fa5]{1,6}?(?:村|社区|嘎查|屯|组|队))*(?:\d{1,4}(?:组|号|队))?")
_ORG_AFTER = re.compile(r"[\u4e00-\u9fa5]{0,8}?(?:医院|卫生院|中心|办事处|派出所|委员会|居委会|村委会|政府|学校|"
                        r"小学|中学|幼儿园|公司|银行|所)")
# Words before a short place name that make it a place (在…, 回…, 来自…, 老家…, 转诊至…, 往返…, 于… 进食).
_PLACE_WORDS = ("在", "回", "返回", "转回", "回到", "去", "到", "来自", "前往", "赴", "住在", "老家", "家在",
                "位于", "从", "籍贯", "生于", "户籍", "至", "转至", "转往", "往返", "途经", "返", "自", "于", "迁往",
                "迁至", "搬到", "搬至", "移居", "定居", "旅居", "远在", "身在", "出差", "是", "去过", "到过", "来过",
                "住过", "来", "行至", "随团到")
_PLACE_BEFORE = "(?:" + "|".join(sorted(_PLACE_WORDS, key=len, reverse=True)) + ")"
# What may follow it: punctuation, a line's end, or what a person does in a place.
_PLACE_AFTER = (r"(?=[\s，,。；;、）)\"”’」』与和及]|$|治疗|就诊|住院|工作|生活|打工|务工|务农|经商|上学|"
                r"读书|探亲|居住|出差|旅游|游玩|发病|出生|老家|家中|养病|休养|定居|随访|复查|籍|人|口音|一带|附近|"
                r"等地|地区|市区|城区|县城|农村|乡下|当地|期间|途中|时|后|前|返|回|来|进食|吃|做|开|驾车|赶来|边民|"
                r"一家|一个|某|放牧|种地|开店|帮工|收工|入境|出境)")
# Short names that are everyday words as well (合作, 前进, 解放, 比如, 通道, 东方): taken only before punctuation or a
# line's end, or a word of what a person does in a place; and the generic names of districts (城区, 市中, 郊区).
_COMMON_WORD_FREQ = 300
_GENERIC_CHARS = set("城市郊矿新老区中东西南北关厢开发高园港工业")
# Municipalities and the two special administrative regions are cities: after a place's word they are one (从北京
# 赶来, 于澳门进食); alone (北京协和医院's 北京, 上海市医保) the gazetteer's rule for provinces keeps them.
_CITIES_AS_PROVINCES = ("北京", "上海", "天津", "重庆", "香港", "澳门")


_SIGHTS = frozenset(("国家森林公园", "国家地质公园", "国家湿地公园", "森林公园", "地质公园", "湿地公园", "公园", "古城",
                     "古镇", "风景区", "景区", "水库"))
# A village or a residential compound named in a sentence after a place's word (在柳河屯务农, 住在南湖花园, 回到老家
# 张家湾村): a name of two to six characters before its ending.
_VILLAGE = re.compile(f"{_PLACE_BEFORE}+(?P<v>(?P<n>[\u4e00-\u9fa5]{{2,6}}?)"
                      f"(?P<s>新村|家园|花园|小区|社区|公寓|嘎查|村|屯|寨|苑|庄"
                      # A sight or a site visited (在凤凰古城聚餐, 行至…国家森林公园时).
                      f"|{'|'.join(sorted(_SIGHTS, key=len, reverse=True))}"
                      # A street without a number (在南湖路与…, 途经利民大道附近, 于人民南路四段, 去北环路那边,
                      # 在…路走失).
                      f"|(?:路|大道|大街|街)(?:[一二三四五六七八九十]段)?(?=[^\u4e00-\u9fa5]|附近|与|和|口|交|一带|上|旁|边|时|处|"
                      f"那|这|走失|散步|摔倒|跌倒|被|发生)))")
_NOT_STREETS = frozenset(("管路", "旁路", "气路", "通路", "回路", "尿路", "网路"))
# What a name of a village is not: a word with 的, 该, 本, 某… (在本村, 在所在小区, 在当地社区), a generic place.
_NOT_VILLAGE_CHARS = set("的了在是其该本此这那某所各个全邻同农乡山外内附近当地周边我你他她们城")


def _village(name: str, suffix: str, text: str, end: int) -> bool:
    """A village's or a compound's own name, not a word (新农村, 度假村, 城中村, 村庄) nor part of an organisation's
    name (…村卫生室, …社区卫生服务中心, …小区物业)."""
    import jieba.posseg


    tag = jieba.posseg.dt.word_tag_tab.get(name, "")
    common = _jieba_freq().get(name, 0) >= _COMMON_WORD_FREQ or tag.startswith(("v", "a", "d"))
    sight = suffix in _SIGHTS
    if set(name) & (_NOT_VILLAGE_CHARS - {"山"} if sight else _NOT_VILLAGE_CHARS) or \
            (common and not tag.startswith(("ns", "nr", "nz"))):
        return False
    at = end - len(suffix)
    if sight or suffix.startswith(("路", "大道", "大街", "街")):
        # jieba's dictionary holds sights and streets by name (凤凰古城, 北环路): only a common word of the name's last
        # character and the street's word (公路, 小路, 思路, 管路) says no street.
        last = text[at - 1:end]
        return not _ORG_AFTER.match(text, end) and (sight or last[0] in "东西南北中" or (
            _jieba_freq().get(last, 0) < 100 and last not in _NOT_STREETS))
    # A word made of the name's end and the ending (新农|村, 过马|路), but not a direction's (东风北|路).
    if any(_jieba_freq().get(text[i:end], 0) and text[i:at] not in ("东", "西", "南", "北", "中")
           for i in range(at - len(name), at)):
        return False
    return not _ORG_AFTER.match(text, end) and not re.match("物业|委员|卫生|服务|医", text[end:])


def _jieba_freq() -> dict[str, int]:
    """jieba's dictionary: word → frequency (as zh_name_forms.jieba_words, which this module cannot import)."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    freq: dict[str, int] = jieba.dt.FREQ
    return freq


@cache
def _location_file() -> Path:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import jionlp  # prints a banner on import
    return Path(jionlp.__file__).parent / "dictionary" / "china_location.txt"


@tables.stored("zh_towns")
def towns() -> frozenset[str]:
    """Names of towns, townships, sub-districts and sumu (JioNLP's location list, its fourth level), three
    characters or more (not 城镇, 乡镇)."""
    out = set()
    with _location_file().open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("\t\t\t") and not line.startswith("\t\t\t\t"):
                name = line.strip().split("\t")[0]
                if len(name) >= 3 and name.endswith(_TOWN_ENDINGS):
                    out.add(name)
    return frozenset(out)


@cache
def _short_names() -> tuple[frozenset[str], frozenset[str]]:
    """(short names of cities and county-level cities, 喀什 / 延吉; short county names with 县, 琼中县) from the
    gazetteer's aliases."""
    short, counties, _ = _aliases()
    return short, counties


@tables.stored("zh_aliases")
def _aliases() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(short city names, short county names with 县, the bare short names of counties and districts: 滦南, 海淀)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import jionlp

        data = jionlp.china_location_loader()
    short: set[str] = set()
    counties: set[str] = set()
    bare: set[str] = set()

    def aliases(node: dict) -> list[str]:
        alias = node.get("_alias") or []
        return [alias] if isinstance(alias, str) else list(alias)

    for prov in data.values():
        for ck, city in prov.items():
            if ck.startswith("_") or not isinstance(city, dict):
                continue
            short.update(a for a in aliases(city) if len(a) >= 2)
            for kk, county in city.items():
                if kk.startswith("_") or not isinstance(county, dict):
                    continue
                full = county["_full_name"]
                for a in aliases(county):
                    if len(a) >= 2 and full.endswith("市"):
                        short.add(a)
                    if len(a) >= 2 and full.endswith("县") and a + "县" != full:
                        counties.add(a + "县")
                    if len(a) >= 2 and a != full and not set(a) <= _GENERIC_CHARS:
                        bare.add(a)
    from climedbench.deid.lexicon import china_places

    provinces, _ = china_places()  # a province stays (上海, 北京: Safe Harbor keeps the state)
    return frozenset(short - provinces), frozenset(counties), frozenset(bare - provinces - short)


@cache
def world_cities() -> frozenset[str]:
    """Capitals and large cities abroad (都柏林, 马德里, 胡志明市) from JioNLP's world location list; not China's, nor
    a city named as its country is."""
    out: set[str] = set()
    countries: set[str] = set()
    with (_location_file().parent / "world_location.txt").open(encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[0] != "中国":
                countries.update(parts[:2])
                out.update(c for c in (parts[2], *(parts[3].split("/") if len(parts) > 3 else ())) if len(c) >= 2)
    # A city that is its country's name too (新加坡, 摩纳哥) names a nationality as often (新加坡籍): left out.
    return frozenset(out - countries - {p for p in out if any(ch < "\u4e00" or ch > "\u9fa5" for ch in p)})


@cache
def _place_names() -> str:
    """The short names a place's word may come before, as a regex alternation (longest first)."""
    return "|".join(sorted(map(re.escape, _place_set()), key=len, reverse=True))


@cache
def _next_place_regex() -> re.Pattern[str]:
    return re.compile(f"[与和及、/／](?P<v>{_place_names()})")


@cache
def _short_regex() -> re.Pattern[str]:
    short, counties = _short_names()
    names = _place_names()
    county = "|".join(sorted(map(re.escape, counties), key=len, reverse=True))
    from climedbench.deid.lexicon import china_places

    provinces = "|".join(sorted(map(re.escape, china_places()[0]), key=len, reverse=True))
    city = "|".join(sorted(map(re.escape, short), key=len, reverse=True))
    # A short name after a place's word; a county with 县; a city's short name right after its province's (广东东莞,
    # 山西太原), which needs no word before it. (Before 籍: `_before_ji`, a set lookup — the names' alternation tried
    # at every character cost a fifth of a Chinese note's time.)
    return re.compile(f"{_PLACE_BEFORE}(?P<v>{names})|(?P<c>{county})|(?P<p>(?:{provinces})(?:{city}))")


def short_place_names() -> frozenset[str]:
    """The short names of cities (东莞, 兰州) and of counties with 县 (琼中县)."""
    short, counties = _short_names()
    return short | counties


def place_names() -> frozenset[str]:
    """The short names of cities, counties and districts, municipalities, and large cities abroad."""
    return _place_set()


@cache
def _place_set() -> frozenset[str]:
    short, counties = _short_names()
    return short | _aliases()[2] | counties | frozenset(_CITIES_AS_PROVINCES) | world_cities()


def _before_ji(text: str) -> list[tuple[int, int, str]]:
    """A short place name right before 籍 (潮州籍, not 籍贯), the longest that ends there."""
    out = []
    places = _place_set()
    for m in re.finditer("籍(?!贯)", text):
        at = m.start()
        start = next((at - k for k in range(8, 1, -1) if at - k >= 0 and text[at - k:at] in places), None)
        if start is not None and _fits_place(text, start, at):
            out.append((start, at, "zh-place-short"))
    return out


def _fits_place(text: str, start: int, end: int) -> bool:
    """Whether a short name after a place's word is the place: the name is not the start of a longer word (在大理石…
    is marble), and a name that is also an everyday word (合作, 前进) needs punctuation or a word of what a person does
    in a place after it."""
    import jieba


    name = text[start:end]
    if name.endswith("县") or text[end:end + 1] in ("区", "县", "旗"):  # with its 县 (琼中县, 同仁县): a place
        return True
    if jieba.lcut(text[start:end + 4])[0] != name and not re.match(_PLACE_AFTER, text[end:]):
        return False
    if _jieba_freq().get(name, 0) >= _COMMON_WORD_FREQ and name not in _CITIES_AS_PROVINCES:
        return re.match(_PLACE_AFTER, text[end:]) is not None
    return True


def zh_places_more(text: str) -> list[tuple[int, int, str]]:
    """(start, end, detector) of the towns and short place names (detectors.zh_addresses makes them spans)."""
    out = []
    names = towns()
    for m in re.finditer("街道|苏木|镇|乡", text):
        end = m.end()
        for k in range(8, 0, -1):
            start = m.start() - k
            if start >= 0 and text[start:end] in names:
                if _ORG_AFTER.match(text, end):  # the town's part of an organisation's name (…街道社区卫生服务中心)
                    break
                tail = _AFTER_TOWN.match(text, end)
                out.append((start, tail.end() if tail else end, "zh-town"))
                break
    out += [(*m.span("v"), "zh-village") for m in _VILLAGE.finditer(text)
            if _village(m.group("n"), m.group("s"), text, m.end())]
    out += _before_ji(text)
    for m in _short_regex().finditer(text):
        group = next(g for g in ("v", "c", "p") if m.group(g) is not None)
        if group == "v" and not _fits_place(text, *m.span(group)):
            continue
        end = m.end(group)
        # The short name with its own district's or county's word (在鳳山區經營…: 凤山 of the gazetteer, 区 written on).
        if group == "v" and text[end:end + 1] in ("区", "县", "旗"):
            end += 1
        out.append((m.start(group), end, "zh-place-short"))
        # The next place of a pair or a list after it (往返…与黑河, 去过…、…).
        end = m.end(group)
        while (nxt := _next_place_regex().match(text, end)) is not None and _fits_place(text, *nxt.span("v")):
            out.append((*nxt.span("v"), "zh-place-short"))
            end = nxt.end("v")
    return out


@cache
def _place_end_regex() -> re.Pattern[str]:
    """A city, county or district (full or short name) at the end of a piece of text."""
    from climedbench.deid.lexicon import china_places

    _, lower = china_places()
    short, _ = _short_names()
    names = "|".join(sorted(map(re.escape, lower | short), key=len, reverse=True))
    return re.compile(f"(?:{names})(?P<mid>[\u4e00-\u9fa5]{{0,4}})$")


def place_before(text: str, start: int) -> int:
    """Where an organisation's name starts that the search for its start (at `start`) stopped short of, at a
    character that is also a function word (深圳前海… stopped at 前, 某区殿前街道… too): at the place glued before
    it, when at most four characters lie between the place and `start`, none of them a preposition or a joiner."""
    if start == 0 or not "\u4e00" <= text[start - 1] <= "\u9fa5":
        return start
    before = text[max(0, start - 12):start]
    m = _place_end_regex().search(before)
    if m is None or m.group("mid") == before or re.search("[在于到至往赴从经的和与及、]", m.group("mid")):
        return start
    return start - len(before) + m.start()
