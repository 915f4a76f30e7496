"""`climedbench run`, `extract`, `score` and `aggregate` (`validate`, `list` and `audit-items` are in cli/items.py)."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from climedbench import __version__
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
    app,
    err,
    executor_options,
    model_endpoints,
    positive,
    print_json,
    progress_bar,
    tasks_option,
)
from climedbench.errors import INCOMPLETE_EXIT, ConfigError

EPOCHS_HELP = ("Ask each item K times (needs --temperature > 0: greedy decoding repeats one answer, see "
               "--greedy-epochs); epoch e sends seed + e − 1, so each answer is its own sample and cache entry, "
               "resumed per item and epoch. The K scores of an item reduce to one (--epoch-reducer) before the "
               "intervals, which stay per item; results.json reports the generation noise per task.")
EPOCH_REDUCER_HELP = ("How an item's K scores become one: 'mean', 'majority' (the most frequent answer), 'pass_at_k' "
                      "(the best: right if any answer is) or 'all_correct' (the worst).")
GREEDY_EPOCHS_HELP = ("Allow --epochs K > 1 at --temperature 0: the K requests are sent (and cached) separately, "
                      "e.g. to measure a server's nondeterminism; otherwise refused as K identical answers.")
ALLOW_INCOMPLETE_HELP = (f"Exit 0 even when some requests failed (default: exit {INCOMPLETE_EXIT}; the figures are "
                         "then on the answered items only, marked incomplete).")


@app.command(epilog="""
Examples:

  climedbench run                                        # quick demo: bundled CliMedBench data, embedded model

  climedbench run --suite clinicbench                    # the English ClinicBench demo

  climedbench run --limit 0                              # every bundled demo item

  climedbench run --data ~/climedbench-data/ --out runs/qwen7b \\
      --model openai:qwen2.5-7b-instruct --base-url http://127.0.0.1:8000/v1   # vLLM

  climedbench run --suite clinicbench --data ~/clinicbench-data/ --tasks reasoning --shots 3 \\
      --model openai:qwen2.5:7b --base-url http://127.0.0.1:11434/v1            # Ollama

  OPENAI_API_KEY=... climedbench run --data data/ --model openai:gpt-4o --base-url https://api.openai.com/v1

  climedbench run --tasks clinical_qa --cot --shots 3 --model gguf:~/models/my-model.gguf

  climedbench run --data data/ --model openai:qwen2.5-7b --base-url http://gpu1:8000/v1 \\
      --base-url http://gpu2:8000/v1 --executor ray --workers 4          # two replicas, four Ray workers

  climedbench run --data data/ --model openai:qwen2.5-7b --endpoints endpoints.yaml --shard 1/2 --out shard-1
