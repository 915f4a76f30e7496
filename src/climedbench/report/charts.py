"""The report's own figures, drawn server-side with matplotlib and inlined as sanitised SVG.

- a radar (spider) chart of each run's scores on the suite's first grouping level (CliMedBench's seven
  dimensions; a dot plot when that level has fewer than three groups, where a radar cannot be read);
- a forest plot of every task's score with its 95% interval, one colour and marker per run.

Colours are the Okabe–Ito palette (distinguishable with the common colour-vision deficiencies), and every
series also has its own marker. Labels come from the suite's names in the language asked for. Each series is
an SVG group with id `<chart>-series-<i>` (after the page's id prefix), so a test can count them.
"""

from __future__ import annotations

import io
import math
import warnings
from typing import Any

from climedbench.core.suite import Suite
from climedbench.report.page import Chart, Label, Leaderboard, Row
from climedbench.report.svg import sanitize_svg

# Okabe & Ito (2008), in an order that keeps the first colours far apart; yellow last (weak on white).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")


def style(i: int) -> dict[str, Any]:
    """Colour, marker and line style of series i (line styles vary once the colours repeat)."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]}


def _svg(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _pyplot() -> Any:
    from climedbench.analyses.figures import pyplot

    plt = pyplot()
    plt.rcParams["svg.hashsalt"] = "climedbench-report"  # the same figure gives the same SVG
    return plt


def radar_axes(suite: Suite, board: Leaderboard) -> list[str]:
    """The keys on the radar: the first level's groups that some run reports (the tasks when the suite has no
    levels)."""
    runs = [r for r in board.rows if r.run is not None]
    first = suite.first_level
    keys = [k for k, g in suite.groups.items() if g.level == first] if first else list(suite.codes)
    return [k for k in keys if any(r.cells.get(k) and r.cells[k].score is not None for r in runs)]


def radar_svg(suite: Suite, board: Leaderboard, lang: str, prefix: str) -> str:
    """Each run's scores on the first level's groups, as a radar (a dot plot when there are fewer than 3 groups)."""
    plt = _pyplot()
    runs = [r for r in board.rows if r.run is not None]
    keys = radar_axes(suite, board)
    labels = [suite.name(k, lang) for k in keys]
    values = [[_score(r, k) for k in keys] for r in runs]
    low = min(0.0, *(v for vs in values for v in vs if not math.isnan(v)))
    if len(keys) >= 3:
        fig = plt.figure(figsize=(6.4, 5.6))
        ax = fig.add_subplot(projection="polar")
        angles = [2 * math.pi * i / len(keys) for i in range(len(keys))]
        for i, (row, vals) in enumerate(zip(runs, values, strict=True)):
            st = style(i)
            (line,) = ax.plot([*angles, angles[0]], [*vals, vals[0]], label=row.name, linewidth=1.6, markersize=5,
                              **st)
            line.set_gid(f"series-{i}")
            if len(runs) <= 4:
                ax.fill([*angles, angles[0]], [*vals, vals[0]], color=st["color"], alpha=0.08)
        ax.set_xticks(angles)
        ax.set_xticklabels(labels)
        ax.set_ylim(low, 100)
        ax.set_rlabel_position(90)
        ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0), frameon=False)
    else:  # a dot plot: one row per group, one marker per run
        fig, ax = plt.subplots(figsize=(6.4, 0.6 * len(keys) + 1.5))
        ys = list(range(len(keys)))[::-1]
        for i, (row, vals) in enumerate(zip(runs, values, strict=True)):
            st = style(i)
            (line,) = ax.plot(vals, ys, label=row.name, linestyle="none", marker=st["marker"], color=st["color"],
                              markersize=7)
            line.set_gid(f"series-{i}")
        ax.set_yticks(ys)
        ax.set_yticklabels(labels)
        ax.set_ylim(-0.7, len(keys) - 0.3)
        ax.set_xlim(low - 2, 102)
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_xlabel("score (×100)" if lang == "en" else "得分（×100）")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return sanitize_svg(_svg(fig), prefix, "radar chart")


def _score(row: Row, key: str) -> float:
    c = row.cells.get(key)
    return float("nan") if c is None or c.score is None else c.score


def forest_svg(suite: Suite, board: Leaderboard, lang: str, prefix: str) -> str:
    """Every task's score with its 95% interval, one row per task, runs side by side within a row."""
    plt = _pyplot()
    from climedbench.analyses.figures import error_bars

    runs = [r for r in board.rows if r.run is not None]
    codes = [c.key for c in board.columns if c.kind == "task"]
    k = len(runs)
    fig, ax = plt.subplots(figsize=(7.2, max(2.5, 0.28 * len(codes) * max(1, k) ** 0.5 + 1.4)))
    step = 0.7 / max(1, k)
    low = 0.0
    for i, row in enumerate(runs):
        ys, xs, los, his = [], [], [], []
        for j, code in enumerate(codes):
            c = row.cells.get(code)
            if c is None or c.score is None:
                continue
            ys.append(len(codes) - 1 - j + ((k - 1) / 2 - i) * step)
            xs.append(c.score)
            los.append(c.lower)
            his.append(c.upper)
            low = min(low, c.score, *(x for x in (c.lower,) if x is not None))
        st = style(i)
        bars = ax.errorbar(xs, ys, xerr=error_bars(xs, los, his), fmt=st["marker"], color=st["color"],
                           ecolor=st["color"], elinewidth=1.1, capsize=2, markersize=4, label=row.name)
        bars.lines[0].set_gid(f"series-{i}")
        for j, artist in enumerate(bars.lines[2]):
            artist.set_gid(f"series-{i}-ci{j}")
    ax.set_yticks(list(range(len(codes)))[::-1])
    ax.set_yticklabels([f"{c} {suite.name(c, lang)}" if suite.name(c, lang) != c else c for c in codes])
    ax.set_xlim(low - 2, 102)
    ax.axvline(0, color="#888888", lw=0.6)
    ax.set_xlabel("score (×100), 95% interval" if lang == "en" else "得分（×100），95% 区间")
    ax.grid(axis="x", color="#dddddd", lw=0.5)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return sanitize_svg(_svg(fig), prefix, "forest plot")


def build_charts(suite: Suite, board: Leaderboard, languages: list[str]) -> list[Chart]:
    """The radar and the forest plot, once per display language."""
    if not any(r.run is not None for r in board.rows):
        return []
    first = suite.levels[0] if suite.levels else None
    level = Label(zh=(first.zh or first.en or "分组") if first else "任务",
                  en=(first.en or first.zh or "Group") if first else "Task")
    charts = []
    if radar_axes(suite, board):
        title = Label(zh=f"各{level.zh}得分（雷达图）", en=f"Scores by {level.en.lower()}")
        charts.append(Chart(id="radar", title=title,
                            svg={lang: radar_svg(suite, board, lang, f"radar-{lang}") for lang in languages},
                            caption=Label(zh=f"每个运行在{level.zh}上的得分（×100）。",
                                          en=f"Each run's score on each {level.en.lower()} (×100).")))
    if any(c.kind == "task" for c in board.columns):
        charts.append(Chart(id="forest", title=Label(zh="各任务得分及 95% 区间", en="Task scores with 95% intervals"),
                            svg={lang: forest_svg(suite, board, lang, f"forest-{lang}") for lang in languages},
                            caption=Label(zh="点为得分，横线为 95% 置信区间；只包含本报告中的运行"
                                                         "（已发表结果没有区间）。",
                                          en="Points are scores, lines 95% intervals; runs only (published results "
                                             "have no intervals).")))
    return charts
