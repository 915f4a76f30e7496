"""`climedbench leaderboard` (the `report` command is in cli/report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from climedbench.cli.common import SUITE_HELP, IncludePath, app, print_json, unique_name
from climedbench.errors import ConfigError, DataError


def _as_json(table: dict[str, Any]) -> dict[str, Any]:
    return {m: r.model_dump(mode="json", include={"tasks", "groups", "overall", "published"}, exclude_none=True)
            for m, r in table.items()}


@app.command(epilog="""
Examples:

  climedbench leaderboard --paper                                      # CliMedBench's Table 2

  climedbench leaderboard --paper runs/my-model                        # your run beside it

  climedbench leaderboard --suite clinicbench --paper                  # ClinicBench's zero-shot table

  climedbench leaderboard --from-csv scores.csv --json

  climedbench leaderboard runs/a runs/b runs/c                         # with 95% rank intervals
""")
def leaderboard(
    runs: Annotated[list[Path] | None, typer.Argument(help="Run directories to add as columns.")] = None,
    from_csv: Annotated[Path | None, typer.Option(help="Published scores: a 'model' column and one column "
                                                       "per task code (×100).")] = None,
    paper: Annotated[bool, typer.Option("--paper", help="Include the suite's published results "
                                                        "(CliMedBench: Table 2; ClinicBench: the zero-shot table).")]
    = False,
    setting: Annotated[str | None, typer.Option(help="Which published table (e.g. 'zero-shot', '3-shot'); "
                                                     "default: the suite's first.")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print {model: results} as JSON.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap behind the rank intervals.")] = 0,
    include_path: IncludePath = None,
) -> None:
    """Task, group and overall scores of published results and runs, side by side. With two or more runs, also
    each run's rank with a 95% rank interval (bootstrap over the items all runs answered); published results
    have no per-item data and get no rank interval."""
    from climedbench.core.suite import load_suite
    from climedbench.report.marks import has_samples
    from climedbench.report.published import published_results
    from climedbench.report.tables import comparison_table, print_table
    from climedbench.runcheck import checked_results
    from climedbench.rundir import RunDir

    s = load_suite(suite)
    table: dict[str, Any] = dict(published_results(s, paper=paper, setting=setting, from_csv=from_csv))
    notes: list[str] = []
    for d in runs or []:
        rd = RunDir(d)
        if not has_samples(rd.samples_file):
            # results.json without the samples behind it: its figures cannot be checked or re-computed.
            res = rd.read_results().model_copy(update={"overall": None})
            notes.append(f"{res.model} ({d}): no overall: {rd.samples_file} is missing or empty")
        else:
            res = checked_results(d)
        if res.suite != s.suite:
            raise DataError(f"{d}: a run of suite {res.suite!r}; this leaderboard is {s.suite!r} (pass --suite)")
        table[unique_name(table, res.model)] = res
    if not table:
        raise ConfigError("nothing to show: give --from-csv FILE, --paper, or run directories")
    ranks = None
    run_keys = list(table)[len(table) - len(runs or []):]
    if len(runs or []) >= 2:
        from climedbench.analyses.compare import analyze_ranks, names_of
        from climedbench.analyses.runs import load_runs

        loaded = load_runs(list(runs or []))
        ranks, _ = analyze_ranks(loaded, seed=seed)
    if json_out:
        out = _as_json(table)
        if ranks is not None:
            # Each run's entry gains {"rank", "lower", "upper"} (1 = best; 95% bootstrap rank interval).
            cols = ranks.table.columns
            rows = {r[cols.index("model")]: r for r in ranks.table.rows}
            for key, name in zip(run_keys, names_of(loaded), strict=True):
                r = rows[name]
                out[key]["rank"] = {"rank": r[cols.index("rank")], "lower": r[cols.index("rank_lower")],
                                    "upper": r[cols.index("rank_upper")]}
        print_json(out)
    else:
        print_table(comparison_table(table, s, with_ci=False, title=f"{s.title} leaderboard (×100)",
                                     extra_notes=notes))
        if ranks is not None:
            from climedbench.analyses.record import print_record

            print_record(ranks)