""")
def run(
    data: Annotated[str | None, typer.Option(help="Items: a file or a folder of them (default: the suite's "
                                                   "bundled demo set).")] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    tasks: Annotated[str | None, typer.Option(help=TASKS_HELP)] = None,
    scenarios: Annotated[str | None, typer.Option(help="Same as --tasks (CliMedBench's word).")] = None,
    datasets: Annotated[str | None, typer.Option(help="Same as --tasks (ClinicBench's word).")] = None,
    model: Annotated[str, typer.Option(help="'default' (embedded Qwen2.5-Coder-0.5B-Instruct Q4_K_M), "
                                            "'gguf:PATH', or 'openai:NAME' with --base-url.")] = "default",
    base_url: Annotated[list[str] | None, typer.Option(help=BASE_URLS_HELP)] = None,
    endpoints: Annotated[str | None, typer.Option(help=ENDPOINTS_HELP)] = None,
    deployment: Annotated[str | None, typer.Option(help=DEPLOYMENT_HELP)] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key "
                                                  "(keys are never taken on the command line).")] = "OPENAI_API_KEY",
    limit: Annotated[int | None, typer.Option(min=0, help="Items per task; 0 = all (default: 2 on the bundled "
                                                   "demo, all otherwise).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for item sampling, generation and bootstrap.")] = 0,
    shots: Annotated[int, typer.Option(min=0, help="Few-shot examples, from the split --shot-source names.")] = 0,
    shot_source: Annotated[str, typer.Option(help="Where --shots come from: 'dev' (the dev, else train, split; "
                                                  "the same examples for every item) or 'test' (drawn at random, "
                                                  "seeded, from the other test items, as the ClinicBench authors "
                                                  "did; radiology balances normal and abnormal findings).")
                           ] = "dev",
    cot: Annotated[bool, typer.Option("--cot", help="Chain-of-thought prompts.")] = False,
    mc_mode: Annotated[str, typer.Option(help="Single-answer choice items: 'generate' (answer read from "
                                              "text, the papers' way) or 'logprob' (first-token letter "
                                              "log-probabilities).")] = "generate",
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Maximum completion tokens (default: 128 for the "
                                                        "quick demo, else the task's own or 512; 1024 with "
                                                        "--cot).")] = None,
    temperature: Annotated[float, typer.Option(min=0.0, help="Sampling temperature (0 = greedy).")] = 0.0,
    epochs: Annotated[int, typer.Option(min=1, help=EPOCHS_HELP)] = 1,
    epoch_reducer: Annotated[str, typer.Option(help=EPOCH_REDUCER_HELP)] = "mean",
    greedy_epochs: Annotated[bool, typer.Option("--greedy-epochs", help=GREEDY_EPOCHS_HELP)] = False,
    out_dir: Annotated[str | None, typer.Option("--out", help="Run directory (default: runs/TIME-MODEL). "
                                                              "Re-use it to resume an interrupted run.")] = None,
    skip_invalid: Annotated[bool, typer.Option("--skip-invalid", help="Run the valid items and list the "
                                                                      "invalid ones in skipped.jsonl.")] = False,
    tokenizer: Annotated[str, typer.Option(help="ROUGE-1 tokens for Chinese text (keywords): 'jieba' words or "
                                                "'char'.")] = "jieba",
    embedder: Annotated[str, typer.Option(help="Similarity metric: 'e5' (bundled multilingual-e5-small) or "
                                               "'st:PATH' (a local sentence-transformers model).")] = "e5",
    similarity: Annotated[str, typer.Option(help="Similarity reported: 'raw' cosine (the paper's) or 'rescaled' "
                                                 "against unrelated text (a copy of the reference ≈ 100, "
                                                 "unrelated text ≈ 0); both are kept per sample.")] = "raw",
    extractor: Annotated[str, typer.Option(help="'rules' (default), or 'judge:MODEL_SPEC' to have a judge model "
                                                "re-read only the responses the rules cannot read (logged per "
                                                "sample as judge:MODEL and counted per task).")] = "rules",
    item_prompts: Annotated[bool, typer.Option("--item-prompts", help="Use each item's own 'prompt' field "
                                                                      "as instruction when it has one.")] = False,
    log_prompts: Annotated[bool, typer.Option("--log-prompts", help="Store the full messages in "
                                                                    "samples.jsonl.")] = False,
    ctx: Annotated[int, typer.Option(min=512, help="Context size for in-process models.")] = 8192,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads per copy of an in-process model (default: "
                                                     "cores / copies; with one copy, cores − 1). Part of the "
                                                     "model's fingerprint: it can change greedy outputs.")] = None,
    replicas: Annotated[int | None, typer.Option(min=1, help="Copies of an in-process model answering side by side, "
                                                      "one request each (default: one per core, as many as "
                                                      "half the free memory holds; 1 when --threads is "
                                                      "given). Outputs do not depend on it.")] = None,
    model_sha256: Annotated[str | None, typer.Option(help="Refuse a gguf:PATH whose SHA-256 differs.")] = None,
    timeout: Annotated[float, typer.Option(callback=positive, help="Seconds per HTTP request.")] = 120.0,
    max_retries: Annotated[int, typer.Option(min=0, help="Retries of a failed HTTP request.")] = 5,
    max_concurrency: Annotated[int, typer.Option(min=1, help="HTTP requests in flight at once.")] = 8,
    cache: Annotated[str | None, typer.Option(help="Response cache file (default: $CLIMEDBENCH_CACHE or the "
                                                   "user cache folder).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")] = False,
    rpm: Annotated[float | None, typer.Option(callback=positive, help="At most this many requests per minute.")] = None,
    tpm: Annotated[float | None, typer.Option(
        callback=positive, help="At most this many tokens per minute (prompt estimated as one token per "
                                "character, then corrected).")] = None,
    price_in: Annotated[float, typer.Option(min=0.0, help="USD per million prompt tokens (for the cost in "
                                                 "results.json).")] = 0.0,
    price_out: Annotated[float, typer.Option(min=0.0, help="USD per million completion tokens.")] = 0.0,
    max_cost: Annotated[float | None, typer.Option(
        callback=positive, help="Stop cleanly before the spend could exceed this many USD (needs "
                                "--price-in/--price-out).")] = None,
    executor: Annotated[str, typer.Option(help=EXECUTOR_HELP)] = "local",
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
    workers: Annotated[int, typer.Option(min=1, help=WORKERS_HELP)] = 2,
    shard_size: Annotated[int | None, typer.Option(min=1, help="Items handed to a Ray worker at a time (default: from "
                                                        "the plan size, at most 256).")] = None,
    shard: Annotated[str | None, typer.Option(help="I/N: run only the I-th of N equal, contiguous parts of the "
                                                   "plan (e.g. one per machine); `climedbench merge` joins "
                                                   "them.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar (nor the plain progress lines written "
                                                        "when stderr is not a terminal).")] = False,
    allow_incomplete: Annotated[bool, typer.Option("--allow-incomplete", help=ALLOW_INCOMPLETE_HELP)] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Evaluate a model on a suite's tasks and print the leaderboard table.

    Exit codes: 0 done; 2 bad input or options; 3 model unreachable; 4 stopped by --max-cost; 5 some requests
    failed (figures are on the answered items, marked incomplete; re-run the same command to retry them); 6 the
    run directory is in use by another process."""
    from climedbench.models.registry import ModelOptions
    from climedbench.run.plan import RunOptions, plan_run

    if mc_mode not in ("generate", "logprob"):
        raise ConfigError(f"--mc-mode must be 'generate' or 'logprob', not {mc_mode!r}")
    if tokenizer not in ("jieba", "char"):
        raise ConfigError(f"--tokenizer must be 'jieba' or 'char', not {tokenizer!r}")
    if similarity not in ("raw", "rescaled"):
        raise ConfigError(f"--similarity must be 'raw' or 'rescaled', not {similarity!r}")
    judge = _judge_spec(extractor)
    if max_cost is not None and not (price_in or price_out):
        raise ConfigError("--max-cost needs --price-in and/or --price-out (USD per million tokens)")
    exec_opts = executor_options(executor, ray_address, workers, shard_size)
    opts = RunOptions(
        data=data, suite=suite, model=model,
        model_options=ModelOptions(api_key_env=api_key_env, timeout=timeout,
                                   max_retries=max_retries, max_concurrency=max_concurrency, n_ctx=ctx,
                                   threads=threads, replicas=replicas, model_sha256=model_sha256,
                                   **model_endpoints(base_url, endpoints, deployment)),
        tasks=tasks_option(tasks, scenarios, datasets), limit=limit, seed=seed, shots=shots, cot=cot,
        shot_source=_shot_source(shot_source),
        mc_mode=mc_mode,  # type: ignore[arg-type]
        max_tokens=max_tokens, temperature=temperature, out=out_dir, skip_invalid=skip_invalid,
        item_prompts=item_prompts, log_prompts=log_prompts, tokenizer=tokenizer, embedder=embedder,  # type: ignore[arg-type]
        similarity=similarity, judge=judge,  # type: ignore[arg-type]
        cache=cache, no_cache=no_cache, rpm=rpm, tpm=tpm, price_in=price_in, price_out=price_out, max_cost=max_cost,
        shard=_shard(shard), epochs=epochs, epoch_reducer=epoch_reducer, greedy_epochs=greedy_epochs,
    )
    plan = plan_run(opts)
    with contextlib.ExitStack() as held:
        if out_dir:  # one writer per run directory: refused here, in one line, before anything is printed
            from climedbench.rundir import RunDir

            held.enter_context(RunDir(out_dir).lock("run"))
        _run(plan, opts, exec_opts, model, quiet, json_out, allow_incomplete)


