"""`climedbench report`: runs side by side in the terminal, or one self-contained HTML page (--html, --serve)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from climedbench.cli.common import IncludePath, app, err, out, print_json, unique_name
from climedbench.errors import ConfigError, DataError


@app.command(epilog="""
Examples:

  climedbench report runs/qwen7b runs/gpt4o                              # terminal table with 95% CIs

  climedbench report runs/qwen7b runs/gpt4o --html report.html --paper   # one HTML file, the paper's Table 2 beside

  climedbench report runs/* --html report.html --analyses analyses/demo  # with the analyses' tables and figures

  climedbench report runs/qwen7b --serve                                 # the same page at http://127.0.0.1:8765/

  climedbench report runs/qwen7b runs/gpt4o --check-gold                 # do both runs have the same gold answers?
""")
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (of one suite).")],
    html: Annotated[Path | None, typer.Option("--html", help="Write one self-contained HTML page: sortable "
                                              "leaderboard, figures, sample browser, run details. It loads "
                                              "nothing from a network (open it from disk or e-mail it).")] = None,
    analyses: Annotated[Path | None, typer.Option(help="Add every analysis record in this folder (the --out of "
                                                       "`climedbench analyze`): title, table, notes, figure.")] = None,
    paper: Annotated[bool, typer.Option("--paper", help="Add the suite's published results, marked as published "
                                                        "(CliMedBench: Table 2).")] = False,
    setting: Annotated[str | None, typer.Option(help="Which published table with --paper (default: the "
                                                     "suite's first).")] = None,
    from_csv: Annotated[Path | None, typer.Option(help="Add published scores from a CSV: a 'model' column and one "
                                                       "column per task code (×100).")] = None,
    samples: Annotated[bool, typer.Option("--samples/--no-samples", help="Include the sample browser (every item, "
                                                                       "compressed); --no-samples keeps the page "
                                                                       "small whatever the run size.")] = True,
    serve: Annotated[bool, typer.Option("--serve", help="Serve the page over HTTP until Ctrl-C (written to --html, "
                                                        "or to a temporary file).")] = False,
    host: Annotated[str, typer.Option(help="Address to serve on (--serve). Anything but 127.0.0.1 shows the "
                                           "report to your network.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to serve on (--serve); 0 picks a free one.")] = 8765,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap behind the rank intervals.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print {run directory: results} as JSON (published rows: "
                                                          "'NAME (published)').")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --html file (a run directory's "
                                                        "own files are never overwritten).")] = False,
    include_path: IncludePath = None,
    check_gold: Annotated[bool, typer.Option("--check-gold", help="Only compare the runs' gold answers, item by item, "
                                                                  "by the sha256 each sample records (target_hash): "
                                                                  "one line per run against the first; exit 2 when "
                                                                  "any gold differs.")] = False,
) -> None:
    """Several runs side by side: every task, group and overall with 95% intervals. With --html (or --serve): one
    HTML page with the leaderboard (sortable, rank intervals, published results beside), a radar of the first
    grouping level and a forest plot of task scores, the analyses of --analyses, a sample browser (filter wrong
    answers, extraction failures and errors; two models side by side) and each run's details."""
    if check_gold:
        _check_gold(runs)
        return
    if html is None and not serve:
        if analyses is not None:
            raise ConfigError("--analyses is shown in the HTML report: add --html FILE or --serve")
        _terminal(runs, json_out, paper, setting, from_csv)
        return
    if json_out:
        raise ConfigError("--json prints the figures to the terminal; it cannot be combined with --html or --serve")
    if html is not None and html.is_dir():
        raise ConfigError(f"--html {html}: is a folder; give the file to write (e.g. {html / 'report.html'})")
    if html is not None:
        from climedbench.outputs import check_output

        check_output(html, force=force, option="--html")
    import time

    from climedbench.report.build import build_page
    from climedbench.report.render import write_html

    started = time.perf_counter()
    page = build_page(list(runs), analyses=analyses, paper=paper, setting=setting, from_csv=from_csv, seed=seed,
                      with_samples=samples)
    target = html
    if target is None:
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="climedbench-report-")) / "report.html"
    size = write_html(page, target)
    err.print(f"wrote {target} ({size / 1e6:.1f} MB, {time.perf_counter() - started:.1f} s)", highlight=False)
    if serve:
        from climedbench.report.serve import serve as serve_file

        def ready(url: str) -> None:
            out.print(url, highlight=False)
            err.print("serving the report; Ctrl-C stops", highlight=False)

        try:
            serve_file(target, host, port, ready)
        except KeyboardInterrupt:
            err.print("stopped")


def _terminal(runs: list[Path], json_out: bool, paper: bool, setting: str | None, from_csv: Path | None) -> None:
    from climedbench.cli.results import _as_json
    from climedbench.report.marks import has_samples
    from climedbench.report.published import published_results
    from climedbench.report.tables import comparison_table, print_table
    from climedbench.rescore import suite_of_run
    from climedbench.runcheck import checked_results
    from climedbench.rundir import RunDir

    table: dict[str, Any] = {}
    keys: dict[str, str] = {}  # table row → --json key: the run directory (two runs of one model stay two)
    suite = None
    notes: list[str] = []
    for d in runs:
        spec = RunDir(d).read_spec()
        this = suite_of_run(spec)
        if suite is not None and this.suite != suite.suite:
            raise DataError(f"{d}: a run of suite {this.suite!r}, the others are {suite.suite!r}")
        suite = this
        rd = RunDir(d)
        if has_samples(rd.samples_file):
            res = checked_results(d, spec=spec, suite=this)
        else:
            # results.json without the samples behind it: its figures cannot be checked or re-computed.
            res = rd.read_results().model_copy(update={"overall": None})
            notes.append(f"{res.model} ({d}): no overall: {rd.samples_file} is missing or empty")
        row = unique_name(table, f"{res.model}\n{d}")
        table[row] = res
        keys[row] = unique_name(dict.fromkeys(keys.values()), str(d))
    assert suite is not None
    for name, res in published_results(suite, paper=paper, setting=setting, from_csv=from_csv).items():
        row = unique_name(table, f"{name}\n(published)")
        table[row] = res
        keys[row] = f"{name} (published)"
    if json_out:
        # {run directory or 'NAME (published)': {model, tasks, groups, overall, ...}}
        print_json({keys[m]: {"model": table[m].model, **v} for m, v in _as_json(table).items()})
    else:
        print_table(comparison_table(table, suite, title=f"{suite.title}: runs (×100, 95% CI)", extra_notes=notes))



def _check_gold(runs: list[Path]) -> None:
    from climedbench.gold import compare_gold

    if len(runs) < 2:
        raise ConfigError("--check-gold compares runs: give two or more run directories")
    found = compare_gold(list(runs))
    for c in found:
        out.print(c.line(), highlight=False, markup=False, soft_wrap=True)
    bad = [c for c in found if not c.same]
    if bad:
        raise DataError(f"{len(bad)} run(s) do not share gold answers with {runs[0]}")
