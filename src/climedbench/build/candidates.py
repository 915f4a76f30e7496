"""The candidate items of a build and their file, `SUITE_DIR/.build/candidates.jsonl` (schema: docs/BUILD.md).

One JSON object per line. `item` is the item exactly as the exported suite holds it (CliMedBench's official
format: `## 标题:` sections, lettered options, a letter or order as `reference`); the other fields are the
build's own: scenario, language, provenance (hashed source ids, segment ids, template, generator, prompt hash,
distractors with their similarity) and a status that review steps may change (`candidate`, `accepted`,
`rejected`, `revised`). A line cut short by a kill is skipped on reading (it is regenerated on the next run).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from climedbench.errors import DataError

BUILD_DIR = ".build"
CANDIDATES = "candidates.jsonl"
STATUSES = ("candidate", "accepted", "rejected", "revised")


@dataclass
class Distractor:
    """An option taken from another patient's segment of the same content type."""

    text: str
    record: str  # hashed record id of the other patient's note
    segment: str  # its segment id
    similarity: float  # cosine similarity to the key (the embedder in provenance)


@dataclass
class Provenance:
    record: str  # hashed source record id
    patient: str  # hashed patient id
    segments: list[str]  # segment ids the stem and key come from
    key_segment: str
    template: str  # scenario template id@sha256[:12] of its file
    generator: str  # 'none' (rule-based) or the LLM1 model's name
    prompt_hash: str | None  # sha256[:16] of the LLM1 prompt template, None without a generator
    embedder: str | None = None
    band: list[float] | None = None  # the similarity band actually used for this item's distractors
    distractors: list[Distractor] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the generator changed (e.g. sentences removed as leaks)
    # --distractors model only (absent from the JSON otherwise): {"source": "model" | "records", "model",
    # "prompt_hash", "fallback": why the model's were not used}
    distractors_from: dict[str, Any] | None = None


@dataclass
class Candidate:
    """One generated item with its provenance."""

    candidate_id: str
    scenario: str  # the scenario code of its template
    task: str  # task code in the exported suite (the scenario code, "-en" added for English)
    lang: str
    specialty: str | None
    item: dict[str, Any]  # the official-format record (id, scenario, input, reference, specialty, source, ...)
    provenance: Provenance
    status: str = "candidate"
    round: int = 0  # review rounds may raise it when they rewrite an item

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        if d["provenance"]["distractors_from"] is None:  # builds without model distractors: the same bytes
            del d["provenance"]["distractors_from"]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Candidate:
        p = dict(d["provenance"])
        p["distractors"] = [Distractor(**x) for x in p.get("distractors") or []]
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__ and k != "provenance"}
        return cls(**known, provenance=Provenance(**p))


def candidates_path(suite_dir: str | Path) -> Path:
    return Path(suite_dir) / BUILD_DIR / CANDIDATES


def load_candidates(suite_dir: str | Path) -> list[Candidate]:
    """Every candidate of a build folder, in file order; the last line of an id wins (a rewrite replaces it)."""
    path = candidates_path(suite_dir)
    if not path.exists():
        return []
    out: dict[str, Candidate] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            if i == len(lines):  # the last line, cut short by a kill: regenerated on the next run
                continue
            raise DataError(f"not valid JSON ({e.msg})", file=str(path), line=i) from None
        try:
            cand = Candidate.from_json(data)
        except (KeyError, TypeError) as e:
            raise DataError(f"not a candidate ({type(e).__name__}: {e})", file=str(path), line=i) from None
        if cand.status not in STATUSES:
            raise DataError(f"unknown status {cand.status!r} (use {', '.join(STATUSES)})", file=str(path), line=i,
                            field="status")
        out[cand.candidate_id] = cand
    return list(out.values())


def append_candidate(suite_dir: str | Path, cand: Candidate) -> None:
    """Add one candidate as one line, flushed to disk before returning (a kill afterwards loses nothing)."""
    path = candidates_path(suite_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    _repair_tail(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(cand.to_json(), ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def write_items(suite_dir: str | Path, items: Iterable[Candidate]) -> None:
    """Replace or add candidates by id (a review verdict, a refined item), rewriting the file atomically; the
    candidates not named keep their place and content."""
    current = {c.candidate_id: c for c in load_candidates(suite_dir)}
    for c in items:
        if c.status not in STATUSES:
            raise DataError(f"candidate {c.candidate_id}: unknown status {c.status!r}")
        current[c.candidate_id] = c
    path = candidates_path(suite_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as fh:
        for c in current.values():
            fh.write(json.dumps(c.to_json(), ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def _repair_tail(path: Path) -> None:
    """Cut a last line left without its newline by a kill, so the next line starts clean."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        data = path.read_bytes()
        fh.truncate(data.rfind(b"\n") + 1)