def _run(plan: Any, opts: Any, exec_opts: Any, model: str, quiet: bool, json_out: bool,
         allow_incomplete: bool) -> None:
    from climedbench.executors import make_executor
    from climedbench.report.tables import print_table, run_table
    from climedbench.run.driver import run_plan

    if plan.report.problems:
        err.print(f"[yellow]skipping {len(plan.report.problems)} invalid record(s) (--skip-invalid); "
                  "they are listed in skipped.jsonl[/yellow]")
    counts = plan.spec.items_by_task or {}
    n_tasks = len([n for n in counts.values() if n])
    idle = [code for code in plan.spec.tasks if not counts.get(code)]
    if idle and not opts.shard:
        err.print(f"note: no test items for task(s) {', '.join(idle)} in {plan.spec.data}; they are left out",
                  highlight=False, markup=False)
    part = f" (shard {opts.shard[0]}/{opts.shard[1]})" if opts.shard else ""
    where = f"; {exec_opts.workers} Ray workers" if exec_opts.kind == "ray" else ""
    err.print(f"climedbench {__version__}: {plan.suite.title}, {len(plan.requests)} items{part} in {n_tasks} tasks "
              f"from {plan.spec.data}; model {model}" + (" (loading…)" if model == "default" else "") + where)
    start = time.perf_counter()
    progress, tick = progress_bar(quiet)
    runner = make_executor(exec_opts)
    try:
        with progress:
            import asyncio  # on use: importing it costs ~25 ms of every --help

            rundir, results, stats = asyncio.run(run_plan(plan, progress=tick, executor=runner))
    except KeyboardInterrupt:
        interrupted(plan.out_path, cached=not opts.no_cache)
        raise typer.Exit(130) from None
    finally:
        runner.close()
    wall = time.perf_counter() - start
    if json_out:
        print_json(results)
    else:
        print_table(run_table(results, plan.suite))
    assert results.run is not None
    failed = results.run.failed
    cost = f", cost {results.run.cost_usd_now:.4f} USD" if results.run.cost_usd_now is not None else ""
    err.print(f"{results.run.items} items ({stats.resumed} resumed from {rundir.path}, "
              f"{stats.cache_hits} from the cache{cost}) in {wall:.0f}s\nRun directory: {rundir.path}")
    if opts.demo and opts.limit is None:
        flag = "" if plan.suite.suite == "climedbench" else f" --suite {plan.suite.suite}"
        err.print("This was the quick demo (2 items per task, answers capped at 128 tokens).\n"
                  f"  Every bundled item:  climedbench run{flag} --limit 0 --max-tokens 512\n"
                  f"  Your own data:       climedbench run{flag} --data PATH --model openai:NAME --base-url URL\n"
                  "  The other benchmark: climedbench run --suite "
                  + ("clinicbench" if plan.suite.suite == "climedbench" else "climedbench") + "\n"
                  "  More:                climedbench run --help")
    if failed:
        _incomplete(failed, results.run.items, "re-run the same command to retry them and complete the run",
                    allow_incomplete)


