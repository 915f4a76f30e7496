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
                  "longest option other than the shown reference", "most frequent key position",
                  "always none of the above")
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
                f"{k}{v}" for k, v in sorted(Counter(i.meta.get("misleading_answer") for i in test).items()))
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


def _pct(audit: TaskAudit, rule: str) -> str:
    r = audit.rule(rule)
    return "–" if r is None or not r.n else str(round(100 * r.accuracy))


def _features(audit: TaskAudit) -> str:
    """The one-option-with-a-feature rules that apply: key rate % (items where exactly one option has it)."""
    rules = [r for r in audit.rules if r.rule.startswith("the one option with ") and r.n]
    return ", ".join(f"{r.rule.removeprefix('the one option with ')} {100 * r.accuracy:.0f} (n {r.n})"
                     for r in rules) or "–"


def baselines(items: list[Item], suite: Suite) -> list[str]:
    """The option-only baselines of `climedbench audit-items` for every single-answer scenario, test and dev split."""
    test = {a.task: a for a in audit_items(items, suite, "test")}
    dev = {a.task: a for a in audit_items(items, suite, "dev")}
    out = ["### Option-only baselines", "",
           "How often a rule that never reads the case picks the key (% of items, test / dev split), computed by "
           "`climedbench audit-items` (src/climedbench/audit.py); chance is the mean of 1/k over the items (for FIT's "
           "longest option other than the shown reference, 1/(k-1)). A rule that ties picks one of the tied options at "
           "random (credited 1/t). The last columns: among the items where exactly one option has a surface feature, "
           "how often that option is the key, test split then dev split (n = such items); – = no such item.", "",
           "| scenario | items | chance | longest option | agrees with the other options | "
           "shares wording with the question | longest other than the shown reference | most frequent key position | "
           "always none of the above | the one option with a feature: test | … dev |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    worst = (0.0, "", "", "")
    for code, a in test.items():
        d = dev[code]
        out.append(f"| {code} | {a.n} / {d.n} | {100 * a.chance:.0f} / {100 * d.chance:.0f} | "
                   + " | ".join(f"{_pct(a, r)} / {_pct(d, r)}" for r in BASELINE_RULES)
                   + f" | {_features(a)} | {_features(d)} |")
        for split, audit in (("test", a), ("dev", d)):
            for r in audit.rules:
                if code in BY_DESIGN and r.rule in (f"always {BY_DESIGN[code]}", "most frequent key position",
                                                    "always none of the above"):
                    continue
                if r.excess_points > worst[0]:
                    worst = (r.excess_points, code, r.rule, split)
    for code, letter in BY_DESIGN.items():
        always = {s: next(r for r in audit.rules if r.rule == f"always {letter}")
                  for s, audit in (("test", test[code]), ("dev", dev[code]))}
        out += ["", f"{code}'s key is by design the none-of-the-above option (`以上均不对`, always the last letter "
                f"{letter}): the correct treatment was removed from the options, so always answering {letter} (or the "
                f"none-of-the-above option) finds the key in {100 * always['test'].accuracy:.0f}% of test and "
                f"{100 * always['dev'].accuracy:.0f}% of dev items. This is the scenario's construction, not a leak, "
                "but read any FTT score next to that baseline: a model that always answers 以上均不对 scores 100."]
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
