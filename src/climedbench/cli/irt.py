"""``climedbench irt``: calibrate an item bank from a response matrix, estimate abilities."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from climedbench.cli.common import FORCE_HELP, IncludePath
from climedbench.cli.common import app as root
from climedbench.errors import ClimedError, DataError

app = typer.Typer(
    rich_markup_mode=None,
    help="Item response theory: calibrate a 1PL/2PL/3PL item bank, estimate abilities.",
                  no_args_is_help=True, add_completion=False)
root.add_typer(app, name="irt", help="Item response theory: `irt matrix`, `irt fit`, `irt abilities`.")


@app.callback()
def _main() -> None:
    """Item response theory: calibrate a 1PL/2PL/3PL item bank, estimate abilities."""


def _fail(exc: ClimedError) -> typer.Exit:
    """Print a user-facing error as one line and return the exit to raise."""
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(code=exc.exit_code)


@app.command("fit")
def fit_cmd(
    matrix: Annotated[Path, typer.Argument(
        help="Response matrix CSV/Parquet: examinee id, then one 1/0/empty column per item.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write BANK.json.")],
    model: Annotated[str, typer.Option(help="3pl, 2pl or 1pl. A 3pl request falls back to the 2pl, with the "
                                            "reason printed, below --min-examinees-3pl examinees or when no "
                                            "item has a number of options.")] = "3pl",
    options_k: Annotated[int | None, typer.Option(
        "--options-k", help="Answer options of every item not given a k by --items-scenarios (guessing prior "
                            "mode 1/k; 0 = free response, c = 0). No default: an item without k gets c = 0.")
                         ] = None,
    max_iter: Annotated[int, typer.Option("--max-iter", help="Maximum EM iterations.")] = 300,
    tol: Annotated[float, typer.Option(help="Convergence: estimated distance to the optimum (extrapolated from "
                                            "the contraction rate), in SEs.")] = 0.01,
    abs_tol: Annotated[float, typer.Option("--abs-tol", help="... and on the working scale (log a, b, logit c)."
                                           )] = 0.005,
    min_responses: Annotated[int, typer.Option(
        "--min-responses", help="Flag items answered by fewer examinees (few_responses).")] = 30,
    embedding_dims: Annotated[int, typer.Option(
        "--embedding-dims", help="Principal components of the responses stored per item (strata of the "
                                 "adaptive test; 0 = none).")] = 8,
    seed: Annotated[int | None, typer.Option(help="Recorded in the bank (the EM is deterministic).")] = None,
    items_scenarios: Annotated[Path | None, typer.Option(
        "--items-scenarios", help="CSV 'item,scenario[,k]': each item's scenario (and options).")] = None,
    fix_c: Annotated[str | None, typer.Option("--fix-c", help="Fix c: a number or 'guess' (1/k).")] = None,
    min_examinees_3pl: Annotated[int, typer.Option(
        "--min-examinees-3pl", help="Below this many examinees a 3PL request falls back to the 2PL.")] = 100,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
) -> None:
    """Calibrate item parameters by marginal maximum likelihood (EM) with priors and write BANK.json.

    Flags: few_responses, no_variance, negative_discrimination, poor_fit, implausible_discrimination (a > 4),
    implausible_guessing (c > 0.5), poorly_identified (SE(a) > a or SE(b) > 1)."""
    import numpy as np

    from climedbench.irt.calibrate import fit
    from climedbench.irt.matrix import read_item_map, read_matrix
    from climedbench.outputs import check_output
    from climedbench.preflight import check_writable_file

    try:
        check_output(out, force=force, option="--out")
        check_writable_file(out, "--out")  # before the fit, not after it
        rm = read_matrix(matrix)
        scen = None
        ks: dict[str, int] | int | None = options_k
        if items_scenarios is not None:
            info = read_item_map(items_scenarios)
            unknown = [i for i in list(info.scenarios) + list(info.options_k) if i not in set(rm.item_ids)]
            if unknown:
                raise DataError(f"item {unknown[0]!r} is not a column of {matrix}", file=str(items_scenarios))
            scen = info.scenarios or None
            if info.options_k:
                default = options_k
                ks = {i: info.options_k.get(i, default or 0) for i in rm.item_ids
                      if i in info.options_k or default is not None}
        bank = fit(rm, model, scenarios=scen, options_k=ks, max_iter=max_iter, tol=tol, abs_tol=abs_tol,
                   seed=seed, fix_c=fix_c, min_examinees_3pl=min_examinees_3pl, min_responses=min_responses,
                   embedding_dims=embedding_dims)
        bank.meta["matrix"] = str(matrix)
        bank.save(out)
    except ClimedError as exc:
        raise _fail(exc) from None
    meta = bank.meta
    n_flag = int(bank.flagged().sum())
    counts: dict[str, int] = meta.get("flag_counts", {})
    detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    status = "converged" if meta["converged"] else "NOT converged"
    typer.echo(f"model {meta['model']}: {meta['n_items']} items, {meta['n_examinees']} examinees, "
               f"{meta['n_responses']} responses")
    if "fallback" in meta:
        typer.echo(f"fallback: {meta['fallback']}")
    for note in meta.get("notes", []):
        typer.echo(f"note: {note}")
    typer.echo(f"EM {status} after {meta['iterations']} iterations in {meta['seconds']:.1f} s "
               f"(log-likelihood {meta['log_likelihood']:.1f})")
    typer.echo(f"flagged items: {n_flag}" + (f" ({detail})" if detail else ""))
    worst = int(np.argmax(bank.a))
    if bank.a[worst] > meta["fit_options"]["plausible_a"]:
        typer.echo(f"largest discrimination: a = {bank.a[worst]:.1f} ({bank.ids[worst]}); adaptive tests cap a at "
                   "4")
    typer.echo(f"wrote {out}")


@app.command("abilities")
def abilities_cmd(
    matrix: Annotated[Path, typer.Argument(help="Response matrix CSV/Parquet (items must be in the bank).")],
    bank_path: Annotated[Path, typer.Option("--bank", help="BANK.json from 'irt fit'.")],
    method: Annotated[str, typer.Option(help="eap (posterior mean, SE = posterior SD) or map.")] = "eap",
    as_json: Annotated[bool, typer.Option("--json", help="Print {examinee: {theta, se}} as JSON.")] = False,
) -> None:
    """Estimate each examinee's ability θ (with its standard error) from a response matrix and a bank."""
    import numpy as np

    from climedbench.irt.ability import estimate_abilities
    from climedbench.irt.bank import ItemBank
    from climedbench.irt.matrix import read_matrix

    try:
        rm = read_matrix(matrix)
        bank = ItemBank.load(bank_path)
        missing = [(j, i) for j, i in enumerate(rm.item_ids) if i not in set(bank.ids)]
        if missing:
            j, item = missing[0]
            raise DataError(f"column {j + 2}: item is not in the bank {bank_path}", file=str(matrix), line=1,
                            field=item)
        sub = bank.subset(bank.index_of(rm.item_ids))
        if method.lower() not in ("eap", "map"):
            raise DataError(f"unknown method {method!r}: choose eap or map", field="--method")
        theta, se = estimate_abilities(rm.data, sub, method.lower())  # type: ignore[arg-type]
    except ClimedError as exc:
        raise _fail(exc) from None
    if as_json:
        out = {ex: {"theta": _r(t), "se": _r(s)} for ex, t, s in zip(rm.examinee_ids, theta, se, strict=True)}
        typer.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return
    width = max(8, *(len(e) for e in rm.examinee_ids))
    typer.echo(f"{'examinee':<{width}}  {'theta':>8}  {'se':>7}  items")
    answered = (~np.isnan(rm.data)).sum(axis=1)
    for ex, t, s, n in zip(rm.examinee_ids, theta, se, answered, strict=True):
        typer.echo(f"{ex:<{width}}  {t:>8.3f}  {s:>7.3f}  {n}")


