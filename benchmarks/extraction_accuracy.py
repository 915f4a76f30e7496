"""Extraction accuracy of `climedbench extract` on the response fixtures, by kind and category.

    python benchmarks/extraction_accuracy.py [FIXTURE.jsonl ...]

The blind fixture (tests/fixtures/extraction_blind.jsonl) was never used to develop the extractor;
its figure is the one to quote.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from climedbench.extract import extract

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
DEFAULT = ["extraction_cases.jsonl", "extraction_heldout.jsonl", "extraction_blind.jsonl"]


def report(path: Path) -> None:
    cases = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    by: dict[str, list[bool]] = defaultdict(list)
    wrong = []
    for c in cases:
        got = extract(c["kind"], c["response"], c["options"], c.get("option_texts") or None).answer
        ok = got == c["expected"]
        by[f"kind={c['kind']}"].append(ok)
        by[f"category={c.get('category', '?')}"].append(ok)
        by["all"].append(ok)
        if not ok:
            wrong.append((c["id"], c["expected"], got))
    print(f"\n{path.name}: {sum(by['all'])}/{len(cases)} = {100 * sum(by['all']) / len(cases):.1f}%")
    for key in sorted(k for k in by if k != "all"):
        v = by[key]
        print(f"  {key:40s} {sum(v):4d}/{len(v):<4d} {100 * sum(v) / len(v):5.1f}%")
    if wrong:
        print("  wrong (id, expected, got):", ", ".join(f"{i}:{e}/{g}" for i, e, g in wrong))


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or [FIXTURES / n for n in DEFAULT if (FIXTURES / n).exists()]
    for p in paths:
        report(p)
