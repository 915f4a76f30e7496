"""Step 6 of `climedbench build`: review rounds until a fresh random sample passes dual review at ≥ 90%.

`.build/rounds.json` records every round (for the data card): its study file, the items queued because
flagged or refined, the fresh random sample, and — once every item of the round is decided — the sample's
pass rate with its 95% Jeffreys interval (climedbench.metrics.intervals). The criterion is the paper's: the
pass rate of the sample is at least the target (90%); `--require-lower` asks instead that the interval's
lower end reach it. Rounds stop when a complete round meets the criterion, or when the user stops them.
An item of the sample passes when its reviewers' decision is accept (two agreeing reviews, or the third's).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from climedbench.build.audit import build_dir, current_candidates, read_jsonl
from climedbench.build.review import audit_state, create_round_study, queue, reviewed, sync
from climedbench.errors import ConfigError, DataError
from climedbench.metrics.intervals import jeffreys

TARGET = 0.90


def state_path(out: Path) -> Path:
    return build_dir(out) / "rounds.json"


def load_state(out: Path) -> dict[str, Any]:
    path = state_path(out)
    if not path.is_file():
        return {"target": TARGET, "require_lower": False, "stopped": None, "rounds": []}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(f"unreadable ({e})", file=str(path)) from e
    if not isinstance(data, dict) or not isinstance(data.get("rounds"), list):
        raise DataError("expected an object with a 'rounds' list", file=str(path), field="rounds")
    return data


def save_state(out: Path, state: dict[str, Any]) -> None:
    path = state_path(out)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(state, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def pass_rate(passed: int, n: int, target: float = TARGET, require_lower: bool = False) -> dict[str, Any]:
    """The sample's pass rate, its 95% Jeffreys interval and whether it meets the criterion."""
    if n == 0:
        return {"n": 0, "passed": 0, "rate": None, "lower": None, "upper": None, "interval": "jeffreys 95%",
                "met": False}
    lo, hi = jeffreys(passed, n)
    rate = passed / n
    return {"n": n, "passed": passed, "rate": rate, "lower": lo, "upper": hi, "interval": "jeffreys 95%",
            "met": (lo if require_lower else rate) >= target}


def start_round(out: Path, raters: list[str], sample: int, seed: int, target: float = TARGET,
                require_lower: bool = False, lang: str = "zh") -> tuple[dict[str, Any], Any]:
    """Open the next round: its queue, its study file; returns the round record and the study's tokens."""
    state = load_state(out)
    if state.get("stopped"):
        raise ConfigError(f"the review rounds have stopped ({state['stopped']}); nothing more to review")
    if state["rounds"] and state["rounds"][-1]["status"] != "complete":
        last = state["rounds"][-1]["round"]
        raise ConfigError(f"round {last} is still open: finish its reviews (`build review --sync`) first")
    if sample < 1:
        raise ConfigError("--sample must be at least 1: the round's pass rate is measured on it")
    cands = current_candidates(out)
    flagged = audit_state(out, cands)
    round_no = len(state["rounds"]) + 1
    must, fresh = queue(cands, flagged, reviewed(out), sample, seed, round_no)
    tokens = create_round_study(out, round_no, [*must, *fresh], cands, raters, seed, lang)
    record = {"round": round_no, "study": f"review-r{round_no}.sqlite", "seed": seed, "raters": raters,
              "queued": must, "sample": fresh, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "status": "open", "result": None, "decisions": {}}
    state.update(target=target, require_lower=require_lower)
    state["rounds"].append(record)
    save_state(out, state)
    sync(out, round_no, fresh)  # the queue in reviews.jsonl at once: these revisions are now under review
    return record, tokens


def sync_round(out: Path) -> dict[str, Any]:
    """Sync the open round (third reviewers, reviews.jsonl); when every item is decided, record the sample's
    pass rate and stop the rounds if it meets the criterion. Returns the round record."""
    state = load_state(out)
    if not state["rounds"]:
        raise ConfigError("no review round yet (start one with `climedbench build review --raters …`)")
    record = state["rounds"][-1]
    report = sync(out, record["round"], record["sample"])
    record["decisions"] = report["decisions"]
    record["third_assigned"] = {**record.get("third_assigned", {}), **report["third_assigned"]}
    open_ = {k: v for k, v in report["decisions"].items() if k in ("pending", "needs_third")}
    if not open_ and record["status"] != "complete":
        rows = [r for _, r in read_jsonl(build_dir(out) / "reviews.jsonl") if r["round"] == record["round"]]
        sampled = [r for r in rows if r["in_sample"]]
        record["result"] = pass_rate(sum(r["decision"] == "accept" for r in sampled), len(sampled),
                                     state["target"], state["require_lower"])
        record["status"] = "complete"
        if record["result"]["met"]:
            state["stopped"] = "reached"
    save_state(out, state)
    return record


def stop(out: Path) -> dict[str, Any]:
    """The user stops the rounds (the state says so; the data card reports the last complete round)."""
    state = load_state(out)
    state["stopped"] = state.get("stopped") or "user"
    save_state(out, state)
    return state
