"""Chinese tables written as text (a header line of column names, then rows): a cell is read by its column's
name, so the names under 姓名 / 患者 / 探视人 / 术者, the ages of 90 and over under 年龄, the identifiers under
条码号 / 患者ID, the accounts under 用户, the addresses under 住址 and the dates under 日期 are found whatever
their surname or form (a name that is also a word: 宁远; a name without any cue). Cells are split at ｜ / | when
the table draws them, else at whitespace (the ideographic space is one after normalisation); a date and its time,
Latin words and a word before a number joined by a single space stay one cell (Sarah Lin, DOB 21.4) when that
gives the row as many cells as the header. A row is read only when it has as many cells as the header, so a row
that shifts its cells is mostly skipped, not misread."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from climedbench.deid.detectors import Span
from climedbench.deid.patterns import ACCOUNT_ID, ADDRESS, AGE, DATE, NAME, RECORD_NUMBER, identifier_shape

_CJK = "\u4e00-\u9fa5"
# What a header cell names, by its words (the words in brackets dropped: 患者（床号） is a patient column).
_NOT_PERSON_HEADER = re.compile(r"号|码|数|率|时间|日期|电话|手机|地址|住址|年龄|性别|科|床|ID|id|诊断|项目|"
                                r"结果|备注|关系")
_PERSON_HEADER = re.compile(rf"^(?:[{_CJK}]{{0,4}}(?:姓名|患者|病人|患儿|成员|家属|者|人|员|医师|医生|护士|护师|"
                            rf"主刀|助手|一助|二助|麻醉|签名|签字|主任|技师|药师)|Name|Patient)$")
_RECORD_HEADER = re.compile(r"(?:号|码|编号|ID|id|No\.?)$")
_NOT_RECORD_HEADER = re.compile(r"电话|手机|床|序号|台次|房间|间|证件")
_KINDS = (
    (re.compile(r"^年龄|^Age$"), AGE),
    (re.compile(r"住址|地址|居住地|住所|Address"), ADDRESS),
    (re.compile(r"日期|Date"), DATE),
    (re.compile(r"^(?:用户|账号|用户名|登录名|操作员账号)$"), ACCOUNT_ID),
)
_SPLIT_DRAWN = re.compile(r"[ \t]*[｜|][ \t]*")
_SPLIT_SPACE = re.compile(r"[ \t]+")
_LATIN_NAME = re.compile(r"[A-Z][a-z]+(?:[-'][A-Za-z]+)?(?: [A-Z][a-z]+(?:[-'][A-Za-z]+)?){1,2}"
                         r"|[A-Z]{2,}(?: [A-Z]{2,}){1,2}")
_DATE_CELL = re.compile(r"(?:(?:19|20)\d{2}[./-])?\d{1,2}[./-]\d{1,2}|(?:19|20)\d{2}年\d{1,2}月\d{1,2}日"
                        r"|\d{1,2}月\d{1,2}日")


def _cells(line: str, start: int, joined: str = "") -> list[tuple[int, int]]:
    """(start, end) of each cell of a line at `start`: split at drawn bars if any, else at whitespace, where a single
    space does not split between two tokens `joined` names ("0": a date and its time, 2024-06-03 10:20; "A": two
    Latin words, Sarah Lin; "A0": also a word and a number, DOB 21.4)."""
    body = line.strip("｜| \t")
    offset = start + line.index(body) if body else start
    if not body:
        return []
    if re.search(r"[｜|]", body):
        bounds = [m.span() for m in _SPLIT_DRAWN.finditer(body)]
    else:
        bounds = [m.span() for m in _SPLIT_SPACE.finditer(body)
                  if not (m.group() == " " and _joined(body[:m.start()], body[m.end():], joined))]
    out, at = [], 0
    for s, e in bounds:
        out.append((offset + at, offset + s))
        at = e
    out.append((offset + at, offset + len(body)))
    return [(s, e) for s, e in out if e > s]


_JOINS = {
    "0": (re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$"), re.compile(r"\d{1,2}:\d{2}")),
    "A": (re.compile(r"(?<![^ \t])[A-Z][A-Za-z'-]*$"), re.compile(r"[A-Z][A-Za-z'-]*(?![^ \t])")),
    "A0": (re.compile(r"(?<![^ \t])[A-Za-z]+$"), re.compile(r"[\d.]+(?![^ \t])")),
}


def _joined(before: str, after: str, modes: str) -> bool:
    return any(_JOINS[k][0].search(before) is not None and _JOINS[k][1].match(after) is not None
               for k in ("0", "A", "A0") if k in modes.split(","))


def _column_kind(header: str) -> str | None:
    bare = re.sub(r"[（(][^）)]*[）)]", "", header).strip()
    for rx, kind in _KINDS:
        if rx.search(bare):
            return kind
    if _RECORD_HEADER.search(bare) and not _NOT_RECORD_HEADER.search(bare):
        return RECORD_NUMBER
    if _PERSON_HEADER.match(bare) and not _NOT_PERSON_HEADER.search(bare):
        return NAME
    return None


def _header(cells: list[str]) -> bool:
    """A header line: three cells or more, each a short label without digits (a number of a test's name aside:
    NRS2002), at least one of them a column this module reads."""
    if len(cells) < 3:
        return False
    labels = [c for c in cells if re.fullmatch(rf"[{_CJK}A-Za-z（）()/／]{{1,10}}|[A-Za-z0-9-]{{2,10}}", c)]
    return len(labels) == len(cells) and any(_column_kind(c) for c in cells)


def _rows(text: str) -> Iterator[tuple[list[tuple[int, str | None]], list[tuple[int, int]]]]:
    """For each table row: its header's columns (index, kind) and the row's cells."""
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+|(?<=\n)(?=\n)", text)]
    columns: list[tuple[int, str | None]] | None = None
    for start, line in lines:
        if not line.strip():
            columns = None  # a blank line ends a table
            continue
        cells = _cells(line, start)
        values = [text[s:e] for s, e in cells]
        if _header(values):
            columns = [(i, _column_kind(v)) for i, v in enumerate(values)]
            continue
        if columns is None:
            continue
        # The first reading of the row that gives as many cells as the header has.
        readings = (_cells(line, start, j) for j in ("0", "A", "0,A", "0,A,A0"))
        row = cells if len(cells) == len(columns) else next((c for c in readings if len(c) == len(columns)), None)
        if row is not None:
            yield columns, row
        elif re.match(rf"[ \t]*[{_CJK}]{{2,6}}[:：]", line):
            columns = None  # a labelled line after the table (备注：, 签名：) ends it


def _name_cell(value: str) -> str | None:
    """The name at a cell's start (蔡某某（父）, 李某（11床）), or None when the cell is no person's name."""
    from climedbench.deid.zh_name_forms import _surname_first

    head = re.match(rf"[{_CJK}]{{2,4}}(?=[（(]|$)|{_LATIN_NAME.pattern}$", value)
    if head is None:
        return None
    name = head.group()
    if re.fullmatch(f"[{_CJK}]+", name) and not (_surname_first(name) and _plausible_name(name)):
        return None
    return name


def _plausible_name(name: str) -> bool:
    """Not a word of a cell beside the name (全麻, 高危, 阴性): no clinical word, and either jieba tags a part of it
    as a proper noun (宁远 is a county's and a person's name) or it has three characters and is no dictionary word
    (…秋月, …长风)."""
    import jieba.posseg as pseg

    from climedbench.deid import lexicon
    from climedbench.deid.zh_name_forms import _plausible, jieba_words

    tags = [t.flag for t in pseg.lcut(name)]
    proper = any(t.startswith(("nr", "ns", "nz")) for t in tags)
    # A dictionary word that jieba does not read as one proper noun (as zh_names._looks_like_word).
    word = jieba_words().get(name, 0) > 0 and not (len(tags) == 1 and proper)
    return name not in lexicon.ZH_CLINICAL_NOT_NAMES and \
        ((proper and _plausible(name)) or (len(name) >= 3 and not word))


def table_spans(text: str) -> list[Span]:
    """The cells of the columns this module reads, typed by their column (names are read by zh_names, the other
    types by context: the last note's answer is kept for the second call)."""
    return list(_table_spans(text))


@lru_cache(maxsize=2)
def _table_spans(text: str) -> tuple[Span, ...]:

    out = []
    for columns, cells in _rows(text):
        for (_, kind), (s, e) in zip(columns, cells, strict=True):
            value = text[s:e]
            if kind == NAME:
                name = _name_cell(value)
                if name is not None:
                    out.append(Span(s, s + len(name), NAME, 0.8, "zh-table-name"))
            elif kind == AGE and re.fullmatch(r"\d{2,3}\s*岁?", value) and int(re.match(r"\d+", value).group()) >= 90:  # type: ignore[union-attr]
                out.append(Span(s, e, AGE, 0.8, "zh-table-age"))
            elif kind == RECORD_NUMBER and identifier_shape(value):
                out.append(Span(s, e, RECORD_NUMBER, 0.8, "zh-table-id"))
            elif kind == ACCOUNT_ID and re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{2,}", value) and \
                    re.search(r"[\d_.]", value):
                out.append(Span(s, e, ACCOUNT_ID, 0.8, "zh-table-account"))
            elif kind == ADDRESS and re.search(f"[{_CJK}]{{2}}", value):
                out.append(Span(s, e, ADDRESS, 0.8, "zh-table-address"))
            elif kind == DATE and _DATE_CELL.fullmatch(value):
                out.append(Span(s, e, DATE, 0.8, "zh-table-date"))
    return tuple(out + _repeats(text, out))


def _repeats(text: str, found: list[Span]) -> list[Span]:
    """An identifier or account of a table found again elsewhere in the note (说明：P0012345 为…)."""
    out = []
    for value, kind in {(text[s.start:s.end], s.entity) for s in found if s.entity in (RECORD_NUMBER, ACCOUNT_ID)}:
        for m in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text):
            out.append(Span(m.start(), m.end(), kind, 0.8, "zh-table-repeat"))
    return out
