"""Fixtures of the report tests: three real runs, an analyses folder, the built page, a real headless Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.report.runs import ReportRuns, make_runs

EVIL_SVG = """<?xml version="1.0" encoding="utf-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100"
     viewBox="0 0 200 100" onload="window.__pwned = 'svg-onload'">
  <style>body { display: none }</style>
  <script>window.__pwned = 'svg-script'</script>
  <defs><clipPath id="clip1"><rect x="0" y="0" width="200" height="100"/></clipPath></defs>
  <g id="bars" clip-path="url(#clip1)">
    <rect x="10" y="10" width="50" height="80" fill="#0072B2" onclick="window.__pwned = 'click'"/>
    <rect x="70" y="30" width="50" height="60" fill="#E69F00" style="fill: url(http://127.0.0.1:9/x.png)"/>
  </g>
  <image href="http://127.0.0.1:9/tracker.png" width="10" height="10"/>
  <use xlink:href="http://127.0.0.1:9/sprite.svg#icon"/>
  <a href="javascript:window.__pwned = 'link'"><text x="10" y="95">click</text></a>
  <foreignObject width="100" height="50"><div xmlns="http://www.w3.org/1999/xhtml">
    <img src="http://127.0.0.1:9/fo.png" onerror="window.__pwned = 'fo'"/></div></foreignObject>
  <text x="130" y="50">&lt;script&gt;label&lt;/script&gt;</text>
</svg>
"""
EVIL_RECORD = {
    "analysis": "ratings", "version": 1, "title": "Expert ratings <script>window.__pwned = 'title'</script>",
    "created_at": "2026-11-26T00:00:00+00:00", "suite": "climedbench", "inputs": ["<b>runs/a</b>"],
    "table": {"columns": ["model", "<i>mean</i>", "n"], "rows": [["<img src=x onerror=\"window.__pwned='cell'\">",
                                                                 4.25, 12], ["plain", None, 3]]},
    "notes": ["<script>window.__pwned = 'note'</script> a note"], "data": {},
}


@dataclass
class Opened:
    """A page of the report in Chromium, with everything it logged."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def csp_violations(self) -> list[str]:
        return list(self.page.evaluate("window.__csp || []"))


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> ReportRuns:
    return make_runs(tmp_path_factory.mktemp("report-runs"))


@pytest.fixture(scope="session")
def analyses_dir(runs: ReportRuns, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `analyze compare` (records compare and ranks with their figures) and a hostile record of a new kind."""
    from climedbench.analyses.compare import analyze_compare, analyze_ranks
    from climedbench.analyses.record import write_record
    from climedbench.analyses.runs import load_runs

    out = tmp_path_factory.mktemp("analyses")
    loaded = load_runs([runs.alpha, runs.beta])
    for record, figure in (analyze_compare(loaded, replicates=200), analyze_ranks(loaded, replicates=200)):
        write_record(record, out, figure)
    (out / "ratings.json").write_text(json.dumps(EVIL_RECORD, ensure_ascii=False), encoding="utf-8")
    (out / "ratings.svg").write_text(EVIL_SVG, encoding="utf-8")
    (out / "index.json").write_text(json.dumps({"analyses": [{"kind": "ranks", "json": "ranks.json"}],
                                                "skipped": ["cot: no CoT run"]}), encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def report_html(runs: ReportRuns, analyses_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the three runs, the paper's Table 2 and the analyses folder, built in-process."""
    from climedbench.report.build import build_page
    from climedbench.report.render import write_html

    path = tmp_path_factory.mktemp("report") / "report.html"
    # A block of 5 items: the 13 BKT items span three blocks, so paging decodes more than one.
    write_html(build_page(runs.all, analyses=analyses_dir, paper=True, block_size=5), path)
    return path


@pytest.fixture(scope="package")  # closed with this package: Playwright's sync API holds an event loop
def browser() -> Iterator[Any]:
    from tests.support.browser import chromium

    with chromium() as b:
        yield b


CSP_LISTENER = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
                "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")


def wait_until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Poll a JS expression from here: Playwright's wait_for_function evaluates its predicate with eval() inside
    the page, which the report's Content-Security-Policy forbids (as it should)."""
    import time

    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)


def open_page(browser: Any, url: str) -> Iterator[Opened]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    opened = Opened(page)
    page.on("console", lambda m: opened.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: opened.page_errors.append(str(e)))
    page.on("request", lambda r: opened.requests.append(r.url))
    page.add_init_script(CSP_LISTENER)
    page.goto(url)
    wait_until(page, "window.climedbenchReport && window.climedbenchReport.ready")
    try:
        yield opened
    finally:
        context.close()


@pytest.fixture
def opened(browser: Any, report_html: Path) -> Iterator[Opened]:
    """The report opened from disk (file://) in a fresh browser context."""
    yield from open_page(browser, report_html.as_uri())
