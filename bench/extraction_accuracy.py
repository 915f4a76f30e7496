"""Extraction accuracy of the answer extractor on response fixtures: per set, how many answers are read right, how
many are SILENT MISREADS (an answer read that is not the expected one, including an answer read where the expected
answer is none) and how many are ABSTENTIONS (no answer read where one was expected: an extraction failure, which
`--extractor judge:MODEL` can re-read). The three add up to 100%.

    python bench/extraction_accuracy.py                          # every set, one table
    python bench/extraction_accuracy.py --wrong                  # ... and the ids of the development sets' misses
    python bench/extraction_accuracy.py --blind PATH.jsonl       # another blind set (measure it, never study it)
    python bench/extraction_accuracy.py --real-responses DIR     # with the 360 real ClinicBench responses
    python bench/extraction_accuracy.py --real-v12 PATH.jsonl    # with the 491 real responses of set v12
    python bench/extraction_accuracy.py --write-pins             # rewrite tests/fixtures/extraction_pinned.json
    python bench/extraction_accuracy.py --pipeline strict        # read by stated-answer rules only (docs/REPORT.md)

The table has the development sets (the fixtures and bench/data/extraction_real_v11.jsonl), the real ClinicBench
responses and set v12 (each a row saying how to add it when its responses are not given: neither is redistributed;
v12's labels are bench/data/extraction_real_v12_labels.jsonl) and the blind set
bench/data/extraction_blind_v10.jsonl. The development sets were each blind when first measured, then studied
while developing the extractor (tests/fixtures/README.md and bench/data/README.md give each one's first, blind
figure): their current figures are regression checks, not accuracy estimates. The honest estimate for unseen output
is a blind set's. `--blind` prints figures only, never cases. The real responses
(bench/data/real_outputs_labels.jsonl) are not redistributed: DIR holds the result CSVs of
github.com/AI-in-Health/ClinicBench at commit b78265a (results/MedQA-USMLE_US.csv, MedMCQA.csv, MMLU-Medicine.csv,
PubMedQA.csv); each response is checked against its SHA-1 before it is read.
Fixture lines: {"id": ..., "kind": "single"|"multi"|"order"|"label", "options": "ABCD", "option_texts": {...}|null,
"labels": [...]|null, "response": "...", "expected": "C"|null, "category": "..."}.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from climedbench.extract import PIPELINES, Pipeline, extract
from climedbench.extractors import extract_label

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
REAL_LABELS = ROOT / "bench" / "data" / "real_outputs_labels.jsonl"
PINS = FIXTURES / "extraction_pinned.json"
V12_LABELS = ROOT / "bench" / "data" / "extraction_real_v12_labels.jsonl"
DATA = ROOT / "bench" / "data"
BLIND = DATA / "extraction_blind_v10.jsonl"
# The development sets: the fixtures, then the real responses of extraction_real_v11.jsonl (blind when first measured,
# studied for issue 19 part 4; its blind figures are in bench/data/README.md).
DEVELOPMENT = [FIXTURES / n for n in (
    "extraction_cases.jsonl", "extraction_heldout.jsonl", "extraction_blind.jsonl", "extraction_final.jsonl",
    "extraction_v5.jsonl", "extraction_v6.jsonl", "extraction_v7.jsonl", "extraction_v8.jsonl", "extraction_v9.jsonl",
    "extraction_classes_v11.jsonl")] + [DATA / "extraction_real_v11.jsonl"]


def read(case: dict, pipeline: Pipeline = "flexible") -> object:
    """The answer the extractor reads from one fixture case (by the extraction pipeline `pipeline`)."""
    if case["kind"] == "label":
        return extract_label(case["response"], tuple(case["labels"]), pipeline=pipeline).answer
    return extract(case["kind"], case["response"], case.get("options") or "ABCDE", case.get("option_texts") or None,
                   pipeline).answer


@dataclass
class Tally:
    """Right answers, silent misreads and abstentions of one set (or one slice of it)."""

    right: int = 0
    misread: int = 0
    abstained: int = 0
    wrong_ids: list[str] = field(default_factory=list)

    def add(self, case_id: str, got: object, expected: object) -> None:
        if got == expected:
            self.right += 1
            return
        self.wrong_ids.append(f"{case_id}:{expected}/{got}")
        if got is None:
            self.abstained += 1
        else:
            self.misread += 1

    @property
    def n(self) -> int:
        return self.right + self.misread + self.abstained

    def row(self, name: str) -> str:
        pct = (lambda k: 100 * k / self.n) if self.n else (lambda k: 0.0)
        return (f"{name:34s} {self.n:5d} {self.right:5d} {pct(self.right):6.1f}% {self.misread:4d} "
                f"{pct(self.misread):5.1f}% {self.abstained:4d} {pct(self.abstained):5.1f}%")


HEADER = f"{'set':34s} {'n':>5s} {'right':>5s} {'acc':>7s} {'misr':>4s} {'misr%':>6s} {'abst':>4s} {'abst%':>6s}"


def measure(cases: list[dict], pipeline: Pipeline = "flexible") -> tuple[Tally, dict[str, Tally]]:
    """The whole set's tally and one per kind (and per language or source, when the cases say)."""
    total, by = Tally(), defaultdict(Tally)
    for c in cases:
        got = read(c, pipeline)
        total.add(c["id"], got, c["expected"])
        keys = [f"kind={c['kind']}"] + ([f"lang={c['lang']}"] if "lang" in c else []) + (
            [f"source={str(c['source']).split('/')[-1]}"] if "source" in c else [])
        for key in keys:
            by[key].add(c["id"], got, c["expected"])
    return total, dict(by)


