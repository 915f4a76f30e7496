"""What `climedbench build` makes of a set of notes: items per task, the distractor similarity band actually used,
and the answer cues of the exported items (`climedbench audit-items`), ID#2's option-only rules against chance.

    python bench/build_demo.py [--notes DIR --already-deidentified] [--out DIR] [--json OUT.json]

Without --notes it runs `climedbench build --demo` (the bundled synthetic records through `climedbench deid`, or
the development fixtures tests/fixtures/build when those are not present: the output says which). Everything goes
through the real command line in child processes; nothing is simulated. Option-only rules are those that look at
the options alone (longest option, agreement among options, the one option with a feature, key position); the
rule that compares options with the case ('shares wording with the question') is reported apart, since reading
the case is what the item asks for.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASE_RULES = ("shares wording with the question",)


def cli(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"climedbench {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=Path)
    ap.add_argument("--already-deidentified", action="store_true")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="build-demo-")) / "suite"
    started = time.perf_counter()
    if args.notes:
        extra = ["--already-deidentified"] if args.already_deidentified else []
        summary = json.loads(cli("build", str(args.notes), "--out", str(out), "--json", *extra))
    else:
        summary = json.loads(cli("build", "--demo", "--out", str(out), "--json"))
    seconds = time.perf_counter() - started
    card = summary["card"]
    audit = json.loads(cli("audit-items", "--suite", str(out), "--json", "--split", "all"))
    report = {"suite": str(out), "seconds": round(seconds, 1), "notes_read": summary["notes_read"],
              "notes_kept": summary["notes_kept"], "dropped": card["source_notes"]["dropped_by_reason"],
              "items": {t: v["items"] for t, v in card["tasks"].items()}, "specialties": len(card["specialties"]),
              "similarity": card["similarity"], "skipped": summary["skipped"], "audit": {}}
    for t in audit["tasks"]:
        rules = [r for r in t["rules"] if r["n"] > 0]
        option_only = [r for r in rules if r["rule"] not in CASE_RULES]
        worst = max(option_only, key=lambda r: r["excess_points"]) if option_only else None
        report["audit"][t["task"]] = {
            "n": t["n"], "chance": t["chance"],
            "worst_option_only": {k: worst[k] for k in ("rule", "accuracy", "excess_points", "p", "n")} if worst
            else None,
            "case_rules": {r["rule"]: {"accuracy": r["accuracy"], "p": r["p"]} for r in rules
                           if r["rule"] in CASE_RULES},
            "key_shares": t.get("key_shares"), "flagged": t.get("flagged")}
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{summary['notes_kept']} of {summary['notes_read']} notes kept (dropped: {report['dropped']}); "
          f"{sum(report['items'].values())} items in {seconds:.0f} s")
    for task, n in report["items"].items():
        a = report["audit"].get(task, {})
        w = a.get("worst_option_only")
        cue = (f"worst option-only rule '{w['rule']}' {w['accuracy']:.0f}% vs chance {a['chance']:.0f}% "
               f"(n={w['n']}, p={w['p']})" if w else "")
        print(f"  {task:8s} {n:4d} items  {cue}")
    sim = report["similarity"]
    print(f"similarity band used {sim['band_used']}; {sim['distractors']} distractors, min {sim['min']}, median "
          f"{sim['median']}, max {sim['max']}")


if __name__ == "__main__":
    main()
