"""Response matrices from run directories: one examinee per run, one column per item."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from climedbench.core.suite import Suite
from climedbench.errors import DataError
from climedbench.irt.binarize import binarize_scores, write_item_map
from climedbench.irt.matrix import ResponseMatrix, write_matrix
from climedbench.rescore import items_of_run, suite_of_run
from climedbench.rundir import RunDir, iter_samples


def matrix_from_runs(run_dirs: list[Path], out: Path
                     ) -> tuple[ResponseMatrix, dict[str, float], Path, dict[str, str]]:
    """Write MATRIX (csv or parquet) and MATRIX.items.csv; failed requests are left missing. Returns the matrix,
    the threshold per scenario, the item map's path and the scenarios left out (constant graded scores) with why."""
    from climedbench.preflight import check_writable_file

    if not run_dirs:
        raise DataError("give at least one run directory")
    check_writable_file(out, "--out")
    suite: Suite | None = None
    rows: dict[str, dict[str, float]] = {}
    scenario_of: dict[str, str] = {}
    options_of: dict[str, int] = {}
    seen: dict[Path, Path] = {}
    for d in run_dirs:
        if d.resolve() in seen:
            raise DataError(f"{d}: the same run directory as {seen[d.resolve()]}; give each run once")
        seen[d.resolve()] = d
        rd = RunDir(d)
        spec = rd.read_spec()
        this = suite_of_run(spec)
        if suite is not None and this.suite != suite.suite:
            raise DataError(f"{d}: a run of suite {this.suite!r}, the others are {suite.suite!r}")
        suite = this
        # One examinee per run directory: the model's name, with the directory when another run has that name.
        name = spec.model_name if spec.model else d.name
        n, examinee = 2, name if name not in rows else f"{name} ({d})"
        while examinee in rows:
            examinee, n = f"{name} ({d}) #{n}", n + 1
        options_of.update({uid: len(i.options) for uid, i in items_of_run(spec, suite).items()})
        row: dict[str, float] = {}
        for s in iter_samples(rd.samples_file):
            scenario_of[s.uid] = s.task
            if s.error:
                row.pop(s.uid, None)
            else:
                row[s.uid] = float(s.score)
        if not row:
            raise DataError(f"{rd.samples_file}: no answered items")
        rows[examinee] = row
    assert suite is not None
    order = {c: k for k, c in enumerate(suite.codes)}
    items = sorted(scenario_of, key=lambda u: (order.get(scenario_of[u], 99), u))
    col = {u: j for j, u in enumerate(items)}
    scores = np.full((len(rows), len(items)), np.nan)
    for i, row in enumerate(rows.values()):
        for uid, value in row.items():
            scores[i, col[uid]] = value
    b = binarize_scores(scores, [scenario_of[u] for u in items], suite)
    if not b.keep:
        raise DataError("every scenario was left out: " + "; ".join(f"{k}: {v}" for k, v in b.left_out.items()))
    kept = [items[j] for j in b.keep]
    matrix = ResponseMatrix(list(rows), kept, b.data)
    write_matrix(out, matrix)
    item_map = out.with_name(out.stem + ".items.csv")
    write_item_map(item_map, [(u, scenario_of[u], options_of.get(u, 0)) for u in kept], suite, b.thresholds)
    return matrix, b.thresholds, item_map, b.left_out
