"""Date expressions removed from discharge advice (the key and its options): a blind clinical read found that only
the key's date (出院 / follow-up) follows the stem's admission date, a cue outside medicine. Chinese dates
(2023年3月12日, 3月12日, 2023年3月), ISO and dotted ones (2023-03-12, 2023/3/12, 2023.3.12), US ones (3/12/2023) and
English ones (March 12, 2023; 12 March 2023; Mar 12) go, with a preposition right before them ('于', 'on'; not
the 于 of 定于, 拟于 …)."""

from __future__ import annotations

import re

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
          r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE = re.compile(
    r"(?:(?<![A-Za-z])(?:on|by|until)\s+|(?<![定拟预约])[于在至到])?(?:"
    r"\d{2,4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?"  # 2023年3月12日, 2023年3月
    r"|\d{1,2}\s*月\s*\d{1,2}\s*[日号]"  # 3月12日
    r"|(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)"  # 2023-03-12, 2023/3/12, 2023.3.12
    r"|(?<!\d)\d{1,2}/\d{1,2}/\d{2,4}(?!\d)"  # 3/12/2023
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"  # March 12, 2023
    rf"|\b\d{{1,2}}\s+{_MONTH}(?:\s+\d{{4}})?\b"  # 12 March 2023
    r")", re.I)
_EMPTY_BRACKETS = re.compile(r"[（(]\s*[)）]")


def strip_dates(text: str) -> str:
    """The text without its date expressions (and the brackets or double spaces they leave)."""
    out = _EMPTY_BRACKETS.sub("", _DATE.sub("", text))
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"\s+([,.;，。；])", r"\1", out)).strip()
