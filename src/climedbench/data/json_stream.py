"""Stream the records of one JSON file with ijson, keeping the lines where each record starts and ends.

Two passes over the file, each linear in its size and holding one record at a time: the first (ijson's event
parser, fed one line at a time) maps the document — the top value's kind, where each element or member starts
and ends, and where the first syntax error is; the second (ijson's C item builder) builds the records, which
are paired with that map in order. A JSON array of 50 MB thus loads in about the time of the same records as
JSON lines (benchmarks/json_load.py), where decoding the whole text and counting lines before each record took
quadratic time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from climedbench.data.encoding import BadByte

BLOCK = 1 << 16
OPEN = frozenset({"start_map", "start_array"})
CLOSE = frozenset({"end_map", "end_array"})
KIND = {"start_map": "dict", "start_array": "list", "number": "number", "string": "str", "boolean": "bool",
        "null": "null"}


@dataclass
class Span:
    """The lines a value starts and ends on (1-based)."""

    start: int
    end: int = 0


@dataclass
class Member:
    """One member of a top-level object: its key, the kind of its value, and for a list its elements."""

    key: str
    kind: str
    span: Span
    elements: list[Span] = field(default_factory=list)
    all_dicts: bool = True


@dataclass
class Layout:
    """The shape of a JSON document and the line spans of its records."""

    top: str | None = None  # the top value's kind: 'list', 'dict', 'str', ...
    top_span: Span = field(default_factory=lambda: Span(1, 1))
    elements: list[Span] = field(default_factory=list)  # of a top-level list
    members: list[Member] = field(default_factory=list)  # of a top-level object
    error: tuple[int, str] | None = None  # (line, message) of the first syntax error
    several: bool = False  # more than one top-level value (JSON lines saved as .json)


class _Several(Exception):
    pass


def pieces(path: Path, bad: Mapping[int, BadByte], by_line: bool = True) -> Iterator[tuple[int, bytes]]:
    """The file's bytes with the line number of each piece; `by_line`: every piece lies within one line. A line
    with a byte that is not UTF-8 is passed on with it replaced (U+FFFD): its record is reported, the rest read."""
    line = 1
    first = True
    with path.open("rb") as fh:
        while True:
            chunk = fh.readline(BLOCK) if by_line or bad else fh.read(BLOCK)
            if not chunk:
                return
            if first:
                first = False
                if chunk.startswith(b"\xef\xbb\xbf"):
                    chunk = chunk[3:]
            if line in bad:
                chunk = chunk.decode("utf-8", "replace").encode("utf-8")
            yield line, chunk
            if by_line or bad:
                line += chunk.endswith(b"\n")


def _message(e: Exception) -> str:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return first.removeprefix("b'").removeprefix('b"').replace("\\n", " ").strip()


def layout(path: Path, bad: Mapping[int, BadByte]) -> Layout:
    """Map the document (first pass)."""
    import ijson
    from ijson.utils import sendable_list

    out = Layout()
    events: list[tuple[str, Any]] = sendable_list()
    coro = ijson.basic_parse_coro(events, multiple_values=True, use_float=True)
    depth = 0
    key = ""
    member: Member | None = None
    start = 0
    line = 1
    try:
        for line, data in pieces(path, bad):
            coro.send(data)
            for ev, value in events:
                if ev == "map_key":
                    if depth == 1:
                        key = value
                    continue
                if ev in CLOSE:
                    depth -= 1
                else:
                    # a value starts under `depth` open containers
                    if depth == 0:
                        if out.top is not None:
                            raise _Several
                        out.top = KIND[ev]
                        out.top_span = Span(line)
                    elif depth == 1:
                        if out.top == "list":
                            start = line
                        else:
                            member = Member(str(key), KIND[ev], Span(line))
                    elif depth == 2 and member is not None and member.kind == "list":
                        start = line
                        member.all_dicts = member.all_dicts and ev == "start_map"
                    if ev in OPEN:
                        depth += 1
                        continue
                # a value ends under `depth` open containers
                if depth == 0:
                    out.top_span.end = line
                elif depth == 1:
                    if out.top == "list":
                        out.elements.append(Span(start, line))
                    elif member is not None:
                        member.span.end = line
                        out.members.append(member)
                        member = None
                elif depth == 2 and member is not None and member.kind == "list":
                    member.elements.append(Span(start, line))
            events.clear()
        coro.close()
    except _Several:
        out.several = True
    except ijson.JSONError as e:  # IncompleteJSONError is one
        out.error = (line, _message(e))
    if out.top is None and out.error is None:
        out.error = (line, "empty file (no JSON value)")
    return out


def values(path: Path, bad: Mapping[int, BadByte], make: Callable[[Any], Any]) -> Iterator[Any]:
    """What an ijson push coroutine (`make(target)`) finds in the file (second pass); stops quietly at a syntax
    error (the first pass has it)."""
    import ijson
    from ijson.utils import sendable_list

    found: list[Any] = sendable_list()
    coro = make(found)
    try:
        for _, data in pieces(path, bad, by_line=False):
            coro.send(data)
            yield from found
            found.clear()
        coro.close()
    except ijson.JSONError:
        pass
    yield from found


def items(path: Path, bad: Mapping[int, BadByte], prefix: str) -> Iterator[Any]:
    """The values at `prefix` ('item': the elements of a top-level list; '': the top value)."""
    import ijson

    return values(path, bad, lambda target: ijson.items_coro(target, prefix, use_float=True))


def members(path: Path, bad: Mapping[int, BadByte]) -> Iterator[tuple[str, Any]]:
    """(key, value) of each member of a top-level object, one at a time."""
    import ijson

    return values(path, bad, lambda target: ijson.kvitems_coro(target, "", use_float=True))
