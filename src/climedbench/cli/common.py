"""What every command module shares: the root app, the consoles, a progress bar, small parsers.

Nothing heavy is imported here: `climedbench --help` and `climedbench list` must answer fast, so each
command imports the library it needs inside its own function.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from climedbench import __version__

app = typer.Typer(
    name="climedbench",
    help="Evaluate large language models on clinical benchmarks: CliMedBench (14 Chinese clinical scenarios) "
         "and ClinicBench (11 English clinical tasks, 17 datasets), or your own suite.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Click's plain help: Typer's rich help costs ~0.1 s more per `--help` (bench/cli_startup.py).
    rich_markup_mode=None,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
# Set by a command that has told the user what an interruption (Ctrl-C) saved, so `main` does not repeat it.
INTERRUPT_REPORTED = False
# Seconds between plain progress lines when stderr is not a terminal (CI logs, nohup); $CLIMEDBENCH_PROGRESS_EVERY.
PROGRESS_EVERY = 10.0

SUITE_HELP = "Benchmark: 'climedbench' (default), 'clinicbench', or a suite YAML of your own."
TASKS_HELP = ("Comma-separated task codes or group keys of the suite (`climedbench list` shows them); "
              "default: all.")
INCLUDE_HELP = ("A folder of plug-ins: every *.py in it is imported (registering loaders, extractors, metrics, "
                "aggregations; docs/SUITES.md) and --suite NAME finds NAME.yaml in it. Repeatable; also "
                "$CLIMEDBENCH_INCLUDE_PATH (folders separated by ':', ';' on Windows).")
FORCE_HELP = "Overwrite the output file if it exists (a run directory's own files are never overwritten)."


EXECUTOR_HELP = ("Where items are answered: 'local' (this process) or 'ray' (workers on a Ray cluster; "
                 "pip install 'climedbench[ray]'; see docs/DISTRIBUTED.md).")
RAY_ADDRESS_HELP = ("Ray cluster to use with --executor ray: 'auto' (the one `ray start` made here), HOST:PORT or "
                    "ray://HOST:PORT (default: start a private one on this machine).")
WORKERS_HELP = "Ray workers (one model backend each; concurrency and rate limits are split between them)."
BASE_URLS_HELP = ("OpenAI-compatible server URL, e.g. http://127.0.0.1:8000/v1; repeat it for several replicas of "
                  "the model (requests are balanced, failing endpoints backed off).")
ENDPOINTS_HELP = ("A YAML file of endpoints (url, weight, max_concurrency, rpm, tpm, api_key_env) serving the "
                  "model; see docs/DISTRIBUTED.md.")
DEPLOYMENT_HELP = ("A label for what the endpoints serve, part of the model's fingerprint instead of the server URL "
                   "(use the same one on every machine whose shards you merge).")


def include_path(value: list[Path] | None) -> list[Path] | None:
    """--include-path: import the folders' plug-ins while the command line is parsed (not at --help)."""
    if value:
        from climedbench.core.plugins import include

        include(value)
    return value


IncludePath = Annotated[list[Path] | None, typer.Option("--include-path", metavar="DIR", help=INCLUDE_HELP,
                                                        callback=include_path, show_default=False)]


def keep_examples(typer_app: typer.Typer) -> None:
    """Mark every paragraph of the commands' epilogs (the example command lines) so that click prints it as
    written instead of re-wrapping it (click's '\\b' paragraph marker)."""
    def fix(text: str | None) -> str | None:
        if not text or "\b" in text:
            return text
        return "\n\n".join("\b\n" + p.strip("\n") for p in text.strip("\n").split("\n\n") if p.strip())

    for info in typer_app.registered_commands:
        info.epilog = fix(info.epilog)
    if typer_app.registered_callback is not None:
        typer_app.registered_callback.epilog = fix(typer_app.registered_callback.epilog)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            keep_examples(group.typer_instance)


def version_callback(value: bool) -> None:
    if value:
        print(f"climedbench {__version__}")
        raise typer.Exit()


def csv_list(value: str | None) -> list[str] | None:
    """'a, b,c' → ['a', 'b', 'c']; None or '' → None."""
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def tasks_option(*values: str | None) -> list[str] | None:
    """The union of --tasks/--scenarios/--datasets, in the order given."""
    out: list[str] = []
    for v in values:
        for code in csv_list(v) or []:
            if code not in out:
                out.append(code)
    return out or None


