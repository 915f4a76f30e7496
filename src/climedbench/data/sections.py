"""Sectioned item text: '## 标题:' / '## Title:' headers and lettered options ('A. …', 'Ｂ：…') written inside a text.

Loaders that read such inputs and the data copies that edit them (perturbation, none of the above) share these
parsers; which section names mean what (the options, a shown reference) is the suite's data (`sections:` in the
suite YAML), not known here.
"""

from __future__ import annotations

import re


def normalize_text(text: str) -> str:
    """Literal two-character '\\n' markers (as some published pages print them) become newlines."""
    return text.replace("\r\n", "\n").replace("\\n", "\n").strip()


# A section header: '## 标题:' / '## 标题：' / '## 标题' at a line end. A newline need not precede it.
HEADER = re.compile(r"##\s*([^\n:：#]{1,24}?)\s*(?:[:：]|(?=\n)|$)")


def split_sections(text: str) -> list[tuple[str, str]]:
    """(header, body) pairs in order; text before the first header has header ''."""
    out: list[tuple[str, str]] = []
    matches = list(HEADER.finditer(text))
    if not matches:
        return [("", text.strip())]
    if text[: matches[0].start()].strip():
        out.append(("", text[: matches[0].start()].strip()))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        out.append((m.group(1).strip(), text[m.end():end].strip()))
    return out


def section(text: str, *names: str) -> str | None:
    """The body of the first section whose header is one of `names`."""
    for header, body in split_sections(text):
        if header in names:
            return body
    return None


def _label_re(letter: str) -> re.Pattern[str]:
    full = chr(ord(letter) + 0xFEE0)
    # A label: the letter (ASCII or full-width) after the start, whitespace or an opening quote,
    # followed by one of : ： . ． 、 — but '.' not followed by a digit ("A.1" is not a label).
    return re.compile(rf"(?:(?<=^)|(?<=[\s\"“「『]))(?:{letter}|{full})\s*(?:[:：．、]|\.(?!\d))")


# Option-label patterns by letter, A to Z.
LABEL_RES = {chr(c): _label_re(chr(c)) for c in range(ord("A"), ord("Z") + 1)}


def parse_options(block: str) -> dict[str, str]:
    """Lettered options from a block: consecutive labels from A, each the next expected letter."""
    block = block.strip()
    if block[:1] in "\"“":  # the whole block may be one quoted string
        block = block[1:]
    starts: list[tuple[str, int, int]] = []
    pos = 0
    for code in range(ord("A"), ord("Z") + 1):
        letter = chr(code)
        m = LABEL_RES[letter].search(block, pos)
        if m is None:
            break
        starts.append((letter, m.start(), m.end()))
        pos = m.end()
    options: dict[str, str] = {}
    for i, (letter, _, body_start) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(block)
        body = block[body_start:end].strip()
        body = re.sub(r"[\"”」』]\s*$", "", body).strip()
        options[letter] = body
    return options
