"""`climedbench build review`: a review round is a study of the real rater app; three simulated reviewers rate
through the real pages in a real headless Chromium; two reviews that disagree bring in the third reviewer,
whose link then shows the item; every verdict and comment ends up with its item in `.build/reviews.jsonl`, and the
finished round's sample pass rate, with its Jeffreys interval, stops the rounds."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from scipy.stats import beta
from typer.testing import CliRunner

from climedbench.apps.rater.store import Store
from climedbench.cli.build_review import app
from tests.support.browser import chromium
from tests.support.rater_server import rater_server

FIXTURE = Path(__file__).parent / "fixtures" / "build_review" / "candidates.jsonl"
RATERS = ("ana", "bo", "chen")


def truth(uid: str) -> str:
    """What a careful reviewer decides: the planted items (bad-…) are rejected, the others accepted."""
    return "reject" if uid.startswith("bad-") else "accept"


def rate_all(page, base: str, verdict_of) -> list[tuple[str, str]]:
    """Rate every case still to do on a reviewer's link, by clicking; returns (item, verdict) in order."""
    done = []
    page.goto(base)
    while not page.url.endswith("/done"):
        uid = page.input_value("input[name=case]")
        verdict = verdict_of(uid)
        fields = page.eval_on_selector_all("[data-row]", "rows => rows.map(r => r.dataset.field)")
        for field in fields:
            low = verdict == "reject" and field.endswith(":accuracy")
            page.click(f'label.point:has(input[name="{field}"][value="{2 if low else 4}"])')
        if verdict == "reject":
            page.fill("#comment", f"{uid}：标准答案或题干有问题")
        if verdict == "reject" and "phi" in uid:
            page.check("#flag")
        before = page.url
        page.click("#save")
        page.wait_for_url(lambda u, before=before: u != before)
        done.append((uid, verdict))
    return done


def test_two_reviewers_a_third_on_disagreement_through_the_real_app(tmp_path):
    folder = tmp_path / "suite"
    (folder / ".build").mkdir(parents=True)
    shutil.copy(FIXTURE, folder / ".build" / "candidates.jsonl")
    runner = CliRunner()
    # (The audit runs before the browser starts: Playwright's sync API keeps an event loop running.)
    assert runner.invoke(app, ["audit", str(folder)]).exit_code == 0
    started = runner.invoke(app, ["review", str(folder), "--raters", ",".join(RATERS), "--sample", "4"])
    assert started.exit_code == 0, started.output
    tokens = dict(re.findall(r"^  (\w+): http://127\.0\.0\.1:8765/r/(\S+)$", started.output, re.M))
    assert set(tokens) == set(RATERS)
    state = json.loads((folder / ".build" / "rounds.json").read_text())
    record = state["rounds"][0]
    queued, sample = record["queued"], record["sample"]
    # The seven items the rules flagged, and four unflagged ones drawn at random.
    assert sorted(queued) == sorted(["bad-leak-stem", "bad-leak-exam", "bad-phi-name", "bad-phi-phone",
                                     "bad-two-answers", "bad-duplicate", "bad-key-missing"])
    assert len(sample) == 4 and all(i.startswith("ok-") for i in sample)

    db = folder / ".build" / "review-r1.sqlite"
    first_two = {}
    for uid, rater, _ in Store(db).assignments():
        first_two.setdefault(uid, []).append(rater)
    assert sorted(first_two) == sorted(queued + sample) and all(len(v) == 2 for v in first_two.values())
    # ana disagrees with the truth on one planted item and one sampled item she reviews.
    contrary = {next(u for u in queued if "ana" in first_two[u]), next(u for u in sample if "ana" in first_two[u])}

    def policy(rater):
        return lambda uid: ({"accept": "reject", "reject": "accept"}[truth(uid)] if rater == "ana" and uid in contrary
                            else truth(uid))

    with chromium() as browser, rater_server(db) as server:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        rated = {r: rate_all(page, f"{server.url}/r/{tokens[r]}", policy(r)) for r in RATERS}
        assert {r: len(v) for r, v in rated.items()} == {r: sum(r in v for v in first_two.values()) for r in RATERS}

        synced = runner.invoke(app, ["review", str(folder), "--sync"])
        assert synced.exit_code == 0, synced.output
        record = json.loads((folder / ".build" / "rounds.json").read_text())["rounds"][0]
        expected_third = {u: next(r for r in RATERS if r not in first_two[u]) for u in contrary}
        assert record["third_assigned"] == expected_third
        assert record["status"] == "open" and record["decisions"] == {"needs_third": 2, "accept": 3, "reject": 6}

        # The third reviewers' own links now open the item; they decide it.
        third = {r: rate_all(page, f"{server.url}/r/{tokens[r]}", policy(r)) for r in set(expected_third.values())}
        assert sorted(x for v in third.values() for x, _ in v) == sorted(contrary)
        ctx.close()

    synced = runner.invoke(app, ["review", str(folder), "--sync"])
    assert synced.exit_code == 0, synced.output
    rows = {r["id"]: r for r in map(json.loads, (folder / ".build" / "reviews.jsonl").read_text().splitlines())}
    assert sorted(rows) == sorted(queued + sample)
    for uid, row in rows.items():
        assert row["decision"] == truth(uid), uid
        who = [r["rater"] for r in row["reviews"]]
        assert who == first_two[uid] + ([expected_third[uid]] if uid in contrary else [])
        for review in row["reviews"]:
            said = policy(review["rater"])(uid)
            assert review["verdict"] == said
            assert review["comment"] == (f"{uid}：标准答案或题干有问题" if said == "reject" else "")
            assert review["flagged"] == (said == "reject" and "phi" in uid)
            assert review["scores"]["accuracy"] == (2 if said == "reject" else 4)
    # Every sampled item passed (4 of 4): the round meets the 90% criterion and the rounds stop.
    state = json.loads((folder / ".build" / "rounds.json").read_text())
    result = state["rounds"][0]["result"]
    assert (result["passed"], result["n"], result["rate"], result["upper"]) == (4, 4, 1.0, 1.0)
    assert result["lower"] == pytest.approx(beta.ppf(0.025, 4.5, 0.5), abs=1e-9)
    assert result["met"] and state["stopped"] == "reached"
    again = runner.invoke(app, ["review", str(folder), "--raters", ",".join(RATERS)])
    assert again.exit_code != 0 and "stopped (reached)" in str(again.exception)
