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

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items

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
    return "\n".join(out)


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
