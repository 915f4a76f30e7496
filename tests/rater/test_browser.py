"""A rater in a real headless Chromium (Debian's, via Playwright) rates through the real pages of a real server
process: keyboard shortcuts, mouse clicks, a double click, a comment, a flag; the server is SIGKILLed in the
middle and started again on the same SQLite file; the stored ratings are exactly what was clicked. The pages
are also checked on a phone-sized screen."""

from __future__ import annotations

import csv
import io
import sqlite3

import pytest

from climedbench.apps.rater.store import Store
from tests.rater.helpers import MODELS, make_study
from tests.support.browser import chromium
from tests.support.rater_server import rater_server


def fields_of(page) -> list[str]:
    return page.eval_on_selector_all("[data-row]", "rows => rows.map(r => r.dataset.field)")


def visible_text_ok(page) -> None:
    """Nothing in the page ran markup from the data, and no model name is shown."""
    assert page.evaluate("typeof window.__xss") == "undefined"
    body = page.inner_text("body")
    assert not any(m in body for m in MODELS)


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_rate_in_a_browser_through_a_kill_and_restart(tmp_path, browser):
    db, tokens = make_study(tmp_path, n=3, raters=2, per_item=2)
    token = tokens.raters["rater-1"]
    clicked: dict[tuple[str, str], int] = {}
    errors: list[str] = []
    with rater_server(db) as server:
        base = f"{server.url}/r/{token}"
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base)
        page.wait_for_url(f"{base}/1")
        assert page.inner_text("#progress").endswith("0 / 3")

        # Case 1: keyboard only (digits score the highlighted aspect and move on; Enter saves).
        visible_text_ok(page)
        case = page.input_value("input[name=case]")
        for k, field in enumerate(fields_of(page)):
            value = 1 + k % 5
            page.keyboard.press(str(value))
            clicked[(case, field)] = value
        for (_, field), value in clicked.items():
            assert page.is_checked(f'input[name="{field}"][value="{value}"]')
        page.keyboard.press("Enter")
        page.wait_for_url(f"{base}/2")
        assert page.inner_text("#progress").endswith("1 / 3")

        # Case 2: mouse clicks on the scale points, a comment with markup, and a double click on Save.
        visible_text_ok(page)
        case = page.input_value("input[name=case]")
        for k, field in enumerate(fields_of(page)):
            value = 5 - k % 5
            page.click(f'label.point:has(input[name="{field}"][value="{value}"])')
            clicked[(case, field)] = value
        page.fill("#comment", "<b>参考答案</b> needs a source")
        page.dblclick("#save")
        page.wait_for_url(f"{base}/3")

        # The server dies without warning while case 3 is on the screen, and comes back on the same file.
        server.kill()
        server.start()
        page.reload()
        assert page.inner_text("#progress").endswith("2 / 3")
        page.goto(base)
        page.wait_for_url(f"{base}/3")  # the link resumes where the rater stopped

        # Case 3: flag it (f) and rate only two aspects; a flagged case may be saved incomplete.
        visible_text_ok(page)
        case = page.input_value("input[name=case]")
        page.keyboard.press("f")
        for field, value in zip(fields_of(page)[:2], (2, 3), strict=True):
            page.keyboard.press(str(value))
            clicked[(case, field)] = value
        page.keyboard.press("Enter")
        page.wait_for_url(f"{base}/done")
        assert page.is_visible("#all-done")

        # Going back shows the saved ratings again.
        page.goto(f"{base}/1")
        assert page.is_visible("#saved-badge")
        first = [(f, v) for (c, f), v in clicked.items() if c == page.input_value("input[name=case]")]
        assert all(page.is_checked(f'input[name="{f}"][value="{v}"]') for f, v in first)
        # The item whose text holds markup shows it as text (every rater-1 page was checked that none of it ran).
        cases = {}
        for position in (1, 2, 3):
            page.goto(f"{base}/{position}")
            elements = page.locator("#case-input *").count()
            cases[page.input_value("input[name=case]")] = (page.inner_text("#case-input"), elements)
        text, elements = cases["WTD/test/WTD-001"]
        assert '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><b>加粗</b>' in text
        assert elements == 0
        # The admin's export, fetched by the browser from the restarted server.
        exported = page.request.get(f"{server.url}/admin/{tokens.admin}/ratings.csv")
        assert exported.ok
        rows = list(csv.DictReader(io.StringIO(exported.text())))
        ctx.close()
    assert errors == []
    stored = {(r["item"], f"s:{r['answer']}:{r['aspect']}"): int(r["score"]) for r in rows if r["rater"] == "rater-1"}
    assert stored == clicked
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM submissions WHERE rater_id = 1").fetchone() == (3,)
    notes = {(n.item, n.flagged, n.comment) for n in Store(db).notes()}
    assert len(notes) == 2 and any(n[2] == "<b>参考答案</b> needs a source" for n in notes)
    assert any(n[1] for n in notes)


def test_the_pages_fit_a_phone_and_take_taps(tmp_path, browser):
    db, tokens = make_study(tmp_path, n=2, raters=1, per_item=1)
    token = tokens.raters["rater-1"]
    with rater_server(db) as server:
        # (screen, a phone?, anchors listed under the buttons rather than inside them)
        for viewport, mobile, listed in (({"width": 390, "height": 844}, True, True),
                                         ({"width": 1366, "height": 768}, False, False)):
            ctx = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile)
            page = ctx.new_page()
            page.goto(f"{server.url}/r/{token}/1")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            assert page.locator(".anchors").first.is_visible() == listed
            assert page.locator(".point .anchor").first.is_visible() == (not listed)
            field = fields_of(page)[0]
            point = page.locator(f'label.point:has(input[name="{field}"][value="4"])')
            box = point.bounding_box()
            assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= viewport["width"]
            if mobile:
                point.tap()
            else:
                point.click()
            assert page.is_checked(f'input[name="{field}"][value="4"]')
            save = page.locator("#save").bounding_box()
            assert save is not None and save["x"] + save["width"] <= viewport["width"]
            ctx.close()
