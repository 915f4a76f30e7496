"""``climedbench cat``: adaptive tests of a model, replays of recorded answers, interval calibration, simulation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from climedbench.cli.common import SUITE_HELP, IncludePath, positive
from climedbench.cli.common import app as root
from climedbench.errors import ClimedError, ConfigError

app = typer.Typer(
    rich_markup_mode=None,
    help="Computerized adaptive testing over an IRT item bank: stratified (default) or maximum-information "
         "item selection, predicted full-benchmark scores with calibrated intervals.",
    add_completion=False, invoke_without_command=True)
root.add_typer(app, name="cat", help="Adaptive testing of a model; `cat replay`, `cat calibrate`, `cat simulate`, "
                                     "`cat compare`.")
# Kept in step with climedbench.cat.engine (a test checks they agree); not imported here, for start-up speed.
EXPOSURES = ("none", "randomesque", "sympson-hetter")
SELECTIONS = ("stratified", "fisher", "kl")
SELECTION_HELP = ("stratified (default: random items from clusters of similar items, allocated where the "
                  "answers are least predictable; predicts full scores best on real data), fisher (the paper's "
                  "maximum information) or kl.")
EXPOSURE_HELP = ("Exposure control of fisher/kl selection: none, randomesque or sympson-hetter (default; "
                 "parameters simulated on the bank). The stratified design needs none.")


@app.callback(epilog="""
Examples:

  climedbench cat --model openai:qwen2.5-7b --base-url http://127.0.0.1:8000/v1 --bank bank.json \\
      --item-map matrix.items.csv --data ~/climedbench-data/ --max-items 243 --out runs/cat-qwen7b

  climedbench cat replay runs.csv --bank bank.json --max-items 243 --seed 0 --json

  climedbench cat calibrate runs.csv --bank bank.json --lengths 50,100,243

  climedbench cat simulate --items 5000 --examinees 500 --test-length 243 --seed 1 --json

  climedbench cat compare runs/full-* runs/cat-*
