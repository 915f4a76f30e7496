"""`target_hash`: the sha256 of an item's gold answer as canonical JSON (sorted keys, no spaces, UTF-8), written per
sample (as lm-eval logs its target hash), so two runs can be shown to share their gold answers without either side
showing the other its data; `climedbench report --check-gold RUN...` compares them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def target_hash(gold: Any) -> str:
    """sha256 (hex) of the gold answer as canonical JSON."""
    blob = json.dumps(gold, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def run_targets(run: Path) -> dict[str, str]:
    """uid → target hash of a run directory's samples (one per item whatever its epochs; samples written before
    target_hash existed are hashed from their logged gold)."""
    from climedbench.rundir import RunDir, iter_samples

    out: dict[str, str] = {}
    for s in iter_samples(RunDir(run).samples_file):
        out[s.uid] = s.target_hash or target_hash(s.gold)
    return out


@dataclass
class GoldComparison:
    """How a run's gold answers compare with a reference run's, over the items both asked."""

    run: Path
    reference: Path
    shared: int = 0
    differing: list[str] = field(default_factory=list)  # uids whose gold hash differs
    only_here: int = 0
    only_there: int = 0

    @property
    def same(self) -> bool:
        return self.shared > 0 and not self.differing

    def line(self) -> str:
        extra = ""
        if self.only_here or self.only_there:
            extra = f"; {self.only_here} item(s) only in {self.run}, {self.only_there} only in {self.reference}"
        if self.shared == 0:
            return f"{self.run}: no item in common with {self.reference}{extra}"
        if self.differing:
            return (f"{self.run}: gold DIFFERS from {self.reference} on {len(self.differing)} of {self.shared} shared "
                    f"item(s) (first: {self.differing[0]}){extra}")
        return f"{self.run}: same gold as {self.reference} on all {self.shared} shared item(s){extra}"


def compare_gold(runs: list[Path]) -> list[GoldComparison]:
    """Every run after the first compared with the first, by target hash per item."""
    first = run_targets(runs[0])
    out = []
    for run in runs[1:]:
        these = run_targets(run)
        shared = sorted(set(first) & set(these))
        out.append(GoldComparison(run, runs[0], len(shared), [u for u in shared if first[u] != these[u]],
                                  len(set(these) - set(first)), len(set(first) - set(these))))
    return out
