"""Benchmark validity (the paper's section 6, Fig. 9b): do two leaderboards order the same models alike?

Each leaderboard is a CSV with a `model` column and one column per figure (overall and any subdivisions),
or the JSON that `climedbench leaderboard --json` / `report --json` print ({model: {tasks, groups,
overall}}; its columns are the task codes, group keys and `overall`). Models are matched by name (case,
spaces, '-', '_' and '.' ignored); unmatched names are listed. For every column both leaderboards have:
Spearman's rho and Kendall's tau-b over the models with a value in both, with a 95% interval from
resampling the models (bootstrap), and n. The paper reports rho = 0.943 overall with MedBench.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

from climedbench.analyses.record import AnalysisRecord, Table
from climedbench.analyses.stats import rank_correlations
from climedbench.errors import DataError

TITLE = "Benchmark validity: rank correlation of two leaderboards"
MISSING = {"", "-", "—", "n/a", "na", "nan", "none"}


def _key(name: str) -> str:
    return re.sub(r"[\s\-_.]+", "", name).casefold()


def read_leaderboard(path: Path) -> dict[str, dict[str, float]]:
    """{model: {column: score}} from a CSV or from `leaderboard --json` / `report --json` output."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from e
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        return _from_json(path, text)
    return _from_csv(path, text)


def _from_json(path: Path, text: str) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from e
    if not isinstance(data, dict) or not data:
        raise DataError(f"{path}: expected {{model: {{tasks, groups, overall}}}} as printed by "
                        "`climedbench leaderboard --json`")
    out: dict[str, dict[str, float]] = {}
    for model, res in data.items():
        if not isinstance(res, dict):
            raise DataError(f"{path}: model {model!r}: expected an object with 'tasks', 'groups', 'overall'")
        row: dict[str, float] = {}
        for part in ("tasks", "groups"):
            for key, fig in (res.get(part) or {}).items():
                if isinstance(fig, dict) and isinstance(fig.get("score"), (int, float)):
                    row[key] = float(fig["score"])
        overall = res.get("overall")
        if isinstance(overall, dict) and isinstance(overall.get("score"), (int, float)):
            row["overall"] = float(overall["score"])
        out[str(model)] = row
    return out


def _from_csv(path: Path, text: str) -> dict[str, dict[str, float]]:
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    if "model" not in header:
        raise DataError(f"{path}:1: no 'model' column (header: {', '.join(header) or 'empty'})")
    out: dict[str, dict[str, float]] = {}
    for line, row in enumerate(reader, start=2):
        model = (row.get("model") or "").strip()
        if not model:
            raise DataError(f"{path}:{line}: field 'model' is empty")
        if model in out:
            raise DataError(f"{path}:{line}: field 'model': {model!r} appears twice")
        values: dict[str, float] = {}
        for col in header:
            if col == "model" or not col:
                continue
            raw = (row.get(col) or "").strip()
            if raw.lower() in MISSING:
                continue
            try:
                x = float(raw)
            except ValueError as e:
                raise DataError(f"{path}:{line}: field {col!r}: {raw!r} is not a number") from e
            if not math.isfinite(x):
                raise DataError(f"{path}:{line}: field {col!r}: {raw!r} is not a finite number")
            values[col.strip()] = x
        out[model] = values
    if not out:
        raise DataError(f"{path}: no rows")
    return out


def validity(ours: dict[str, dict[str, float]], other: dict[str, dict[str, float]], *, seed: int = 0,
             replicates: int = 2000) -> dict[str, Any]:
    """{column: {spearman, kendall, lower, upper, n}, ..., 'unmatched': [...]} (the `--json` shape)."""
    theirs = {_key(m): m for m in other}
    matched = [(m, theirs[_key(m)]) for m in ours if _key(m) in theirs]
    used = {o for _, o in matched}
    unmatched = [m for m in ours if _key(m) not in theirs] + [m for m in other if m not in used]
    columns_ours = list(dict.fromkeys(c for row in ours.values() for c in row))
    columns_other = {c for row in other.values() for c in row}
    out: dict[str, Any] = {}
    for col in columns_ours:
        if col not in columns_other:
            continue
        pairs = [(ours[a][col], other[b][col]) for a, b in matched if col in ours[a] and col in other[b]]
        c = rank_correlations([x for x, _ in pairs], [y for _, y in pairs], replicates=replicates, seed=seed)
        out[col] = {"spearman": _r(c.spearman), "kendall": _r(c.kendall), "lower": _r(c.lower),
                    "upper": _r(c.upper), "n": c.n}
    out["unmatched"] = unmatched
    return out


def _r(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 3)


def analyze_validity(ours_path: Path, other_path: Path, *, seed: int = 0,
                     replicates: int = 2000) -> tuple[AnalysisRecord, dict[str, Any], Any]:
    ours, other = read_leaderboard(ours_path), read_leaderboard(other_path)
    result = validity(ours, other, seed=seed, replicates=replicates)
    cols = [c for c in result if c != "unmatched"]
    if not cols:
        raise DataError(f"{ours_path} and {other_path} share no score column (ours: "
                        f"{', '.join(sorted({c for r in ours.values() for c in r})) or 'none'}; other: "
                        f"{', '.join(sorted({c for r in other.values() for c in r})) or 'none'})")
    body = [[c, result[c]["n"], result[c]["spearman"], result[c]["lower"], result[c]["upper"], result[c]["kendall"]]
            for c in cols]
    notes = [f"{len(ours) - sum(1 for m in ours if m in result['unmatched'])} model(s) matched by name; "
             f"unmatched: {', '.join(result['unmatched']) or 'none'}.",
             "lower/upper: 95% bootstrap-over-models interval of Spearman's rho; with few models it is wide, and "
             "with n < 3 no correlation is reported."]
    small = [c for c in cols if result[c]["n"] < 8]
    if small:
        notes.append(f"Fewer than 8 models in {', '.join(small)}: a high rho there is weak evidence.")
    record = AnalysisRecord(analysis="validity", title=TITLE, inputs=[str(ours_path), str(other_path)],
                            table=Table(columns=["column", "n", "spearman", "lower", "upper", "kendall"], rows=body),
                            notes=notes, data=result)
    return record, result, _figure(body)


def _figure(body: list[list[Any]]) -> Any:
    from climedbench.analyses.figures import error_bars, pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(5, 0.7 * len(body) + 2), 4))
    labels = [f"{r[0]}\n(n={r[1]})" for r in body]
    vals = [r[2] if r[2] is not None else 0.0 for r in body]
    ax.bar(range(len(body)), vals, yerr=error_bars(vals, [r[3] for r in body], [r[4] for r in body]), capsize=3,
           color="#4c72b0")
    ax.set_xticks(range(len(body)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(-1, 1.05)
    ax.axhline(0, color="#888888", lw=0.8)
    ax.set_ylabel("Spearman's rho (95% interval)")
    ax.set_title("Rank agreement of the two leaderboards")
    fig.tight_layout()
    return fig
