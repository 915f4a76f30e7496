"""Chinese places the gazetteer of provinces, cities and counties (lexicon.china_places) does not reach: towns,
townships, sub-districts and sumu (…镇, …乡, …街道, …苏木) from JioNLP's full location list, with the villages and
groups written after them; an autonomous county by its short name (琼中县 for 琼中黎族苗族自治县); and a city or a
county by its short name alone where a place fits (回延吉治疗, 家属在喀什, 返回拉萨，)."""

from __future__ import annotations

import contextlib
import io
import re
from functools import cache
from pathlib import Path

_TOWN_ENDINGS = ("街道", "苏木", "镇", "乡")
# What may follow a town: villages, groups, house numbers (…镇青石村3组, …乡前进村12号).
_AFTER_TOWN = re.compile(r"(?:[\u4e00-\u9fa5]{1,6}?(?:村|社区|嘎查|屯|组|队))*(?:\d{1,4}(?:组|号|队))?")
_ORG_AFTER = re.compile(r"[\u4e00-\u9fa5]{0,8}?(?:医院|卫生院|中心|办事处|派出所|委员会|居委会|村委会|政府|学校|"
                        r"小学|中学|幼儿园|公司|银行|所)")
# Words before a short place name that make it a place (在…, 回…, 来自…, 老家…).
_PLACE_BEFORE = r"(?:在|回|返回|转回|回到|去|到|来自|前往|赴|住在|老家|家在|位于|从|籍贯|生于|户籍)"
# What may follow it: punctuation, a line's end, or what a person does in a place.
_PLACE_AFTER = (r"(?=[\s，,。；;、）)]|$|治疗|就诊|住院|工作|生活|打工|务工|上学|读书|探亲|居住|出差|旅游|发病|"
                r"出生|老家|家中|养病|休养|定居|随访|复查)")


@cache
def _location_file() -> Path:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import jionlp  # prints a banner on import
    return Path(jionlp.__file__).parent / "dictionary" / "china_location.txt"


@cache
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
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import jionlp

        data = jionlp.china_location_loader()
    short: set[str] = set()
    counties: set[str] = set()

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
    from climedbench.deid.lexicon import china_places

    provinces, _ = china_places()  # a province stays (上海, 北京: Safe Harbor keeps the state)
    return frozenset(short - provinces), frozenset(counties)


@cache
def _short_regex() -> re.Pattern[str]:
    short, counties = _short_names()
    names = "|".join(sorted(map(re.escape, short), key=len, reverse=True))
    county = "|".join(sorted(map(re.escape, counties), key=len, reverse=True))
    return re.compile(f"{_PLACE_BEFORE}(?P<v>{names}){_PLACE_AFTER}|(?P<c>{county})")


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
    for m in _short_regex().finditer(text):
        group = "v" if m.group("v") is not None else "c"
        out.append((*m.span(group), "zh-place-short"))
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
