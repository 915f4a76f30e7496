"""The data card of a built suite as Markdown (README.md of the suite folder), from card.json's content."""

from __future__ import annotations

import json
from typing import Any


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def card_markdown(card: dict[str, Any]) -> str:
    sim = card["similarity"]
    src = card["source_notes"]
    parts = [
        "# Data card (built by `climedbench build`)",
        "Items built from de-identified clinical notes, the CliMedBench way (paper §2.2): the key is the note's own "
        "section, distractors are other patients' segments of the same content type in a similarity band. "
        "Provenance of every item (hashed record id, segment ids, template, generator, distractor similarities) is "
        "in its `provenance` field and in `.build/candidates.jsonl`.",
        "## Items", _table(["task", "items", "test", "dev"],
                           [[t, v["items"], v["test"], v["dev"]] for t, v in card["tasks"].items()]),
        "## Specialties", _table(["specialty", "items"], [[k, v] for k, v in card["specialties"].items()]),
        "## Source notes",
        f"Records used: {src['records_used']}; dropped in preprocessing: {src['dropped']} "
        f"({', '.join(f'{k}: {v}' for k, v in src['dropped_by_reason'].items()) or 'none'}; every drop with its "
        "reason in `.build/drops.jsonl`).",
        f"Units without an item: {sum(card['skipped_units'].values())} "
        f"({'; '.join(f'{k}: {v}' for k, v in card['skipped_units'].items()) or 'none'}).",
        "## Models",
        f"Generator (LLM1): {card['models']['generator']}. Embedder for distractor similarity: "
        f"{card['models']['embedder']}."
        + (f" LLM1 outcomes: {'; '.join(f'{k}: {v}' for k, v in card['llm1'].items())}." if card.get("llm1") else "")
        + (f" Model-written distractors (single choice): "
           f"{'; '.join(f'{k}: {v}' for k, v in card['model_distractors'].items()) or 'none asked'}."
           if "model_distractors" in card else ""),
        "## Distractor similarity",
        f"Band used: {sim['band_used']}; {sim['distractors']} distractors, cosine similarity to the key "
        f"min {sim['min']}, median {sim['median']}, max {sim['max']}.",
        "## De-identification",
        "```json\n" + json.dumps(card["deidentification"], ensure_ascii=False, indent=1) + "\n```",
    ]
    if "review_rounds" in card:
        parts += review_markdown(card["review_rounds"], card.get("left_out") or {})
    if "review" in card:
        parts += ["## Review", "```json\n" + json.dumps(card["review"], ensure_ascii=False, indent=1) + "\n```"]
    parts += ["## Use", "```sh\nclimedbench validate --suite THIS_FOLDER\nclimedbench run --suite THIS_FOLDER "
              "--model ...\nclimedbench audit-items --suite THIS_FOLDER\n```"]
    return "\n\n".join(parts) + "\n"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def review_markdown(review: dict[str, Any], left_out: dict[str, int]) -> list[str]:
    """The expert review rounds: per round the sample's pass rate with its 95% interval, and the reviewers'
    agreement (Krippendorff's α with its 95% bootstrap interval) per aspect of the item-review rubric."""
    rows, alphas = [], []
    for r in review["rounds"]:
        res = r.get("pass_rate") or {}
        rows.append([r["round"], r["status"], r["queued"], r["sample"],
                     f"{res['passed']}/{res['n']}" if res.get("n") else "–", _pct(res.get("rate")),
                     f"{_pct(res.get('lower'))}–{_pct(res.get('upper'))}" if res.get("n") else "–"])
        for aspect, a in r["agreement"].items():
            alphas.append([r["round"], aspect, _num(a["alpha"]), f"{_num(a['lower'])}–{_num(a['upper'])}",
                           a["n_items"], a["n_raters"], a.get("reason") or ""])
    target = review.get("target")
    return ["## Expert review",
            f"Rounds until a fresh random sample passes dual review at ≥ {_pct(target)} ("
            f"{'the interval' + chr(39) + 's lower end' if review.get('require_lower') else 'the pass rate'}); "
            f"stopped: {review.get('stopped') or 'no'}. Left out of the export: "
            f"{', '.join(f'{k} {v}' for k, v in left_out.items()) or 'none'}.",
            _table(["round", "status", "queued", "sample", "passed", "pass rate", "95% Jeffreys"], rows),
            "Reviewers' agreement (Krippendorff's α, 95% bootstrap interval over items):",
            _table(["round", "aspect", "α", "95% interval", "items", "reviewers", "note"], alphas),
            *_pooled_markdown(review.get("agreement_pooled") or {})]


def _pooled_markdown(pooled: dict[str, Any]) -> list[str]:
    """α pooled over every round's reviews, with what it rests on."""
    if not pooled:
        return []
    rows = [[aspect, _num(a["alpha"]), f"{_num(a['lower'])}–{_num(a['upper'])}", a["n_items"], a["n_ratings"],
             a["n_raters"], a.get("reason") or ""] for aspect, a in pooled.items()]
    rounds = next(iter(pooled.values()))["rounds"]
    return [f"Pooled over all {rounds} round(s) with reviews (each item of each round one unit):",
            _table(["aspect", "α", "95% interval", "items rated twice or more", "ratings", "reviewers", "note"],
                   rows)]
