"""`climedbench validate`, `list` and `audit-items`: a suite and its items checked, listed and audited, no model
called."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from climedbench.cli.common import SUITE_HELP, IncludePath, app, err, out, print_json
from climedbench.errors import ConfigError, DataError


@app.command(epilog="""
Examples:

  climedbench validate                                   # the bundled CliMedBench demo set

  climedbench validate ~/climedbench-data/ --json

  climedbench validate --suite clinicbench ~/clinicbench-data/
""")
def validate(
    path: Annotated[str | None, typer.Argument(help="File or folder (default: the suite's bundled demo set).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Check a suite and its items as `run` would, without calling a model: the suite's tasks, metrics and
    prompt templates (rendered on one item per task; a choice task's prompt must show its options), then per-task
    valid counts (test/dev/train) and, for each invalid record, file, line, field and reason."""
    from rich.table import Table

    from climedbench.core.suite import bundled_name, load_suite
    from climedbench.data.loaders import load_items
    from climedbench.run.check import check_prompts, check_tasks

    s = load_suite(suite)
    check_tasks(s)
    report = load_items(path, s)
    check_prompts(s, s.tasks, report.items)
    where = path or "bundled demo set"
    if not report.problems and not any(i.split == "test" for i in report.items):
        raise DataError(f"{where}: no test items for any task of {s.title} (only dev/train files?), so "
                        "`climedbench run` would refuse it; add the test split (files not named dev/train)")
    found = {i.task for i in report.items} | {p.task for p in report.problems if p.task}
    empty = [t.code for t in s.tasks if t.code not in found]
    if empty and bundled_name(suite) is None:  # a suite of one's own: say which of its tasks found no data
        err.print(f"note: no data for task(s) {', '.join(empty)} in {where} (a file or folder named after the task "
                  "code or one of its 'files:' names, or records with a 'task' field); `run` leaves them out",
                  highlight=False, markup=False)
    if json_out:
        print_json(report.as_json(s))
    else:
        table = Table(title=f"{s.title}: {path or 'bundled demo set'}", title_justify="left")
        for col in ("Task", "Name", "test", "dev", "train", "invalid"):
            table.add_column(col, justify="right" if col in ("test", "dev", "train", "invalid") else "left")
        counts = {sp: report.valid_counts(sp) for sp in ("test", "dev", "train")}
        bad: dict[str, int] = {}
        for p in report.problems:
            bad[p.task or "?"] = bad.get(p.task or "?", 0) + 1
        for t in s.tasks:
            table.add_row(t.code, t.name.text(s.language), *(str(counts[sp].get(t.code, 0)) for sp in counts),
                          str(bad.get(t.code, 0)))
        if "?" in bad:
            table.add_row("?", "(task unknown)", "", "", "", str(bad["?"]))
        from climedbench.report.tables import print_table

        print_table(table)
        for p in report.problems:
            out.print(f"[red]invalid[/red] {p}", markup=True, highlight=False)
    if report.problems:
        raise typer.Exit(1)


