"""Figures with matplotlib (imported only when a figure is drawn): PNG for viewing, SVG with text kept as text.

Labels are task codes and English words, so no CJK font is needed. When a label does contain Chinese
(a suite of your own), a CJK font installed on the system (Noto Sans CJK, Source Han Sans, WenQuanYi,
…) is used as a fallback if matplotlib finds one; otherwise those characters render as boxes and a
warning is logged once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from climedbench.core.suite import Task

log = logging.getLogger(__name__)
CJK_FONT_HINTS = ("Noto Sans CJK", "Noto Serif CJK", "Source Han Sans", "WenQuanYi", "Droid Sans Fallback",
                  "AR PL", "SimHei", "Microsoft YaHei", "PingFang", "Heiti")


@cache
def cjk_font() -> str | None:
    """The name of an installed font with Chinese glyphs, or None."""
    from matplotlib import font_manager

    for f in font_manager.fontManager.ttflist:
        if any(h.lower() in f.name.lower() for h in CJK_FONT_HINTS):
            return str(f.name)
    return None


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend, with a CJK fallback font when there is one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = ["DejaVu Sans"]
    font = cjk_font()
    if font:
        families.append(font)
    plt.rcParams.update({"font.family": families, "svg.fonttype": "none", "axes.spines.top": False,
                         "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 150,
                         "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 8})
    return plt


def has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def check_labels(labels: list[str]) -> None:
    """Log once when Chinese labels will render without a CJK font."""
    if any(has_cjk(x) for x in labels) and cjk_font() is None:
        log.warning("no CJK font found: Chinese labels in figures will show as boxes "
                    "(install fonts-noto-cjk or another CJK font)")


def save_figure(fig: Any, png: Path, svg: Path) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(png, bbox_inches="tight")
        fig.savefig(svg, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)


def error_bars(values: Sequence[float], lows: Sequence[float | None], highs: Sequence[float | None]
               ) -> list[list[float]]:
    """Matplotlib yerr (distance below and above each value; 0 where no interval)."""
    below = [max(0.0, v - lo) if lo is not None else 0.0 for v, lo in zip(values, lows, strict=True)]
    above = [max(0.0, hi - v) if hi is not None else 0.0 for v, hi in zip(values, highs, strict=True)]
    return [below, above]


def forest(ax: Any, labels: list[str], diffs: list[float], lows: list[float], highs: list[float],
           title: str, xlabel: str) -> None:
    """A forest plot: one difference per row with its interval, a line at zero."""
    ys = list(range(len(labels)))[::-1]
    ax.errorbar(diffs, ys, xerr=error_bars(diffs, lows, highs), fmt="o", color="#1f4e79", ecolor="#7f9fbf",
                capsize=3)
    ax.axvline(0, color="#888888", lw=0.8, ls="--")
    reach = max([100.0, *(abs(v) for v in (*diffs, *lows, *highs) if v is not None)])
    ax.set_xlim(-reach, reach)  # the whole range a difference of two ×100 scores can take: no zoom on noise
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_title(title)
    ax.set_xlabel(xlabel)


def score_floor(tasks: Iterable[Task]) -> float:
    """The bottom of the ×100 score axis for these tasks: −100 when one has a signed metric (Kendall's τ), else 0."""
    from climedbench.metrics.item import get_metric

    signed = any(t.aggregation == "mean" and get_metric(t.metric).scale == "signed" for t in tasks)
    return -100.0 if signed else 0.0


def grouped_bars(ax: Any, labels: list[str], series: dict[str, tuple[list[float], list[float | None],
                 list[float | None]]], title: str, ylabel: str, floor: float = 0.0) -> None:
    """Bars per label for each series (value, lower, upper), with interval whiskers, on the whole ×100 scale
    (`floor` to 100; lower when a value or interval reaches below the floor)."""
    import numpy as np

    check_labels(labels + list(series))
    k = max(1, len(series))
    width = 0.8 / k
    x = np.arange(len(labels))
    lowest, highest = floor, 100.0
    for i, (name, (vals, lows, highs)) in enumerate(series.items()):
        has_ci = any(v is not None for v in (*lows, *highs))
        ax.bar(x + (i - (k - 1) / 2) * width, vals, width, label=name,
               yerr=error_bars(vals, lows, highs) if has_ci else None, capsize=2, error_kw={"elinewidth": 0.8})
        lowest = min(lowest, *vals, *(v for v in lows if v is not None))
        highest = max(highest, *vals, *(v for v in highs if v is not None))
    ax.set_ylim(lowest, highest)  # scores are ×100: the full scale, so bars compare at a glance
    if lowest < 0:
        ax.axhline(0, color="#888888", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False)
