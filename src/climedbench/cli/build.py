"""`climedbench build`: a benchmark from a hospital's own de-identified notes (docs/BUILD.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from climedbench.cli.common import RAY_ADDRESS_HELP, WORKERS_HELP, app, err, executor_options, out, print_json
from climedbench.errors import ConfigError

ACTIONS = ("status", "export")


@app.command("build", epilog="""
Examples:

  climedbench build --demo                                   # synthetic records → deid → build, offline

  climedbench build notes-deid/ --out my-suite/ --per-scenario 200

  climedbench build notes-deid/ --out my-suite/ --scenarios S1,S2 --generator openai:qwen2.5-7b --base-url ...

  climedbench build notes-deid/ --out my-suite/ --generator openai:NAME --base-url ... --executor ray --workers 8

  climedbench build status --out my-suite/

  climedbench build export --out my-suite/                   # again, e.g. after review

  climedbench build audit my-suite/ --auditor openai:NAME    # LLM2 + rules; then `build review`, `build refine`,
                                                             # `build rounds` (each has its --help)

  climedbench run --suite my-suite/ --model ...
""")
def build(
    notes: Annotated[str | None, typer.Argument(help="De-identified notes (a folder or file of .txt/.md/JSONL/CSV/"
                                                     "XLSX, as `climedbench deid` wrote them), or 'status' / "
                                                     "'export' for a build in --out.", show_default=False)] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="The suite folder (its build state in .build/).")
                       ] = None,
    scenarios: Annotated[str | None, typer.Option(help="Scenarios to build, comma-separated (default: every "
                                                       "bundled template).")] = None,
    per_scenario: Annotated[int | None, typer.Option(min=1, help="At most N items per task.")] = None,
    generator: Annotated[str | None, typer.Option(help="LLM1: a model that rewrites each stem into an explicit "
                                                       "question (JSON schema): 'default', 'gguf:PATH', 'openai:NAME'. "
                                                       "Without it no model is used.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Server of an openai:NAME generator.")] = None,
    distractors: Annotated[str, typer.Option(help="Single-choice (ID#1-4) distractors: 'records' (other patients' "
                                                  "segments, no model) or 'model' (written by --generator, each reply "
                                                  "checked, else the records' kept with the reason; other answer types "
                                                  "ignore it; runs locally even with --executor ray).")] = "records",
    already_deidentified: Annotated[bool, typer.Option(
        "--already-deidentified", help="Build from notes that did not go through `climedbench deid` (your "
                                       "institution de-identified them).")] = False,
    demo: Annotated[bool, typer.Option("--demo", help="De-identify the bundled synthetic records and build from them.")
                    ] = False,
    guideline: Annotated[Path | None, typer.Option(help="Your guideline YAML for Chinese notes (default: "
                                                        "build/guidelines/zh.yaml).")] = None,
    guideline_en: Annotated[Path | None, typer.Option(help="Your guideline YAML for English notes.")] = None,
    templates: Annotated[Path | None, typer.Option(help="A folder of your scenario templates (default: the "
                                                        "bundled suites/climedbench/build_scenarios/).")] = None,
    text_column: Annotated[str, typer.Option(help="Text field of JSONL/CSV/XLSX notes.")] = "text",
    name: Annotated[str, typer.Option(help="Suite name written to suite.yaml.")] = "hospital-built",
    cache: Annotated[str | None, typer.Option(help="Response cache file for generator calls.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not cache generator calls.")] = False,
    max_concurrency: Annotated[int, typer.Option("--max-concurrency", min=1, help="LLM1 requests in flight at once "
                                                 "(the items are the same as with 1).")] = 1,
    executor: Annotated[str, typer.Option(help="Where LLM1 rewrites are made: 'local' (this process) or 'ray' "
                                                "(workers on a Ray cluster; the candidates are the same). Without "
                                                "--generator the build runs locally.")] = "local",
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
    workers: Annotated[int, typer.Option(min=1, help=WORKERS_HELP)] = 2,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Build CliMedBench-style items from de-identified clinical notes, the paper's way (§2.2): quality filters and
    near-duplicates dropped with reasons, notes split into typed sections by a guideline, the key taken from the
    note's own section and distractors from other patients' segments of the same kind in a similarity band (no
    model), an optional LLM1 rewrite; then a suite folder that `validate`, `run`, `audit-items` take with
    --suite. Killing and re-running loses nothing."""
    ex = _executor(executor, ray_address, workers, distractors, generator, notes in ACTIONS)
    if ex.kind == "ray" and generator is None and notes not in ACTIONS:
        err.print("--executor ray: nothing is model-bound without --generator; building locally", highlight=False)
    if notes in ACTIONS:
        if out_dir is None:
            raise typer.BadParameter(f"give the build folder: climedbench build {notes} --out SUITE_DIR")
        _status(out_dir, json_out) if notes == "status" else _export(out_dir, name, json_out)
        return
    if demo:
        import tempfile

        from climedbench.build.demo_run import deidentify, demo_records

        records, label = demo_records()
        out_dir = (out_dir or Path(tempfile.mkdtemp(prefix="climedbench-build-demo-"))).expanduser()
        source = out_dir / ".build" / "deid-notes"
        if not (source / "deid_manifest.json").exists():
            err.print(f"De-identifying the {label} into {source} …", highlight=False)
            deidentify(records, source)
    else:
        if notes is None or out_dir is None:
            raise typer.BadParameter("give the notes and --out SUITE_DIR (or --demo)")
        source = Path(notes).expanduser()
    summary = _run(source, out_dir, scenarios, per_scenario, generator, base_url, already_deidentified,
                   guideline, guideline_en, templates, text_column, cache, no_cache, max_concurrency, ex, distractors)
    from climedbench.build.export import export_suite

    card = export_suite(out_dir, name)
    summary["suite"] = str(out_dir)
    if json_out:
        print_json({**summary, "card": card})
        return
    _print_summary(summary, card)


