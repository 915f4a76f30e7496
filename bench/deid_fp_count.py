"""Replaced spans that are not PHI, before and after a change, from two `bench/deid_spans.py` listings of the same
development notes. The after-listing must first be read by hand and hold only PHI (every planted name, address,
organisation, date, phone and id); a before-span is then not PHI when its record and text are not among the after's.

    python bench/deid_fp_count.py BEFORE.tsv AFTER.tsv
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator


def rows(path: str) -> Iterator[tuple[str, str, str, str, str]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec, typ, det, ctx, new = line.rstrip("\n").split("\t")
            m = re.search(r"\[(.*)\]", ctx)
            yield rec, typ, det, m.group(1) if m else ctx, new


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    phi = {(r, v) for r, _, _, v, _ in rows(after)}
    for label, path in (("before", before), ("after", after)):
        every = list(rows(path))
        fps = [row for row in every if (row[0], row[3]) not in phi]
        en = sum(r[0].startswith("e-") for r in fps)
        print(f"{label}: {len(every)} spans, not PHI: {len(fps)} (English {en}, Chinese {len(fps) - en})")
        for row in fps:
            print("   ", *row, sep="\t")


if __name__ == "__main__":
    main()