def _r(x: float) -> float | None:
    """Round for JSON output."""
    return round(float(x), 6) if math.isfinite(x) else None


@app.command("matrix")
def matrix_cmd(
    runs: Annotated[list[Path], typer.Argument(help="Run directories: each is one examinee (row).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="MATRIX.csv (or .parquet) to write.")],
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    include_path: IncludePath = None,
) -> None:
    """Build a response matrix from run directories (graded scores binarised per scenario, mean-preserving).

    Writes MATRIX and MATRIX.items.csv (item, scenario, k, metric, transform, threshold); pass the latter to
    `irt fit --items-scenarios` and `climedbench cat --item-map`.
    """
    from climedbench.irt.from_runs import matrix_from_runs
    from climedbench.outputs import check_output

    try:
        check_output(out, force=force, option="--out")
        check_output(out.with_name(out.stem + ".items.csv"), force=force, option="--out (its item map)")
        matrix, thresholds, item_map, left_out = matrix_from_runs(runs, out)
    except ClimedError as exc:
        raise _fail(exc) from None
    typer.echo(f"{matrix.n_examinees} examinees × {matrix.n_items} items ({matrix.n_responses} responses) → {out}")
    for code, why in left_out.items():
        typer.echo(f"scenario {code} left out of the matrix: {why}", err=True)
    graded = {k: v for k, v in thresholds.items() if v != 0.5}
    if graded:
        typer.echo("thresholds (rescaled to [0, 1]): " + ", ".join(f"{k} {v:.3g}" for k, v in graded.items()))
    typer.echo(f"item map → {item_map}")
