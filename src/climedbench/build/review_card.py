"""What the expert review rounds (review.py, rounds.py) give the export and its data card.

- `review_statuses`: each reviewed item's status from `.build/reviews.jsonl` — its latest decided review
  (highest revision, then round): accept → `accepted`, reject → `rejected`, whatever the revision decided. An item
  refined since its latest decision (`.build/refined.jsonl` holds a later revision) is `revised` until a round
  decides that revision: the export leaves it out. An accepted refined revision is exported in place of the item
  as built (revisions.py). Items no round decided keep their status (`candidate`).
- `review_section`: for the data card, per round the queue, the decisions and the sample's pass rate with its
  95% Jeffreys interval (`.build/rounds.json`), and the reviewers' agreement per aspect of the item-review
  rubric — Krippendorff's α with its bootstrap interval, computed by the rater app's analysis
  (`climedbench rate agreement --db .build/review-rN.sqlite` gives the same figures); and the same α pooled over
  every round's reviews (`pooled_agreement`): an item reviewed in two rounds counts as two units (its revision
  may differ), with the numbers of items, reviewers and ratings the pooled α rests on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from climedbench.build.audit import build_dir, current_candidates, read_jsonl

DECIDED = {"accept": "accepted", "reject": "rejected"}
NOT_EXPORTED = ("rejected", "revised")


def review_statuses(out: Path) -> dict[str, str]:
    """item id → accepted | rejected | revised, for the items a review round decided."""
    path = build_dir(out) / "reviews.jsonl"
    if not path.is_file():
        return {}
    latest: dict[str, tuple[tuple[int, int], str]] = {}
    for _, row in read_jsonl(path):
        if row.get("decision") not in DECIDED:
            continue
        key = (int(row.get("revision", 0)), int(row.get("round", 0)))
        if row["id"] not in latest or key >= latest[row["id"]][0]:
            latest[row["id"]] = (key, row["decision"])
    current = {c.id: c.revision for c in current_candidates(out)}
    statuses = {}
    for uid, ((revision, _), decision) in latest.items():
        statuses[uid] = "revised" if current.get(uid, 0) > revision else DECIDED[decision]
    return statuses


def round_agreement(db: Path, replicates: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Krippendorff's α per aspect of one round's study (the rater app's `agreement`)."""
    from climedbench.apps.rater.analysis import agreement
    from climedbench.apps.rater.store import Store

    store = Store(db)
    ratings = store.ratings()
    if not ratings:
        return {}
    result = agreement(ratings, rubric=store.study().rubric, replicates=replicates, seed=seed)
    return {aspect: {"alpha": a.alpha, "lower": a.lower, "upper": a.upper, "n_items": a.n_items,
                     "n_raters": a.n_raters, "level": a.level, "reason": a.reason} for aspect, a in result.items()}


def pooled_agreement(dbs: list[tuple[int, Path]], replicates: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Krippendorff's α per aspect over the reviews of every round (the `krippendorff` package, as per round),
    each (round, item) one unit; `n_items` (units rated at least twice), `n_ratings` and `n_raters` say what it
    rests on, `rounds` how many rounds had ratings."""
    from climedbench.apps.rater.analysis import by_aspect, domain_of, krippendorff_alpha
    from climedbench.apps.rater.store import Store

    ratings, rubric, rounds = [], None, 0
    for round_no, db in dbs:
        store = Store(db)
        got = store.ratings()
        if got:
            rounds += 1
            rubric = rubric or store.study().rubric
            ratings += [r.model_copy(update={"item": f"r{round_no}|{r.item}"}) for r in got]
    if not ratings:
        return {}
    level = rubric.level if rubric is not None else "ordinal"
    out = {}
    for aspect, rs in by_aspect(ratings).items():
        a = krippendorff_alpha(rs, domain_of(rs, rubric, aspect), level, replicates=replicates, seed=seed)
        out[aspect] = {"alpha": a.alpha, "lower": a.lower, "upper": a.upper, "n_items": a.n_items,
                       "n_raters": a.n_raters, "n_ratings": a.n_ratings, "rounds": rounds, "level": a.level,
                       "reason": a.reason}
    return out


def review_section(out: Path) -> dict[str, Any] | None:
    """The data card's account of the review rounds; None when no round was started."""
    from climedbench.build.rounds import load_state, state_path

    if not state_path(out).is_file():
        return None
    state = load_state(out)
    rounds = []
    for r in state["rounds"]:
        db = build_dir(out) / r["study"]
        rounds.append({"round": r["round"], "status": r["status"], "queued": len(r["queued"]),
                       "sample": len(r["sample"]), "decisions": r.get("decisions", {}),
                       "pass_rate": r.get("result"),
                       "agreement": round_agreement(db) if db.is_file() else {}})
    dbs = [(r["round"], build_dir(out) / r["study"]) for r in state["rounds"]]
    return {"target": state.get("target"), "require_lower": state.get("require_lower"),
            "stopped": state.get("stopped"), "rounds": rounds,
            "agreement_pooled": pooled_agreement([(n, db) for n, db in dbs if db.is_file()])}
