"""Agreement and summaries of clinician ratings.

Per aspect:
- **Krippendorff's α** (the `krippendorff` package) at the rubric's level of measurement (ordinal by
  default), over the rated units (an item, or one answer to an item) that have at least two ratings; missing
  ratings are allowed. Its 95% interval is the percentile interval of α over bootstrap resamples of those
  units (resamples without any variation are left out).
- **Weighted Cohen's κ** for every pair of raters over the units both rated (linear weights for ordinal
  data, quadratic for interval, unweighted for nominal), with the scale's points as categories.
- **Mean rating per model** (or per task when ratings carry no model): per unit the mean over its raters,
  then the mean over units, with the bounded t interval used for graded scores (metrics/intervals.py).
- **Human vs automatic**: per task, Spearman's ρ between the mean human rating of an answer and the
  automatic score of the same item and model, with n and a bootstrap interval over the pairs.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from climedbench.apps.rater.rubric import Level, Rubric
from climedbench.core.types import Rating
from climedbench.errors import DataError

Weights = Literal["linear", "quadratic", "none"]
DEFAULT_WEIGHTS: dict[str, Weights] = {"ordinal": "linear", "interval": "quadratic", "nominal": "none"}
ALL_ASPECTS = "all"


class Alpha(BaseModel):
    """Krippendorff's α of one aspect with its bootstrap interval."""

    alpha: float | None
    lower: float | None
    upper: float | None
    n_items: int
    n_raters: int
    n_ratings: int
    level: str
    replicates: int
    reason: str | None = None  # why α is None (not computable)


class PairKappa(BaseModel):
    raters: tuple[str, str]
    kappa: float | None
    n: int
    weights: str


class GroupMean(BaseModel):
    """The mean rating of one model (or task) on one aspect."""

    group: str
    mean: float
    lower: float
    upper: float
    n: int


class AspectAgreement(BaseModel):
    """Everything `rate agreement` reports for one aspect."""

    alpha: float | None
    lower: float | None
    upper: float | None
    n_items: int
    n_raters: int
    level: str
    reason: str | None = None  # why α is None (not computable)
    kappa: list[PairKappa] = Field(default_factory=list)
    models: dict[str, GroupMean] = Field(default_factory=dict)


class HumanAuto(BaseModel):
    """Spearman's ρ between human ratings and automatic scores of the same answers, in one task."""

    task: str
    aspect: str
    rho: float | None
    lower: float | None
    upper: float | None
    n: int


def by_aspect(ratings: Sequence[Rating]) -> dict[str, list[Rating]]:
    out: dict[str, list[Rating]] = {}
    for r in ratings:
        out.setdefault(r.aspect, []).append(r)
    return out


def domain_of(ratings: Sequence[Rating], rubric: Rubric | None, aspect: str) -> list[float]:
    """The scale of an aspect: the rubric's points, else the values observed."""
    if rubric is not None:
        found = rubric.aspect(aspect)
        if found is None:
            raise DataError(f"aspect {aspect!r} is not in rubric {rubric.rubric!r} "
                            f"({', '.join(a.key for a in rubric.aspects)})")
        values = [float(v) for v in found.values]
        off = [r for r in ratings if r.score not in values]
        if off:
            r = off[0]
            raise DataError(f"{r.rater} scored {r.unit} {r.score:g} on {aspect}, off the rubric's scale "
                            f"{values[0]:g}–{values[-1]:g}")
        return values
    return sorted({float(r.score) for r in ratings})


def value_counts(ratings: Sequence[Rating], domain: Sequence[float]) -> tuple[np.ndarray, int, int]:
    """Units × scale points counts of the units with two or more ratings; and how many raters and ratings
    those units have."""
    index = {v: k for k, v in enumerate(domain)}
    units: dict[str, list[Rating]] = defaultdict(list)
    for r in ratings:
        units[r.unit].append(r)
    pairable = [rs for rs in units.values() if len(rs) >= 2]
    counts = np.zeros((len(pairable), len(domain)), dtype=float)
    for row, rs in enumerate(pairable):
        for r in rs:
            counts[row, index[float(r.score)]] += 1
    raters = {r.rater for rs in pairable for r in rs}
    return counts, len(raters), sum(len(rs) for rs in pairable)


def _alpha(counts: np.ndarray, domain: Sequence[float], level: Level) -> float:
    """α of a value-counts matrix; NaN when the data show no variation (α is undefined)."""
    import krippendorff

    if counts.shape[0] == 0 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(krippendorff.alpha(value_counts=counts, value_domain=list(domain),
                                        level_of_measurement=level))