def model_endpoints(base_urls: list[str] | None, endpoints_file: str | None, deployment: str | None
                    ) -> dict[str, Any]:
    """ModelOptions fields from repeated --base-url, --endpoints FILE and --deployment."""
    from climedbench.errors import ConfigError
    from climedbench.models.endpoints import endpoints_from_urls, load_endpoints

    urls = list(base_urls or [])
    if endpoints_file and urls:
        raise ConfigError("give --base-url or --endpoints FILE, not both")
    if endpoints_file:
        spec = load_endpoints(endpoints_file)
        return {"base_url": None, "endpoints": tuple(spec.endpoints), "deployment": deployment or spec.deployment}
    if len(urls) > 1 or (urls and deployment):
        return {"base_url": None, "endpoints": tuple(endpoints_from_urls(urls)), "deployment": deployment}
    return {"base_url": urls[0] if urls else None, "endpoints": (), "deployment": deployment}


def executor_options(executor: str, ray_address: str | None, workers: int, shard_size: int | None = None) -> Any:
    """ExecutorOptions from the command line."""
    from climedbench.executors import ExecutorOptions

    return ExecutorOptions(kind=executor, address=ray_address, workers=workers,  # type: ignore[arg-type]
                           shard_size=shard_size)


def progress_every() -> float:
    """Seconds between plain progress lines: $CLIMEDBENCH_PROGRESS_EVERY, else PROGRESS_EVERY."""
    import os

    from climedbench.errors import ConfigError

    raw = os.environ.get("CLIMEDBENCH_PROGRESS_EVERY")
    if raw is None or not raw.strip():
        return PROGRESS_EVERY
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ConfigError(f"$CLIMEDBENCH_PROGRESS_EVERY must be a number of seconds > 0, not {raw!r}")
    return value


class PlainProgress:
    """Progress as plain lines on stderr, at most one every `every` seconds (and one when all is done): what a
    log file or CI console shows instead of a live bar, which needs a terminal."""

    def __init__(self, every: float, label: str = "items") -> None:
        import time

        self.every, self.label, self._clock = every, label, time.monotonic
        self.start = self._clock()
        self.last = self.start

    def __enter__(self) -> PlainProgress:
        self.start = self.last = self._clock()
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def tick(self, done: int, total: int, code: str) -> None:
        now = self._clock()
        if done == 0:  # a (new) run starts: its own clock
            self.start = self.last = now
            return
        if total and done < total and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        eta = f", eta {_clock_text(elapsed / done * (total - done))}" if 0 < done < total else ""
        share = f" ({100 * done / total:.0f}%)" if total else ""
        err.print(f"{self.label}: {done}/{total}{share}, elapsed {_clock_text(elapsed)}{eta}"
                  + (f" [{code}]" if code else ""), highlight=False, markup=False)


def _clock_text(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def progress_bar(quiet: bool) -> tuple[Any, Callable[[int, int, str], None]]:
    """A progress bar with elapsed time and ETA on stderr, and the callback that advances it; when stderr is not
    a terminal, plain lines every few seconds instead (PlainProgress)."""
    if not quiet and not err.is_terminal:
        plain = PlainProgress(progress_every())
        return plain, plain.tick
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        console=err, disable=quiet, transient=False)
    bar: dict[str, Any] = {}

    def tick(done: int, total: int, code: str) -> None:
        if "id" not in bar:
            bar["id"] = progress.add_task("items", total=total)
        progress.update(bar["id"], completed=done, description=code or "items")

    return progress, tick


def unique_name(existing: dict[str, Any], name: str) -> str:
    """`name`, or 'name (2)', 'name (3)' … if taken."""
    n, candidate = 2, name
    while candidate in existing:
        candidate, n = f"{name} ({n})", n + 1
    return candidate


def print_json(data: Any) -> None:
    """Pretty JSON on stdout (pydantic models are dumped first)."""
    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    print(json.dumps(data, ensure_ascii=False, indent=2))


def positive(value: float | None) -> float | None:
    """An option callback: the value (when given) must be > 0 (typer's min= allows the bound itself)."""
    if value is not None and not value > 0:
        raise typer.BadParameter("Input should be greater than 0")
    return value