def load(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def real_cases(results_dir: Path) -> list[dict]:
    """The labelled real responses, rebuilt from ClinicBench's result CSVs in `results_dir` (checked by SHA-1)."""
    csv.field_size_limit(sys.maxsize)
    rows: dict[str, list[list[str]]] = {}
    cases = []
    for line_no, label in enumerate(load(REAL_LABELS), 1):
        name = label["source"].rsplit("/", 1)[-1]
        if name not in rows:
            path = results_dir / name
            if not path.is_file():
                sys.exit(f"{path}: not found (--real-responses needs ClinicBench's results/{name})")
            rows[name] = list(csv.reader(path.open(encoding="utf-8", newline="")))[1:]
        if not 0 <= label["row"] < len(rows[name]) or len(rows[name][label["row"]]) < 2:
            sys.exit(f"{REAL_LABELS}:{line_no}: field row: {name} has no response in data row {label['row']}")
        response = rows[name][label["row"]][1]
        if hashlib.sha1(response.encode("utf-8")).hexdigest() != label["response_sha1"]:
            sys.exit(f"{REAL_LABELS}:{line_no}: field response_sha1: the response in {name} row {label['row']} "
                     "differs (a different version of the file?)")
        cases.append({**label, "response": response})
    return cases


def v12_cases(path: Path) -> list[dict]:
    """The 491 responses of set v12 (not redistributed: `path` is a copy of real_v12.jsonl), each checked against
    bench/data/extraction_real_v12_labels.jsonl by id and response SHA-1; the labels file's answers are used."""
    labels = {x["id"]: x for x in load(V12_LABELS)}
    cases = []
    for line_no, case in enumerate(load(path), 1):
        label = labels.pop(case.get("id"), None)
        if label is None:
            sys.exit(f"{path}:{line_no}: field id: {case.get('id')!r} is not in {V12_LABELS.name}")
        if hashlib.sha1(str(case.get("response", "")).encode("utf-8")).hexdigest() != label["response_sha1"]:
            sys.exit(f"{path}:{line_no}: field response: its SHA-1 differs from {V12_LABELS.name} (another version?)")
        cases.append({**case, "expected": label["expected"]})
    if labels:
        sys.exit(f"{path}: {len(labels)} labelled ids missing, e.g. {next(iter(labels))}")
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blind", type=Path, action="append", default=[],
                    help="a blind set: figures only (no cases, no slices), to keep it blind; may be repeated")
    ap.add_argument("--real-responses", type=Path, metavar="DIR",
                    help="directory with ClinicBench's result CSVs: adds the 360 labelled real responses")
    ap.add_argument("--real-v12", type=Path, metavar="PATH",
                    help="a copy of set v12's real_v12.jsonl: adds its 491 responses (checked against "
                         f"{V12_LABELS.relative_to(ROOT)})")
    ap.add_argument("--wrong", action="store_true", help="print the ids of the development sets' misses")
    ap.add_argument("--slices", action="store_true", help="print the development sets' figures by kind too")
    ap.add_argument("--write-pins", action="store_true",
                    help=f"write the ids read right in each development set to {PINS.relative_to(ROOT)} (the cases "
                         "tests/test_extract_pinned.py keeps right); only when no case pinned before went wrong")
    ap.add_argument("--pipeline", choices=PIPELINES, default="flexible",
                    help="extraction pipeline: flexible (every rule, what scores use) or strict (stated answers only)")
    ap.add_argument("paths", nargs="*", type=Path, help="development sets (default: the fixtures in tests/fixtures)")
    args = ap.parse_args()
    if args.write_pins and args.pipeline != "flexible":
        ap.error("--write-pins pins the flexible pipeline's readings")
    print(HEADER)
    pins: dict[str, list[str]] = {}
    for path in args.paths or [p for p in DEVELOPMENT if p.exists()]:
        cases = load(path)
        total, by = measure(cases, args.pipeline)
        wrong = {w.split(":", 1)[0] for w in total.wrong_ids}
        pins[path.name] = [c["id"] for c in cases if c["id"] not in wrong]
        print(total.row(path.name))
        if args.slices:
            for key in sorted(by):
                print(by[key].row("  " + key))
        if args.wrong and total.wrong_ids:
            print("    wrong (id:expected/got):", ", ".join(total.wrong_ids))
    rebuilt = [("real_outputs (ClinicBench)", args.real_responses, real_cases, True,
                "--real-responses DIR (ClinicBench's results CSVs)"),
               ("extraction_real_v12", args.real_v12, v12_cases, args.slices,
                "--real-v12 PATH (a copy of real_v12.jsonl)")]
    for name, source, cases, slices, how in rebuilt:  # sets whose responses are rebuilt from files users have
        if source:
            total, by = measure(cases(source), args.pipeline)
            print(total.row(name))
            for key in sorted(by) if slices else []:
                print(by[key].row("  " + key))
            if args.wrong and total.wrong_ids:
                print("    wrong (id:expected/got):", ", ".join(total.wrong_ids))
        elif not args.paths:
            print(f"{name:34s} not measured: {how}")
    for path in args.blind or ([] if args.paths else [BLIND]):
        total, _ = measure(load(path), args.pipeline)
        print(total.row(f"{path.name} (blind)"))
    if args.write_pins:
        write_pins(pins)


def write_pins(pins: dict[str, list[str]]) -> None:
    """Pin the cases read right now; refuse while a case pinned before is wrong (that is a regression to fix)."""
    old = json.loads(PINS.read_text("utf-8")) if PINS.exists() else {}
    lost = [f"{name}:{i}" for name, ids in old.items() if name in pins for i in ids if i not in set(pins[name])]
    if lost:
        sys.exit(f"not written: pinned cases now wrong: {', '.join(lost)}")
    merged = {**old, **pins}
    lines = [f"{json.dumps(name)}: {json.dumps(ids)}" for name, ids in merged.items()]
    PINS.write_text("{\n" + ",\n".join(lines) + "\n}\n", "utf-8")
    print(f"{PINS}: {sum(len(v) for v in pins.values())} ids pinned in {len(pins)} sets")


if __name__ == "__main__":
    main()