def krippendorff_alpha(ratings: Sequence[Rating], domain: Sequence[float], level: Level = "ordinal", *,
                       replicates: int = 2000, seed: int = 0) -> Alpha:
    """Krippendorff's α of one aspect's ratings with a 95% bootstrap interval over units; None with a reason
    when it cannot be computed (fewer than 2 items rated twice, or no variation in the ratings)."""
    counts, n_raters, n_ratings = value_counts(ratings, domain)
    n = counts.shape[0]
    if n < 2:
        # One unit's α is 0 whatever its ratings (the expected disagreement is that unit's own), and every
        # bootstrap resample is that same unit: 0.0 [0.0, 0.0] would look like a measured "no agreement".
        return Alpha(alpha=None, lower=None, upper=None, n_items=n, n_raters=n_raters, n_ratings=n_ratings,
                     level=level, replicates=replicates,
                     reason=f"not computable: needs at least 2 items rated by two or more raters, found {n}")
    alpha = _alpha(counts, domain, level)
    lower = upper = float("nan")
    if math.isfinite(alpha) and replicates > 0:
        rng = np.random.default_rng(seed)
        draws = np.array([_alpha(counts[rng.integers(0, n, n)], domain, level) for _ in range(replicates)])
        draws = draws[np.isfinite(draws)]
        if draws.size:
            lower, upper = (float(x) for x in np.percentile(draws, [2.5, 97.5]))
    reason = None if math.isfinite(alpha) else "not computable: every rating has the same value (no variation)"
    return Alpha(alpha=_num(alpha), lower=_num(lower), upper=_num(upper), n_items=n, n_raters=n_raters,
                 n_ratings=n_ratings, level=level, replicates=replicates, reason=reason)


def weighted_kappa(a: Sequence[float], b: Sequence[float], categories: Sequence[float],
                   weights: Weights = "linear") -> float | None:
    """Cohen's κ of two raters' scores of the same units, disagreements weighted by the distance between the
    categories' positions (linear or quadratic) or all alike ('none'); None when undefined."""
    index = {v: k for k, v in enumerate(categories)}
    k = len(categories)
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[index[float(x)], index[float(y)]] += 1
    total = observed.sum()
    if total == 0:
        return None
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    i, j = np.indices((k, k))
    if weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        w = (i != j).astype(float)
    denominator = float((w * expected).sum())
    if denominator == 0:
        return None
    return 1.0 - float((w * observed).sum()) / denominator


def pair_kappas(ratings: Sequence[Rating], categories: Sequence[float], weights: Weights) -> list[PairKappa]:
    """Weighted κ for every pair of raters (n = units both rated; κ None below two shared units)."""
    by_rater: dict[str, dict[str, float]] = defaultdict(dict)
    for r in ratings:
        by_rater[r.rater][r.unit] = float(r.score)
    out = []
    for x, y in combinations(sorted(by_rater), 2):
        shared = sorted(set(by_rater[x]) & set(by_rater[y]))
        kappa = None
        if len(shared) >= 2:
            kappa = weighted_kappa([by_rater[x][u] for u in shared], [by_rater[y][u] for u in shared], categories,
                                   weights)
        out.append(PairKappa(raters=(x, y), kappa=kappa, n=len(shared), weights=weights))
    return out


def unit_means(ratings: Sequence[Rating]) -> dict[str, float]:
    """Per rated unit, the mean of its raters' scores."""
    acc: dict[str, list[float]] = defaultdict(list)
    for r in ratings:
        acc[r.unit].append(float(r.score))
    return {u: float(np.mean(v)) for u, v in acc.items()}


def group_means(ratings: Sequence[Rating], group: Callable[[Rating], str | None], low: float,
                high: float) -> list[GroupMean]:
    """Mean rating per group (model or task) with its 95% interval; units are averaged over raters first."""
    from climedbench.metrics.intervals import graded

    members: dict[str, list[Rating]] = defaultdict(list)
    for r in ratings:
        key = group(r)
        if key is not None:
            members[key].append(r)
    out = []
    for key, rs in members.items():
        means = np.array(list(unit_means(rs).values()))
        lo, hi = graded(means, low, high) if high > low else (low, high)
        out.append(GroupMean(group=key, mean=float(means.mean()), lower=lo, upper=hi, n=len(means)))
    return out


def grouping(ratings: Sequence[Rating]) -> tuple[str, Callable[[Rating], str | None]]:
    """How means are grouped: by model when the ratings name models, else by task, else all together."""
    if any(r.model for r in ratings):
        return "model", lambda r: r.model
    if any(r.task for r in ratings):
        return "task", lambda r: r.task
    return "all", lambda r: "all"