def _incomplete(failed: int, items: int, remedy: str, allow: bool) -> None:
    """One line on the failed requests; exit INCOMPLETE_EXIT unless --allow-incomplete."""
    what = ("no item was answered, so there are no figures" if failed >= items
            else "figures are on the answered items only and marked incomplete")
    err.print(f"[red]{failed} of {items} request(s) failed[/red]: {what}; {remedy}"
              + ("" if allow else f" (exit {INCOMPLETE_EXIT}; --allow-incomplete exits 0)"), highlight=False)
    if not allow:
        raise typer.Exit(INCOMPLETE_EXIT)


def _shot_source(value: str) -> Literal["dev", "test"]:
    if value not in ("dev", "test"):
        raise ConfigError(f"--shot-source {value!r}: use 'dev' or 'test'")
    return value  # type: ignore[return-value]


def interrupted(out_path: Path | None, cached: bool = True) -> None:
    """After Ctrl-C: what is saved, and the exact command that resumes (with --out added when it was not given)."""
    import shlex

    from climedbench.cli import common

    args = list(sys.argv[1:])
    has_out = any(a == "--out" or a.startswith("--out=") for a in args)
    if out_path is not None and not has_out:
        args += ["--out", str(out_path)]
    command = shlex.join(["climedbench", *args])
    if out_path is None:
        err.print(f"interrupted before any answer was saved; to start again:\n  {command}", highlight=False,
                  markup=False)
    else:
        samples = out_path / "samples.jsonl"
        try:
            with samples.open("rb") as fh:
                n = sum(1 for line in fh if line.strip())
        except OSError:
            n = 0
        also = " (and in the response cache)" if cached else ""
        err.print(f"interrupted: {n} finished item(s) are saved in {samples}{also}; resume with:\n  {command}",
                  highlight=False, markup=False)
    common.INTERRUPT_REPORTED = True


