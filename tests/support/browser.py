"""Headless Debian Chromium driven by Playwright (executable_path); shared by the browser tests.

Playwright's own browser downloads are never used: `make test` installs Debian's chromium when it is missing, and a
missing browser is a test failure, not a skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium keeps trying to reach Google's hosts on a closed network.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """A real headless Chromium; raises (fails the test) when the browser is not installed."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: run `make browser` (Debian packages chromium, chromium-driver)")
    # Playwright gives every launch its own fresh temporary profile.
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
