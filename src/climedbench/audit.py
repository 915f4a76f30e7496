"""Audit an item set for answer cues: `climedbench audit-items DATA`.

Rules that never read the case should not find the key. For every choice task this reports how often each
option-only rule picks the key, against chance (the mean of 1/k over items):

- longest option — the option with the most characters;
- agrees with the other options — the option sharing the most wording (character bigrams) with the others;
- shares wording with the question — the option whose character bigrams overlap most with the case and question
  (the input before its option list; the share of the option's bigrams found there);
- longest option other than the shown reference — where the prompt shows a reference answer that is never the key
  (a task's `shown_answer`), the longest of the other options; its chance is the mean of 1/(k-1);
- the one option with a feature — for each of a few generic surface features (dosing instructions, a number,
  parentheses, a negation, absolute wording), over the items where exactly one option has the feature, how often
  that option is the key (chance: the mean of 1/k over those items). A catch-all phrase (以上均不对, none of the
  above) is left out before features are looked for, so a catch-all option does not count as a negation;
- always none of the above — the catch-all option wherever there is one (the key by design in some tasks);
- most frequent key position — always answering the letter that is most often the key (key balance);
- every fixed letter (always A, always B, …).

A rule that ties between several options picks one of them at random: it is credited 1/t when the key is among the
t tied options (its expected accuracy), so ties neither hide a cue nor count as one. It also lists key-position
shares, duplicate and near-duplicate items (8-character shingle Jaccard ≥ 0.5), and options that repeat the case
text word for word. A rule beating chance by more than 15 points, or with a one-sided binomial p < 0.01 (expected
hits rounded), is flagged.
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

CATCH_ALL = re.compile(r"(以上|上述)(选项|答案|各项|方案)?(均|都|全)(不|正确|对|是|错|可)\S{0,3}|"
                       r"\b(all|none|neither|both) of (the )?(above|these|them)\b", re.IGNORECASE)
_UNIT = (r"(mg|μg|ug|mcg|g|kg|ml|mL|l|L|IU|U|mmol|mEq|单位|万单位|片|粒|袋|丸|支|滴|贴|包|瓶|喷|揿|次|日|天|周|小时|h"
         r"|tablets?|capsules?|drops?|puffs?|units?|times|daily|hours?|days?|weeks?)")
FEATURES: dict[str, re.Pattern[str]] = {
    "dosing instructions": re.compile(r"(\d+(\.\d+)?|[一二三四五六七八九十两半])\s*((-|～|~|至)\s*\d+(\.\d+)?)?\s*"
                                      + _UNIT + r"(?![A-Za-z])"),
    "a number": re.compile(r"\d"),
    "parentheses": re.compile(r"[()（）]"),
    "a negation": re.compile(r"[不无未非勿忌禁]|避免|停用|\b(not|no|never|without|avoid|don't|cannot|unless)\b",
                             re.IGNORECASE),
    "absolute wording": re.compile(r"必须|一定|绝对|所有|全部|总是|从不|一律|只能|仅|唯一|"
                                   r"\b(always|never|only|must|all|every|none)\b", re.IGNORECASE),
}


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def _bigrams(text: str) -> set[str]:
    t = _norm(text)
    return {t[i:i + 2] for i in range(len(t) - 1)} or ({t} if t else set())


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a) if a else 0.0


def _top(values: dict[str, float]) -> list[str]:
    """The keys with the largest value (several when tied; none when there are no values)."""
    if not values:
        return []
    best = max(values.values())
    return [k for k, v in values.items() if v == best]


def _argmax_unique(values: dict[str, float]) -> str | None:
    """The key with the largest value, or None when the largest is tied."""
    top = _top(values)
    return top[0] if len(top) == 1 else None


def _lengths(item: Item) -> dict[str, float]:
    return {k: float(len(_norm(v))) for k, v in item.options.items()}


def _agreement(item: Item) -> dict[str, float]:
    grams = {k: _bigrams(v) for k, v in item.options.items()}
    return {k: sum(_overlap(g, grams[o]) for o in grams if o != k) for k, g in grams.items()}


def _question(item: Item) -> set[str]:
    """The character bigrams of the case and question: the input before its option list, and the context."""
    return _bigrams(item.input.split("## 选项")[0] + " " + (item.context or ""))


def _question_wording(item: Item) -> dict[str, float]:
    question = _question(item)
    return {k: _overlap(_bigrams(v), question) for k, v in item.options.items()}


def _shown(item: Item, field: str | None) -> str | None:
    """The letter of the answer the item's prompt shows (its meta field `field`), or None."""
    value = item.meta.get(field) if field else None
    return str(value) if value is not None else None


def _lengths_but_shown(item: Item, field: str | None) -> dict[str, float]:
    shown = _shown(item, field)
    return {k: v for k, v in _lengths(item).items() if k != shown}


def longest(item: Item) -> str | None:
    return _argmax_unique(_lengths(item))


