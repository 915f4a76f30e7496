"""``climedbench rate``: blinded clinician rating studies — create, serve, export, agreement, analyze, links."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from climedbench.cli.common import SUITE_HELP, TASKS_HELP, IncludePath, csv_list, err, out, positive
from climedbench.cli.common import app as root
from climedbench.errors import ConfigError

if TYPE_CHECKING:
    from climedbench.apps.rater.rubric import Rubric
    from climedbench.core.types import Rating

app = typer.Typer(
    rich_markup_mode=None,
    help="Clinician rating: blinded multi-rater studies of model answers or benchmark items.",
                  no_args_is_help=True, add_completion=False)
root.add_typer(app, name="rate", help="Clinician rating: `rate create`, `rate serve`, `rate export`, "
                                      "`rate agreement`, `rate analyze`, `rate links` (docs/RATING.md).")

DB_HELP = "The study's SQLite file."
LEVELS = ("ordinal", "interval", "nominal")
WEIGHTS = ("linear", "quadratic", "none")


@app.callback()
def _main() -> None:
    """Clinician rating: blinded multi-rater studies of model answers or benchmark items (docs/RATING.md)."""


@app.command("create")
def create_cmd(
    runs: Annotated[list[Path] | None, typer.Argument(
        help="Run directories whose answers are rated (one case per item, every run's answer, blinded).")] = None,
    db: Annotated[Path, typer.Option("--db", help="The study file to create (never overwritten).")] = Path(
        "ratings.sqlite"),
    items: Annotated[Path | None, typer.Option("--items", help="Rate the benchmark's items in this data "
                                                                "(file or folder) instead of answers.")] = None,
    suite: Annotated[str | None, typer.Option("--suite", help=SUITE_HELP + " (with --items)")] = None,
    raters: Annotated[str, typer.Option("--raters", help="How many raters (3), or their names (ana,bo,chen).")] = "2",
    per_item: Annotated[int, typer.Option("--per-item", min=1, help="Raters per case (K).")] = 2,
    aspects: Annotated[str | None, typer.Option(
        "--aspects", help="Rubric: answer (CliMedBench's 4 aspects, default for runs), item (item review, "
                          "default for --items), usefulness (ClinicBench's 4-point scale), or a rubric YAML.")] = None,
    tasks: Annotated[str | None, typer.Option("--tasks", help=TASKS_HELP + " Runs: default the tasks with "
                                                                           "free-text answers (text).")] = None,
    per_task: Annotated[int, typer.Option("--per-task", min=0, help="Cases drawn per task, at random (0 = all).")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the draw, the assignment and the blinding.")] = 0,
    title: Annotated[str | None, typer.Option("--title", help="Shown to raters (default: the rubric's title).")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="zh or en (default: the suite's language).")] = None,
    base_url: Annotated[str, typer.Option("--base-url", help="Where `rate serve` will be reached, for the "
                                                             "links.")] = "http://127.0.0.1:8765",
    include_path: IncludePath = None,
) -> None:
    """Draw the cases, assign each to K raters, blind the models, write the study file and print the links."""
    from climedbench import __version__
    from climedbench.apps.rater.design import Source, answer_cases, item_cases, plan_study, rater_names
    from climedbench.apps.rater.rubric import load_rubric
    from climedbench.apps.rater.store import create_study

    if db.exists():
        raise ConfigError(f"{db} already exists; a study file is never overwritten (choose another --db)")
    if lang is not None and lang not in ("zh", "en"):
        raise ConfigError(f"--lang {lang}: use zh or en")
    if bool(runs) == (items is not None):
        raise ConfigError("give run directories (to rate answers) or --items DATA (to rate items), not both")
    names = rater_names(raters)
    rubric = load_rubric(aspects or ("answer" if runs else "item"))
    codes = csv_list(tasks)
    if runs:
        from climedbench.analyses.runs import load_runs

        seen: dict[Path, Path] = {}
        for r in runs:
            if r.resolve() in seen:
                raise ConfigError(f"{r}: the same run directory as {seen[r.resolve()]}; give each run once")
            seen[r.resolve()] = r
        loaded = load_runs(list(runs))
        cases, notes = answer_cases(loaded, codes, seed)
        first = loaded[0]
        source = Source(kind="runs", paths=[str(p) for p in runs], suite=first.suite.suite, data=first.spec.data,
                        tasks=sorted({c.content.task for c in cases}))
        language = first.suite.language
    else:
        from climedbench.core.suite import load_suite
        from climedbench.data.loaders import load_items

        assert items is not None
        s = load_suite(suite)
        report = load_items(items, s, [t.code for t in s.select(codes)] if codes else None)
        report.raise_if_invalid()
        cases, notes = item_cases(report.items, s, codes), []
        source = Source(kind="items", paths=[str(items)], suite=s.suite, data=str(items),
                        tasks=sorted({c.content.task for c in cases}))
        language = s.language
    plan = plan_study(cases, rubric=rubric, raters=names, per_item=per_item, per_task=per_task, seed=seed,
                      source=source, title=title, lang=lang or language, notes=notes)
    tokens = create_study(db, plan, version=__version__)
    loads = {r: len(a) for r, a in plan.assignments.items()}
    out.print(f"{db}: {len(plan.cases)} case(s), {len(names)} rater(s), {per_item} per case, rubric "
              f"{rubric.rubric} ({', '.join(a.key for a in rubric.aspects)})", highlight=False)
    for task, (available, drawn) in plan.drawn.items():
        out.print(f"  {task}: {drawn} of {available} drawn", highlight=False)
    for note in plan.notes:
        out.print(f"  note: {note}", highlight=False)
    base = base_url.rstrip("/")
    out.print("Personal links (shown only now; `climedbench rate links --db FILE --rater NAME` makes a new one):",
              highlight=False)
    for name in names:
        out.print(f"  {name} ({loads[name]} cases): {base}/r/{tokens.raters[name]}", highlight=False, soft_wrap=True)
    out.print(f"  admin: {base}/admin/{tokens.admin}", highlight=False, soft_wrap=True)
    out.print(f"Serve with: climedbench rate serve --db {db}", highlight=False)


@app.command("serve")
def serve_cmd(
    db: Annotated[Path, typer.Option("--db", help=DB_HELP)] = Path("ratings.sqlite"),
    host: Annotated[str, typer.Option("--host", help="Interface to listen on; 0.0.0.0 exposes the app to your "
                                                     "network (put it behind HTTPS).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (0 = any free port).")] = 8765,
    proxy_headers: Annotated[bool, typer.Option(
        "--proxy-headers", help="Trust X-Forwarded-For from a reverse proxy on this machine (for per-client "
                                "rate limiting behind a proxy).")] = False,
    failure_limit: Annotated[int, typer.Option(
        "--failure-limit", help="Invalid links a client may try per window before it gets 429.")] = 10,
    failure_window: Annotated[float, typer.Option(
        "--failure-window", callback=positive, help="That window, in seconds.")] = 600.0,
) -> None:
    """Serve the rating web app until Ctrl-C. Prints its base URL first."""
    from climedbench.apps.rater.app import is_loopback, serve
    from climedbench.apps.rater.store import Store

    study = Store(db).study()
    if not is_loopback(host):
        err.print(f"warning: listening on {host}: anyone who can reach this machine and holds a link can rate; "
                  "serve it behind HTTPS", highlight=False)

    def announce(url: str) -> None:
        print(url, flush=True)
        err.print(f"rating app for '{study.title}' ({len(study.raters)} raters) at {url}; Ctrl-C stops it "
                  "(every submitted rating is already saved)", highlight=False)

    if failure_limit < 1 or failure_window <= 0:
        raise ConfigError("--failure-limit must be at least 1 and --failure-window positive")
    serve(db, host, port, proxy_headers=proxy_headers, failure_limit=failure_limit, failure_window=failure_window,
          announce=announce)


@app.command("export")
def export_cmd(
    db: Annotated[Path, typer.Option("--db", help=DB_HELP)] = Path("ratings.sqlite"),
    as_csv: Annotated[bool, typer.Option("--csv", help="CSV, one row per rating (the default).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of CSV.")] = False,
    unblind: Annotated[bool, typer.Option("--unblind", help="Fill the 'model' column (ends the blinding of "
                                                            "whoever reads the file).")] = False,
    comments: Annotated[bool, typer.Option("--comments", help="Export comments and flags instead of "
                                                              "ratings.")] = False,
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write here instead of stdout.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out file.")] = False,
) -> None:
    """Ratings (item, answer, rater, aspect, score, model, task, time) or comments and flags."""
    from climedbench.apps.rater.export import notes_csv, ratings_csv
    from climedbench.apps.rater.store import Store

    if as_csv and as_json:
        raise ConfigError("give --csv or --json, not both")
    if out_file is not None:
        from climedbench.outputs import check_output

        check_output(out_file, force=force, option="--out")
    store = Store(db)
    if comments:
        notes = store.notes()
        text = "".join(n.model_dump_json() + "\n" for n in notes) if as_json else notes_csv(notes)
    else:
        ratings = store.ratings(unblind=unblind)
        text = ("".join(r.model_dump_json() + "\n" for r in ratings) if as_json else ratings_csv(ratings))
    if out_file is None:
        sys.stdout.write(text)
    else:
        out_file.write_text(text, encoding="utf-8")
        err.print(f"wrote {out_file}", highlight=False)


def _ratings(source: Path | None, db: Path | None, aspects: str | None) -> tuple[list[Rating], Rubric | None,
                                                                                   str]:
    """Ratings from a CSV or a study file, the rubric when known, and a name for the input."""
    from climedbench.apps.rater.export import read_ratings_csv
    from climedbench.apps.rater.rubric import load_rubric
    from climedbench.apps.rater.store import Store

    if (source is None) == (db is None):
        raise ConfigError("give a ratings CSV or --db FILE (one of them)")
    rubric = load_rubric(aspects) if aspects else None
    if db is not None:
        store = Store(db)
        return store.ratings(unblind=True), rubric or store.study().rubric, str(db)
    assert source is not None
    return read_ratings_csv(source), rubric, str(source)


@app.command("agreement")
def agreement_cmd(
    source: Annotated[Path | None, typer.Argument(help="Ratings CSV with columns item,rater,aspect,score "
                                                       "(optionally answer, model, task).")] = None,
    db: Annotated[Path | None, typer.Option("--db", help="Read the ratings from a study file instead.")] = None,
    level: Annotated[str | None, typer.Option("--level", help="ordinal (default), interval or nominal.")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="κ weights: linear (default for ordinal), "
                                                                  "quadratic (interval) or none (nominal).")] = None,
    aspects: Annotated[str | None, typer.Option("--aspects", help="Rubric giving each aspect's scale (default: "
                                                                  "the study's, or the values seen).")] = None,
    replicates: Annotated[int, typer.Option(
        "--replicates", min=1, help="Bootstrap resamples for α's interval.")] = 2000,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: {aspect: {alpha, lower, upper, n_items, "
                                                         "n_raters, level, reason, kappa, models}}; alpha is null "
                                                         "with a reason when not computable.")] = False,
) -> None:
    """Per aspect: Krippendorff's α with a bootstrap interval, weighted κ per rater pair, mean per model."""
    from climedbench.apps.rater.analysis import agreement, agreement_json

    if level is not None and level not in LEVELS:
        raise ConfigError(f"--level {level}: use one of {', '.join(LEVELS)}")
    if weights is not None and weights not in WEIGHTS:
        raise ConfigError(f"--weights {weights}: use one of {', '.join(WEIGHTS)}")
    ratings, rubric, _ = _ratings(source, db, aspects)
    result = agreement(ratings, rubric=rubric, level=level, weights=weights,  # type: ignore[arg-type]
                       replicates=replicates, seed=seed)
    if as_json:
        print(json.dumps(agreement_json(result), ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    def f(x: float | None, d: int = 3) -> str:
        return "—" if x is None else f"{x:.{d}f}"

    table = Table(title="Agreement per aspect", title_justify="left")
    for col in ("aspect", "α", "95% interval", "items", "raters", "level"):
        table.add_column(col, justify="left" if col in ("aspect", "level") else "right")
    for aspect, a in result.items():
        table.add_row(aspect, f(a.alpha), f"{f(a.lower)} – {f(a.upper)}", str(a.n_items), str(a.n_raters), a.level)
    out.print(table)
    for aspect, a in result.items():
        if a.reason:
            out.print(f"α of {aspect}: {a.reason}")
    pairs = Table(title="Weighted Cohen's κ per rater pair", title_justify="left")
    for col in ("aspect", "raters", "κ", "n", "weights"):
        pairs.add_column(col, justify="left" if col in ("aspect", "raters", "weights") else "right")
    for aspect, a in result.items():
        for p in a.kappa:
            pairs.add_row(aspect, " × ".join(p.raters), f(p.kappa), str(p.n), p.weights)
    out.print(pairs)
    if any(a.models for a in result.values()):
        means = Table(title="Mean rating per model (95% interval)", title_justify="left")
        for col in ("aspect", "model", "mean", "95% interval", "n"):
            means.add_column(col, justify="left" if col in ("aspect", "model") else "right")
        for aspect, a in result.items():
            for m in a.models.values():
                means.add_row(aspect, m.group, f(m.mean, 2), f"{f(m.lower, 2)} – {f(m.upper, 2)}", str(m.n))
        out.print(means)


@app.command("analyze")
def analyze_cmd(
    source: Annotated[Path | None, typer.Argument(help="Ratings CSV (unblinded, with 'model', to compare "
                                                       "with automatic scores).")] = None,
    db: Annotated[Path | None, typer.Option("--db", help="Read the ratings from a study file instead.")] = None,
    runs: Annotated[list[str] | None, typer.Option(
        "--runs", help="Run directories with the automatic scores of the rated answers (repeat or "
                       "comma-separate); a study file already holds those of its runs.")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for ratings.json/.csv/.png/.svg; added to its "
                                                        "index.json when there is one.")] = Path("analyses"),
    aspects: Annotated[str | None, typer.Option("--aspects", help="Rubric giving each aspect's scale.")] = None,
    level: Annotated[str | None, typer.Option("--level", help="ordinal (default), interval or nominal.")] = None,
    replicates: Annotated[int, typer.Option(
        "--replicates", min=1, help="Bootstrap resamples for the intervals.")] = 2000,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="Do not print the table.")] = False,
) -> None:
    """Write the `ratings` analysis record for the HTML report: bars of mean rating per model and aspect (the
    paper's Fig. 4 / Fig. 9a), α per aspect, and per task Spearman ρ of human vs automatic scores."""
    from climedbench.analyses.record import print_record, write_record
    from climedbench.apps.rater.analysis import human_vs_auto
    from climedbench.apps.rater.record import KIND, ratings_record

    if level is not None and level not in LEVELS:
        raise ConfigError(f"--level {level}: use one of {', '.join(LEVELS)}")
    ratings, rubric, name = _ratings(source, db, aspects)
    run_paths = [p for v in runs or [] for p in csv_list(v) or []]
    auto: dict[tuple[str, str], float] = {}
    suite: str | None = None
    if run_paths:
        from climedbench.analyses.runs import load_runs
        from climedbench.apps.rater.design import model_labels

        loaded = load_runs(run_paths)
        suite = loaded[0].suite.suite
        for label, run in zip(model_labels(loaded), loaded, strict=True):
            auto.update({(label, uid): s.score for uid, s in run.samples.items() if not s.error})
    elif db is not None:
        from climedbench.apps.rater.store import Store

        store = Store(db)
        auto = store.auto_scores()
        suite = store.study().source.suite
    correlations = human_vs_auto(ratings, auto, replicates=replicates, seed=seed) if auto else []
    record, figure = ratings_record(ratings, rubric=rubric, level=level, correlations=correlations,  # type: ignore[arg-type]
                                    inputs=[name, *run_paths], replicates=replicates, seed=seed, suite=suite)
    files = write_record(record, out_dir, figure)
    _add_to_index(out_dir, KIND, record.title, files)
    if not quiet:
        print_record(record)
    err.print(f"wrote {', '.join(str(out_dir / f) for f in files.values())}", highlight=False)