@app.command("list", epilog="""
Examples:

  climedbench list                          # both bundled suites

  climedbench list --suite clinicbench --json

  climedbench list --registries             # loaders, extractors, metrics, aggregations a suite YAML can name
""")
def list_cmd(
    suite: Annotated[str | None, typer.Option(help="Only this suite (a bundled name or a suite YAML).")] = None,
    registries: Annotated[bool, typer.Option("--registries", help="List the registered loaders, extractors, "
                                                                   "metrics and aggregations.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Suites, their tasks (datasets), groups, metrics, aggregations and official sizes."""
    from climedbench.core.suite import BUNDLED, load_suite

    if registries:
        from climedbench.core.registry import AGGREGATIONS, EXTRACTORS, LOADERS, METRICS

        regs = {"loaders": LOADERS.names(), "extractors": EXTRACTORS.names(), "metrics": METRICS.names(),
                "aggregations": AGGREGATIONS.names()}
        if json_out:
            print_json(regs)
        else:
            for kind, names in regs.items():
                out.print(f"{kind}: {', '.join(names)}", highlight=False)
        return
    suites = [load_suite(suite)] if suite else [load_suite(n) for n in BUNDLED]
    if json_out:
        print_json({s.suite: _suite_summary(s) for s in suites})
        return
    from rich.table import Table

    for s in suites:
        table = Table(title=f"{s.title} ({s.suite} {s.version}, {s.source}): {len(s.tasks)} tasks",
                      title_justify="left")
        for col in ("Task", "Name", "Groups", "Answer", "Metric", "Aggregation", "Official size (items)"):
            table.add_column(col, justify="right" if col.startswith("Official size") else "left")
        for t in s.tasks:
            table.add_row(t.code, t.name.text(s.language), " / ".join(s.name(g, "en") for g in t.groups), t.answer,
                          t.metric, t.aggregation, f"{t.official_size:,}" if t.official_size else "—")
        from climedbench.report.tables import print_table

        print_table(table)


def _suite_summary(s: Any) -> dict[str, Any]:
    return {
        "title": s.title, "version": s.version, "language": s.language, "source": s.source,
        "levels": [lv.key for lv in s.levels],
        "groups": {k: {"level": g.level, "name": g.names.text("en"), "parent": g.parent} for k, g in s.groups.items()},
        "overall": s.overall,
        "tasks": [{"code": t.code, "name": t.name.text(s.language), "groups": list(t.groups), "answer": t.answer,
                   "extractor": t.extractor_name, "metric": t.metric, "aggregation": t.aggregation,
                   "loader": t.loader or s.loader, "official_size": t.official_size} for t in s.tasks],
    }


@app.command("audit-items", epilog="""
Examples:

  climedbench audit-items                                  # the bundled CliMedBench demo set

  climedbench audit-items ~/climedbench-data/ --json

  climedbench audit-items --suite clinicbench ~/clinicbench-data/
""")
def audit_items_cmd(
    path: Annotated[str | None, typer.Argument(help="File or folder (default: the suite's bundled demo set).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    split: Annotated[str, typer.Option(help="test, dev, train or all.")] = "test",
    json_out: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Answer cues in choice items: option-only rules (longest option, agreement among options, wording shared
    with the question, the longest option other than a shown reference, the one option with a feature such as
    dosing instructions or parentheses, always none-of-the-above, key position, always-X) against chance, key
    balance, near-duplicates, options that repeat the case. --json lists every rule with n and p."""
    from rich.table import Table

    from climedbench.audit import audit_items
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items

    if split not in ("test", "dev", "train", "all"):
        raise ConfigError(f"--split must be test, dev, train or all, not {split!r}")
    s = load_suite(suite)
    report = load_items(path, s)
    audits = audit_items(report.items, s, None if split == "all" else split)
    if json_out:
        print_json({"suite": s.suite, "data": path or "bundled demo set", "split": split,
                    "invalid_records": len(report.problems), "tasks": [a.as_json() for a in audits]})
        return
    table = Table(title=f"{s.title}: option-only rules vs chance ({path or 'bundled demo set'}, {split} split; "
                        "% of items; * flagged)", title_justify="left")
    for col in ("Task", "n", "chance", "longest", "agrees w/ others", "question wording", "longest ≠ shown ref",
                "one option with a feature (worst, n)", "none of the above", "top key", "key shares", "near-dup",
                "option in case"):
        table.add_column(col, justify="left" if col in ("Task", "key shares") else "right")
    def cell(rules: list[Any], name: str) -> str:
        r = next((x for x in rules if x.rule == name), None)
        return "–" if r is None or not r.n else f"{100 * r.accuracy:.0f}{'*' if r.flagged else ''}"

    def worst_feature(rules: list[Any]) -> str:
        lone = [x for x in rules if x.rule.startswith("the one option with ") and x.n]
        if not lone:
            return "–"
        r = max(lone, key=lambda x: x.excess_points)
        return (f"{r.rule.removeprefix('the one option with ')} {100 * r.accuracy:.0f}{'*' if r.flagged else ''} "
                f"({r.n})")

    for a in audits:
        table.add_row(a.task, str(a.n), f"{100 * a.chance:.0f}", cell(a.rules, "longest option"),
                      cell(a.rules, "agrees with the other options"), cell(a.rules, "shares wording with the question"),
                      cell(a.rules, "longest option other than the shown reference"), worst_feature(a.rules),
                      cell(a.rules, "always none of the above"), cell(a.rules, "most frequent key position"),
                      " ".join(f"{k}{100 * v:.0f}" for k, v in a.key_shares.items()),
                      str(len(a.near_duplicates)), str(len(a.options_in_case)))
    from climedbench.report.tables import print_table

    print_table(table)
    flagged = [(a.task, r) for a in audits for r in a.rules if r.flagged]
    for code, r in flagged:
        out.print(f"[yellow]cue[/yellow] {code}: '{r.rule}' finds the key in {100 * r.accuracy:.0f}% of {r.n} items "
                  f"(chance {100 * r.chance:.0f}%, p = {r.p_value:.3g})", highlight=False)
    if report.problems:
        err.print(f"{len(report.problems)} invalid record(s) were left out; see `climedbench validate`")
