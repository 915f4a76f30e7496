"""`climedbench analyze …` (the paper's analyses on any runs), `perturb` and `nota` (data copies for them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from climedbench.cli.common import (
    BASE_URLS_HELP,
    DEPLOYMENT_HELP,
    ENDPOINTS_HELP,
    EXECUTOR_HELP,
    RAY_ADDRESS_HELP,
    SUITE_HELP,
    TASKS_HELP,
    WORKERS_HELP,
    IncludePath,
    PlainProgress,
    app,
    err,
    executor_options,
    model_endpoints,
    print_json,
    progress_every,
    tasks_option,
)

analyze_app = typer.Typer(
    name="analyze", no_args_is_help=True, rich_markup_mode=None,
    help="The paper's analyses on your runs: chain-of-thought, input length, robustness, none-of-the-above, "
         "instruction following, paired comparisons with ranks, benchmark validity, toxicity — each as a table "
         "(terminal, JSON, CSV) and a figure (PNG, SVG). See docs/ANALYSES.md.",
)
app.add_typer(analyze_app, name="analyze")

OUT_HELP = "Folder for KIND.json, KIND.csv, KIND.png and KIND.svg (created if needed)."
SEED_HELP = "Seed of the bootstrap."
JSON_HELP = "Print the analysis record as JSON instead of the table."
Out = Annotated[Path, typer.Option("--out", help=OUT_HELP)]
Seed = Annotated[int, typer.Option(help=SEED_HELP)]
Json = Annotated[bool, typer.Option("--json", help=JSON_HELP)]


def _emit(record: Any, figure: Any, out: Path, json_out: bool) -> None:
    from climedbench.analyses.record import print_record, write_record

    files = write_record(record, out, figure)
    if json_out:
        print_json(record.dump())
    else:
        print_record(record)
    err.print(f"Wrote {', '.join(files.values())} to {out}", highlight=False)


def _groups(values: list[str] | None) -> dict[str, str]:
    from climedbench.errors import ConfigError

    out: dict[str, str] = {}
    for v in values or []:
        run, sep, group = v.rpartition("=")
        if not sep or not run or not group:
            raise ConfigError(f"--group {v!r}: expected RUN=GROUP, e.g. runs/huatuo=medical")
        out[run.rstrip("/")] = group
        out[Path(run).name] = group
    return out


@analyze_app.command(epilog="""
Example (same model, same items, vanilla then --cot):

  climedbench run --tasks clinical_qa --out runs/vanilla

  climedbench run --tasks clinical_qa --cot --out runs/cot

  climedbench analyze cot runs/vanilla runs/cot --out analyses/
""")
def cot(
    vanilla: Annotated[Path, typer.Argument(help="Run directory made with the vanilla prompts.")],
    cot_run: Annotated[Path, typer.Argument(metavar="COT", help="Run directory made with --cot.")],
    out: Out = Path("analyses"), seed: Seed = 0, json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Chain-of-thought vs vanilla (the paper's Fig. 5): per task the paired difference with a 95% interval,
    McNemar/Wilcoxon p-values with Holm adjustment, and how much longer the CoT prompt is."""
    from climedbench.analyses.cot import analyze_cot
    from climedbench.analyses.runs import load_runs

    a, b = load_runs([vanilla, cot_run])
    record, fig = analyze_cot(a, b, seed=seed)
    _emit(record, fig, out, json_out)