def _add_to_index(out_dir: Path, kind: str, title: str, files: dict[str, str]) -> None:
    """Add (or replace) this record's entry in DIR/index.json when the folder has one."""
    from climedbench.errors import DataError

    index = out_dir / "index.json"
    if not index.exists():
        return
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(f"not valid JSON ({e.msg}); the ratings record was written, index.json left as it was",
                        file=str(index), line=e.lineno) from e
    entries = [e for e in data.get("analyses", []) if e.get("kind") != kind]
    entries.append({"kind": kind, **files, "title": title})
    data["analyses"] = entries
    tmp = index.with_name(".index.json.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(index)


@app.command("links")
def links_cmd(
    db: Annotated[Path, typer.Option("--db", help=DB_HELP)] = Path("ratings.sqlite"),
    rater: Annotated[str | None, typer.Option("--rater", help="Make a new link for this rater.")] = None,
    admin: Annotated[bool, typer.Option("--admin", help="Make a new admin link.")] = False,
    base_url: Annotated[str, typer.Option("--base-url")] = "http://127.0.0.1:8765",
) -> None:
    """Make a new personal link (the old one stops working at once; ratings are kept). Tokens are stored only
    hashed, so a lost link cannot be shown again, only replaced."""
    from climedbench.apps.rater.store import Store

    if (rater is None) == (not admin):
        raise ConfigError("give --rater NAME or --admin")
    token = Store(db).reissue(None if admin else rater)
    base = base_url.rstrip("/")
    out.print(f"{base}/admin/{token}" if admin else f"{base}/r/{token}", highlight=False, soft_wrap=True)
