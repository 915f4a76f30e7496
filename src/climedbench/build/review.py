"""Step 5 of `climedbench build`: the expert review queue, as a study of the rater app (apps/rater).

- The queue of a round: every item flagged by the audit or refined since, whose current revision no one has
  reviewed yet, plus a random sample (seeded per round) of unflagged items never reviewed — the sample on
  which the round's pass rate is measured (`rounds.py`).
- The study: the item-review rubric (`item`: medical accuracy, assessment effectiveness, language; 3 =
  acceptable), every item to **two** reviewers (balanced loads), each reviewer's personal link.
- A review **accepts** the item when it is not flagged as a problem and every aspect is rated acceptable or
  better; otherwise it rejects it. Two reviews that disagree bring in a **third** reviewer (the one of the
  study's other reviewers with the fewest cases), whose review decides.
- `sync` reads the study file, assigns third reviewers, and writes every review (verdict, scores, comment)
  with its item to `.build/reviews.jsonl`; re-running it changes nothing that is already there.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.build.audit import Candidate, build_dir, current_candidates, read_jsonl, write_jsonl
from climedbench.errors import ConfigError, DataError

PER_ITEM = 2


def study_path(out: Path, round_no: int) -> Path:
    return build_dir(out) / f"review-r{round_no}.sqlite"


def audit_state(out: Path, cands: Sequence[Candidate]) -> dict[str, bool]:
    """Flagged or not, per item id, from `.build/audit.jsonl`; an error when an item's current revision has
    not been audited."""
    path = build_dir(out) / "audit.jsonl"
    if not path.is_file():
        raise DataError("no audit yet (run `climedbench build audit` first)", file=str(path))
    rows = {(r["id"], r.get("revision", 0)): bool(r["flagged"]) for _, r in read_jsonl(path)}
    missing = [c.id for c in cands if (c.id, c.revision) not in rows]
    if missing:
        raise DataError(f"{len(missing)} item(s) not audited in their current revision (e.g. {missing[0]}); "
                        "run `climedbench build audit` again", file=str(path))
    return {c.id: rows[(c.id, c.revision)] for c in cands}


def reviewed(out: Path) -> dict[str, set[int]]:
    """The revisions of each item that a round has put before reviewers."""
    path = build_dir(out) / "reviews.jsonl"
    done: dict[str, set[int]] = {}
    if path.is_file():
        for _, r in read_jsonl(path):
            done.setdefault(r["id"], set()).add(int(r.get("revision", 0)))
    return done


def queue(cands: Sequence[Candidate], flagged: dict[str, bool], seen: dict[str, set[int]], sample: int,
          seed: int, round_no: int) -> tuple[list[str], list[str]]:
    """(ids to review because flagged or refined, ids of the fresh random sample), both in file order."""
    must = [c.id for c in cands if c.revision not in seen.get(c.id, set()) and (flagged[c.id] or c.revision > 0)]
    fresh = [c.id for c in cands if not flagged[c.id] and c.id not in seen and c.id not in must]
    chosen = set(random.Random(f"{seed}/sample/{round_no}").sample(fresh, min(sample, len(fresh))))
    return must, [i for i in fresh if i in chosen]


def create_round_study(out: Path, round_no: int, ids: Sequence[str], cands: Sequence[Candidate],
                       raters: list[str], seed: int, lang: str = "zh") -> Any:
    """The rater-app study of one round; returns its tokens (shown once)."""
    from climedbench.apps.rater.design import Case, CaseContent, Source, plan_study
    from climedbench.apps.rater.rubric import load_rubric
    from climedbench.apps.rater.store import create_study

    if len(raters) < PER_ITEM + 1:
        raise ConfigError(f"--raters: give at least {PER_ITEM + 1} reviewers (two per item and a third on "
                          "disagreement)")
    by_id = {c.id: c for c in cands}
    cases = [Case(content=CaseContent(uid=i, task=by_id[i].code, task_name=by_id[i].code, input=by_id[i].stem,
                                      options=dict(by_id[i].options), key=by_id[i].answer)) for i in ids]
    if not cases:
        raise DataError("nothing to review in this round: no flagged or refined item is waiting and no unreviewed "
                        "item is left to sample", file=str(build_dir(out) / "audit.jsonl"))
    plan = plan_study(cases, rubric=load_rubric("item"), raters=raters, per_item=PER_ITEM, per_task=0, seed=seed,
                      source=Source(kind="items", paths=[str(build_dir(out) / "candidates.jsonl")],
                                    suite="climedbench"),
                      title=f"Item review, round {round_no}", lang=lang)
    return create_study(study_path(out, round_no), plan)


@dataclass
class Review:
    rater: str
    verdict: str  # accept | reject
    scores: dict[str, int]
    comment: str
    flagged: bool


def reviews_of(db: Path) -> tuple[dict[str, list[str]], dict[str, list[Review]], int]:
    """From a study file: the raters assigned to each item (in order), the reviews done, the acceptable score."""
    from climedbench.apps.rater.store import Store

    store = Store(db)
    rubric = store.study().rubric
    acceptable = rubric.acceptable if rubric.acceptable is not None else rubric.aspects[0].high
    assigned: dict[str, list[str]] = {}
    done: set[tuple[str, str]] = set()
    for uid, rater, is_done in store.assignments():
        assigned.setdefault(uid, []).append(rater)
        if is_done:
            done.add((uid, rater))
    scores: dict[tuple[str, str], dict[str, int]] = {}
    for r in store.ratings():
        scores.setdefault((r.item, r.rater), {})[r.aspect] = int(r.score)
    notes = {(n.item, n.rater): n for n in store.notes()}
    out: dict[str, list[Review]] = {}
    for uid, rater in sorted(done, key=lambda k: assigned[k[0]].index(k[1])):
        got = scores.get((uid, rater), {})
        note = notes.get((uid, rater))
        flagged = bool(note and note.flagged)
        ok = not flagged and all(got.get(a.key, 0) >= acceptable for a in rubric.aspects)
        out.setdefault(uid, []).append(Review(rater, "accept" if ok else "reject", got,
                                              note.comment if note else "", flagged))
    return assigned, out, acceptable


def decide(reviews: Sequence[Review]) -> str:
    """accept / reject when two reviews agree or a third breaks the tie; pending otherwise; needs_third when the
    first two disagree and no third review is in."""
    verdicts = [r.verdict for r in reviews]
    if len(verdicts) < 2:
        return "pending"
    if verdicts[0] == verdicts[1]:
        return verdicts[0]
    if len(verdicts) < 3:
        return "needs_third"
    return max(("accept", "reject"), key=verdicts.count)


def third_reviewer(assigned: dict[str, list[str]], raters: Sequence[str], uid: str) -> str | None:
    """The study's reviewer not yet on the item with the fewest cases (ties: the study's order)."""
    load = {r: 0 for r in raters}
    for names in assigned.values():
        for n in names:
            load[n] = load.get(n, 0) + 1
    free = [r for r in raters if r not in assigned[uid]]
    return min(free, key=lambda r: (load[r], raters.index(r))) if free else None


def sync(out: Path, round_no: int, sample: Sequence[str]) -> dict[str, Any]:
    """Read a round's study: assign a third reviewer to every item whose two reviews disagree, and write the
    round's reviews with their items to `.build/reviews.jsonl` (other rounds' rows are kept). Returns the count
    of items per decision and the third reviewers assigned now, {item: rater}."""
    from climedbench.apps.rater.store import Store

    db = study_path(out, round_no)
    store = Store(db)
    raters = store.study().raters
    assigned, reviews, _ = reviews_of(db)
    added: dict[str, str] = {}
    for uid in assigned:
        if decide(reviews.get(uid, [])) == "needs_third" and len(assigned[uid]) == PER_ITEM:
            rater = third_reviewer(assigned, raters, uid)
            if rater is not None and store.add_assignment(uid, rater):
                assigned[uid].append(rater)
                added[uid] = rater
    revisions = {c.id: c.revision for c in current_candidates(out)}
    in_sample = set(sample)
    path = build_dir(out) / "reviews.jsonl"
    kept = [r for _, r in read_jsonl(path) if r.get("round") != round_no] if path.is_file() else []
    rows = []
    counts: dict[str, int] = {}
    for uid, names in assigned.items():
        decision = decide(reviews.get(uid, []))
        counts[decision] = counts.get(decision, 0) + 1
        rows.append({"id": uid, "revision": revisions.get(uid, 0), "round": round_no, "in_sample": uid in in_sample,
                     "reviewers": names, "decision": decision,
                     "reviews": [r.__dict__ for r in reviews.get(uid, [])]})
    write_jsonl(path, [*kept, *rows])
    return {"decisions": counts, "third_assigned": added}