def agreement(ratings: Sequence[Rating], *, rubric: Rubric | None = None, level: Level | None = None,
              weights: Weights | None = None, replicates: int = 2000, seed: int = 0) -> dict[str, AspectAgreement]:
    """α with interval, pairwise weighted κ and per-model means, for every aspect (in the rubric's order)."""
    level = level or (rubric.level if rubric is not None else "ordinal")
    weights = weights or DEFAULT_WEIGHTS[level]
    groups = by_aspect(ratings)
    order = [a.key for a in rubric.aspects if a.key in groups] if rubric is not None else []
    order += [a for a in groups if a not in order]
    out: dict[str, AspectAgreement] = {}
    for aspect in order:
        rs = groups[aspect]
        domain = domain_of(rs, rubric, aspect)
        a = krippendorff_alpha(rs, domain, level, replicates=replicates, seed=seed)
        models = {}
        if any(r.model for r in rs):
            models = {m.group: m for m in group_means(rs, lambda r: r.model, domain[0], domain[-1])}
        out[aspect] = AspectAgreement(alpha=a.alpha, lower=a.lower, upper=a.upper, n_items=a.n_items,
                                      n_raters=a.n_raters, level=level, reason=a.reason,
                                      kappa=pair_kappas(rs, domain, weights), models=models)
    return out


def spearman(x: Sequence[float], y: Sequence[float], *, replicates: int = 2000,
             seed: int = 0) -> tuple[float, float, float]:
    """Spearman's ρ with a 95% percentile interval from resampling the pairs (resamples where either side is
    constant are left out); NaNs when fewer than 3 pairs or a side is constant. The replicates are computed
    together: ρ is Pearson's r of the (average) ranks of each resample."""
    from scipy.stats import rankdata, spearmanr

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(a)
    nan = float("nan")
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return nan, nan, nan
    rho = float(spearmanr(a, b).statistic)
    if replicates <= 0:
        return rho, nan, nan
    idx = np.random.default_rng(seed).integers(0, n, (replicates, n))
    ra, rb = rankdata(a[idx], axis=1), rankdata(b[idx], axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    den = np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1))
    ok = den > 0
    if not ok.any():
        return rho, nan, nan
    lo, hi = np.percentile((ra * rb).sum(axis=1)[ok] / den[ok], [2.5, 97.5])
    return rho, float(lo), float(hi)


def human_vs_auto(ratings: Sequence[Rating], auto: dict[tuple[str, str], float], *, replicates: int = 2000,
                  seed: int = 0) -> list[HumanAuto]:
    """Per task and aspect (and over all aspects, 'all'): Spearman's ρ between the mean human rating of an
    answer and the automatic score of the same (model, item)."""
    if not any(r.model for r in ratings):
        raise DataError("comparing with automatic scores needs the model of every rating: export the ratings "
                        "with --unblind (column 'model')")
    tasks = list(dict.fromkeys(r.task or "" for r in ratings))
    aspects = list(dict.fromkeys(r.aspect for r in ratings))
    out = []
    for task in tasks:
        in_task = [r for r in ratings if (r.task or "") == task and r.model]
        for aspect in [*aspects, ALL_ASPECTS]:
            chosen = in_task if aspect == ALL_ASPECTS else [r for r in in_task if r.aspect == aspect]
            acc: dict[tuple[str, str], list[float]] = defaultdict(list)
            for r in chosen:
                acc[(str(r.model), r.item)].append(float(r.score))
            keys = [k for k in acc if k in auto]
            human = [float(np.mean(acc[k])) for k in keys]
            machine = [auto[k] for k in keys]
            rho, lo, hi = spearman(human, machine, replicates=replicates, seed=seed)
            out.append(HumanAuto(task=task or "—", aspect=aspect, rho=_num(rho), lower=_num(lo), upper=_num(hi),
                                 n=len(keys)))
    return out


def agreement_json(result: dict[str, AspectAgreement]) -> dict[str, Any]:
    """The `rate agreement --json` shape: {aspect: {alpha, lower, upper, n_items, n_raters, level, reason, kappa,
    models}}; `reason` says why alpha is null (else null)."""
    out: dict[str, Any] = {}
    for aspect, a in result.items():
        out[aspect] = {
            "alpha": a.alpha, "lower": a.lower, "upper": a.upper, "n_items": a.n_items, "n_raters": a.n_raters,
            "level": a.level, "reason": a.reason,
            "kappa": [{"raters": list(p.raters), "kappa": p.kappa, "n": p.n, "weights": p.weights} for p in a.kappa],
            "models": {k: {"mean": m.mean, "lower": m.lower, "upper": m.upper, "n": m.n} for k, m in a.models.items()},
        }
    return out


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)