def _shard(value: str | None) -> tuple[int, int] | None:
    """--shard I/N → (I, N)."""
    if value is None:
        return None
    i, sep, n = value.partition("/")
    if not sep or not i.strip().isdigit() or not n.strip().isdigit():
        raise ConfigError(f"--shard must be I/N (e.g. 1/4), not {value!r}")
    index, count = int(i), int(n)
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"--shard {value}: give I/N with 1 <= I <= N")
    return index, count


def _judge_spec(extractor: str) -> str | None:
    """The judge's model spec from --extractor (None for 'rules')."""
    if extractor == "rules":
        return None
    if extractor.startswith("judge:") and len(extractor) > 6:
        return extractor[6:]
    raise ConfigError(f"--extractor must be 'rules' or 'judge:MODEL_SPEC' (e.g. judge:openai:gpt-4o-mini), "
                      f"not {extractor!r}")


@app.command(epilog="""
Example:

  echo '{"kind": "single", "options": "ABCDE", "response": "综上所述，答案：（Ｃ）"}' | climedbench extract

  echo '{"kind": "label", "labels": ["yes", "no", "maybe"], "response": "The answer is no."}' | climedbench extract

  echo '{"kind": "single", "options": "ABCD", "response": "…, so B."}' | climedbench extract --pipeline strict
""")
def extract(
    pipeline: Annotated[str, typer.Option(help="Extraction pipeline: 'flexible' (every rule; what scores use) or "
                                               "'strict' (stated answers only: docs/REPORT.md).")] = "flexible",
) -> None:
    """Read JSON lines {kind, options | labels, response[, option_texts]} on stdin; write {"answer": ...} per
    line. Kinds: single, multi, order, keywords, text, label, labels, entities."""
    from climedbench.extract import PIPELINES
    from climedbench.extract import extract as do_extract
    from climedbench.extractors import extract_entities, extract_label, extract_labels

    if pipeline not in PIPELINES:
        raise ConfigError(f"--pipeline must be {' or '.join(PIPELINES)}, not {pipeline!r}")
    mode: Any = pipeline

    for n, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            kind, response = obj["kind"], str(obj["response"])
            if kind == "label":
                got = extract_label(response, tuple(obj["labels"]), pipeline=mode)
            elif kind == "labels":
                got = extract_labels(response, tuple(obj["labels"]), pipeline=mode)
            elif kind == "entities":
                got = extract_entities(response)
            elif kind in ("single", "multi", "order", "keywords", "text"):
                got = do_extract(kind, response, str(obj.get("options", "ABCDE")), obj.get("option_texts"), mode)
            else:
                raise ValueError(f"kind must be single, multi, order, keywords, text, label, labels or entities, "
                                 f"not {kind!r}")
        except (json.JSONDecodeError, KeyError, ValueError, TypeError) as e:
            raise ConfigError(f"stdin line {n}: {e}") from e
        print(json.dumps({"answer": got.answer, "method": got.method}, ensure_ascii=False), flush=True)


@app.command(epilog="""
Example:

  climedbench score runs/qwen7b --tokenizer char      # re-score keywords with character ROUGE-1
""")
def score(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    tokenizer: Annotated[str | None, typer.Option(help="Override the ROUGE-1 tokenizer (jieba|char).")] = None,
    embedder: Annotated[str | None, typer.Option(help="Override the similarity embedder.")] = None,
    similarity: Annotated[str | None, typer.Option(help="Similarity reported: raw or rescaled.")] = None,
    extractor: Annotated[str, typer.Option(help="'rules', or 'judge:MODEL_SPEC': a judge model re-reads the "
                                                "responses the rules cannot (the only model called).")] = "rules",
    base_url: Annotated[str | None, typer.Option(help="Server URL of an openai:NAME judge.")] = None,
    allow_incomplete: Annotated[bool, typer.Option("--allow-incomplete", help=ALLOW_INCOMPLETE_HELP)] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Re-extract and re-score a run directory from its raw responses (no model is called, except a judge
    given with --extractor judge:MODEL_SPEC). Exits 5 when the run has failed requests (see `run --help`), 6 while
    another process (a run, another score) writes the directory; samples.jsonl is replaced only once the new one is
    complete, and a cut-off last record (a killed run) is kept and counted as missing."""
    from rich.markup import escape

    from climedbench.report.tables import print_table, run_table
    from climedbench.rescore import rescore

    if similarity not in (None, "raw", "rescaled"):
        raise ConfigError(f"--similarity must be 'raw' or 'rescaled', not {similarity!r}")
    results, s = rescore(run_dir, tokenizer=tokenizer, embedder=embedder, similarity=similarity,
                         judge=_judge_spec(extractor), base_url=base_url,
                         notice=lambda line: err.print(f"[yellow]warning:[/yellow] {escape(line)}", highlight=False))
    if json_out:
        print_json(results)
    else:
        print_table(run_table(results, s))
    failed = sum(f.errors or 0 for f in results.tasks.values())
    if failed:
        _incomplete(failed, sum(f.n or 0 for f in results.tasks.values()),
                    "re-run the run's command to retry them, then score again", allow_incomplete)


@app.command(epilog="""
Examples:

  climedbench aggregate runs/qwen7b --json                      # the figures of results.json, recomputed

  climedbench aggregate shard-1/samples.jsonl shard-2/samples.jsonl --json   # shards of one run
""")
def aggregate(
    paths: Annotated[list[Path], typer.Argument(help="samples.jsonl files or run directories (of one run, or "
                                                      "its shards).")],
    suite: Annotated[str | None, typer.Option(help="Suite of the samples (default: from the run.json beside "
                                                   "them, else CliMedBench).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the interval draws (default: the run's).")] = None,
    similarity: Annotated[str | None, typer.Option(help="Similarity reported: raw or rescaled (both are kept "
                                                        "per sample).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
    include_path: IncludePath = None,
) -> None:
    """Re-aggregate per-sample records into task, group and overall figures with intervals (no model call)."""
    from climedbench.reaggregate import aggregate_files
    from climedbench.report.tables import print_table, run_table

    results, s = aggregate_files(paths, suite, seed, similarity=similarity)
    if json_out:
        print_json(results)
    else:
        print_table(run_table(results, s))
