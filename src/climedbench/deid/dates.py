"""Dates shifted by a per-patient offset, written back in the format they were found in.

Every date of one patient moves by the same number of days, so intervals (length of stay, 术后第3天, age at an event)
stay true. A date without a year (3月5日, Mar 5) is shifted within a leap year so 2月29日 stays a valid date.
"""

from __future__ import annotations

import datetime as dt
import re

_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]


def _month_number(word: str) -> int | None:
    w = word.lower().rstrip(".")
    for i, name in enumerate(_MONTH_NAMES, start=1):
        if name.startswith(w[:3]) and name.startswith(w if w != "sept" else "sep"):
            return i
    return None


def _month_word(month: int, like: str) -> str:
    """A month written the way `like` was: full or three letters, its case, its trailing dot."""
    full = _MONTH_NAMES[month - 1]
    bare = like.rstrip(".")
    was = _month_number(bare)
    word = full if was is not None and bare.lower() == _MONTH_NAMES[was - 1] else full[:3]
    if bare.isupper() and len(bare) > 1:
        word = word.upper()
    elif bare[:1].isupper():
        word = word.capitalize()
    return word + ("." if like.endswith(".") and word.lower() != full else "")


def _pad(value: int, like: str, padded: bool) -> str:
    """`value` written like `like`: zero-padded to its width when the date pads its numbers (`padded`)."""
    return f"{value:0{len(like)}d}" if padded and len(like) > 1 else str(value)


def _pads(fields: list[str], usual: bool) -> bool:
    """Whether a date pads its day and month: one written with a leading zero says yes, a one-digit one says no;
    two-digit values alone (12/11/2024, 12月31日) say nothing, and the form's usual way holds (`usual`: numbers
    between separators are usually padded, Chinese 年月日 dates usually not)."""
    if any(f.startswith("0") for f in fields):
        return True
    return False if any(len(f) == 1 for f in fields) else usual


def _year(value: int, like: str) -> str:
    return f"{value % 100:02d}" if len(like) == 2 else str(value)


def _shift(year: int | None, month: int, day: int, days: int) -> tuple[int | None, int, int]:
    base = dt.date(year if year is not None else 2000, month, day) + dt.timedelta(days=days)
    return (base.year if year is not None else None), base.month, base.day


_ROC = 1911  # a Republic-of-China year plus this is the Western year


def _full_year(text: str) -> int:
    y = int(text)
    return y if len(text) == 4 else (2000 + y if y < 50 else 1900 + y)


_FORMS = [
    re.compile(r"(?P<y>\d{4}|\d{2})(?P<s1>\s?年\s?)(?P<m>\d{1,2})(?P<s2>\s?月\s?)(?P<d>\d{1,2})(?P<s3>\s?[日号])"),
    re.compile(r"(?P<y>\d{4}|\d{2})(?P<s1>\s?年\s?)(?P<m>\d{1,2})(?P<s2>\s?月)"),
    # Taiwan's Republic-of-China years (民國113年3月5日, 113年3月5日; year 1 is 1912).
    re.compile(r"(?P<e>(?:中華民國|中华民国|民國|民国)\s?)?(?P<r>\d{2,3})(?P<s1>\s?年\s?)(?P<m>\d{1,2})(?P<s2>\s?月\s?)"
               r"(?P<d>\d{1,2})(?P<s3>\s?[日号])"),
    re.compile(r"(?P<e>(?:中華民國|中华民国|民國|民国)\s?)(?P<r>\d{2,3})(?P<s1>\s?年\s?)(?P<m>\d{1,2})(?P<s2>\s?月)"),
    re.compile(r"(?P<m>\d{1,2})(?P<s2>\s?月\s?)(?P<d>\d{1,2})(?P<s3>\s?[日号])"),
    re.compile(r"(?P<y>\d{4})(?P<s1>[-/.])(?P<m>\d{1,2})(?P<s2>[-/.])(?P<d>\d{1,2})"),
    re.compile(r"(?P<m>\d{1,2})(?P<s1>[/-])(?P<d>\d{1,2})(?P<s2>[/-])(?P<y>\d{2,4})"),
    re.compile(r"(?P<d>\d{1,2})(?P<o>st|nd|rd|th)?(?P<s1>\s+(?:of\s+)?)(?P<mn>[A-Za-z]+\.?)(?P<s2>,?\s+)(?P<y>\d{4})"),
    re.compile(r"(?P<mn>[A-Za-z]+\.?)(?P<s1>\s+)(?P<d>\d{1,2})(?P<o>st|nd|rd|th)?(?P<s2>,?\s+)(?P<y>\d{4})"),
    re.compile(r"(?P<mn>[A-Za-z]+\.?)(?P<s1>,?\s+)(?P<y>\d{4})"),
    re.compile(r"(?P<mn>[A-Za-z]+\.?)(?P<s1>\s+)(?P<d>\d{1,2})(?P<o>st|nd|rd|th)?"),
    re.compile(r"(?P<d>\d{1,2})(?P<o>st|nd|rd|th)?(?P<s1>\s+(?:of\s+)?)(?P<mn>[A-Za-z]+\.?)"),
    re.compile(r"(?P<d>\d{1,2})(?P<s1>[-/\s])(?P<mn>[A-Za-z]+\.?)(?P<s2>[-/\s])(?P<y>\d{4}|\d{2})"),
    re.compile(r"(?P<y>\d{2})(?P<s1>[-/.])(?P<m>\d{1,2})(?P<s2>[-/.])(?P<d>\d{1,2})"),
    re.compile(r"(?P<d>\d{1,2})(?P<s1>[./-])(?P<m>\d{1,2})(?P<s2>[./-])(?P<y>\d{4})"),
    re.compile(r"(?P<m>\d{1,2})(?P<s1>/)(?P<y>\d{4})"),
    re.compile(r"(?P<m>\d{1,2})(?P<s1>[/.-])(?P<d>\d{1,2})"),
]
_WEEKDAY = re.compile(r"(?P<w>(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?)(?P<sep>\.?,?\s+)", re.I)
_DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _ordinal(day: int) -> str:
    return "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _weekday_of(text: str) -> int | None:
    text = _date_part(text).strip()
    for form in _FORMS:
        m = form.fullmatch(text)
        if m is None or not m.groupdict().get("y") or not m.groupdict().get("d"):
            continue
        g = m.groupdict()
        month = int(g["m"]) if g.get("m") else _month_number(g["mn"])
        try:
            return dt.date(_full_year(g["y"]), month or 0, int(g["d"])).weekday()
        except ValueError:
            continue
    return None


