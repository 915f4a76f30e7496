"""Ratings to and from CSV (one row per rating), and comments/flags to CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path

from climedbench.apps.rater.store import NoteRow
from climedbench.core.types import Rating
from climedbench.errors import DataError

COLUMNS = ["item", "answer", "rater", "aspect", "score", "model", "task", "time"]
REQUIRED = ("item", "rater", "aspect", "score")
NOTE_COLUMNS = ["item", "task", "rater", "flagged", "comment", "time"]
# A spreadsheet runs a cell starting with one of these as a formula; comments are the raters' free text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def ratings_csv(ratings: Sequence[Rating]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in ratings:
        score = int(r.score) if float(r.score).is_integer() else r.score
        w.writerow([r.item, r.answer, r.rater, r.aspect, score, r.model or "", r.task or "", r.time or ""])
    return buf.getvalue()


def notes_csv(notes: Sequence[NoteRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(NOTE_COLUMNS)
    for n in notes:
        comment = "'" + n.comment if n.comment.startswith(FORMULA_START) else n.comment
        w.writerow([n.item, n.task, n.rater, int(n.flagged), comment, n.time])
    return buf.getvalue()


def read_ratings_csv(path: Path) -> list[Rating]:
    """Ratings from a CSV with at least `item,rater,aspect,score` (and optionally answer, model, task, time);
    errors name the file, the line and the field. A rater rating the same unit and aspect twice is an error."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"cannot read ({e})", file=str(path)) from e
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)} (header: {', '.join(header) or 'empty'}); "
                        f"expected at least {','.join(REQUIRED)}", file=str(path), line=1)
    reader.fieldnames = header
    out: list[Rating] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in enumerate(reader, start=2):
        values = {k: (v or "").strip() for k, v in row.items() if k is not None and isinstance(v, str)}
        if not any(values.values()):
            continue
        for col in REQUIRED:
            if not values.get(col):
                raise DataError("empty", file=str(path), line=line, field=col)
        try:
            score = float(values["score"])
        except ValueError as e:
            raise DataError(f"{values['score']!r} is not a number", file=str(path), line=line, field="score") from e
        if not math.isfinite(score):
            raise DataError(f"{values['score']!r} is not a finite number", file=str(path), line=line, field="score")
        rating = Rating(item=values["item"], answer=values.get("answer", ""), rater=values["rater"],
                        aspect=values["aspect"], score=score, model=values.get("model") or None,
                        task=values.get("task") or None, time=values.get("time") or None)
        key = (rating.unit, rating.rater, rating.aspect)
        if key in seen:
            raise DataError(f"{rating.rater} rated {rating.unit} on {rating.aspect} twice (first on line {seen[key]})",
                            file=str(path), line=line, field="score")
        seen[key] = line
        out.append(rating)
    if not out:
        raise DataError("no ratings", file=str(path))
    return out
