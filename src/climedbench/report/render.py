"""Render a `ReportPage` into one self-contained HTML file (Jinja2, autoescaped).

Scripts, styles and figures are inline; nothing is fetched from a network. A Content-Security-Policy in the page
allows only its own script (by hash), inline styles and `data:` images, so even text that escaped escaping could
neither run nor load anything.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from climedbench.errors import ConfigError
from climedbench.report.page import ReportPage


@cache
def asset(name: str) -> str:
    return resources.files("climedbench.report").joinpath("assets", name).read_text(encoding="utf-8")


def csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return ("default-src 'none'; "
            f"script-src 'sha256-{digest}'; "
            "style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src data:; "
            "base-uri 'none'; form-action 'none'")


def _environment() -> Any:
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters["num"] = lambda v, d=1: "" if v is None else f"{v:.{d}f}"
    return env


def meta_of(page: ReportPage) -> dict[str, Any]:
    """What the page's script reads (tojson escapes it for the <script> element)."""
    s = page.samples
    return {
        "language": page.language,
        "languages": page.languages,
        "runs": [{"key": r.key, "name": r.name} for r in s.runs],
        "tasks": [t.model_dump() for t in s.tasks],
    }


def _parts(page: ReportPage) -> Iterator[str]:
    """The page's text, piece by piece (a large sample browser is never held twice in memory)."""
    script = asset("report.js")
    if "</script" in script.lower():
        raise RuntimeError("report.js must not contain '</script'")
    template = _environment().from_string(asset("report.html.j2"))
    return template.generate(page=page, css=asset("report.css"), script=script, csp=csp(script), meta=meta_of(page))


def write_html(page: ReportPage, path: Path) -> int:
    """Write the page (atomically: a temporary file renamed into place); returns its size in bytes."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    size = 0
    try:
        with tmp.open("wb") as fh:
            for part in _parts(page):
                data = part.encode("utf-8")
                fh.write(data)
                size += len(data)
        os.replace(tmp, path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write the report: {e.strerror or e}") from e
    finally:
        tmp.unlink(missing_ok=True)
    return size
