"""Extraction accuracy of the answer extractor on response fixtures, by kind and category.

    python benchmarks/extraction_accuracy.py                    # the nine development fixtures
    python benchmarks/extraction_accuracy.py --blind PATH.jsonl # a blind set (measure it once, never tune on it)

The nine fixtures in tests/fixtures/ (2,851 responses) were each blind when first measured, then studied while
developing the extractor (tests/fixtures/README.md gives each one's first, blind figure): their current figures
are regression checks, not accuracy estimates. The honest estimate for unseen output is the blind set's.
Fixture lines: {"kind": "single"|"multi"|"order"|"label", "options": "ABCD", "option_texts": {...}|null,
"labels": [...]|null, "response": "...", "expected": "C"|null, "category": "..."}.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from climedbench.extract import extract
from climedbench.extractors import extract_label

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
DEVELOPMENT = ["extraction_cases.jsonl", "extraction_heldout.jsonl", "extraction_blind.jsonl",
               "extraction_final.jsonl", "extraction_v5.jsonl", "extraction_v6.jsonl",
               "extraction_v7.jsonl", "extraction_v8.jsonl", "extraction_v9.jsonl"]


def read(case: dict) -> object:
    if case["kind"] == "label":
        return extract_label(case["response"], tuple(case["labels"])).answer
    return extract(case["kind"], case["response"], case.get("options") or "ABCDE", case.get("option_texts") or None
                   ).answer


def report(path: Path, show_wrong: bool) -> float:
    cases = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    by: dict[str, list[bool]] = defaultdict(list)
    wrong = []
    for c in cases:
        got = read(c)
        ok = got == c["expected"]
        by[f"kind={c['kind']}"].append(ok)
        if "lang" in c:
            by[f"lang={c['lang']}"].append(ok)
        if "source" in c:
            by[f"source={str(c['source']).split(':')[0]}"].append(ok)
        by["all"].append(ok)
        if not ok:
            wrong.append((c["id"], c["expected"], got))
    acc = sum(by["all"]) / len(cases)
    print(f"\n{path.name}: {sum(by['all'])}/{len(cases)} = {100 * acc:.1f}%")
    for key in sorted(k for k in by if k != "all"):
        v = by[key]
        print(f"  {key:40s} {sum(v):4d}/{len(v):<4d} {100 * sum(v) / len(v):5.1f}%")
    if wrong and show_wrong:
        print("  wrong (id, expected, got):", ", ".join(f"{i}:{e}/{g}" for i, e, g in wrong))
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blind", type=Path, help="a blind set: prints figures only (no cases), to keep it blind")
    ap.add_argument("paths", nargs="*", type=Path)
    args = ap.parse_args()
    if args.blind:
        report(args.blind, show_wrong=False)
        return
    for p in args.paths or [FIXTURES / n for n in DEVELOPMENT]:
        report(p, show_wrong=True)


if __name__ == "__main__":
    main()