@analyze_app.command(epilog="""
Example:

  climedbench analyze length runs/qwen runs/huatuo --group runs/qwen=general --group runs/huatuo=medical
""")
def length(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.")],
    segments: Annotated[int, typer.Option(min=1, help="Equal-count length segments (the paper: 10).")] = 10,
    group: Annotated[list[str] | None, typer.Option(help="RUN=GROUP: the model group of a run (e.g. general, "
                                                         "medical); repeat per run.")] = None,
    out: Out = Path("analyses"), seed: Seed = 0, json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Score by input length (the paper's Fig. 6): items in equal-count length segments with intervals, per
    model and model group, and the trend (points per doubling of the input, pooled and within tasks)."""
    from climedbench.analyses.length import analyze_length
    from climedbench.analyses.runs import load_runs

    record, fig = analyze_length(load_runs(runs), segments=segments, groups=_groups(group), seed=seed)
    _emit(record, fig, out, json_out)


@analyze_app.command(epilog="""
Example:

  climedbench perturb --kind glyph --seed 1 --out data/glyph           # the bundled demo set, perturbed

  climedbench run --out runs/clean && climedbench run --data data/glyph --limit 2 --max-tokens 128 --out runs/glyph

  climedbench analyze robustness runs/clean runs/glyph
""")
def robustness(
    clean: Annotated[Path, typer.Argument(help="Run on the original data.")],
    perturbed: Annotated[list[Path], typer.Argument(help="Runs on perturbed copies (climedbench perturb).")],
    out: Out = Path("analyses"), seed: Seed = 0, json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Robustness (the paper's Fig. 7): per perturbation and task, perturbed − clean on the same items with a
    paired 95% interval and Holm-adjusted p-values."""
    from climedbench.analyses.robustness import analyze_robustness
    from climedbench.analyses.runs import load_runs

    runs = load_runs([clean, *perturbed])
    record, fig = analyze_robustness(runs[0], runs[1:], seed=seed)
    _emit(record, fig, out, json_out)


@analyze_app.command("nota", epilog="""
Example:

  climedbench nota --out data/nota && climedbench run --data data/nota --limit 2 --max-tokens 128 --out runs/nota

  climedbench analyze nota runs/clean runs/nota
""")
def nota_cmd(
    original: Annotated[Path, typer.Argument(help="Run on the original data.")],
    nota_run: Annotated[Path, typer.Argument(metavar="NOTA", help="Run on the copy made by climedbench nota.")],
    out: Out = Path("analyses"), seed: Seed = 0, json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """None of the above: accuracy when the correct option's text is replaced by 'None of the above', per
    single-answer task, paired with the original."""
    from climedbench.analyses.nota import analyze_nota
    from climedbench.analyses.runs import load_runs

    a, b = load_runs([original, nota_run])
    record, fig = analyze_nota(a, b, seed=seed)
    _emit(record, fig, out, json_out)


@analyze_app.command(epilog="""
Example:

  climedbench analyze instruction runs/qwen runs/huatuo
""")
def instruction(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.")],
    out: Out = Path("analyses"), json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Instruction following: per task and model, the share of responses in the requested answer format (no
    fallback extraction) and the share with no usable answer, with Wilson intervals."""
    from climedbench.analyses.instruction import analyze_instruction
    from climedbench.analyses.runs import load_runs

    record, fig = analyze_instruction(load_runs(runs))
    _emit(record, fig, out, json_out)


@analyze_app.command(epilog="""
Example:

  climedbench analyze compare runs/qwen runs/huatuo              # also writes ranks.json/.csv/.png/.svg
""")
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run directories (of one suite, same items).")],
    out: Out = Path("analyses"), seed: Seed = 0, json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Paired model comparison: per task, group and overall the difference B − A on shared items with a 95%
    interval, Holm-adjusted p-values and a verdict (A better / B better / not separated); plus leaderboard
    ranks with 95% rank intervals."""
    from climedbench.analyses.compare import analyze_compare, analyze_ranks
    from climedbench.analyses.runs import load_runs

    loaded = load_runs(runs)
    record, fig = analyze_compare(loaded, seed=seed)
    _emit(record, fig, out, json_out)
    ranks, rfig = analyze_ranks(loaded, seed=seed)
    _emit(ranks, rfig, out, json_out)


@analyze_app.command(epilog="""
Examples:

  climedbench analyze validity ours.csv medbench.csv --json

  climedbench leaderboard --paper runs/a runs/b --json > ours.json && climedbench analyze validity ours.json other.csv
""")
def validity(
    ours: Annotated[Path, typer.Argument(help="Our leaderboard: CSV (model column, one column per figure) or "
                                              "the JSON of `climedbench leaderboard --json` / `report --json`.")],
    other: Annotated[Path, typer.Argument(help="The other benchmark's leaderboard, same format.")],
    out: Annotated[Path | None, typer.Option("--out", help=OUT_HELP + " Default: print only.")] = None,
    seed: Seed = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print {column: {spearman, kendall, lower, upper, n}, "
                                                          "..., unmatched: [...]}.")] = False,
) -> None:
    """Benchmark validity (the paper's Fig. 9b): Spearman and Kendall rank correlation of two leaderboards per
    shared column, with bootstrap-over-models 95% intervals and n; unmatched model names listed."""
    from climedbench.analyses.record import print_record, write_record
    from climedbench.analyses.validity import analyze_validity

    record, result, fig = analyze_validity(ours, other, seed=seed)
    if out is not None:
        files = write_record(record, out, fig)
        err.print(f"Wrote {', '.join(files.values())} to {out}", highlight=False)
    else:
        import matplotlib.pyplot as plt

        plt.close(fig)
    if json_out:
        print_json(result)
    else:
        print_record(record)


@analyze_app.command(epilog="""
Example:

  climedbench analyze toxicity runs/qwen runs/huatuo      # items need an option_labels field (docs/ANALYSES.md)
""")
def toxicity(
    runs: Annotated[list[Path], typer.Argument(help="Run directories on data with option_labels.")],
    out: Out = Path("analyses"), json_out: Json = False,
    include_path: IncludePath = None,
) -> None:
    """Toxicity: of items whose options are labelled harmful / over_cautious / correct, the share of each kind
    of answer, and how many wrong answers were harmful rather than over-cautious."""
    from climedbench.analyses.runs import load_runs
    from climedbench.analyses.toxicity import analyze_toxicity

    record, fig = analyze_toxicity(load_runs(runs))
    _emit(record, fig, out, json_out)


@analyze_app.command("all", epilog="""
Examples:

  climedbench analyze all --tasks T1,T2,T3 --kinds glyph --out analyses/demo   # three tasks (the README names
                    # them), embedded model, bundled demo set, 2 items per task: choice items read by --mc-mode
                    # logprob, no CoT run (readable on a 0.5B model)

  climedbench analyze all --out analyses/all             # every task; the CoT run's answers may run to 1024
                                                         # tokens, which a 0.5B model on a CPU needs

  climedbench analyze all --data ~/climedbench-data/ --model openai:qwen2.5-7b-instruct \\
      --base-url http://127.0.0.1:8000/v1 --out analyses/qwen7b --compare runs/gpt4o

  climedbench analyze all --tasks hallucination --limit 1 --max-tokens 16 --kinds glyph --out /tmp/a   # a smoke test
""")
def all_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for every analysis, index.json, the perturbed data "
                                                     "(data/) and the runs (runs/).")] = Path("analyses"),
    data: Annotated[str | None, typer.Option(help="Items (default: the suite's bundled demo set).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    tasks: Annotated[str | None, typer.Option(help=TASKS_HELP)] = None,
    model: Annotated[str, typer.Option(help="As for `climedbench run`.")] = "default",
    base_url: Annotated[list[str] | None, typer.Option(help=BASE_URLS_HELP)] = None,
    endpoints: Annotated[str | None, typer.Option(help=ENDPOINTS_HELP)] = None,
    deployment: Annotated[str | None, typer.Option(help=DEPLOYMENT_HELP)] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    max_concurrency: Annotated[int, typer.Option(min=1, help="HTTP requests in flight at once.")] = 8,
    executor: Annotated[str, typer.Option(help=EXECUTOR_HELP)] = "local",
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
    workers: Annotated[int, typer.Option(min=1, help=WORKERS_HELP)] = 2,
    limit: Annotated[int | None, typer.Option(min=0, help="Items per task; 0 = all (default: 2 on the bundled demo, "
                                                   "all otherwise).")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Maximum completion tokens of every run (default: as "
                                                        "`climedbench run`; CoT runs get the CoT default).")] = None,
    mc_mode: Annotated[str | None, typer.Option(
        help="Single-answer choice items of the vanilla, perturbed and none-of-the-above runs: 'generate' (answer "
             "read from the response) or 'logprob' (the most likely option letter as the first token; one token, "
             "so never cut off). Default: logprob on the bundled demo set, generate with --data. The CoT run "
             "always generates.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of item sampling, perturbations and bootstrap.")] = 0,
    cot_shots: Annotated[int, typer.Option(
        min=0, help="Few-shot examples (dev split) in the CoT run, each with its worked explanation; the vanilla "
                    "run stays zero-shot.")] = 0,
    rate: Annotated[float, typer.Option(help="Share of eligible Han characters to perturb.")] = 0.12,
    kinds: Annotated[str, typer.Option(help="Perturbations to run (comma-separated).")] =
    "glyph,homophone,traditional,symbol",
    compare_with: Annotated[list[Path] | None, typer.Option("--compare", help="Runs of other models on the same "
                                                                              "items, for compare and ranks.")] = None,
    group: Annotated[list[str] | None, typer.Option(help="RUN=GROUP for the length analysis.")] = None,
    ours: Annotated[Path | None, typer.Option(help="Our leaderboard for the validity analysis.")] = None,
    other: Annotated[Path | None, typer.Option(help="The other leaderboard for the validity analysis.")] = None,
    ctx: Annotated[int, typer.Option(min=512, help="Context size for in-process models.")] = 8192,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress messages.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Run the paper's whole analysis set for one model in one command: a vanilla run, a CoT run, a run per
    perturbation and a none-of-the-above run (all cached and resumable), then every analysis into one folder
    with index.json."""
    import asyncio

    from climedbench.analyses.pipeline import PipelineOptions, run_pipeline
    from climedbench.preflight import check_writable_dir

    check_writable_dir(out, "--out")  # before any model is loaded
    if mc_mode not in (None, "generate", "logprob"):
        from climedbench.errors import ConfigError

        raise ConfigError(f"--mc-mode must be 'generate' or 'logprob', not {mc_mode!r}")
    from climedbench.models.registry import ModelOptions

    opts = PipelineOptions(
        out=out, data=data, suite=suite, tasks=tasks_option(tasks), model=model,
        model_options=ModelOptions(api_key_env=api_key_env, n_ctx=ctx, max_concurrency=max_concurrency,
                                   **model_endpoints(base_url, endpoints, deployment)), limit=limit,
        max_tokens=max_tokens, mc_mode=mc_mode, seed=seed, cot_shots=cot_shots, rate=rate,
        kinds=[k.strip() for k in kinds.split(",") if k.strip()],
        compare=list(compare_with or []), groups=_groups(group), ours=ours, other=other, quiet=quiet,
        executor=executor_options(executor, ray_address, workers),
        progress=None if quiet else PlainProgress(progress_every()).tick,
    )
    index = asyncio.run(run_pipeline(opts, say=None if quiet else lambda m: err.print(f"[dim]{m}[/dim]")))
    for entry in index["analyses"]:
        err.print(f"  {entry['kind']:<12} {entry['title']}", highlight=False)
    for note in index.get("skipped", []):
        err.print(f"  skipped: {note}", highlight=False)
    err.print(f"Wrote {len(index['analyses'])} analyses and index.json to {out}", highlight=False)


@app.command(epilog="""
Examples:

  climedbench perturb --kind glyph --seed 1 --out data/glyph                # the bundled demo set

  climedbench perturb ~/climedbench-data/ --kind mixed --rate 0.12 --seed 7 --out ~/climedbench-mixed/
""")
def perturb(
    data: Annotated[str | None, typer.Argument(help="A data file or folder (default: the suite's bundled demo "
                                                    "set).")] = None,
    kind: Annotated[str, typer.Option(help="glyph (形近字), homophone (同音字), traditional (繁体), symbol "
                                           "(inserted), or mixed.")] = "mixed",
    rate: Annotated[float, typer.Option(help="Share of the eligible Han characters of each record to change.")]
    = 0.12,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same copy.")] = 0,
    out: Annotated[Path, typer.Option("--out", help="New folder for the copy (same files, same format).")]
    = Path("perturbed"),
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Write a perturbed copy of an item set: a share of the Han characters of the inputs replaced by
    similar-shape or same-pinyin characters or their traditional forms, or preceded by a random symbol.
    Headers, option letters, numbers, units, ids and references never change."""
    from climedbench.core.suite import load_suite
    from climedbench.perturb import perturb_data

    manifest = perturb_data(data, out, load_suite(suite), kind=kind, rate=rate, seed=seed)
    if json_out:
        print_json(manifest)
        return
    err.print(f"{manifest['changed']:,} of {manifest['eligible_han_chars']:,} eligible Han characters changed "
              f"({manifest['achieved_rate']:.1%}; {kind}, seed {seed}) in {manifest['records']} records; "
              f"copy in {out} (manifest: {out}/.perturbation.json)", highlight=False)


@app.command(epilog="""
Example:

  climedbench nota --out data/nota && climedbench run --data data/nota --limit 2 --max-tokens 128 --out runs/nota
""")
def nota(
    data: Annotated[str | None, typer.Argument(help="A data file or folder (default: the suite's bundled demo "
                                                    "set).")] = None,
    out: Annotated[Path, typer.Option("--out", help="New folder for the copy.")] = Path("nota"),
    text: Annotated[str | None, typer.Option(help="The replacement text (default: 以上都不是 for Chinese suites, "
                                                  "'None of the above' otherwise).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Write a copy of an item set in which the correct option of every single-answer item reads 'None of the
    above' (the key letter and the other options unchanged)."""
    from climedbench.core.suite import load_suite
    from climedbench.perturb.nota import nota_data

    manifest = nota_data(data, out, load_suite(suite), text=text)
    if json_out:
        print_json(manifest)
        return
    replaced = sum(c["replaced"] for c in manifest["tasks"].values())
    err.print(f"{replaced} correct option(s) replaced by {manifest['text']!r}; copy in {out} "
              f"(manifest: {out}/.nota.json)", highlight=False)
