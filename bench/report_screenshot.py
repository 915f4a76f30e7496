"""Screenshots of the HTML report (docs/img/report.png and docs/img/report-samples.png) in headless Chromium.

    python bench/report_screenshot.py RUN... [--paper] [--analyses DIR] [--lang en|zh] [--out docs/img]

Builds `climedbench report RUN... --html` into a temporary folder, opens it from disk in /usr/bin/chromium and saves
the top of the page (leaderboard and radar) and the sample browser. Chinese text needs a CJK font on the machine
(e.g. Debian's fonts-wqy-microhei or fonts-noto-cjk); Chromium reads FONTCONFIG_FILE, so a font unpacked elsewhere
can be used without installing it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.browser import chromium  # noqa: E402


def wait_until(page, expression: str, timeout: float = 60.0) -> None:
    """Poll from here (the page's Content-Security-Policy forbids the eval() of Playwright's wait_for_function)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--paper", action="store_true")
    ap.add_argument("--analyses", default=None)
    ap.add_argument("--lang", default="en", choices=["en", "zh"])
    ap.add_argument("--task", default="BKT", help="the task shown in the sample browser shot")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        cmd = [sys.executable, "-m", "climedbench.cli", "report", *args.runs, "--html", str(html)]
        cmd += ["--paper"] if args.paper else []
        cmd += ["--analyses", args.analyses] if args.analyses else []
        subprocess.run(cmd, check=True)
        args.out.mkdir(parents=True, exist_ok=True)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
            page.goto(html.as_uri())
            wait_until(page, "window.climedbenchReport && window.climedbenchReport.ready")
            page.click(f'button[data-set-lang="{args.lang}"]')
            page.evaluate("document.querySelector('header.top').style.position = 'static'")
            bottom = page.evaluate("document.querySelector('#fig-radar').getBoundingClientRect().bottom + scrollY")
            page.screenshot(path=str(args.out / "report.png"), clip={"x": 0, "y": 0, "width": 1280,
                                                                      "height": bottom + 8}, full_page=True)
            meta = page.evaluate("JSON.parse(document.getElementById('report-meta').textContent)")
            codes = [t["code"] for t in meta["tasks"]]
            if args.task in codes:
                before = page.evaluate("window.climedbenchReport.renders")
                page.select_option("#s-task", str(codes.index(args.task)))
                wait_until(page, f"window.climedbenchReport.renders > {before}")
            top = page.evaluate("document.querySelector('#samples').getBoundingClientRect().top + scrollY")
            page.screenshot(path=str(args.out / "report-samples.png"),
                            clip={"x": 0, "y": top - 8, "width": 1280, "height": 1000}, full_page=True)
    print(f"wrote {args.out / 'report.png'} and {args.out / 'report-samples.png'}")


if __name__ == "__main__":
    main()