def shift_date(text: str, days: int) -> str | None:
    """The date in `text` moved by `days`, in the same format; None if `text` is not a date this module can read. A
    weekday before the date (Sat 21 Oct 2023) is the shifted date's weekday when the year is known."""
    w = _WEEKDAY.match(text.strip())
    if w is not None:
        rest = shift_date(text.strip()[w.end():], days)
        if rest is None:
            return None
        word = w.group("w")
        moved = _weekday_of(rest)
        if moved is not None:
            full = _DAY_NAMES[moved]
            word = full if len(word) > 4 else full[:3]
            word = word.upper() if w.group("w").isupper() else word
        return word + w.group("sep") + rest
    if not any(form.fullmatch(text.strip()) for form in _FORMS):
        return _shift_with_time(text, days)
    for form in _FORMS:
        m = form.fullmatch(text.strip())
        if not m:
            continue
        g = m.groupdict()
        try:
            month = int(g["m"]) if g.get("m") else _month_number(g["mn"])
            if month is None:
                continue
            year = _full_year(g["y"]) if g.get("y") else int(g["r"]) + _ROC if g.get("r") else None
            day = int(g["d"]) if g.get("d") else 1
            ny, nm, nd = _shift(year, month, day, days)
        except ValueError:
            continue
        if not g.get("d"):  # month precision: move the month the same way the first of the month moves
            ny, nm, nd = _shift(year, month, 15, days)
        padded = _pads([g[n] for n in ("m", "d") if g.get(n)], usual="月" not in text)
        out = []
        for name in form.groupindex:
            value = g.get(name)
            if value is None:
                continue
            if name == "y":
                out.append((name, _year(ny if ny is not None else 0, value)))
            elif name == "r":
                out.append((name, str((ny or _ROC) - _ROC)))
            elif name == "m":
                out.append((name, _pad(nm, value, padded)))
            elif name == "mn":
                out.append((name, _month_word(nm, value)))
            elif name == "d":
                out.append((name, _pad(nd, value, padded)))
            elif name == "o":
                out.append((name, _ordinal(nd) if value.islower() else _ordinal(nd).upper()))
            else:
                out.append((name, value))
        # Rebuild in the order the groups appear in the text.
        order = sorted(((m.start(n), v) for n, v in out), key=lambda t: t[0])
        lead = text[: len(text) - len(text.lstrip())]
        return lead + "".join(v for _, v in order) + text[len(text.rstrip()):]
    return None


def _date_part(text: str) -> str:
    """`text` without a time of day after the date."""
    from climedbench.deid.context import _TIME_AFTER

    if any(form.fullmatch(text) for form in _FORMS):
        return text
    return next((text[:i] for i in range(len(text) - 1, 0, -1)
                 if _TIME_AFTER.fullmatch(text, i) and any(form.fullmatch(text[:i].strip()) for form in _FORMS)), text)


def _shift_with_time(text: str, days: int) -> str | None:
    """A date followed by its time of day (2023-03-15 11:20, 2023年10月9日 21时15分): the date moved, the time kept."""
    from climedbench.deid.context import _TIME_AFTER

    for i in range(len(text) - 1, 0, -1):
        if _TIME_AFTER.fullmatch(text, i) and text[:i].strip():
            moved = shift_date(text[:i], days)
            if moved is not None:
                return moved + text[i:]
    return None
