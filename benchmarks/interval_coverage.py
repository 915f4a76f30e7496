"""Coverage of climedbench's 95% intervals, by simulation with known truth (simulated data, not model output).

    python benchmarks/interval_coverage.py [--reps 400] [--seed 0]

Each replication draws, for every CliMedBench task, a true score and n items (n from 1 to 200) and simulates
item scores: accuracies as Bernoulli(p); Kendall's τ (CPR, SSO) as an exact order with probability q, else
a random permutation of 4–7 steps; ROUGE-1 (KE) as Beta scores with 20% extraction failures scored 0;
similarity (WTD) as narrow Beta scores near 0.85. The truth of each task is its expected item score, and
the overall truth is the mean of the 14. The run aggregates exactly as `climedbench run` does
(climedbench.aggregate) and counts how often each interval contains the truth.

Prints coverage per task kind and n band, the overall score's coverage, the share of zero-width intervals,
and PASS/FAIL against the targets (≥ 93% per task and overall; no zero-width interval below n = 200).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

from climedbench.aggregate import TaskScores, aggregate
from climedbench.core.suite import load_suite

N_CHOICES = (1, 2, 3, 5, 10, 20, 50, 100, 200)
BANDS = ((1, 5), (10, 20), (50, 200))


def tau_draws(rng: np.random.Generator, k: int, q: float, n: int) -> np.ndarray:
    exact = rng.random(n) < q
    out = np.ones(n)
    for i in np.flatnonzero(~exact):
        out[i] = stats.kendalltau(np.arange(k), rng.permutation(k)).statistic
    return out


def tau_truth(k: int, q: float) -> float:
    return q  # a random permutation has expected τ 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    suite = load_suite()
    hits: dict[tuple[str, tuple[int, int]], list[bool]] = defaultdict(list)
    overall_hits: list[bool] = []
    zero_width = 0
    figures = 0
    for _ in range(args.reps):
        data: dict[str, TaskScores] = {}
        truth: dict[str, float] = {}
        for t in suite.tasks:
            n = int(rng.choice(N_CHOICES))
            if t.metric == "accuracy":
                p = float(rng.uniform(0.02, 0.98))
                scores = (rng.random(n) < p).astype(float)
                truth[t.code] = p
            elif t.metric == "kendall_tau":
                k, q = int(rng.integers(4, 8)), float(rng.uniform(0.05, 0.9))
                scores = tau_draws(rng, k, q, n)
                truth[t.code] = tau_truth(k, q)
            elif t.metric == "rouge1":
                a, b = float(rng.uniform(1, 6)), float(rng.uniform(1, 6))
                scores = np.where(rng.random(n) < 0.2, 0.0, rng.beta(a, b, n))
                truth[t.code] = 0.8 * a / (a + b)
            else:  # similarity: narrow, high, as the bundled e5 gives
                a, b = float(rng.uniform(50, 200)), float(rng.uniform(8, 30))
                scores = rng.beta(a, b, n)
                truth[t.code] = a / (a + b)
            data[t.code] = TaskScores(list(scores), [None] * n)
        tasks, _, overall = aggregate(data, suite, seed=int(rng.integers(1 << 30)), replicates=1000)
        for code, fig in tasks.items():
            assert fig.ci is not None and fig.n is not None
            band = next(b for b in BANDS if b[0] <= fig.n <= b[1])
            kind = suite.task(code).metric
            hits[(kind, band)].append(fig.ci[0] - 1e-9 <= truth[code] * 100 <= fig.ci[1] + 1e-9)
            figures += 1
            zero_width += fig.ci[1] - fig.ci[0] == 0
        assert overall is not None and overall.ci is not None
        overall_hits.append(overall.ci[0] <= float(np.mean(list(truth.values()))) * 100 <= overall.ci[1])
    print(f"{args.reps} simulated benchmarks × {len(suite.tasks)} tasks, n per task drawn from {N_CHOICES}\n")
    print(f"{'metric':<13} " + "  ".join(f"n {lo}-{hi}".rjust(9) for lo, hi in BANDS))
    worst = 1.0
    for kind in ("accuracy", "kendall_tau", "rouge1", "similarity"):
        cells = []
        for band in BANDS:
            v = hits[(kind, band)]
            cov = float(np.mean(v)) if v else float("nan")
            worst = min(worst, cov)
            cells.append(f"{cov:9.3f}")
        print(f"{kind:<13} " + "  ".join(cells))
    per_task = float(np.mean([h for v in hits.values() for h in v]))
    overall_cov = float(np.mean(overall_hits))
    print(f"\nper-task coverage, all n: {per_task:.3f} (lowest cell {worst:.3f})")
    print(f"overall-score coverage:   {overall_cov:.3f}")
    print(f"zero-width task intervals: {zero_width} of {figures}")
    ok = per_task >= 0.93 and worst >= 0.93 and overall_cov >= 0.93 and zero_width == 0
    print("PASS" if ok else "FAIL", "(targets: ≥ 0.93 in every cell and overall; no zero-width interval)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