""")
def _main(
    ctx: typer.Context,
    model: Annotated[str | None, typer.Option(help="The model to test adaptively (as in `climedbench run`).")] = None,
    bank: Annotated[Path | None, typer.Option(help="BANK.json from `climedbench irt fit`.")] = None,
    item_map: Annotated[Path | None, typer.Option("--item-map", help="MATRIX.items.csv: scenario, metric and "
                                                                     "binarisation threshold per item.")] = None,
    data: Annotated[str | None, typer.Option(help="The items the bank was calibrated on (default: demo).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    max_items: Annotated[int, typer.Option("--max-items", min=1, help="Stop after this many items.")] = 243,
    se_target: Annotated[float | None, typer.Option(
        "--se-target", callback=positive, help="Stop early once SE(θ) ≤ this.")] = None,
    selection: Annotated[str, typer.Option(help=SELECTION_HELP)] = "stratified",
    exposure: Annotated[str, typer.Option(help=EXPOSURE_HELP)] = "sympson-hetter",
    content: Annotated[str, typer.Option(help="Content balancing of fisher/kl: bank (full-benchmark shares), "
                                              "equal, none. The stratified design balances scenarios itself.")
                       ] = "bank",
    seed: Annotated[int, typer.Option(help="Seed of every choice (item selection, generation).")] = 0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Maximum completion tokens per answer.")] = 512,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    timeout: Annotated[float, typer.Option(callback=positive, help="Seconds per HTTP request.")] = 120.0,
    max_retries: Annotated[int, typer.Option(min=0, help="Retries of a failed HTTP request.")] = 5,
    cache: Annotated[str | None, typer.Option(help="Response cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the response cache.")] = False,
    out: Annotated[str | None, typer.Option(help="Run directory (default: runs/TIME-cat-MODEL).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Adaptive testing: `climedbench cat --model SPEC --bank BANK.json` tests a model on a few hundred
    items and predicts its full-benchmark scores (answers given + the rest predicted); `cat replay` validates
    a bank on recorded answers; `cat calibrate` calibrates its intervals; `cat simulate` studies the method
    on simulated data; `cat compare` puts full and adaptive runs side by side."""
    if ctx.invoked_subcommand is not None:
        return
    if model is None or bank is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0 if model is None and bank is None else 2)
    import asyncio

    from climedbench.cat.adaptive import CatOptions, run_cat
    from climedbench.cat.engine import CATConfig
    from climedbench.models.registry import ModelOptions

    if exposure not in EXPOSURES:
        raise ConfigError(f"--exposure must be one of {', '.join(EXPOSURES)}, got {exposure!r}")
    if selection not in SELECTIONS:
        raise ConfigError(f"--selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    from climedbench.cat.simulation import with_exposure_parameters
    from climedbench.irt.bank import ItemBank

    config = CATConfig(max_items=max_items, se_target=se_target, selection=selection,  # type: ignore[arg-type]
                       exposure=exposure, content=content)  # type: ignore[arg-type]
    config.validate()
    if selection != "stratified" and exposure == "sympson-hetter":
        typer.echo("computing Sympson-Hetter exposure parameters by simulation on the bank ...", err=True)
        config = with_exposure_parameters(ItemBank.load(bank), config, seed=seed)
    opts = CatOptions(bank=str(bank), model=model, data=data, suite=suite, item_map=str(item_map) if item_map else None,
                      config=config, seed=seed, max_tokens=max_tokens, out=out, cache=cache, no_cache=no_cache,
                      model_options=ModelOptions(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                                 max_retries=max_retries))
    rundir, results = asyncio.run(run_cat(opts))
    if as_json:
        typer.echo(results.model_dump_json(indent=2, exclude_none=True))
        return
    o = results.overall
    assert o is not None and o.ci is not None
    typer.echo(f"{results.model}: θ = {results.theta:.3f} ± {results.se:.3f} after {results.n_items} "
               f"items; predicted overall {o.score:.1f} [{o.ci[0]:.1f}, {o.ci[1]:.1f}]")
    for code, fig in results.tasks.items():
        lo, hi = fig.ci or (float("nan"), float("nan"))
        typer.echo(f"  {code:8s} {fig.score:6.1f} [{lo:.1f}, {hi:.1f}]")
    typer.echo(f"Run directory: {rundir.path}")


@app.command("compare")
def compare_cmd(
    runs: Annotated[list[Path], typer.Argument(help="Full and adaptive run directories (matched by model).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Full-benchmark vs adaptive results for the same models: errors, interval coverage, Spearman."""
    from climedbench.cat.adaptive import compare_runs

    report = compare_runs(runs)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for r in report["models"]:
        typer.echo(f"{r['model']:40s} full {r['full']:6.1f}  adaptive {r['adaptive']:6.1f} "
                   f"[{r['ci'][0]:.1f}, {r['ci'][1]:.1f}]  error {r['error']:+.1f}"
                   f"{'' if r['covered'] else '  (outside the interval)'}  ({r['items_asked']} items)")
    if report["models"]:
        typer.echo(f"mean absolute error {report['mean_abs_error']:.2f}; coverage {report['coverage']:.0%}"
                   + (f"; Spearman {report['spearman']:.3f}" if "spearman" in report else ""))
    for p in report["pairs"]:
        typer.echo(f"{p['a']} vs {p['b']}: difference {p['difference']:+.1f} "
                   f"[{p['lower']:.1f}, {p['upper']:.1f}], P({p['a']} better) {p['p_a_better']:.2f}: {p['verdict']}")


_DESCRIPTIONS = {
    "theta_bias": "mean of θ̂ − θ",
    "theta_rmse": "root mean square of θ̂ − θ",
    "se_mean": "mean reported SE (posterior SD)",
    "se_empirical": "SD of θ̂ − θ",
    "exposure_max": "largest share of simulees given one item",
    "overlap": "mean share of items two simulees share",
    "spearman": "rank correlation of θ̂ with θ",
    "p_exact_order": "share of replications ranking the paper's 7 models exactly",
    "seconds": "wall time of the study",
}


@app.command("simulate")
def simulate_cmd(
    items: Annotated[int, typer.Option(
        "--items", help="Items in the simulated bank (the suite's tasks, official shares).")] = 5000,
    examinees: Annotated[int, typer.Option("--examinees", min=1, help="Fresh simulees taking the CAT.")] = 500,
    test_length: Annotated[int, typer.Option("--test-length", min=1, help="Items per adaptive test.")] = 243,
    seed: Annotated[int, typer.Option(help="Seed of the whole study.")] = 0,
    exposure: Annotated[str, typer.Option(help=EXPOSURE_HELP)] = "sympson-hetter",
    selection: Annotated[str, typer.Option(help=SELECTION_HELP)] = "stratified",
    calibration: Annotated[int, typer.Option(
        "--calibration", help="Examinees in the simulated calibration sample (0 = true parameters).")] = 1000,
    content: Annotated[str, typer.Option(help="Content balancing: bank (full-benchmark shares), equal, none.")
                       ] = "bank",
    se_target: Annotated[float | None, typer.Option(
        "--se-target", callback=positive, help="Stop early once SE ≤ this.")] = None,
    replications: Annotated[int, typer.Option(
        "--replications", help="Replications of the panel of the suite's published_overall models "
        "(CliMedBench: the paper's 7; for p_exact_order).")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly the metrics dict as JSON.")] = False,
    suite: Annotated[str, typer.Option(help="Suite whose tasks shape the simulated bank.")] = "climedbench",
) -> None:
    """Simulate calibration + adaptive testing and report θ recovery, exposure and ranking metrics."""
    from climedbench.cat.simulation import METRIC_KEYS, simulate
    from climedbench.core.suite import load_suite
    from climedbench.irt.synthetic import suite_layout

    try:
        if exposure not in EXPOSURES:
            raise ConfigError(f"--exposure must be one of {', '.join(EXPOSURES)}, got {exposure!r}")
        if selection not in SELECTIONS:
            raise ConfigError(f"--selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
        if calibration < 0 or replications < 0:
            raise ConfigError("--calibration and --replications must be >= 0")
        shape = load_suite(suite)
        if replications > 0 and not shape.published_overall:
            typer.echo(f"note: suite {shape.suite} has no published_overall scores, so p_exact_order (the ranking of "
                       "a panel placed at them) is not computed", err=True)
        metrics = simulate(items, examinees, test_length, seed, n_calibration=calibration, exposure=exposure,
                           selection=selection, content=content, se_target=se_target,
                           panel_replications=replications, layout=suite_layout(shape),
                           panel_scores=shape.published_overall)
    except ClimedError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None
    if as_json:
        typer.echo(json.dumps({k: metrics[k] for k in METRIC_KEYS}))
        return
    shown = "random within strata" if selection == "stratified" else exposure
    typer.echo(f"CAT simulation: bank {items} items, {examinees} simulees, test length {test_length}, "
               f"selection {selection}, exposure {shown}, "
               + ("true parameters" if calibration == 0 else f"calibrated on {calibration} examinees"))
    for key in METRIC_KEYS:
        typer.echo(f"  {key:<14} {metrics[key]:>9.4f}   {_DESCRIPTIONS[key]}")


def _check(selection: str, exposure: str) -> None:
    """ConfigError for an unknown selection or exposure control."""
    if exposure not in EXPOSURES:
        raise ConfigError(f"--exposure must be one of {', '.join(EXPOSURES)}, got {exposure!r}")
    if selection not in SELECTIONS:
        raise ConfigError(f"--selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")


@app.command("replay")
def replay_cmd(
    matrix: Annotated[Path, typer.Argument(help="Response matrix CSV/Parquet (the `irt matrix` format): examinee "
                                                "id, then one 1/0/empty column per item.")],
    bank: Annotated[Path, typer.Option(help="BANK.json from `climedbench irt fit`.")],
    max_items: Annotated[int, typer.Option("--max-items", min=1, help="Items per adaptive test.")] = 243,
    seed: Annotated[int, typer.Option(help="Seed of the item choices.")] = 0,
    selection: Annotated[str, typer.Option(help=SELECTION_HELP)] = "stratified",
    exposure: Annotated[str, typer.Option(help=EXPOSURE_HELP)] = "sympson-hetter",
    level: Annotated[float, typer.Option(help="Interval level.")] = 0.95,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Replay the adaptive test on recorded answers: each row answers from its own record (an item it did not
    answer is never chosen); prints the predicted full score over all bank items (mean of scenario scores),
    its interval, the items asked, and the row's actual full score."""
    from climedbench.cat.engine import CATConfig
    from climedbench.cat.replay import replay_matrix
    from climedbench.cat.simulation import with_exposure_parameters
    from climedbench.irt.bank import ItemBank
    from climedbench.irt.matrix import read_matrix

    try:
        _check(selection, exposure)
        b = ItemBank.load(bank)
        rm = read_matrix(matrix)
        config = CATConfig(max_items=max_items, selection=selection, exposure=exposure,  # type: ignore[arg-type]
                           level=level)
        config.validate()
        if selection != "stratified" and exposure == "sympson-hetter":
            typer.echo("computing Sympson-Hetter exposure parameters by simulation on the bank ...", err=True)
            config = with_exposure_parameters(b, config, seed=seed)
        report = replay_matrix(b, rm, config, seed, matrix_name=str(matrix), bank_name=str(bank))
    except ClimedError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None
    if as_json:
        typer.echo(report.model_dump_json(indent=1))
        return
    m = report.meta
    width = max(8, *(len(e.id) for e in report.examinees))
    typer.echo(f"{'examinee':<{width}}  {'predicted':>9}  {'interval':>15}  {'items':>5}  {'actual':>6}")
    for e in report.examinees:
        actual = "" if e.actual is None else f"{e.actual:6.1f}"
        typer.echo(f"{e.id:<{width}}  {e.predicted:9.1f}  [{e.lower:5.1f}, {e.upper:5.1f}]  {e.n_items:5d}  {actual}")
    if report.mean_abs_error is not None and report.coverage is not None:
        typer.echo(f"mean absolute error {report.mean_abs_error:.2f} points; {100 * m.level:g}% intervals cover "
                   f"the actual score for {report.coverage:.0%} of {m.n_examinees} examinees")
    typer.echo(f"{m.selection} selection, {m.max_items} items of {m.bank_items}; overall = {m.overall}")
    typer.echo(f"note: {m.interval}")
    if m.capped_discriminations:
        typer.echo(f"note: {m.capped_discriminations} item discrimination(s) above a = 4 capped at 4")
    typer.echo(f"replayed in {m.seconds:.1f} s")


@app.command("calibrate")
def calibrate_cmd(
    matrix: Annotated[Path, typer.Argument(help="The response matrix the bank was fitted on (its calibration "
                                                "examinees).")],
    bank: Annotated[Path, typer.Option(help="BANK.json from `climedbench irt fit` on that matrix.")],
    lengths: Annotated[str, typer.Option(help="Test lengths to calibrate, comma-separated.")] = "50,100,243",
    folds: Annotated[int, typer.Option(min=2, help="Cross-validation folds over the examinees.")] = 5,
    replications: Annotated[int | None, typer.Option(
        help="Replays per examinee and length (default: enough for about 200 errors, at most 10).")] = None,
    selection: Annotated[str, typer.Option(help=SELECTION_HELP)] = "stratified",
    exposure: Annotated[str, typer.Option(help=EXPOSURE_HELP)] = "sympson-hetter",
    level: Annotated[float, typer.Option(help="Interval level.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Seed of the folds and item choices.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Write the calibrated bank here (default: update --bank).")
                   ] = None,
) -> None:
    """Calibrate the intervals of adaptive tests on held-out calibration examinees (cross-validated conformal:
    re-fit the bank without each fold, replay the fold, take the quantile of |error| / SE) and store the
    multipliers in the bank; `cat`, `cat replay` and `cat compare` then use them."""
    from climedbench.cat.engine import CATConfig
    from climedbench.cat.intervals import calibrate_intervals
    from climedbench.cat.replay import align
    from climedbench.cat.simulation import with_exposure_parameters
    from climedbench.cli.common import csv_list
    from climedbench.irt.bank import ItemBank
    from climedbench.irt.matrix import read_matrix

    try:
        _check(selection, exposure)
        try:
            lens = [int(v) for v in csv_list(lengths) or []]
        except ValueError:
            raise ConfigError(f"--lengths must be comma-separated integers, got {lengths!r}") from None
        b = ItemBank.load(bank)
        rm = read_matrix(matrix)
        answers = align(rm, b, file=str(matrix))
        config = CATConfig(selection=selection, exposure=exposure, level=level)  # type: ignore[arg-type]
        config.validate()
        if selection != "stratified" and exposure == "sympson-hetter":
            typer.echo("computing Sympson-Hetter exposure parameters by simulation on the bank ...", err=True)
            config = with_exposure_parameters(b, config, seed=seed)

        def tick(fold: int, total: int, length: int) -> None:
            typer.echo(f"fold {fold}/{total}: {length} items", err=True)

        cal = calibrate_intervals(b, answers, config, lens, folds=folds, replications=replications, seed=seed,
                                  progress=tick)
        b.meta["interval_calibration"] = cal.to_dict()
        target = out or bank
        b.save(target)
    except ClimedError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None
    typer.echo(f"{cal.n_examinees} calibration examinees, {cal.folds} folds, {cal.replications} replay(s) each, "
               f"{cal.seconds:.1f} s")
    for n, qo, qs in zip(cal.lengths, cal.q_overall, cal.q_scenario, strict=True):
        typer.echo(f"  {n:5d} items: overall SE × {qo:.2f}, scenario SE × {qs:.2f}")
    if not cal.guaranteed:
        typer.echo(f"note: fewer than {int(1 / (1 - level)) - 1} calibration examinees: the multiplier is the largest "
                   "error seen, without the conformal coverage guarantee")
    typer.echo(f"wrote {target}")
