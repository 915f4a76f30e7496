"""How many of an analysis's answers could not be read, and the mark that says so on its table and figure.

A response the extractor could not read an answer from (`extraction_failure` in samples.jsonl: cut off by
--max-tokens, or no answer in the requested form) scores 0. An analysis over many such items compares zeros:
its figure would look like a finding about the model when it is one about the answer length. So every analysis
counts, over the items it used (no request error), the responses with no readable answer, and when there are any
says "k of n answers unreadable" in its notes (printed under the table), in `data["unreadable"]` and on the figure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from climedbench.analyses.runs import Run

COLOR = "#b22222"


def unreadable_counts(runs: Iterable[Run], tasks: Iterable[str] | None = None,
                      uids: dict[str, list[str]] | None = None) -> dict[str, dict[str, int]]:
    """Per run (its folder name): answers with no readable answer (`unreadable`) of those answered without a request
    error (`n`), over `tasks` (default: all of the run's) and, per task in `uids`, only those items."""
    wanted = set(tasks) if tasks is not None else None
    out: dict[str, dict[str, int]] = {}
    for run in runs:
        k = n = 0
        for uid, s in run.samples.items():
            if s.error or (wanted is not None and s.task not in wanted):
                continue
            if uids is not None and uid not in set(uids.get(s.task, ())):
                continue
            n += 1
            k += bool(s.extraction_failure)
        name = run.path.name
        while name in out:  # two runs in folders of the same name
            name += "'"
        out[name] = {"unreadable": k, "n": n}
    return out


def unreadable_note(counts: dict[str, dict[str, int]]) -> str | None:
    """'k of n answers unreadable (run a: …, run b: …): …' or None when every answer was read."""
    k = sum(c["unreadable"] for c in counts.values())
    if k == 0:
        return None
    n = sum(c["n"] for c in counts.values())
    parts = ", ".join(f"{name} {c['unreadable']} of {c['n']}" for name, c in counts.items() if c["unreadable"])
    return (f"{k} of {n} answers unreadable ({parts}): no answer could be read from the response, so those items "
            "score 0 here; give a larger --max-tokens (or, for choice items outside a CoT run, --mc-mode logprob).")


def mark(record: Any, figure: Any, counts: dict[str, dict[str, int]]) -> None:
    """Record the counts in `record.data['unreadable']`; when some answers were unreadable, put the note first in
    `record.notes` and under the figure."""
    record.data["unreadable"] = counts
    note = unreadable_note(counts)
    if note is None:
        return
    record.notes.insert(0, note)
    if figure is not None:
        mark_figure(figure, note)


def mark_figure(figure: Any, note: str) -> None:
    """The note as a line of text below the axes (kept by savefig's tight bounding box)."""
    import textwrap

    width = max(60, int(figure.get_figwidth() * 14))
    figure.text(0.01, 0.0, "\n".join(textwrap.wrap(f"⚠ {note}", width)), ha="left", va="top", fontsize=8,
                color=COLOR, gid="unreadable-note")
