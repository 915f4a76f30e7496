"""Review rounds (`climedbench build review/refine/rounds`): the sample's pass rate with its Jeffreys interval and
the stopping rule; rejected items refined through a real OpenAI-compatible server, one prompt per failure kind,
re-runs sending nothing; a second round on a fresh sample that stops the rounds."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import beta
from typer.testing import CliRunner

from climedbench.apps.rater.store import Store, Submission
from climedbench.build.audit import current_candidates, read_jsonl
from climedbench.build.card import review_markdown
from climedbench.build.llm import load_prompt
from climedbench.build.refine import reasons_of, rejected
from climedbench.build.review_card import review_section
from climedbench.build.rounds import pass_rate, start_round, sync_round
from climedbench.cli.build_review import app
from climedbench.errors import ConfigError
from tests.support.instant_server import get_stats, instant_server, user_digest

FIXTURE = Path(__file__).parent / "fixtures" / "build_review" / "candidates.jsonl"
RATERS = ["ana", "bo", "chen"]
ASPECTS = ("accuracy", "effectiveness", "language")


def test_pass_rate_interval_and_criterion():
    r = pass_rate(18, 20)
    assert (r["rate"], r["met"]) == (0.9, True)
    assert r["lower"] == pytest.approx(beta.ppf(0.025, 18.5, 2.5), abs=1e-9)
    assert r["upper"] == pytest.approx(beta.ppf(0.975, 18.5, 2.5), abs=1e-9)
    assert pass_rate(17, 20)["met"] is False
    # Asking the interval's lower end to reach 90%: 18 of 20 is not enough (its lower end is about 0.71).
    assert beta.ppf(0.025, 18.5, 2.5) < 0.9 and pass_rate(18, 20, require_lower=True)["met"] is False
    assert pass_rate(0, 0)["met"] is False


def folder_with_audit(tmp: Path) -> Path:
    folder = tmp / "suite"
    (folder / ".build").mkdir(parents=True)
    shutil.copy(FIXTURE, folder / ".build" / "candidates.jsonl")
    result = CliRunner().invoke(app, ["audit", str(folder)])
    assert result.exit_code == 0, result.output
    return folder


def review_all(db: Path, tokens, verdict_of) -> None:
    """Every assigned reviewer submits every case of theirs (the store's own submission path, a real SQLite
    file): accept = every aspect 4, reject = medical accuracy 2 with a comment."""
    store = Store(db)
    for name, token in tokens.raters.items():
        rater = store.rater_by_token(token)
        for slot in store.slots(rater.id):
            if slot.done:
                continue
            ok = verdict_of(slot.uid) == "accept"
            scores = {(0, "accuracy"): 4 if ok else 2, (0, "effectiveness"): 4, (0, "language"): 4}
            store.submit(rater.id, slot.position, Submission(id=f"{name}-{slot.uid}", scores=scores,
                                                             comment="" if ok else "诊断依据不足"))


def test_rounds_refine_and_stop(tmp_path):
    folder = folder_with_audit(tmp_path)
    record, tokens = start_round(folder, RATERS, sample=4, seed=0)
    sample = record["sample"]
    bad_sampled = sample[0]  # reviewers reject one sampled item: 3 of 4 pass, below 90%
    review_all(folder / ".build" / "review-r1.sqlite", tokens,
               lambda u: "reject" if u.startswith("bad-") or u == bad_sampled else "accept")
    done = sync_round(folder)
    assert done["status"] == "complete" and done["result"]["passed"] == 3 and done["result"]["n"] == 4
    assert done["result"]["met"] is False
    assert json.loads((folder / ".build" / "rounds.json").read_text())["stopped"] is None

    # Refine: the expected failure kind of each rejected item, from what was planted and how it was reviewed.
    expected = {"bad-leak-stem": "leakage", "bad-leak-exam": "leakage", "bad-two-answers": "ambiguity",
                "bad-key-missing": "inconsistency", bad_sampled: "implausible"}
    excluded = {"bad-phi-name": "phi", "bad-phi-phone": "phi", "bad-duplicate": "duplicate"}
    cands = {c.id: c for c in current_candidates(folder)}
    todo = rejected(folder, list(cands.values()))
    assert set(todo) == set(expected) | set(excluded)
    audit = {(r["id"], r["revision"]): r for _, r in read_jsonl(folder / ".build" / "audit.jsonl")}
    prompt = load_prompt("refine")
    replies = {}
    for item in expected:
        kinds, reasons = reasons_of(item, 0, audit, todo[item])
        c = cands[item]
        user = prompt.messages(item=c, options=list(c.options.items()), kind=kinds[0], reasons=reasons,
                               instruction=prompt.extra["instructions"][kinds[0]])[-1]["content"]
        assert prompt.extra["instructions"][expected[item]] in user
        new = {"question": f"{c.stem}（已修改：{item}）", "options": {k: f"{v}（{item}）" for k, v in
                                                                    zip("ABCD", c.options.values(), strict=False)},
               "answer": "B"}
        if item == "bad-key-missing":
            new["answer"] = "E"  # off the schema: this refinement fails and the item stays rejected
        replies[user_digest([{"role": "user", "content": user}])] = json.dumps(new, ensure_ascii=False)
    (tmp_path / "replies.json").write_text(json.dumps(replies, ensure_ascii=False), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    runner = CliRunner()
    with instant_server(replies=tmp_path / "replies.json") as url:
        args = ["refine", str(folder), "--generator", "openai:instant-test", "--base-url", url, "--cache", str(cache)]
        first = runner.invoke(app, args)
        assert first.exit_code == 0, first.output
        assert first.output.strip() == "excluded 3, failed 1, refined 4"
        assert get_stats(url)["requests"] == 5
        again = runner.invoke(app, args)
        assert again.exit_code == 0, again.output
        assert get_stats(url)["requests"] == 5  # the failed one again, from the cache: nothing sent
    refined = {r["id"]: r for _, r in read_jsonl(folder / ".build" / "refined.jsonl")}
    assert set(refined) == set(expected) - {"bad-key-missing"}
    for item, row in refined.items():
        assert row["revision"] == 1 and row["answer"] == "B" and row["question"].endswith(f"（已修改：{item}）")
        assert row["provenance"]["record"] == cands[item].provenance["record"]
        assert row["provenance"]["refined"] == [{"from_revision": 0, "round": 1, "kind": expected[item],
                                                 "model": "instant-test", "prompt_sha256": prompt.sha256}]
    log = {(r["id"], r["outcome"]) for _, r in read_jsonl(folder / ".build" / "refine_log.jsonl")}
    assert log == {*((i, "excluded") for i in excluded), ("bad-key-missing", "failed"),
                   *((i, "refined") for i in refined)}

    # Round 2: the refined items again, and a fresh sample never reviewed before; everyone accepts.
    with pytest.raises(Exception, match="not audited in their current revision"):
        start_round(folder, RATERS, sample=4, seed=0)
    assert runner.invoke(app, ["audit", str(folder)]).exit_code == 0
    record2, tokens2 = start_round(folder, RATERS, sample=4, seed=0)
    assert set(record2["queued"]) == set(refined)
    assert len(record2["sample"]) == 4 and not set(record2["sample"]) & (set(sample) | set(record["queued"]))
    review_all(folder / ".build" / "review-r2.sqlite", tokens2, lambda u: "accept")
    done2 = sync_round(folder)
    assert done2["result"]["passed"] == done2["result"]["n"] == 4 and done2["result"]["met"] is True
    state = json.loads((folder / ".build" / "rounds.json").read_text())
    assert state["stopped"] == "reached" and [r["result"]["rate"] for r in state["rounds"]] == [0.75, 1.0]
    shown = runner.invoke(app, ["rounds", str(folder)])
    assert "sample pass rate 3/4 = 75.0%" in shown.output and "stopped: reached" in shown.output
    rows = [r for _, r in read_jsonl(folder / ".build" / "reviews.jsonl")]
    assert sorted((r["id"], r["revision"]) for r in rows if r["round"] == 2) == sorted(
        [(i, 1) for i in refined] + [(i, 0) for i in record2["sample"]])


def test_the_user_stops_the_rounds(tmp_path):
    folder = folder_with_audit(tmp_path)
    result = CliRunner().invoke(app, ["rounds", str(folder), "--stop"])
    assert result.exit_code == 0 and "stopped: user" in result.output
    with pytest.raises(ConfigError, match=r"stopped \(user\)"):
        start_round(folder, RATERS, sample=4, seed=0)


def _varied(rater: str, uid: str, aspect: str, reject: bool) -> int:
    """A reviewer's score that varies by reviewer, item and aspect (so α is neither 1 nor undefined); a rejected
    item gets 1 or 2 on medical accuracy from every reviewer (both reject: no third reviewer)."""
    h = int(hashlib.sha256(f"{rater}|{uid}|{aspect}".encode()).hexdigest(), 16)
    return 1 + h % 2 if reject and aspect == "accuracy" else 3 + h % 3


def _review_varied(db: Path, tokens, round_no: int, reject: set[str], given: list[tuple]) -> None:
    store = Store(db)
    for name, token in tokens.raters.items():
        rater = store.rater_by_token(token)
        for slot in store.slots(rater.id):
            if slot.done:
                continue
            scores = {(0, a): _varied(name, slot.uid, a, slot.uid in reject) for a in ASPECTS}
            store.submit(rater.id, slot.position, Submission(id=f"{round_no}-{name}-{slot.uid}", scores=scores,
                                                             comment="依据不足" if slot.uid in reject else ""))
            given += [(round_no, slot.uid, name, a, s) for (_, a), s in scores.items()]


def test_the_data_card_pools_alpha_over_every_rounds_reviews(tmp_path):
    folder = folder_with_audit(tmp_path)
    given: list[tuple] = []
    record, tokens = start_round(folder, RATERS, sample=4, seed=0)
    _review_varied(folder / ".build" / "review-r1.sqlite", tokens, 1, {record["sample"][0]}, given)
    assert sync_round(folder)["status"] == "complete"  # 3 of 4 pass: below 90%, the rounds go on
    record2, tokens2 = start_round(folder, RATERS, sample=4, seed=1)
    _review_varied(folder / ".build" / "review-r2.sqlite", tokens2, 2, set(), given)
    assert sync_round(folder)["status"] == "complete"

    section = review_section(folder)
    assert section is not None
    pooled = section["agreement_pooled"]
    units = sorted({(r, u) for r, u, *_ in given})
    assert {r for r, _ in units} == {1, 2} and len(units) == len(record["queued"]) + 4 + len(record2["queued"]) + 4
    for aspect in ASPECTS:
        # α computed here by the krippendorff package from the scores given, each (round, item) one unit.
        score = {(r, u, name): s for r, u, name, a, s in given if a == aspect}
        data = np.array([[score.get((r, u, name), np.nan) for r, u in units] for name in RATERS], dtype=float)
        expected = krippendorff.alpha(reliability_data=data, value_domain=[1, 2, 3, 4, 5],
                                      level_of_measurement="ordinal")
        got = pooled[aspect]
        assert got["alpha"] == pytest.approx(expected, abs=1e-9), aspect
        assert (got["n_items"], got["n_ratings"], got["n_raters"], got["rounds"]) == (
            len(units), len(score), len(RATERS), 2)
        # Pooled is not any one round's α (it rests on both rounds' items).
        per_round = [r["agreement"][aspect]["alpha"] for r in section["rounds"]]
        assert all(a != pytest.approx(expected, abs=1e-9) for a in per_round)
    shown = "\n".join(review_markdown(section, {}))
    assert "Pooled over all 2 round(s)" in shown and f"{pooled['accuracy']['alpha']:.3f}" in shown
