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


@app.command("clear")
def cache_clear(
    cache: Annotated[str | None, typer.Option(help="Cache file.")] = None,
    model: Annotated[str | None, typer.Option(help="Only this model's entries (as `cache stats` names it).")] = None,
) -> None:
    """Delete cached responses (all, or one model's)."""
    c = _open_cache(cache)
    n = c.clear(model)
    c.close()
    out.print(f"deleted {n} cached response(s)", highlight=False)
