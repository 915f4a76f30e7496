"""`climedbench mps`: multi-agent participant synthesis."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from climedbench.cli.common import (
    EXECUTOR_HELP,
    RAY_ADDRESS_HELP,
    SUITE_HELP,
    TASKS_HELP,
    WORKERS_HELP,
    IncludePath,
    app,
    csv_list,
    err,
    executor_options,
    out,
    progress_bar,
    tasks_option,
)


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
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    tasks: Annotated[str | None, typer.Option(help=TASKS_HELP)] = None,
    scenarios: Annotated[str | None, typer.Option(help="Same as --tasks.")] = None,
    limit: Annotated[int | None, typer.Option(min=0, help="Items per task (0 = all).")] = None,
    roles: Annotated[str | None, typer.Option(help="Role personas, comma-separated (default: every Who role "
                                                   "of the suite).")] = None,
    max_tokens: Annotated[int, typer.Option(min=1, help="Maximum tokens per turn.")] = 512,
    seed: Annotated[int, typer.Option(help="Seed for item sampling and generation.")] = 0,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL for openai:NAME models.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    max_concurrency: Annotated[int, typer.Option(min=1, help="Conversations in flight at once.")] = 4,
    cache: Annotated[str | None, typer.Option(help="Response cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the response cache.")] = False,
    executor: Annotated[str, typer.Option(help=EXECUTOR_HELP)] = "local",
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
    workers: Annotated[int, typer.Option(min=1, help=WORKERS_HELP)] = 2,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar (nor the plain progress lines written "
                                                        "when stderr is not a terminal).")] = False,
    include_path: IncludePath = None,
) -> None:
    """Multi-agent participant synthesis: generation → debate → reflection over ordered model pairs and roles."""
    from climedbench.models.registry import ModelOptions
    from climedbench.mps.synthesis import run_mps
    from climedbench.preflight import check_writable_dir

    check_writable_dir(out_dir, "--out")  # before any model is loaded
    specs = csv_list(models) or []
    progress, tick = progress_bar(quiet)
    with progress:
        import asyncio  # on use: importing it costs ~25 ms of every --help

        result = asyncio.run(run_mps(specs, data, tasks_option(tasks, scenarios), limit, csv_list(roles), out_dir,
                                     ModelOptions(base_url=base_url, api_key_env=api_key_env,
                                                  max_concurrency=max_concurrency),
                                     max_tokens, cache, no_cache, seed, max_concurrency, progress=tick,
                                     suite=suite, executor=executor_options(executor, ray_address, workers)))
    m = result.matrix
    out.print(f"{m.n_examinees} synthetic examinees × {m.n_items} items ({m.n_responses} responses, "
              f"{result.failed} missing) in {result.seconds:.0f}s; {result.cache_hits} answers from the cache\n"
              f"  {out_dir / 'matrix.csv'}\n  {out_dir / 'items.csv'}\n  {out_dir / 'transcripts.jsonl'}",
              highlight=False)
    for code, why in result.left_out.items():
        err.print(f"scenario {code} left out of the matrix: {why}", highlight=False)
