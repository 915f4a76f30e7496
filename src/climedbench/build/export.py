"""Export: the candidates of a build (all but `rejected` and `revised` ones, with the expert review's verdicts from
`.build/reviews.jsonl` as their status: review_card.py; a refined revision a later round accepted in place of the
item as built: revisions.py) as a suite folder that `validate`, `list`, `run`,
`audit-items`, `irt` and `cat` take with `--suite SUITE_DIR` and nothing else:

    SUITE_DIR/suite.yaml          the built tasks (CliMedBench's task definitions for Chinese items, the
                                  templates' English ones for English items), loader climedbench_official
    SUITE_DIR/demo/FILE.test.jsonl, FILE.dev.jsonl
                                  items in the official format; `demo/` is where a suite keeps the data it
                                  runs on without --data; each item keeps its provenance (never shown to a model)
    SUITE_DIR/card.json, README.md
                                  the data card

The dev split (few-shot examples) is one item in five per task, chosen by a hash of the item id (at least one when
a task has five or more items). Deterministic: no model.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from climedbench.build.candidates import BUILD_DIR, Candidate, load_candidates
from climedbench.build.scenarios import load_scenarios
from climedbench.build.state import BuildState
from climedbench.errors import DataError

DATA = "demo"


# The bundled suite whose scenarios the bundled templates build (their prompts and metrics are taken from it).
SOURCE_SUITE = "climedbench"


def _bundled_suite() -> dict[str, Any]:
    from climedbench.core.suite import bundled_root

    text = (bundled_root(SOURCE_SUITE) / "suite.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def split_of(cands: list[Candidate]) -> dict[str, str]:
    """candidate id → 'dev' or 'test' (one in five to dev, by a hash of the id)."""
    order = sorted(cands, key=lambda c: hashlib.sha256(c.candidate_id.encode()).hexdigest())
    n_dev = len(cands) // 5
    return {c.candidate_id: ("dev" if i < n_dev else "test") for i, c in enumerate(order)}


def _task_defs(tasks: list[str], templates: Path | None) -> list[dict[str, Any]]:
    bundled = {t["code"]: t for t in _bundled_suite()["tasks"]}
    by_task: dict[str, tuple[str, Any]] = {}
    for sc in load_scenarios(templates).values():
        for spec in sc.languages.values():
            by_task[spec.task] = (sc.scenario, spec)
    out = []
    for code in tasks:
        scenario, spec = by_task[code]
        if spec.task_def == "bundled":
            d = {k: v for k, v in bundled[scenario].items() if k != "official_size"}
        else:
            d = dict(spec.task_def)
        d.update(code=code, files=[spec.file])
        out.append(d)
    return out


def export_suite(suite_dir: Path, name: str = "hospital-built", title: str | None = None) -> dict[str, Any]:
    """Write the suite folder from the build's candidates; returns the data card."""
    state = BuildState(suite_dir)
    settings = state.settings() or {}
    from climedbench.build.review_card import NOT_EXPORTED, review_statuses

    reviewed = review_statuses(suite_dir) if (suite_dir / BUILD_DIR / "reviews.jsonl").is_file() else {}
    every = [replace(c, status=reviewed.get(c.candidate_id, c.status)) for c in load_candidates(suite_dir)]
    cands = [c for c in every if c.status not in NOT_EXPORTED]
    from climedbench.build.revisions import accepted_revisions, revision_provenance, with_revision

    revs = accepted_revisions(suite_dir, reviewed) if reviewed else {}
    cands = [with_revision(c, revs[c.candidate_id]) if c.candidate_id in revs else c for c in cands]
    if not cands:
        raise DataError(f"{suite_dir}: no candidates to export (run `climedbench build NOTES --out {suite_dir}` first)")
    by_task: dict[str, list[Candidate]] = {}
    for c in sorted(cands, key=lambda c: c.candidate_id):
        by_task.setdefault(c.task, []).append(c)
    data = suite_dir / DATA
    data.mkdir(parents=True, exist_ok=True)
    for old in data.glob("*.jsonl"):
        old.unlink()
    templates = Path(settings["templates"]) if settings.get("templates") else None
    order = list(load_scenarios(templates))  # the templates' own order (their file names)
    defs = _task_defs(sorted(by_task, key=lambda code: _task_order(code, order)), templates)
    for d in defs:
        group = by_task[d["code"]]
        splits = split_of(group)
        for split in ("test", "dev"):
            rows = [{**c.item, "split": split, "status": c.status,
                     "provenance": {**_prov(c), **revision_provenance(revs.get(c.candidate_id))}}
                    for c in group if splits[c.candidate_id] == split]
            if rows:
                (data / f"{d['files'][0]}.{split}.jsonl").write_text(
                    "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    base = _bundled_suite()
    suite = {"suite": name, "version": "1", "title": title or f"{name} (built by climedbench build)",
             "language": "zh", "loader": "climedbench_official", "overall": "mean_of_tasks",
             "levels": base["levels"], "groups": base["groups"], "roles": base["roles"], "tasks": defs}
    header = ("# Built by `climedbench build` from de-identified notes; see README.md (the data card) and\n"
              "# .build/ (candidates, provenance, drops). Chinese tasks use CliMedBench's task definitions.\n")
    (suite_dir / "suite.yaml").write_text(header + yaml.safe_dump(suite, allow_unicode=True, sort_keys=False,
                                                                  width=120), encoding="utf-8")
    card = data_card(suite_dir, by_task, settings, state)
    card["left_out"] = dict(Counter(c.status for c in every if c.status in NOT_EXPORTED))
    (suite_dir / "card.json").write_text(json.dumps(card, ensure_ascii=False, indent=1), encoding="utf-8")
    from climedbench.build.card import card_markdown

    (suite_dir / "README.md").write_text(card_markdown(card), encoding="utf-8")
    return card


def _task_order(code: str, order: list[str]) -> tuple[int, str]:
    base = code.removesuffix("-en")
    return (order.index(base) if base in order else len(order), code)


def _prov(c: Candidate) -> dict[str, Any]:
    p = c.provenance
    out: dict[str, Any] = {
        "record": p.record, "segments": p.segments, "key_segment": p.key_segment, "template": p.template,
        "generator": p.generator, "prompt_hash": p.prompt_hash, "band": p.band,
        "distractors": [{"record": d.record, "segment": d.segment, "similarity": d.similarity}
                        for d in p.distractors]}
    if p.distractors_from is not None:
        out["distractors_from"] = p.distractors_from
    return out


def data_card(suite_dir: Path, by_task: dict[str, list[Candidate]], settings: dict[str, Any], state: BuildState
              ) -> dict[str, Any]:
    all_c = [c for group in by_task.values() for c in group]
    sims = [d.similarity for c in all_c for d in c.provenance.distractors]
    los = [c.provenance.band[0] for c in all_c if c.provenance.band]
    drops = state.drops()
    units = state.units.values()
    skipped = Counter(f"{u['unit'].split('|')[0]}: {u['skipped']}" for u in units if "skipped" in u)
    card: dict[str, Any] = {
        "built_by": "climedbench build",
        "tasks": {t: {"items": len(g), "test": sum(1 for s in split_of(g).values() if s == "test"),
                      "dev": sum(1 for s in split_of(g).values() if s == "dev")} for t, g in by_task.items()},
        "specialties": dict(Counter(c.specialty or "unknown" for c in all_c).most_common()),
        "source_notes": {"records_used": len({c.provenance.record for c in all_c}),
                         "dropped": len(drops), "dropped_by_reason": dict(Counter(d["reason"] for d in drops))},
        "skipped_units": dict(skipped),
        "statuses": dict(Counter(c.status for c in all_c)),
        "models": {"generator": settings.get("generator") or "none (rule-based)",
                   "embedder": settings.get("embedder")},
        "similarity": {"configured": "per template (its distractors: lo/hi/floor)",
                       "band_used": [min(los), max(c.provenance.band[1] for c in all_c if c.provenance.band)]
                       if los else None,
                       "distractors": len(sims),
                       "min": min(sims) if sims else None, "median": statistics.median(sims) if sims else None,
                       "max": max(sims) if sims else None},
        "templates": settings.get("scenarios"), "guidelines": settings.get("guidelines"),
        "llm1": dict(Counter(n for c in all_c for n in c.provenance.notes if n.startswith("LLM1"))),
    }
    if settings.get("distractors") == "model":  # --distractors model: how many items got the model's
        card["model_distractors"] = dict(Counter(n for c in all_c for n in c.provenance.notes
                                                 if n.startswith("model distractors")))
    source = Path(settings["source"]) if settings.get("source") else None
    report = next((p for p in ([source / "deid_report.json", source.parent / "deid_report.json"] if source else [])
                   if p.exists()), None)
    if report is not None:
        r = json.loads(report.read_text(encoding="utf-8"))
        card["deidentification"] = {"tool": r.get("tool"), "mode": r.get("mode"), "notes": r.get("notes"),
                                    "withheld": len(r.get("withheld") or []), "totals": r.get("totals"),
                                    "needs_review": len(r.get("needs_review") or [])}
    else:
        card["deidentification"] = "no deid_report.json beside the notes (built with --already-deidentified?)"
    extra = suite_dir / BUILD_DIR / "review_summary.json"
    if extra.exists():  # written by the review steps (audit, expert review, rounds) when they ran
        card["review"] = json.loads(extra.read_text(encoding="utf-8"))
    from climedbench.build.review_card import review_section

    rounds = review_section(suite_dir)
    if rounds is not None:
        card["review_rounds"] = rounds
    return card
