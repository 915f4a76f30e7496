"""Step 6 of `climedbench build`: rejected items go back to the generator model with their reasons.

For every item whose current revision the reviewers rejected, the reasons are gathered — the audit's findings
(rules and LLM2) and the reviewers' comments and low scores (medical accuracy → implausible, assessment
effectiveness → leakage, language → ambiguity) — and the item is sent to the refine prompt
(`build/prompts/refine.yaml`) with the instruction for its failure kind: the first of KIND_ORDER among the
audit's findings (they name the problem precisely), else among the reviewers'. The reply (constrained to a JSON
schema) becomes the item's next revision in `.build/refined.jsonl`, with its
provenance kept and the refinement recorded; the next round's audit and review see it.

Not sent to a model: items with a PHI remnant (the source note's de-identification must be fixed and the
item built again: sending it would spread the identifier) and near-duplicates (dropped). Both are recorded
as excluded. Every request goes through the response cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from climedbench.build.audit import Candidate, build_dir, current_candidates, read_jsonl, write_jsonl
from climedbench.errors import DataError

KIND_ORDER = ("phi", "duplicate", "inconsistency", "implausible", "ambiguity", "leakage", "cue", "reviewer")
EXCLUDED = {"phi": "a PHI remnant: fix the source note's de-identification and build the item again",
            "duplicate": "a near-duplicate of another item: dropped"}
ASPECT_KIND = {"accuracy": "implausible", "effectiveness": "leakage", "language": "ambiguity"}


def rejected(out: Path, cands: Sequence[Candidate]) -> dict[str, list[dict[str, Any]]]:
    """The reviews of every item whose current revision was rejected (its latest review row), by id."""
    path = build_dir(out) / "reviews.jsonl"
    if not path.is_file():
        raise DataError("no reviews yet (run `climedbench build review` first)", file=str(path))
    current = {c.id: c.revision for c in cands}
    latest: dict[str, dict[str, Any]] = {}
    for _, row in read_jsonl(path):
        if current.get(row["id"]) == row.get("revision", 0):
            latest[row["id"]] = row
    return {i: r["reviews"] for i, r in latest.items() if r["decision"] == "reject"}


def reasons_of(item_id: str, revision: int, audit: dict[tuple[str, int], dict[str, Any]],
               reviews: Sequence[dict[str, Any]], acceptable: int = 3) -> tuple[list[str], list[str]]:
    """(failure kinds, reasons in words) of one rejected item: the audit's kinds first (they name the problem
    precisely), then the kinds the reviewers' low scores stand for, each group in KIND_ORDER."""
    found: list[str] = []
    said: list[str] = []
    reasons: list[str] = []
    for f in (audit.get((item_id, revision)) or {}).get("findings", []):
        found.append(f["kind"])
        reasons.append(f"[{'审核模型' if f['source'] == 'llm' else '规则'} {f['kind']}] {f['detail']}")
    for r in reviews:
        if r["verdict"] != "reject":
            continue
        low = [a for a, s in r["scores"].items() if s < acceptable]
        said += [ASPECT_KIND.get(a, "reviewer") for a in low] or ["reviewer"]
        text = f"[专家] {'、'.join(low) + ' 低于可接受' if low else '标记为有问题'}"
        reasons.append(text + (f"：{r['comment']}" if r["comment"] else ""))
    ordered = [k for k in KIND_ORDER if k in found]
    ordered += [k for k in KIND_ORDER if k in said and k not in ordered]
    return ordered or ["reviewer"], reasons


def check_refined(data: dict[str, Any]) -> str | None:
    """What is wrong with a refined item the schema cannot say (None: nothing)."""
    texts = [v.strip() for v in data["options"].values()]
    if len(set(texts)) < len(texts):
        return "two options have the same text"
    if data["answer"] not in data["options"]:
        return f"the key {data['answer']} is not an option"
    return None


async def refine(out: Path, backend: Any, cache: Any, prompt: str | Path = "refine",
                 round_no: int | None = None) -> dict[str, Any]:
    """Refine every rejected item once; append the new revisions to `.build/refined.jsonl` and a log row per
    item to `.build/refine_log.jsonl`. Returns counts: refined, excluded, failed (an unusable reply)."""
    from climedbench.build.llm import ask_all, load_prompt

    pf = load_prompt(prompt)
    cands = current_candidates(out)
    by_id = {c.id: c for c in cands}
    todo = rejected(out, cands)
    audit_path = build_dir(out) / "audit.jsonl"
    audit = {(r["id"], r.get("revision", 0)): r for _, r in read_jsonl(audit_path)} if audit_path.is_file() else {}
    plans = []
    log: list[dict[str, Any]] = []
    for item_id, reviews in todo.items():
        c = by_id[item_id]
        kinds, reasons = reasons_of(item_id, c.revision, audit, reviews)
        if kinds[0] in EXCLUDED:
            log.append({"id": item_id, "revision": c.revision, "kind": kinds[0], "outcome": "excluded",
                        "why": EXCLUDED[kinds[0]]})
        else:
            plans.append((c, kinds[0], reasons))
    instructions = pf.extra.get("instructions") or {}
    contexts = [{"item": c, "options": list(c.options.items()), "kind": kind, "reasons": reasons,
                 "instruction": instructions.get(kind, instructions.get("reviewer", ""))}
                for c, kind, reasons in plans]
    replies = await ask_all(backend, pf, contexts, cache) if contexts else []
    new: list[dict[str, Any]] = []
    for (c, kind, reasons), reply in zip(plans, replies, strict=True):
        problem = reply.problem or (check_refined(reply.data) if reply.data is not None else None)
        row = {"id": c.id, "revision": c.revision, "kind": kind, "reasons": reasons}
        if problem is not None or reply.data is None:
            log.append({**row, "outcome": "failed", "why": problem})
            continue
        prov = {**c.provenance, "refined": [*c.provenance.get("refined", []), {
            "from_revision": c.revision, "round": round_no, "kind": kind, "model": backend.name,
            "prompt_sha256": pf.sha256}]}
        done = replace(c, question=reply.data["question"], options=dict(reply.data["options"]),
                       answer=reply.data["answer"], provenance=prov, revision=c.revision + 1)
        new.append(done.to_json())
        log.append({**row, "outcome": "refined", "cached": reply.cached})
    refined_path = build_dir(out) / "refined.jsonl"
    old = [r for _, r in read_jsonl(refined_path)] if refined_path.is_file() else []
    write_jsonl(refined_path, [*old, *new])
    log_path = build_dir(out) / "refine_log.jsonl"
    old_log = [r for _, r in read_jsonl(log_path)] if log_path.is_file() else []
    logged = {(r["id"], r["revision"], r["outcome"]) for r in old_log}
    write_jsonl(log_path, [*old_log, *(r for r in log if (r["id"], r["revision"], r["outcome"]) not in logged)])
    counts: dict[str, int] = {}
    for r in log:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts
