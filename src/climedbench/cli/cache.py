"""`climedbench cache stats` and `cache clear`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from climedbench.cli.common import app as root
from climedbench.cli.common import out, print_json

app = typer.Typer(
    rich_markup_mode=None,
    help="The response cache: `climedbench cache stats`, `climedbench cache clear`.",
                  no_args_is_help=True)
root.add_typer(app, name="cache")


def _open_cache(path: str | None) -> Any:
    from climedbench.cache import ResponseCache, default_cache_path

    return ResponseCache(path or default_cache_path())


@app.command("stats")
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
        print_json(st)
        return
    out.print(f"{st['path']}: {st['entries']} responses, {st['bytes'] / 1e6:.1f} MB", highlight=False)
    for model, n in st["models"].items():
        out.print(f"  {n:8d}  {model}", highlight=False)


@app.command("clear", epilog="""
Examples:

  climedbench cache clear --model openai:qwen2.5-7b-instruct      # asks before deleting

  climedbench cache clear --yes                                   # no question (scripts, CI)
""")
def cache_clear(
    cache: Annotated[str | None, typer.Option(help="Cache file.")] = None,
    model: Annotated[str | None, typer.Option(help="Only this model's entries (as `cache stats` names it).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking (needed when stdin is not a "
                                                          "terminal).")] = False,
) -> None:
    """Delete cached responses (all, or one model's), after a confirmation (or with --yes)."""
    import sys

    from climedbench.errors import ConfigError

    c = _open_cache(cache)
    try:
        n = c.count(model)
        what = f"{n} cached response(s)" + (f" of {model}" if model else "") + f" from {c.path}"
        if not yes and n:
            if not sys.stdin.isatty():
                raise ConfigError(f"cache clear would delete {what}; add --yes to confirm (stdin is not a terminal, "
                                  "so it cannot ask)")
            if not typer.confirm(f"Delete {what}?", default=False):
                out.print("nothing deleted", highlight=False)
                raise typer.Exit(1)
        n = c.clear(model)
    finally:
        c.close()
    out.print(f"deleted {n} cached response(s)", highlight=False)
