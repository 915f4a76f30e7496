"""Audit an item set for answer cues: `climedbench audit-items DATA`.

Rules that never read the case should not find the key. For every choice task this reports how often each
option-only rule picks the key, against chance (the mean of 1/k over items):

- longest option — the option with the most characters;
- agrees with the other options — the option sharing the most wording (character bigrams) with the others;
- shares wording with the question — the option sharing the most wording with the item's input;
- most frequent key position — always answering the letter that is most often the key (key balance);
- every fixed letter (always A, always B, …).

It also lists key-position shares, duplicate and near-duplicate items (8-character shingle Jaccard ≥ 0.5),
and options that repeat the case text word for word. A rule beating chance by more than 15 points, or with
a one-sided binomial p < 0.01, is flagged.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from scipy.stats import binomtest

from climedbench.core.suite import Suite
from climedbench.core.types import Item

FLAG_POINTS = 15.0
FLAG_P = 0.01
NEAR_DUPLICATE = 0.5


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def _bigrams(text: str) -> set[str]:
    t = _norm(text)
    return {t[i:i + 2] for i in range(len(t) - 1)} or ({t} if t else set())


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a) if a else 0.0


def _argmax_unique(values: dict[str, float]) -> str | None:
    """The key with the largest value, or None when the largest is tied (the rule abstains)."""
    if not values:
        return None
    best = max(values.values())
    top = [k for k, v in values.items() if v == best]
    return top[0] if len(top) == 1 else None


def longest(item: Item) -> str | None:
    return _argmax_unique({k: float(len(_norm(v))) for k, v in item.options.items()})


def agrees_with_others(item: Item) -> str | None:
    grams = {k: _bigrams(v) for k, v in item.options.items()}
    return _argmax_unique({k: sum(_overlap(g, grams[o]) for o in grams if o != k) for k, g in grams.items()})


def shares_question_wording(item: Item) -> str | None:
    question = _bigrams(item.input.split("## 选项")[0] + " " + (item.context or ""))
    return _argmax_unique({k: _overlap(_bigrams(v), question) for k, v in item.options.items()})


RULES: dict[str, Callable[[Item], str | None]] = {
    "longest option": longest,
    "agrees with the other options": agrees_with_others,
    "shares wording with the question": shares_question_wording,
}


@dataclass
class RuleResult:
    """How often a rule found the key (abstentions count as wrong), against chance."""

    rule: str
    correct: int
    n: int
    chance: float
    abstained: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def excess_points(self) -> float:
        return 100 * (self.accuracy - self.chance)

    @property
    def p_value(self) -> float:
        if not self.n:
            return 1.0
        return float(binomtest(self.correct, self.n, min(max(self.chance, 1e-9), 1 - 1e-9),
                               alternative="greater").pvalue)

    @property
    def flagged(self) -> bool:
        return self.n > 0 and (self.excess_points > FLAG_POINTS or self.p_value < FLAG_P)

    def as_json(self) -> dict[str, object]:
        return {"rule": self.rule, "accuracy": round(100 * self.accuracy, 1), "chance": round(100 * self.chance, 1),
                "excess_points": round(self.excess_points, 1), "p": round(self.p_value, 4), "n": self.n,
                "abstained": self.abstained, "flagged": self.flagged}


@dataclass
class TaskAudit:
    """The audit of one choice task."""

    task: str
    n: int
    chance: float
    rules: list[RuleResult] = field(default_factory=list)
    key_shares: dict[str, float] = field(default_factory=dict)
    near_duplicates: list[tuple[str, str, float]] = field(default_factory=list)
    options_in_case: list[tuple[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {"task": self.task, "n": self.n, "chance": round(100 * self.chance, 1),
                "rules": [r.as_json() for r in self.rules],
                "key_shares": {k: round(100 * v, 1) for k, v in self.key_shares.items()},
                "near_duplicates": [{"a": a, "b": b, "jaccard": round(j, 2)} for a, b, j in self.near_duplicates],
                "options_in_case": [{"item": i, "option": o} for i, o in self.options_in_case],
                "flagged": [r.rule for r in self.rules if r.flagged]}


def _shingles(text: str, k: int = 8) -> set[str]:
    t = _norm(text)
    return {t[i:i + k] for i in range(max(1, len(t) - k + 1))}


def audit_task(code: str, items: Sequence[Item]) -> TaskAudit:
    """Option-only baselines, key balance, near-duplicates and options repeating the case, for one task."""
    scored = [i for i in items if i.answer and len(i.answer) == 1 and i.options]
    n = len(scored)
    chance = sum(1 / len(i.options) for i in scored) / n if n else 0.0
    out = TaskAudit(code, n, chance)
    for name, rule in RULES.items():
        picks = [rule(i) for i in scored]
        out.rules.append(RuleResult(name, sum(p == i.answer for p, i in zip(picks, scored, strict=True)), n, chance,
                                    sum(p is None for p in picks)))
    keys = Counter(str(i.answer) for i in scored)
    out.key_shares = {k: keys[k] / n for k in sorted(keys)} if n else {}
    letters = sorted({k for i in scored for k in i.options})
    for letter in letters:
        has = [i for i in scored if letter in i.options]
        out.rules.append(RuleResult(f"always {letter}", sum(i.answer == letter for i in has), len(has),
                                    sum(1 / len(i.options) for i in has) / len(has) if has else 0.0))
    if keys:
        top, _ = keys.most_common(1)[0]
        out.rules.append(RuleResult("most frequent key position", keys[top], n, chance))
    sh = {i.uid: _shingles(i.input) for i in items}
    for a, b in combinations(items, 2):
        inter = len(sh[a.uid] & sh[b.uid])
        j = inter / max(1, len(sh[a.uid] | sh[b.uid]))
        if j >= NEAR_DUPLICATE:
            out.near_duplicates.append((a.id, b.id, j))
    for i in scored:
        case = _norm(i.input.split("## 选项")[0])
        for k, v in i.options.items():
            nv = _norm(v)
            if len(nv) >= 8 and nv in case:
                out.options_in_case.append((i.id, k))
    return out


def audit_items(items: Sequence[Item], suite: Suite, split: str | None = "test") -> list[TaskAudit]:
    """Audit every single-answer choice task of the suite present in `items` (one split, or all when None)."""
    out = []
    for t in suite.tasks:
        if t.answer != "single":
            continue
        these = [i for i in items if i.task == t.code and (split is None or i.split == split)]
        if these:
            out.append(audit_task(t.code, these))
    return out
