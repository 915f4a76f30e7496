"""Is a text data file UTF-8? If not, where is the first byte that is not, and what is the file likely to be?

A file in another encoding (GB18030/GBK, UTF-16) gets one message naming the first bad byte, the likely
encoding and the `iconv` command converting it. A few bad bytes in an otherwise UTF-8 file are reported on
their lines, and the file's other records are still read.
"""

from __future__ import annotations

import codecs
import shlex
from dataclasses import dataclass, field
from pathlib import Path

BLOCK = 1 << 20
SAMPLE = 4 << 20  # bytes tried in GB18030 (which reads GBK and GB2312 too)


@dataclass(frozen=True)
class BadByte:
    """The first byte of a line that is not UTF-8."""

    line: int
    column: int  # 1-based byte column in the line
    offset: int  # 0-based byte offset in the file
    byte: int

    def reason(self, rest_read: bool = True) -> str:
        rest = "the file's other records are read" if rest_read else "the rest of the file is not read"
        return (f"not UTF-8 text: byte 0x{self.byte:02x} at column {self.column} (byte offset {self.offset}) "
                f"cannot be read; fix or remove it ({rest})")


@dataclass(frozen=True)
class Utf8Check:
    """The lines that are not UTF-8; `file_error` when the whole file is in another encoding."""

    bad: dict[int, BadByte] = field(default_factory=dict)
    file_error: tuple[int, str] | None = None  # (line, message)


def _valid(path: Path) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")()
    with path.open("rb") as fh:
        try:
            while block := fh.read(BLOCK):
                decoder.decode(block)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def _utf16_like(head: bytes) -> bool:
    """A byte-order mark, or text whose every other byte is NUL (UTF-16 without a mark)."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    sample = head[:4096]
    return len(sample) >= 4 and max(sample[0::2].count(0), sample[1::2].count(0)) * 4 >= len(sample)


def likely_encoding(path: Path) -> str | None:
    """The iconv name of the encoding the file's start decodes in: UTF-16 (with its byte order when it has no
    mark) or GB18030; None when neither."""
    with path.open("rb") as fh:
        head = fh.read(SAMPLE)
    if _utf16_like(head):
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return "UTF-16"
        return "UTF-16LE" if head[1::2].count(0) >= head[0::2].count(0) else "UTF-16BE"
    try:
        codecs.getincrementaldecoder("gb18030")().decode(head, final=len(head) < SAMPLE)
    except UnicodeDecodeError:
        return None
    return "GB18030"


def convert_hint(shown: str, encoding: str | None) -> str:
    """How to convert the file to UTF-8."""
    p = Path(shown)
    out = str(p.with_name(f"{p.stem}.utf8{p.suffix}"))
    if encoding is None:
        return (f"find its encoding (e.g. `file -i {shlex.quote(shown)}`) and convert it with "
                f"`iconv -f ENCODING -t UTF-8 {shlex.quote(shown)} > {shlex.quote(out)}`")
    return (f"it reads as {encoding} — convert it with "
            f"`iconv -f {encoding} -t UTF-8 {shlex.quote(shown)} > {shlex.quote(out)}`")


def check_utf8(path: Path, shown: str) -> Utf8Check:
    """Check a text file; a fast pass when it is UTF-8 (the usual case), one line at a time when not."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    utf16 = _utf16_like(head)
    if not utf16 and _valid(path):
        return Utf8Check()
    bad: dict[int, BadByte] = {}
    non_ascii = 0
    offset = 0
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.isascii():
                non_ascii += 1
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    bad[n] = BadByte(n, e.start + 1, offset + e.start, raw[e.start])
            offset += len(raw)
    # Another encoding: UTF-16, or most lines with non-ASCII text are not UTF-8 (GBK text almost never is).
    if utf16 or (len(bad) >= 2 and 2 * len(bad) >= non_ascii):
        first = bad[min(bad)] if bad else BadByte(1, 1, 0, head[0] if head else 0)
        where = f"first bad byte 0x{first.byte:02x} at line {first.line}, byte offset {first.offset}"
        if utf16 and not bad:
            where = "every other byte is NUL"
        return Utf8Check(bad, (first.line, f"not UTF-8 text ({where}); "
                                           f"{convert_hint(shown, likely_encoding(path))}"))
    return Utf8Check(bad)