def _executor(executor: str, ray_address: str | None, workers: int, distractors: str, generator: str | None,
              action: bool) -> Any:
    """The executor options, after checking --distractors: 'model' needs a generator and runs locally."""
    if distractors not in ("records", "model"):
        raise typer.BadParameter(f"--distractors {distractors!r}: use 'records' or 'model'")
    if distractors == "model" and generator is None and not action:
        raise typer.BadParameter("--distractors model: name the --generator that writes them")
    if executor == "ray" and distractors == "model" and not action:
        err.print("--distractors model: not on Ray workers yet; building locally", highlight=False)
        executor, ray_address = "local", None
    return executor_options(executor, ray_address, workers)


def _run(source: Path, out_dir: Path, scenarios: str | None, per_scenario: int | None, generator: str | None,
         base_url: str | None, already: bool, guideline: Path | None, guideline_en: Path | None,
         templates: Path | None, text_column: str, cache: str | None, no_cache: bool, max_concurrency: int = 1,
         executor: Any = None, distractors: str = "records") -> dict[str, Any]:
    import os

    from rich.progress import Progress

    from climedbench.build.pipeline import BuildOptions, run_build

    if base_url:
        os.environ["OPENAI_BASE_URL"] = base_url
    if not source.exists():
        raise ConfigError(f"{source}: no such file or folder")
    opts = BuildOptions(source=source, out=out_dir.expanduser(),
                        scenarios=[s.strip() for s in scenarios.split(",") if s.strip()] if scenarios else None,
                        per_scenario=per_scenario, generator=generator, already_deidentified=already,
                        guideline_zh=guideline, guideline_en=guideline_en, templates=templates,
                        text_column=text_column, cache=Path(cache).expanduser() if cache else None,
                        no_cache=no_cache, max_concurrency=max_concurrency, executor=executor,
                        distractors=distractors)
    with Progress(console=err, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def progress(scenario: str, done: int, total: int) -> None:
            if scenario not in tasks:
                tasks[scenario] = bar.add_task(f"build {scenario}", total=total)
            bar.update(tasks[scenario], completed=done)

        return run_build(opts, progress)


def _print_summary(summary: dict[str, Any], card: dict[str, Any]) -> None:
    from rich.table import Table

    t = Table(title=f"Built {sum(v['items'] for v in card['tasks'].values())} items from "
                    f"{summary['notes_kept']} of {summary['notes_read']} notes", title_justify="left")
    for col in ("task", "items", "test", "dev"):
        t.add_column(col, justify="left" if col == "task" else "right")
    for task, v in card["tasks"].items():
        t.add_row(task, str(v["items"]), str(v["test"]), str(v["dev"]))
    out.print(t)
    drops = card["source_notes"]["dropped_by_reason"]
    if drops:
        out.print("Dropped notes: " + ", ".join(f"{k} {v}" for k, v in drops.items())
                  + " (reasons in .build/drops.jsonl)", highlight=False)
    sim = card["similarity"]
    if sim["band_used"]:
        out.print(f"Distractor similarity band used: {sim['band_used']} (min {sim['min']}, median "
                  f"{sim['median']}, max {sim['max']})", highlight=False)
    for reason, n in summary["skipped"].items():
        out.print(f"  no item ({n}): {reason}", highlight=False)
    err.print(f"Suite folder: {summary['suite']} — try: climedbench validate --suite {summary['suite']}",
              highlight=False)


def _status(out_dir: Path, json_out: bool) -> None:
    from collections import Counter

    from climedbench.build.candidates import load_candidates
    from climedbench.build.state import BuildState

    if not (out_dir / ".build").is_dir():
        raise ConfigError(f"{out_dir}: no build here (no .build folder)")
    state = BuildState(out_dir)
    cands = load_candidates(out_dir)
    info = {"units_done": len(state.units),
            "units_skipped": sum(1 for u in state.units.values() if "skipped" in u),
            "candidates": dict(Counter(c.task for c in cands)), "statuses": dict(Counter(c.status for c in cands)),
            "dropped": dict(Counter(d["reason"] for d in state.drops())),
            "exported": (out_dir / "suite.yaml").exists(), "settings": state.settings()}
    if json_out:
        print_json(info)
        return
    out.print(f"{out_dir}: {info['units_done']} units done ({info['units_skipped']} without an item); candidates "
              f"per task {info['candidates']}; statuses {info['statuses']}; dropped notes {info['dropped']}; "
              f"exported: {'yes' if info['exported'] else 'no'}", highlight=False)


def _export(out_dir: Path, name: str, json_out: bool) -> None:
    from climedbench.build.export import export_suite

    card = export_suite(out_dir, name)
    if json_out:
        print_json(card)
        return
    out.print(f"Exported {sum(v['items'] for v in card['tasks'].values())} items to {out_dir} "
              f"(suite.yaml, demo/, card.json, README.md)", highlight=False)
