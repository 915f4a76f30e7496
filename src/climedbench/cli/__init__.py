"""The `climedbench` command line: one module per command group, each thin (parse, call the library, print)."""

from __future__ import annotations

import logging
import sys
import traceback
from typing import Annotated

import typer

from climedbench.cli.common import app, err, version_callback
from climedbench.errors import ClimedError

DEBUG = False


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Evaluate large language models on clinical benchmarks: CliMedBench (14 Chinese clinical scenarios),
    ClinicBench (11 English clinical tasks, 17 datasets), or a suite of your own.

    Run `climedbench run` for a quick demo (bundled data, embedded model, no server, no key);
    `climedbench list` shows the suites. Add `--debug` anywhere for full tracebacks.
    """


# Command modules register themselves on `app` when imported (order = order in --help).
from climedbench.cli import evaluate, results, report, mps, cache, irt, cat, analyze, rate, distributed  # noqa: E402,F401,I001


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
    try:
        app(prog_name="climedbench")
    except ClimedError as e:
        if DEBUG:
            traceback.print_exc()
        err.print(f"[red]error:[/red] {escape(redact(str(e)))}", highlight=False)  # messages may hold [brackets]
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted; finished items are saved — re-run the same command to resume")
        sys.exit(130)
    except Exception as e:  # an unexpected failure: one line, the traceback only with --debug
        if DEBUG:
            traceback.print_exc()
        err.print(f"[red]internal error:[/red] {type(e).__name__}: {escape(redact(str(e)))} "
                  "(re-run with --debug for the traceback)", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
