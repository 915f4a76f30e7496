"""The refined revisions the review rounds accepted, as `build export` writes them.

`build refine` writes a rejected item's next revision to `.build/refined.jsonl` (a stem, lettered options and a
key); when a later round's latest decided review accepts that revision (review_card.review_statuses: status
`accepted` with revision > 0), the export writes its text in place of the item as built: same item id, same
provenance, plus the revision number and the refinements made (provenance `revision`, `refined`). A refined
revision no round has decided yet stays `revised` and is left out.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from climedbench.build.audit import Candidate as Revision
from climedbench.build.audit import build_dir, current_candidates
from climedbench.build.candidates import Candidate

_OPTIONS = re.compile(r"##\s*(?:选项|备选答案|答案选项|Options)\s*[:：]\s*")


def accepted_revisions(out: Path, statuses: dict[str, str]) -> dict[str, Revision]:
    """item id → its refined revision (> 0), for the items whose latest decided review accepted it."""
    if not (build_dir(out) / "refined.jsonl").is_file():
        return {}
    return {c.id: c for c in current_candidates(out) if c.revision > 0 and statuses.get(c.id) == "accepted"}


def with_revision(cand: Candidate, rev: Revision) -> Candidate:
    """The built candidate with the refined revision's stem, options and key (the options section written as the
    built item writes it)."""
    m = _OPTIONS.search(cand.item["input"])
    head = m.group(0) if m else ("## 选项: " if cand.lang == "zh" else "## Options: ")
    body = "\n".join(f"{k}: {v}" for k, v in rev.options.items())
    item = {**cand.item, "input": f"{rev.stem}\n{head}{body}", "reference": rev.answer}
    return replace(cand, item=item)


def revision_provenance(rev: Revision | None) -> dict[str, Any]:
    """What the exported provenance adds for a refined revision (nothing for an item as built)."""
    if rev is None:
        return {}
    return {"revision": rev.revision, "refined": rev.provenance.get("refined", [])}
