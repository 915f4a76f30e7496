"""Marks on a figure's face when it is not the whole of what a published figure is: † some of its items got no
answer, * it is computed from part of the benchmark (a subset of the tasks, fewer items than the suite's published
size, or a run stopped by --max-cost). Tables, the leaderboard and the HTML report put the mark next to the score
and explain it in a footnote (`footnotes`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from climedbench.core.suite import Suite

if TYPE_CHECKING:
    from climedbench.core.types import Figure, Results

INCOMPLETE = "†"
PARTIAL = "*"

FOOTNOTES = {
    INCOMPLETE: "† not every item was answered (failed requests, or items a stopped run never asked): the score is "
                "on the answered items only and its interval covers every outcome of the unanswered ones; — with "
                "no score: no item answered.",
    PARTIAL: "* partial: computed from a subset of the tasks, from fewer items than the suite's published size, or "
             "by a run stopped by --max-cost; not comparable with a published figure of the whole benchmark.",
}


def _task_partial(fig: Figure, code: str, suite: Suite) -> bool:
    task = suite.lookup(code)
    size = task.official_size if task is not None else None
    return bool(size and fig.n is not None and fig.n < size)


def incomplete(fig: Figure) -> bool:
    """Some of the figure's items got no answer (or it has no score at all)."""
    return fig.incomplete or (fig.score is None and fig.n is not None)


def partial(fig: Figure, key: str, results: Results, suite: Suite) -> bool:
    """The figure covers only part of what the suite's published figure of the same key covers."""
    if results.published:
        return False
    if key in results.tasks and key not in suite.groups and key != "overall":
        return _task_partial(fig, key, suite)
    if fig.all_tasks is False:
        return True
    if results.run is not None and results.run.stopped:
        return True
    codes = fig.tasks or []
    return any(c in results.tasks and _task_partial(results.tasks[c], c, suite) for c in codes)


def marks(fig: Figure | None, key: str, results: Results, suite: Suite) -> str:
    """'†', '*', '†*' or '' for a figure shown under `key` (a task code, a group key or 'overall')."""
    if fig is None or results.published:
        return ""
    return (INCOMPLETE if incomplete(fig) else "") + (PARTIAL if partial(fig, key, results, suite) else "")


def footnotes(used: str) -> list[str]:
    """The footnotes of the marks that appear in `used` (any text holding the marks)."""
    return [text for mark, text in FOOTNOTES.items() if mark in used]


def unanswered_notes(name: str, results: Results) -> list[str]:
    """One line per result with unanswered items: which tasks, how many answered."""
    parts = []
    for code, fig in results.tasks.items():
        if incomplete(fig):
            parts.append(f"{code} {fig.answered or 0}/{fig.n}" + (" (no score)" if fig.score is None else ""))
    if not parts:
        return []
    return [f"{INCOMPLETE} {name}: answered/items {', '.join(parts)}"]


def variance_notes(name: str, results: Results) -> list[str]:
    """What the intervals allowed for beyond item sampling: `--epochs K` answers per item (how many items' answers
    varied, and the share of the variance of item means that generation noise accounts for) and clustered items
    (how many clusters, the design effect)."""
    noise, clusters = [], []
    for code, fig in results.tasks.items():
        g = fig.generation_noise
        if g:
            noise.append(f"{code} {100 * g.get('items_varying', 0.0):.0f}% of items varied, "
                         f"noise share {100 * g.get('noise_share', 0.0):.0f}%")
        if fig.clusters:
            effect = f", design effect {fig.design_effect:.2f}" if fig.design_effect is not None else ""
            clusters.append(f"{code} {fig.clusters} clusters{effect}")
    out = []
    if noise:
        k = results.epochs.get("k") if results.epochs else None
        per = f"{k} answers per item" if k else "several answers per item"
        out.append(f"{name}: generation noise ({per}): " + "; ".join(noise))
    if clusters:
        out.append(f"{name}: intervals resample clusters of items: " + "; ".join(clusters))
    return out


def partial_notes(name: str, results: Results, suite: Suite) -> list[str]:
    """One line per run that covers only part of the benchmark: how many tasks, which tasks have fewer items than
    the suite's published size, and whether --max-cost stopped it."""
    if results.published or not results.tasks:
        return []
    parts = []
    if len(results.tasks) < len(suite.tasks):
        parts.append(f"{len(results.tasks)} of {len(suite.tasks)} tasks")
    small = [f"{c} {f.n}/{t.official_size}" for c, f in results.tasks.items()
             if (t := suite.lookup(c)) is not None and _task_partial(f, c, suite)]
    if small:
        parts.append("items/published size " + ", ".join(small))
    if results.run is not None and results.run.stopped:
        stopped = results.run.stopped
        parts.append("stopped by --max-cost" if stopped == "max_cost" else f"stopped: {stopped}")
    return [f"{PARTIAL} {name}: {'; '.join(parts)}"] if parts else []


def has_samples(path: Path) -> bool:
    """samples.jsonl exists and holds at least one non-blank line: without it a results.json's figures cannot be
    checked or recomputed, so tables show no overall for it."""
    try:
        with path.open("rb") as fh:
            return any(line.strip() for line in fh)
    except OSError:
        return False
