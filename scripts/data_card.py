"""Print the statistics tables of the bundled demo set's data card (docs/DATA.md).

    python scripts/data_card.py            # print the tables
    python scripts/data_card.py --write    # replace the generated part of docs/DATA.md

tests/test_demo_data.py checks that docs/DATA.md holds exactly what this prints.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

from climedbench.audit import TaskAudit, audit_items
from climedbench.core.suite import Suite, load_suite
from climedbench.core.types import Item
from climedbench.data.loaders import load_items

BASELINE_RULES = ("longest option", "agrees with the other options", "shares wording with the question",
                  "most frequent key position")
BY_DESIGN = {"FTT": "E"}  # FTT's key is the none-of-the-above option by construction of the scenario

BEGIN = "<!-- BEGIN GENERATED: python scripts/data_card.py --write -->"
END = "<!-- END GENERATED -->"
DATA_MD = Path(__file__).resolve().parents[1] / "docs" / "DATA.md"


def tables() -> str:
    suite = load_suite()
    items = load_items(None, suite).items
    out = ["| scenario | test | dev | gold distribution (test) | input chars min / median / max | > 1,500 chars "
           "| specialties |", "|---|---|---|---|---|---|---|"]
    for sc in suite.tasks:
        test = [i for i in items if i.task == sc.code and i.split == "test"]
        dev = [i for i in items if i.task == sc.code and i.split == "dev"]
        lengths = [len(i.input) for i in test]
        if sc.shape in ("single", "multi"):
            dist = " ".join(f"{k}{v}" for k, v in sorted(Counter(i.answer for i in test).items()))
        elif sc.shape == "order":
            dist = "first letter " + " ".join(f"{k}{v}" for k, v in sorted(Counter(i.answer[0] for i in test).items()))
        elif sc.shape == "keywords":
            dist = "keywords per item " + " ".join(
                f"{k}:{v}" for k, v in sorted(Counter(len(i.targets or []) for i in test).items()))
        else:
            dist = "free text"
        if sc.loader_options.get("misleading_reference"):
            dist += "; shown wrong answer " + " ".join(
                f"{k}{v}" for k, v in sorted(Counter(i.misleading_answer for i in test).items()))
        out.append(f"| {sc.code} | {len(test)} | {len(dev)} | {dist} | {min(lengths)} / "
                   f"{int(statistics.median(lengths))} / {max(lengths)} | {sum(n > 1500 for n in lengths)} | "
                   f"{len({i.specialty for i in test + dev})} |")
    total_test = sum(1 for i in items if i.split == "test")
    total_dev = sum(1 for i in items if i.split == "dev")
    out.append(f"| **all** | **{total_test}** | **{total_dev}** | | | "
               f"**{sum(len(i.input) > 1500 for i in items if i.split == 'test')}** | "
               f"**{len({i.specialty for i in items})}** |")
    specialties = Counter(i.specialty for i in items)
    out += ["", "Specialties (items): " + "、".join(f"{k} {v}" for k, v in specialties.most_common()) + "."]
    out += ["", *baselines(items, suite)]
    return "\n".join(out)


def _pct(audit: TaskAudit, rule: str) -> int:
    return round(100 * next(r for r in audit.rules if r.rule == rule).accuracy)


def baselines(items: list[Item], suite: Suite) -> list[str]:
    """The option-only baselines of `climedbench audit-items` for every single-answer scenario, test and dev split."""
    test = {a.task: a for a in audit_items(items, suite, "test")}
    dev = {a.task: a for a in audit_items(items, suite, "dev")}
    out = ["### Option-only baselines", "",
           "How often a rule that never reads the case picks the key (% of items, test / dev split), computed by "
           "`climedbench audit-items` (src/climedbench/audit.py); chance is the mean of 1/k over the items.", "",
           "| scenario | items | chance | longest option | agrees with the other options | "
           "shares wording with the question | most frequent key position |", "|---|---|---|---|---|---|---|"]
    worst = (0.0, "", "", "")
    for code, a in test.items():
        d = dev[code]
        out.append(f"| {code} | {a.n} / {d.n} | {100 * a.chance:.0f} / {100 * d.chance:.0f} | "
                   + " | ".join(f"{_pct(a, r)} / {_pct(d, r)}" for r in BASELINE_RULES) + " |")
        for split, audit in (("test", a), ("dev", d)):
            for r in audit.rules:
                if code in BY_DESIGN and r.rule in (f"always {BY_DESIGN[code]}", "most frequent key position"):
                    continue
                if r.excess_points > worst[0]:
                    worst = (r.excess_points, code, r.rule, split)
    for code, letter in BY_DESIGN.items():
        always = {s: next(r for r in audit.rules if r.rule == f"always {letter}")
                  for s, audit in (("test", test[code]), ("dev", dev[code]))}
        out += ["", f"{code}'s key is by design the none-of-the-above option (`以上均不对`, always the last letter "
                f"{letter}): the correct treatment was removed from the options, so always answering {letter} finds "
                f"the key in {100 * always['test'].accuracy:.0f}% of test and {100 * always['dev'].accuracy:.0f}% of "
                "dev items. This is the scenario's construction, not a leak."]
    out += ["", f"Outside that, the rule that beats chance by the most is '{worst[2]}' in {worst[1]} "
            f"({worst[3]} split), {worst[0]:.1f} points above chance (tests/test_demo_data.py requires at most 15)."]
    return out


def main() -> None:
    text = tables()
    if "--write" not in sys.argv:
        print(text)
        return
    md = DATA_MD.read_text("utf-8")
    head, rest = md.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DATA_MD.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", "utf-8")


if __name__ == "__main__":
    main()