def agrees_with_others(item: Item) -> str | None:
    return _argmax_unique(_agreement(item))


def shares_question_wording(item: Item) -> str | None:
    return _argmax_unique(_question_wording(item))


def longest_but_shown(item: Item, field: str | None) -> str | None:
    """The longest option other than the reference answer the item shows (in its meta field `field`)."""
    return _argmax_unique(_lengths_but_shown(item, field)) if _shown(item, field) in item.options else None


RULES: dict[str, Callable[[Item], dict[str, float]]] = {
    "longest option": _lengths,
    "agrees with the other options": _agreement,
    "shares wording with the question": _question_wording,
}


def catch_all(item: Item) -> str | None:
    """The none-of-the-above (or all-of-the-above) option, when exactly one option is one."""
    hits = [k for k, v in item.options.items() if CATCH_ALL.search(v)]
    return hits[0] if len(hits) == 1 else None


def has_feature(text: str, feature: str) -> bool:
    """Whether an option's text, any catch-all phrase left out, has the surface feature FEATURES[feature]."""
    return bool(FEATURES[feature].search(CATCH_ALL.sub("", text)))


def only_with(item: Item, feature: str) -> str | None:
    """The option that alone has the feature, or None when no option or several have it."""
    hits = [k for k, v in item.options.items() if has_feature(v, feature)]
    return hits[0] if len(hits) == 1 else None


def credit(values: dict[str, float], key: str | None) -> float:
    """A rule's expected hit on one item: 1/t when the key is among its t top-scoring options, else 0."""
    top = _top(values)
    return 1 / len(top) if key in top else 0.0


@dataclass
class RuleResult:
    """How often a rule found the key (expected hits, ties broken at random), against chance."""

    rule: str
    correct: float
    n: int
    chance: float
    tied: int = 0

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
        return float(binomtest(round(self.correct), self.n, min(max(self.chance, 1e-9), 1 - 1e-9),
                               alternative="greater").pvalue)

    @property
    def flagged(self) -> bool:
        return self.n > 0 and (self.excess_points > FLAG_POINTS or self.p_value < FLAG_P)

    def as_json(self) -> dict[str, object]:
        return {"rule": self.rule, "accuracy": round(100 * self.accuracy, 1), "chance": round(100 * self.chance, 1),
                "excess_points": round(self.excess_points, 1), "p": round(self.p_value, 4), "n": self.n,
                "tied": self.tied, "flagged": self.flagged}


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

    def rule(self, name: str) -> RuleResult | None:
        return next((r for r in self.rules if r.rule == name), None)

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


def _mean_chance(items: Sequence[Item], drop: int = 0) -> float:
    return sum(1 / (len(i.options) - drop) for i in items) / len(items) if items else 0.0


def _scored_rule(name: str, items: Sequence[Item], score: Callable[[Item], dict[str, float]],
                 drop: int = 0) -> RuleResult:
    values = [score(i) for i in items]
    return RuleResult(name, sum(credit(v, i.answer) for v, i in zip(values, items, strict=True)), len(items),
                      _mean_chance(items, drop), sum(len(_top(v)) > 1 for v in values))


def audit_task(code: str, items: Sequence[Item], shown_field: str | None = None) -> TaskAudit:
    """Option-only baselines, key balance, near-duplicates and options repeating the case, for one task
    (`shown_field`: the item meta field holding the answer its prompt shows, the task's `shown_answer`)."""
    scored = [i for i in items if i.answer and len(i.answer) == 1 and i.options]
    n = len(scored)
    chance = _mean_chance(scored)
    out = TaskAudit(code, n, chance)
    for name, score in RULES.items():
        out.rules.append(_scored_rule(name, scored, score))
    shown = [i for i in scored if _shown(i, shown_field) in i.options and len(i.options) > 2]
    if shown:
        out.rules.append(_scored_rule("longest option other than the shown reference", shown,
                                      lambda i: _lengths_but_shown(i, shown_field), 1))
    nota = [catch_all(i) for i in scored]
    if any(nota):
        out.rules.append(RuleResult("always none of the above",
                                    sum(p == i.answer for p, i in zip(nota, scored, strict=True)), n, chance))
    for feature in FEATURES:
        lone = [(i, p) for i in scored if (p := only_with(i, feature)) is not None]
        out.rules.append(RuleResult(f"the one option with {feature}", sum(p == i.answer for i, p in lone), len(lone),
                                    _mean_chance([i for i, _ in lone])))
    keys = Counter(str(i.answer) for i in scored)
    out.key_shares = {k: keys[k] / n for k in sorted(keys)} if n else {}
    letters = sorted({k for i in scored for k in i.options})
    for letter in letters:
        has = [i for i in scored if letter in i.options]
        out.rules.append(RuleResult(f"always {letter}", sum(i.answer == letter for i in has), len(has),
                                    _mean_chance(has)))
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
            out.append(audit_task(t.code, these, t.shown_answer[0] if t.shown_answer else None))
    return out
