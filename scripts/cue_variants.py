"""Variants of the audit's option-only rules, to check that a demo set lost its answer cues rather than only the three
rules `climedbench audit-items` computes.

    python scripts/cue_variants.py               # the bundled CliMedBench demo set, test and dev splits
    python scripts/cue_variants.py ID#4 MC       # some scenarios only

For every single-answer scenario and split it counts how often each variant picks the key: the longest and the shortest
option; agreement with the other options and wording shared with the question, measured with character 1-, 2- and
3-grams and with jieba words, as containment (the audit's measure), as Jaccard similarity and as an absolute count, each
also reversed (the option that agrees least / shares least). It prints, per scenario and split, the variant that finds
the key most often and every variant more than 15 points above chance. A tie abstains (counts as a miss), as in the
audit. Small dev splits (6-7 items) cross the line by chance for some of the ~40 variants.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable

import jieba

from climedbench.core.suite import load_suite
from climedbench.core.types import Item
from climedbench.data.loaders import load_items

jieba.setLogLevel(logging.WARNING)


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def _grams(n: int) -> Callable[[str], set[str]]:
    def f(text: str) -> set[str]:
        t = _norm(text)
        return {t[i:i + n] for i in range(len(t) - n + 1)} or ({t} if t else set())
    return f


def _words(text: str) -> set[str]:
    return {w for w in jieba.lcut(_norm(text)) if w}


FEATURES: dict[str, Callable[[str], set[str]]] = {"char1": _grams(1), "char2": _grams(2), "char3": _grams(3),
                                                  "words": _words}


def _pick(scores: dict[str, float], lowest: bool = False) -> str | None:
    best = (min if lowest else max)(scores.values())
    top = [k for k, v in scores.items() if v == best]
    return top[0] if len(top) == 1 else None


def picks(item: Item) -> dict[str, str | None]:
    """The option each variant picks for one item (None when it abstains on a tie)."""
    out: dict[str, str | None] = {}
    length = {k: float(len(_norm(v))) for k, v in item.options.items()}
    out["longest"], out["shortest"] = _pick(length), _pick(length, lowest=True)
    question = item.input.split("## 选项")[0] + " " + (item.context or "")
    for name, feat in FEATURES.items():
        g = {k: feat(v) for k, v in item.options.items()}
        q = feat(question)
        contain = {k: sum(len(g[k] & g[o]) / len(g[k]) if g[k] else 0.0 for o in g if o != k) for k in g}
        jaccard = {k: sum(len(g[k] & g[o]) / len(g[k] | g[o]) if g[k] | g[o] else 0.0 for o in g if o != k)
                   for k in g}
        shared = {k: len(g[k] & q) / len(g[k]) if g[k] else 0.0 for k in g}
        count = {k: float(len(g[k] & q)) for k in g}
        for rule, scores in (("agrees", contain), ("agrees-jaccard", jaccard), ("question", shared),
                             ("question-count", count)):
            out[f"{rule} {name}"] = _pick(scores)
            out[f"{rule} {name} (reversed)"] = _pick(scores, lowest=True)
    return out


def main(codes: list[str]) -> None:
    suite = load_suite()
    items = load_items(None, suite).items
    print("| scenario | split | n | chance | most often right | variants > 15 points above chance |")
    print("|---|---|---|---|---|---|")
    for task in suite.tasks:
        if task.answer != "single" or (codes and task.code not in codes):
            continue
        for split in ("test", "dev"):
            these = [i for i in items if i.task == task.code and i.split == split and i.answer and i.options]
            if not these:
                continue
            chance = sum(1 / len(i.options) for i in these) / len(these)
            hits: dict[str, int] = {}
            for it in these:
                for rule, choice in picks(it).items():
                    hits[rule] = hits.get(rule, 0) + (choice == it.answer)
            rate = {r: h / len(these) for r, h in hits.items()}
            top = max(rate, key=lambda r: rate[r])
            over = [f"{r} {100 * v:.0f}%" for r, v in sorted(rate.items(), key=lambda x: -x[1])
                    if 100 * (v - chance) > 15]
            print(f"| {task.code} | {split} | {len(these)} | {100 * chance:.0f}% | {top} {100 * rate[top]:.0f}% | "
                  f"{', '.join(over) or '–'} |")


if __name__ == "__main__":
    main(sys.argv[1:])
