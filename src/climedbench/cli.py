"""The `climedbench` command line."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from climedbench import __version__
from climedbench.errors import ClimedError, ConfigError
from climedbench.secrets import install_log_redaction, redact

app = typer.Typer(
    name="climedbench",
    help="Evaluate large language models on CliMedBench's 14 Chinese clinical scenarios.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="markdown",
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
DEBUG = False


def _version(value: bool) -> None:
    if value:
        print(f"climedbench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Evaluate large language models on CliMedBench's 14 Chinese clinical scenarios.

    Run `climedbench run` for a quick demo (bundled data, embedded model, no server, no key).
    Add `--debug` anywhere for full tracebacks.
    """


def _progress(quiet: bool) -> tuple[Progress, Callable[[int, int, str], None]]:
    """A progress bar with elapsed time and ETA on stderr, and the callback that advances it."""
    progress = Progress(TextColumn("{task.description:<6}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        console=err, disable=quiet, transient=False)
    bar: dict[str, Any] = {}

    def tick(done: int, total: int, code: str) -> None:
        if "id" not in bar:
            bar["id"] = progress.add_task("items", total=total)
        progress.update(bar["id"], completed=done, description=code or "items")

    return progress, tick


def _csv(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


@app.command(epilog="""
Examples:

  climedbench run                                        # quick demo: bundled data, embedded model

  climedbench run --limit 0                              # every bundled demo item

  climedbench run --data ~/climedbench-data/ --out runs/qwen7b \\
      --model openai:qwen2.5-7b-instruct --base-url http://127.0.0.1:8000/v1   # vLLM

  climedbench run --data data/ --model openai:qwen2.5:7b --base-url http://127.0.0.1:11434/v1   # Ollama

  OPENAI_API_KEY=... climedbench run --data data/ --model openai:gpt-4o --base-url https://api.openai.com/v1

  climedbench run --scenarios ID#1,BKT,FIT --cot --shots 3 --model gguf:~/models/my-model.gguf
""")
def run(
    data: Annotated[str | None, typer.Option(help="Items: a .jsonl/.json/.csv file or a folder of them "
                                                   "(default: the bundled demo set).")] = None,
    model: Annotated[str, typer.Option(help="'default' (embedded Qwen2.5-Coder-0.5B-Instruct Q4_K_M), "
                                            "'gguf:PATH', or 'openai:NAME' with --base-url.")] = "default",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL, e.g. "
                                                       "http://127.0.0.1:8000/v1.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key "
                                                  "(keys are never taken on the command line).")] = "OPENAI_API_KEY",
    scenarios: Annotated[str | None, typer.Option(help="Comma-separated scenario codes, e.g. ID#1,BKT,FIT "
                                                       "(default: all 14).")] = None,
    limit: Annotated[int | None, typer.Option(help="Items per scenario; 0 = all (default: 2 on the bundled "
                                                   "demo, all otherwise).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for item sampling, generation and bootstrap.")] = 0,
    shots: Annotated[int, typer.Option(help="Few-shot examples from the dev split.")] = 0,
    cot: Annotated[bool, typer.Option("--cot", help="Chain-of-thought prompts.")] = False,
    mc_mode: Annotated[str, typer.Option(help="Single-answer choice items: 'generate' (answer read from "
                                              "text, the paper's way) or 'logprob' (first-token letter "
                                              "log-probabilities).")] = "generate",
    max_tokens: Annotated[int | None, typer.Option(help="Maximum completion tokens (default: 128 for the "
                                                        "quick demo, 512, or 1024 with --cot).")] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature (0 = greedy).")] = 0.0,
    out_dir: Annotated[str | None, typer.Option("--out", help="Run directory (default: runs/TIME-MODEL). "
                                                              "Re-use it to resume an interrupted run.")] = None,
    skip_invalid: Annotated[bool, typer.Option("--skip-invalid", help="Run the valid items and list the "
                                                                      "invalid ones in skipped.jsonl.")] = False,
    suite: Annotated[str | None, typer.Option(help="A suite YAML (default: bundled CliMedBench).")] = None,
    tokenizer: Annotated[str, typer.Option(help="ROUGE-1 tokens for KE: 'jieba' words or 'char'.")] = "jieba",
    embedder: Annotated[str, typer.Option(help="WTD similarity: 'e5' (bundled multilingual-e5-small) or "
                                               "'st:PATH' (a local sentence-transformers model).")] = "e5",
    item_prompts: Annotated[bool, typer.Option("--item-prompts", help="Use each item's own 'prompt' field "
                                                                      "as instruction when it has one.")] = False,
    log_prompts: Annotated[bool, typer.Option("--log-prompts", help="Store the full messages in "
                                                                    "samples.jsonl.")] = False,
    ctx: Annotated[int, typer.Option(help="Context size for in-process models.")] = 8192,
    threads: Annotated[int | None, typer.Option(help="CPU threads for in-process models "
                                                     "(default: cores − 1).")] = None,
    model_sha256: Annotated[str | None, typer.Option(help="Refuse a gguf:PATH whose SHA-256 differs.")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds per HTTP request.")] = 120.0,
    max_retries: Annotated[int, typer.Option(help="Retries of a failed HTTP request.")] = 5,
    max_concurrency: Annotated[int, typer.Option(help="HTTP requests in flight at once.")] = 8,
    cache: Annotated[str | None, typer.Option(help="Response cache file (default: $CLIMEDBENCH_CACHE or the "
                                                   "user cache folder).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")] = False,
    rpm: Annotated[float | None, typer.Option(help="At most this many requests per minute.")] = None,
    tpm: Annotated[float | None, typer.Option(help="At most this many tokens per minute (prompt estimated "
                                                   "as one token per character, then corrected).")] = None,
    price_in: Annotated[float, typer.Option(help="USD per million prompt tokens (for the cost in "
                                                 "results.json).")] = 0.0,
    price_out: Annotated[float, typer.Option(help="USD per million completion tokens.")] = 0.0,
    max_cost: Annotated[float | None, typer.Option(help="Stop cleanly before the spend could exceed this "
                                                        "many USD (needs --price-in/--price-out).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
) -> None:
    """Evaluate a model on the 14 scenarios and print the leaderboard table."""
    from climedbench.models.registry import ModelOptions
    from climedbench.report.tables import print_table, run_table
    from climedbench.runner import RunOptions, plan_run, run_plan

    if mc_mode not in ("generate", "logprob"):
        raise ConfigError(f"--mc-mode must be 'generate' or 'logprob', not {mc_mode!r}")
    if tokenizer not in ("jieba", "char"):
        raise ConfigError(f"--tokenizer must be 'jieba' or 'char', not {tokenizer!r}")
    opts = RunOptions(
        data=data, suite=suite, model=model,
        model_options=ModelOptions(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                   max_retries=max_retries, max_concurrency=max_concurrency, n_ctx=ctx,
                                   threads=threads, model_sha256=model_sha256),
        scenarios=_csv(scenarios), limit=limit, seed=seed, shots=shots, cot=cot, mc_mode=mc_mode,  # type: ignore[arg-type]
        max_tokens=max_tokens, temperature=temperature, out=out_dir, skip_invalid=skip_invalid,
        item_prompts=item_prompts, log_prompts=log_prompts, tokenizer=tokenizer, embedder=embedder,  # type: ignore[arg-type]
        cache=cache, no_cache=no_cache, rpm=rpm, tpm=tpm, price_in=price_in, price_out=price_out, max_cost=max_cost,
    )
    if max_cost is not None and not (price_in or price_out):
        raise ConfigError("--max-cost needs --price-in and/or --price-out (USD per million tokens)")
    plan = plan_run(opts)
    if plan.report.problems:
        err.print(f"[yellow]skipping {len(plan.report.problems)} invalid record(s) (--skip-invalid); "
                  "they are listed in skipped.jsonl[/yellow]")
    n_sc = len({t.scenario.code for t in plan.tasks})
    err.print(f"climedbench {__version__}: {len(plan.tasks)} items in {n_sc} scenarios from "
              f"{plan.spec['data']}; model {model}" + (" (loading…)" if model == "default" else ""))
    start = time.perf_counter()
    progress, tick = _progress(quiet)
    with progress:
        rundir, results, stats = asyncio.run(run_plan(plan, progress=tick))
    wall = time.perf_counter() - start
    if json_out:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    else:
        print_table(run_table(results, plan.suite))
    failed = results["run"]["failed"]
    cost = f", cost {results['run']['cost_usd_now']:.4f} USD" if "cost_usd_now" in results["run"] else ""
    err.print(f"{results['run']['items']} items ({stats.resumed} resumed from {rundir.path}, "
              f"{stats.cache_hits} from the cache{cost}) in {wall:.0f}s"
              + (f"; [red]{failed} request(s) failed[/red] — re-run the same command to retry them" if failed
                 else "") + f"\nRun directory: {rundir.path}")
    if opts.demo and opts.limit is None:
        err.print("This was the quick demo (2 items per scenario, answers capped at 128 tokens).\n"
                  "  Every bundled item:  climedbench run --limit 0 --max-tokens 512\n"
                  "  Your own data:       climedbench run --data PATH --model openai:NAME --base-url URL\n"
                  "  More:                climedbench run --help")


@app.command(epilog="""
Examples:

  climedbench validate                       # the bundled demo set

  climedbench validate ~/climedbench-data/ --json
""")
def validate(
    path: Annotated[str | None, typer.Argument(help="File or folder (default: the bundled demo set).")] = None,
    suite: Annotated[str | None, typer.Option(help="A suite YAML (default: bundled CliMedBench).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check items: per-scenario valid counts and, for each invalid record, file, line, field and reason."""
    from rich.table import Table

    from climedbench.data.loaders import load_items
    from climedbench.taxonomy import load_suite

    s = load_suite(suite)
    report = load_items(path, s)
    if json_out:
        print(json.dumps(report.as_json(s), ensure_ascii=False, indent=2))
    else:
        table = Table(title=f"{path or 'bundled demo set'}", title_justify="left")
        for col in ("Scenario", "Name", "test", "dev", "invalid"):
            table.add_column(col, justify="right" if col in ("test", "dev", "invalid") else "left")
        tests, devs = report.valid_counts("test"), report.valid_counts("dev")
        bad: dict[str, int] = {}
        for p in report.problems:
            bad[p.scenario or "?"] = bad.get(p.scenario or "?", 0) + 1
        for sc in s.scenarios:
            table.add_row(sc.code, sc.name_zh, str(tests.get(sc.code, 0)), str(devs.get(sc.code, 0)),
                          str(bad.get(sc.code, 0)))
        if "?" in bad:
            table.add_row("?", "(scenario unknown)", "", "", str(bad["?"]))
        out.print(table)
        for p in report.problems:
            out.print(f"[red]invalid[/red] {p}", markup=True, highlight=False)
    if report.problems:
        raise typer.Exit(1)


@app.command(epilog="""
Example:

  echo '{"kind": "single", "options": "ABCDE", "response": "综上所述，答案：（Ｃ）"}' | climedbench extract
""")
def extract() -> None:
    """Read JSON lines {kind, options, response[, option_texts]} on stdin; write {"answer": ...} per line."""
    from climedbench.extract import extract as do_extract

    for n, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            kind, response = obj["kind"], obj["response"]
            if kind not in ("single", "multi", "order"):
                raise ValueError(f"kind must be single, multi or order, not {kind!r}")
            got = do_extract(kind, str(response), str(obj.get("options", "ABCDE")), obj.get("option_texts"))
        except (json.JSONDecodeError, KeyError, ValueError, TypeError) as e:
            raise ConfigError(f"stdin line {n}: {e}") from e
        print(json.dumps({"answer": got.answer}, ensure_ascii=False), flush=True)


@app.command(epilog="""
Examples:

  climedbench leaderboard --paper                          # the paper's Table 2

  climedbench leaderboard --paper runs/my-model            # your run beside it

  climedbench leaderboard --from-csv scores.csv --json
""")
def leaderboard(
    runs: Annotated[list[Path] | None, typer.Argument(help="Run directories to add as columns.")] = None,
    from_csv: Annotated[Path | None, typer.Option(help="Published scores: a 'model' column and one column "
                                                       "per scenario code (×100).")] = None,
    paper: Annotated[bool, typer.Option("--paper", help="Include the paper's Table 2 (11 models).")] = False,
    suite: Annotated[str | None, typer.Option(help="A suite YAML (default: bundled CliMedBench).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print {model: results} as JSON.")] = False,
) -> None:
    """Scenario, dimension and overall scores of published results and runs, side by side."""
    from importlib import resources

    from climedbench.report.tables import comparison_table, print_table, read_published_csv
    from climedbench.rundir import RunDir
    from climedbench.taxonomy import load_suite

    s = load_suite(suite)
    table: dict[str, Any] = {}
    if paper:
        path = Path(str(resources.files("climedbench.data").joinpath("paper_table2.csv")))
        table.update(read_published_csv(path, s))
    if from_csv:
        table.update(read_published_csv(from_csv, s))
    for d in runs or []:
        res = RunDir(d).read_results()
        table[_unique(table, str(res.get("model", d)))] = res
    if not table:
        raise ConfigError("nothing to show: give --from-csv FILE, --paper, or run directories")
    if json_out:
        print(json.dumps({m: {k: r.get(k) for k in ("scenarios", "dimensions", "overall")}
                          for m, r in table.items()}, ensure_ascii=False, indent=2))
    else:
        print_table(comparison_table(table, s, with_ci=False, title="Leaderboard (×100)"))


def _unique(existing: dict[str, Any], name: str) -> str:
    n, candidate = 2, name
    while candidate in existing:
        candidate, n = f"{name} ({n})", n + 1
    return candidate


@app.command(epilog="""
Example:

  climedbench report runs/qwen7b runs/gpt4o runs/demo
""")
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print {model: results} as JSON.")] = False,
) -> None:
    """Several runs side by side: every scenario, dimension and overall with 95% CIs."""
    from climedbench.report.tables import comparison_table, print_table
    from climedbench.rundir import RunDir
    from climedbench.taxonomy import load_suite

    table: dict[str, Any] = {}
    suite_file = None
    for d in runs:
        rd = RunDir(d)
        res = rd.read_results()
        spec = rd.read_spec()
        suite_file = suite_file or spec.get("suite_file")
        table[_unique(table, f"{res.get('model', d)}\n{d}")] = res
    s = load_suite(None if not suite_file or suite_file.startswith("bundled") else suite_file)
    if json_out:
        print(json.dumps({m.split("\n")[0] if m.count("\n") else m: {k: r.get(k) for k in
                          ("scenarios", "dimensions", "overall")} for m, r in table.items()},
                         ensure_ascii=False, indent=2))
    else:
        print_table(comparison_table(table, s, title="Runs (×100, 95% CI)"))


@app.command(epilog="""
Example:

  climedbench score runs/qwen7b --tokenizer char      # re-score KE with character ROUGE-1
""")
def score(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    tokenizer: Annotated[str | None, typer.Option(help="Override the ROUGE-1 tokenizer (jieba|char).")] = None,
    embedder: Annotated[str | None, typer.Option(help="Override the similarity embedder.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
) -> None:
    """Re-extract and re-score a run directory from its raw responses, without calling any model."""
    from climedbench.report.tables import print_table, run_table
    from climedbench.rescore import rescore

    results, s = rescore(run_dir, tokenizer=tokenizer, embedder=embedder)
    if json_out:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    else:
        print_table(run_table(results, s))


def _mount() -> None:
    from climedbench.cat.cli import app as cat_app
    from climedbench.irt.cli import app as irt_app

    app.add_typer(irt_app, name="irt", help="Item response theory: `irt matrix`, `irt fit`, `irt abilities`.")
    app.add_typer(cat_app, name="cat", help="Adaptive testing of a model; `cat simulate`; `cat compare`.")


_mount()


@app.command(epilog="""
Example:

  climedbench mps --models gguf:a.gguf,gguf:b.gguf,openai:qwen2.5-7b --base-url http://127.0.0.1:8000/v1 \\
      --data ~/climedbench-data/ --limit 200 --out mps/

  climedbench irt fit mps/matrix.csv --items-scenarios mps/items.csv --out bank.json
""")
def mps(
    models: Annotated[str, typer.Option(help="Comma-separated model specs (at least two), as for `run --model`.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for matrix.csv, items.csv, transcripts.jsonl.")],
    data: Annotated[str | None, typer.Option("--items", "--data", help="Items (default: the demo set).")] = None,
    scenarios: Annotated[str | None, typer.Option(help="Comma-separated scenario codes.")] = None,
    limit: Annotated[int | None, typer.Option(help="Items per scenario (0 = all).")] = None,
    roles: Annotated[str | None, typer.Option(help="Role personas, comma-separated (default: every Who role "
                                                   "of the suite: doctor, radiographer, pharmacist, patient, "
                                                   "student).")] = None,
    max_tokens: Annotated[int, typer.Option(help="Maximum tokens per turn.")] = 512,
    seed: Annotated[int, typer.Option(help="Seed for item sampling and generation.")] = 0,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL for openai:NAME models.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    max_concurrency: Annotated[int, typer.Option(help="Conversations in flight at once.")] = 4,
    cache: Annotated[str | None, typer.Option(help="Response cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the response cache.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Multi-agent participant synthesis: generation → debate → reflection over ordered model pairs and roles."""
    from climedbench.models.registry import ModelOptions
    from climedbench.mps.synthesis import run_mps

    specs = _csv(models) or []
    progress, tick = _progress(quiet)
    with progress:
        result = asyncio.run(run_mps(specs, data, _csv(scenarios), limit, _csv(roles), out_dir,
                                     ModelOptions(base_url=base_url, api_key_env=api_key_env,
                                                  max_concurrency=max_concurrency),
                                     max_tokens, cache, no_cache, seed, max_concurrency, progress=tick))
    m = result.matrix
    out.print(f"{m.n_examinees} synthetic examinees × {m.n_items} items ({m.n_responses} responses, "
              f"{result.failed} missing) in {result.seconds:.0f}s; {result.cache_hits} answers from the cache\n"
              f"  {out_dir / 'matrix.csv'}\n  {out_dir / 'items.csv'}\n  {out_dir / 'transcripts.jsonl'}",
              highlight=False)


cache_app = typer.Typer(help="The response cache: `climedbench cache stats`, `climedbench cache clear`.",
                        no_args_is_help=True)
app.add_typer(cache_app, name="cache")


def _open_cache(path: str | None) -> Any:
    from climedbench.cache import ResponseCache, default_cache_path

    return ResponseCache(path or default_cache_path())


@cache_app.command("stats")
def cache_stats(
    cache: Annotated[str | None, typer.Option(help="Cache file (default: $CLIMEDBENCH_CACHE or the user "
                                                   "cache folder).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Entries per model and the size of the cache file."""
    c = _open_cache(cache)
    st = c.stats()
    c.close()
    if json_out:
        print(json.dumps(st, ensure_ascii=False, indent=2))
        return
    out.print(f"{st['path']}: {st['entries']} responses, {st['bytes'] / 1e6:.1f} MB", highlight=False)
    for model, n in st["models"].items():
        out.print(f"  {n:8d}  {model}", highlight=False)


@cache_app.command("clear")
def cache_clear(
    cache: Annotated[str | None, typer.Option(help="Cache file.")] = None,
    model: Annotated[str | None, typer.Option(help="Only this model's entries (as `cache stats` names it).")] = None,
) -> None:
    """Delete cached responses (all, or one model's)."""
    c = _open_cache(cache)
    n = c.clear(model)
    c.close()
    out.print(f"deleted {n} cached response(s)", highlight=False)


def main() -> None:
    """Entry point: user errors become one clear line and a non-zero exit; --debug shows tracebacks."""
    global DEBUG
    if "--debug" in sys.argv[1:]:
        DEBUG = True
        sys.argv = [a for a in sys.argv if a != "--debug"]
    logging.basicConfig(level=logging.DEBUG if DEBUG else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()
    try:
        app(prog_name="climedbench")
    except ClimedError as e:
        if DEBUG:
            traceback.print_exc()
        err.print(f"[red]error:[/red] {redact(str(e))}", highlight=False)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted; finished items are saved — re-run the same command to resume")
        sys.exit(130)
    except Exception as e:  # an unexpected failure: one line, the traceback only with --debug
        if DEBUG:
            traceback.print_exc()
        err.print(f"[red]internal error:[/red] {type(e).__name__}: {redact(str(e))} "
                  "(re-run with --debug for the traceback)", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
