"""`climedbench merge`: join the shards of one plan, run on several machines, into one run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from climedbench.cli.common import app, err, print_json


@app.command(epilog="""
Examples:

  climedbench run --data data/ --model openai:qwen2.5-7b --base-url http://127.0.0.1:8000/v1 \\
      --deployment qwen7b-vllm --shard 1/2 --out shard-1          # on machine 1 (shard 2/2 on machine 2)

  climedbench merge shard-1 shard-2 --out runs/qwen7b             # then: climedbench report runs/qwen7b
""")
def merge(
    shards: Annotated[list[Path], typer.Argument(help="The run directory of every shard (`run --shard I/N`).")],
    out: Annotated[Path, typer.Option("--out", help="The merged run directory (new or empty).")],
    json_out: Annotated[bool, typer.Option("--json", help="Print results.json instead of the table.")] = False,
) -> None:
    """Merge the shards of one plan into one run directory, after checking they are the same plan (model
    fingerprint, suite version, data hash, prompt and generation parameters) and that no item is missing or
    duplicated."""
    from climedbench.merge import merge_shards
    from climedbench.report.tables import print_table, run_table
    from climedbench.rescore import suite_of_run

    rundir, results = merge_shards(shards, out)
    if json_out:
        print_json(results)
    else:
        print_table(run_table(results, suite_of_run(rundir.read_spec())))
    assert results.run is not None
    err.print(f"{results.run.items} items from {len(shards)} shards ({results.run.failed} failed)\n"
              f"Run directory: {rundir.path}", highlight=False)
