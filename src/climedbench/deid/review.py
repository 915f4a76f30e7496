"""A self-contained HTML page for the reviewer's sign-off: every de-identified note with its replaced spans
highlighted and typed, flagged notes first. It shows only the output (surrogates or masks), never the original text;
everything is escaped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from climedbench.deid.surrogates import Replacer


def _segments(text: str, replaced: list[tuple[int, int, str, str]]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    pos = 0
    for start, end, entity, _ in replaced:
        if start > pos:
            out.append((text[pos:start], None))
        out.append((text[start:end], entity))
        pos = end
    if pos < len(text):
        out.append((text[pos:], None))
    return out


def write_review(path: Path, results: list[Any], replacer: Replacer) -> None:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(["html"]))
    docs = [{"id": replacer.value_hash(r.note.doc_id), "flags": r.flags, "language": r.language,
             "counts": sorted({e for _, _, e, _ in r.replaced}), "n": len(r.replaced),
             "segments": _segments(r.output, r.replaced)} for r in results]
    docs.sort(key=lambda d: (not d["flags"], d["id"]))
    html = env.get_template("review.html").render(docs=docs, mode=replacer.mode)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
