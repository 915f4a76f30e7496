"""`climedbench build` end to end through expert review: build from de-identified notes → audit → a review round
rated by three simulated reviewers through the real rater app in real headless Chromium, accepting some items and
rejecting others → `build review --sync` → `build export`: the suite holds every accepted and every unreviewed
item and none of the rejected, runs against a real OpenAI-compatible server, and its data card carries the round's
pass rate with its Jeffreys interval, the reviewers' Krippendorff's α (checked against the `krippendorff` package
on the ratings the reviewers gave) and the de-identification report's totals."""

from __future__ import annotations

import hashlib
import json
import re

import krippendorff
import numpy as np
import pytest
from scipy.stats import beta

from tests.support.browser import chromium
from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server
from tests.support.rater_server import rater_server

RATERS = ("ana", "bo", "chen")
ASPECTS = ("accuracy", "effectiveness", "language")


def _h(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest(), 16)


def score(rater: str, uid: str, aspect: str, rejected: set[str]) -> int:
    """A reviewer's score: rejected items get 1 or 2 on medical accuracy (below the rubric's acceptable 3);
    otherwise 3, 4 or 5, varying by reviewer so that agreement is not perfect."""
    if uid in rejected and aspect == "accuracy":
        return 1 + _h(rater, uid, aspect) % 2
    return 3 + _h(rater, uid, aspect) % 3


def rate_all(page, base: str, rater: str, rejected: set[str]) -> list[str]:
    """Rate every case on a reviewer's link by clicking; returns the items rated."""
    done = []
    page.goto(base)
    while not page.url.endswith("/done"):
        uid = page.input_value("input[name=case]")
        for field in page.eval_on_selector_all("[data-row]", "rows => rows.map(r => r.dataset.field)"):
            value = score(rater, uid, field.rsplit(":", 1)[-1], rejected)
            page.click(f'label.point:has(input[name="{field}"][value="{value}"])')
        before = page.url
        page.click("#save")
        page.wait_for_url(lambda u, before=before: u != before)
        done.append(uid)
    return done


def test_reviewed_build_exports_accepted_and_unreviewed_items_only(build_notes, tmp_path):
    suite = tmp_path / "suite"
    run_cli("build", str(build_notes), "--out", str(suite), "--scenarios", "ID#2,ID#4")
    built = [json.loads(x) for x in (suite / ".build" / "candidates.jsonl").read_text("utf-8").splitlines()]
    all_ids = {c["candidate_id"] for c in built}
    assert len(all_ids) >= 12
    run_cli("build", "audit", str(suite), "--phi", "off")
    started = run_cli("build", "review", str(suite), "--raters", ",".join(RATERS), "--sample", "5").stdout
    tokens = dict(re.findall(r"^  (\w+): http://127\.0\.0\.1:8765/r/(\S+)$", started, re.M))
    record = json.loads((suite / ".build" / "rounds.json").read_text("utf-8"))["rounds"][0]
    queued, sample = sorted(record["queued"]), sorted(record["sample"])
    assert len(sample) == 5 and set(queued + sample) < all_ids
    # Reject every other flagged item and the first sampled one; accept the rest of the round.
    rejected = set(queued[::2]) | {sample[0]}

    rated: dict[str, list[str]] = {}
    with chromium() as browser, rater_server(suite / ".build" / "review-r1.sqlite") as server:
        page = browser.new_page()
        for r in RATERS:
            rated[r] = rate_all(page, f"{server.url}/r/{tokens[r]}", r, rejected)
    assert sorted(u for us in rated.values() for u in us) == sorted(2 * (queued + sample))

    run_cli("build", "review", str(suite), "--sync")
    run_cli("build", "export", "--out", str(suite))

    exported = [json.loads(x) for p in sorted((suite / "demo").glob("*.jsonl"))
                for x in p.read_text("utf-8").splitlines()]
    item_of = {c["item"]["id"]: c["candidate_id"] for c in built}
    got = {item_of[x["id"]]: x["status"] for x in exported}
    assert set(got) == all_ids - rejected
    assert got == {u: ("accepted" if u in set(queued + sample) else "candidate") for u in all_ids - rejected}

    card = json.loads((suite / "card.json").read_text("utf-8"))
    assert card["left_out"] == {"rejected": len(rejected)}
    passed = len(sample) - 1
    res = card["review_rounds"]["rounds"][0]["pass_rate"]
    assert (res["passed"], res["n"], res["rate"]) == (passed, 5, passed / 5)
    assert res["lower"] == pytest.approx(beta.ppf(0.025, passed + 0.5, 5 - passed + 0.5), abs=1e-9)
    assert res["upper"] == pytest.approx(beta.ppf(0.975, passed + 0.5, 5 - passed + 0.5), abs=1e-9)
    # α per aspect, computed here by the krippendorff package from the scores the reviewers clicked.
    units = sorted(queued + sample)
    agreement = card["review_rounds"]["rounds"][0]["agreement"]
    for aspect in ASPECTS:
        data = np.array([[score(r, u, aspect, rejected) if u in rated[r] else np.nan for u in units]
                         for r in RATERS], dtype=float)
        expected = krippendorff.alpha(reliability_data=data, value_domain=[1, 2, 3, 4, 5],
                                      level_of_measurement="ordinal")
        assert agreement[aspect]["alpha"] == pytest.approx(expected, abs=1e-9), aspect
        assert agreement[aspect]["n_items"] == len(units)
    report = json.loads((build_notes / "deid_report.json").read_text("utf-8"))
    assert card["deidentification"]["totals"] == report["totals"]
    readme = (suite / "README.md").read_text("utf-8")
    assert "## Expert review" in readme and f"{agreement['accuracy']['alpha']:.3f}" in readme

    run_cli("validate", "--suite", str(suite))
    n_test = sum(1 for x in exported if x["split"] == "test")
    with instant_server() as url:
        run_cli("run", "--suite", str(suite), "--model", "openai:instant-test", "--base-url", url, "--limit", "0",
                "--out", str(tmp_path / "run"))
        assert get_stats(url)["requests"] == n_test
    results = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    assert sum(t["n"] for t in results["tasks"].values()) == n_test
    assert all(t["complete"] for t in results["tasks"].values())
