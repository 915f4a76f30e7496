"""Stream the records of one JSON file with ijson, keeping the lines where each record starts and ends.

Two passes over the file, each linear in its size and holding one record at a time: the first (ijson's event
parser, fed one line at a time) maps the document — the top value's kind, where each element or member starts
and ends, and where the first syntax error is; the second (ijson's C item builder) builds the records, which
are paired with that map in order. A JSON array of 54 MB thus loads in 1.0–1.7x the time of the same records as
JSON lines (bench/json_load.py), where counting the lines before each record in the whole text took
quadratic time.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import accumulate, compress, islice
from operator import itemgetter
from pathlib import Path
from typing import Any

from climedbench.data.encoding import BadByte

BLOCK = 1 << 16
OPEN = frozenset({"start_map", "start_array"})
CLOSE = frozenset({"end_map", "end_array"})
NESTING = OPEN | CLOSE
DELTA = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1, "map_key": 0, "number": 0,
         "string": 0, "boolean": 0, "null": 0, "integer": 0, "double": 0}
KIND = {"start_map": "dict", "start_array": "list"}


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

    top: str | None = None  # the top value's type name: 'list', 'dict', 'str', 'int', ...
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
    by_line = by_line or bool(bad)
    line = 1
    first = True
    with path.open("rb") as fh:
        while block := fh.read(BLOCK):
            if first:
                first = False
                block = block.removeprefix(codecs.BOM_UTF8)
            if not by_line:
                yield line, block
                continue
            parts = block.split(b"\n")
            for k, part in enumerate(parts):
                last = k == len(parts) - 1
                if last and not part:
                    break
                piece = part if last else part + b"\n"
                if line in bad:
                    piece = piece.decode("utf-8", "replace").encode("utf-8")
                yield line, piece
                line += not last


def _message(e: Exception) -> str:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return first.removeprefix("b'").removeprefix('b"').replace("\\n", " ").strip()


def layout(path: Path, bad: Mapping[int, BadByte]) -> Layout:
    """Map the document (first pass). The parser is fed one line at a time (so each event has its line); a
    line that opens or closes nothing while inside a record is skipped at once, and a long line (a minified
    file) has its depths computed by C code (accumulate), only the events at a record's depth going through
    Python."""
    import ijson
    from ijson.utils import sendable_list

    out = Layout()
    events: list[tuple[str, Any]] = sendable_list()
    coro = ijson.basic_parse_coro(events, multiple_values=True, use_float=True)
    send = coro.send
    state = _State()
    line = 1
    try:
        for line, data in pieces(path, bad):
            send(data)
            if events:
                if state.depth < state.quiet or not NESTING.isdisjoint(map(_first, events)):
                    state.take(events, line, out)
                events.clear()
        coro.close()
        state.take(events, line, out)
    except _Several:
        out.several = True
    except ijson.JSONError as e:  # IncompleteJSONError is one
        out.error = (line, _message(e))
    if out.top is None and out.error is None:
        out.error = (line, "empty file (no JSON value)")
    return out


_first = itemgetter(0)


@dataclass
class _State:
    depth: int = 0  # containers open
    quiet: int = 1 << 30  # from this depth on, a line that opens or closes nothing changes no record
    key: str = ""
    member: Member | None = None
    start: int = 0

    def take(self, events: list[tuple[str, Any]], line: int, out: Layout) -> None:
        """Update the layout with the events of one line."""
        if len(events) <= 32:
            depth = self.depth
            for ev, value in events:
                if ev == "map_key":
                    if depth == 1:
                        self.key = value
                elif ev in CLOSE:
                    depth -= 1
                    self._end(depth, line, out)
                else:
                    self._start(depth, ev, value, line, out)
                    if ev in OPEN:
                        depth += 1
                    else:
                        self._end(depth, line, out)
            self.depth = depth
        else:
            self._take_many(events, line, out)
        listed = out.top == "dict" and self.member is not None and self.member.kind == "list"
        self.quiet = 3 if listed else 2 if out.top is not None else 1 << 30

    def _take_many(self, events: list[tuple[str, Any]], line: int, out: Layout) -> None:
        depths = list(accumulate(map(DELTA.__getitem__, map(_first, events)), initial=self.depth))
        self.depth = depths[-1]
        lowest = map(min, depths, islice(depths, 1, None))  # per event: the lower of the depths around it
        inner = out.top == "dict" and (min(depths) <= 1 or (self.member is not None and self.member.kind == "list"))
        limit = 2 if inner or out.top is None else 1
        for i in compress(range(len(events)), map(limit.__ge__, lowest)):
            ev, value = events[i]
            depth = depths[i]  # open containers before the event
            if ev == "map_key":
                if depth == 1:
                    self.key = value
                continue
            if ev in CLOSE:
                self._end(depth - 1, line, out)
                continue
            self._start(depth, ev, value, line, out)
            if ev not in OPEN:
                self._end(depth, line, out)

    def _start(self, depth: int, ev: str, value: Any, line: int, out: Layout) -> None:
        """A value starts under `depth` open containers."""
        if depth == 0:
            if out.top is not None:
                raise _Several
            out.top = KIND[ev] if ev in OPEN else type(value).__name__
            out.top_span = Span(line)
        elif depth == 1:
            if out.top == "list":
                self.start = line
            else:
                self.member = Member(str(self.key), KIND.get(ev, "scalar"), Span(line))
        elif depth == 2 and self.member is not None and self.member.kind == "list":
            self.start = line
            self.member.all_dicts = self.member.all_dicts and ev == "start_map"

    def _end(self, depth: int, line: int, out: Layout) -> None:
        """A value ends under `depth` open containers."""
        if depth == 0:
            out.top_span.end = line
        elif depth == 1:
            if out.top == "list":
                out.elements.append(Span(self.start, line))
            elif self.member is not None:
                self.member.span.end = line
                out.members.append(self.member)
                self.member = None
        elif depth == 2 and self.member is not None and self.member.kind == "list":
            self.member.elements.append(Span(self.start, line))


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
