"""The `climedbench` command line: one module per command group, each thin (parse, call the library, print)."""

from __future__ import annotations

import importlib
import logging
import os
import signal
import sys
import threading
import traceback
from typing import Annotated, Any

import typer

from climedbench.cli import common
from climedbench.cli.common import err, version_callback
from climedbench.errors import ClimedError

DEBUG = False


@common.app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Evaluate large language models on clinical benchmarks: CliMedBench (14 Chinese clinical scenarios),
    ClinicBench (11 English clinical tasks, 17 datasets), or a suite of your own.

    Run `climedbench run` for a quick demo (bundled data, embedded model, no server, no key);
    `climedbench list` shows the suites. Add `--debug` anywhere for full tracebacks.
    """


# Command modules register themselves on the app when imported (this order = the order in --help).
MODULES = ("evaluate", "items", "results", "report", "mps", "cache", "irt", "cat", "analyze", "rate", "distributed",
           "deid", "build")
# The module of each command: a command line that names one imports only that module, because Typer builds every
# registered command's parameters on each call (tests/test_cli_startup.py checks this table against the modules).
COMMANDS = {
    "run": "evaluate", "validate": "items", "list": "items", "extract": "evaluate", "score": "evaluate",
    "aggregate": "evaluate", "audit-items": "items", "leaderboard": "results", "report": "report", "mps": "mps",
    "cache": "cache", "irt": "irt", "cat": "cat", "analyze": "analyze", "perturb": "analyze", "nota": "analyze",
    "rate": "rate", "merge": "distributed", "deid": "deid", "build": "build",
}


# `climedbench build audit|review|refine|rounds …`: the review steps of a build, a command group of their own
# (cli/build_review.py) reached through `build`, whose first argument is otherwise the notes folder.
BUILD_STEPS = ("audit", "review", "refine", "rounds")


def build_step(argv: list[str]) -> list[str] | None:
    """The arguments for cli/build_review's app when `argv` is `build STEP …`; else None."""
    words = [a for a in argv if not a.startswith("-")]
    if len(words) >= 2 and words[0] == "build" and words[1] in BUILD_STEPS and argv.index(words[1]) == 1:
        return argv[1:]
    return None


def load_commands(argv: list[str] | None = None) -> typer.Typer:
    """The app with the commands `argv` needs (all of them without argv or for an unknown command)."""
    first = next((a for a in argv if not a.startswith("-")), None) if argv is not None else None
    for name in [COMMANDS[first]] if first in COMMANDS else MODULES:
        importlib.import_module(f"climedbench.cli.{name}")
    common.keep_examples(common.app)
    return common.app


def __getattr__(name: str) -> Any:
    """`from climedbench.cli import app`: the app with every command."""
    if name == "app":
        return load_commands()
    raise AttributeError(name)


_MAIN_PID = os.getpid()  # the command's own process (forked workers have other ids)


def _terminate_like_ctrl_c(signum: int, frame: Any) -> None:
    """SIGTERM (`kill`, `timeout`, a batch scheduler's time limit, `docker stop`) ends a command as Ctrl-C does:
    what is finished is saved, the command says how to resume, exit code 130, and temporary files (a run's item
    spool) are removed. The work is handed to whatever handles SIGINT at this moment (asyncio's, which cancels
    the run, or Python's, which raises KeyboardInterrupt). Where nothing does (SIGINT ignored, as in a background
    job of a script) or in a forked worker process, SIGTERM ends the process at once, as it did before."""
    on_sigint = signal.getsignal(signal.SIGINT)
    if os.getpid() != _MAIN_PID or not callable(on_sigint):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    on_sigint(signal.SIGINT, frame)


def main() -> None:
    """Entry point: user errors become one clear line and a non-zero exit; --debug shows tracebacks."""
    global DEBUG
    from rich.markup import escape

    from climedbench.secrets import install_log_redaction, redact

    if "--debug" in sys.argv[1:]:
        DEBUG = True
        sys.argv = [a for a in sys.argv if a != "--debug"]
    logging.basicConfig(level=logging.DEBUG if DEBUG else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminate_like_ctrl_c)
    try:
        step = build_step(sys.argv[1:])
        if step is not None:
            from climedbench.cli.build_review import app as steps

            steps(args=step, prog_name="climedbench build")
        else:
            load_commands(sys.argv[1:])(prog_name="climedbench")
    except SystemExit as e:
        # Typer turns Ctrl-C into a silent exit 130; say what happened unless the command already did.
        if e.code == 130 and not common.INTERRUPT_REPORTED:
            err.print("interrupted; what was finished is saved — re-run the same command to resume")
        raise
    except BaseException as raised:  # every failure ends as one line (or a traceback with --debug)
        cause = root_cause(raised)
        if DEBUG:
            traceback.print_exception(raised)
        if isinstance(cause, ClimedError):
            err.print(f"[red]error:[/red] {escape(redact(str(cause)))}", highlight=False)  # may hold [brackets]
            sys.exit(cause.exit_code)
        if isinstance(cause, KeyboardInterrupt):
            err.print("interrupted; what was finished is saved — re-run the same command to resume")
            sys.exit(130)
        # An unexpected failure: one line, the traceback only with --debug.
        err.print(f"[red]internal error:[/red] {type(cause).__name__}: {escape(redact(str(cause)))} "
                  "(re-run with --debug for the traceback)", highlight=False)
        sys.exit(1)


def root_cause(e: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, as raised by asyncio task groups: a task that
    failed, not the sibling tasks cancelled because of it."""
    import asyncio

    while isinstance(e, BaseExceptionGroup):
        leaves = [x for x in e.exceptions if not isinstance(x, asyncio.CancelledError)]
        user = [x for x in leaves if isinstance(root_cause(x), ClimedError)]
        e = (user or leaves or list(e.exceptions))[0]
    return e

if __name__ == "__main__":
    main()
