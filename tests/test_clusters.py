"""Items that declare a `cluster` get cluster-robust intervals.

The end-to-end test runs the real CLI against the instant OpenAI-compatible server on 127.0.0.1 (a fixed reply, so
whole clusters are right or wrong together: perfectly correlated items); the expected interval is computed here
from the textbook CR1 formula by loops over the data and scipy.stats, not by climedbench.metrics.clustered.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy import stats

from climedbench.aggregate import TaskScores, aggregate
from climedbench.core.suite import load_suite
from tests.support.cli import run_cli
from tests.support.instant_server import instant_server

GROUPS, SIZE = 12, 4
RIGHT = {0, 3, 4, 8, 10}  # clusters whose gold is the letter the server always answers


def write_items(path: Path, with_cluster: bool) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for g in range(GROUPS):
            for j in range(SIZE):
                i = g * SIZE + j
                opts = "\n".join(f"{x}. 方案{x}{i}" for x in "ABCD")
                rec = {"id": f"q{i:03d}", "scenario": "BKT", "input": f"## 问题: 病例{g}第{j}问？\n## 选项: {opts}",
                       "reference": "A" if g in RIGHT else "B"}
                if with_cluster:
                    rec["cluster"] = f"ehr-{g}"
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def design_effect(y: list[float], cluster: list[str]) -> float:
    """CR1 variance of the mean over s²/n, held to [1, Σ m_g² / n], computed by hand."""
    n = len(y)
    mean = sum(y) / n
    labels = sorted(set(cluster))
    g = len(labels)
    total = 0.0
    sizes = []
    for lab in labels:
        resid = sum(v - mean for v, c in zip(y, cluster, strict=True) if c == lab)
        total += resid ** 2
        sizes.append(sum(1 for c in cluster if c == lab))
    cr1 = g / (g - 1) * total / n ** 2
    s2 = sum((v - mean) ** 2 for v in y) / (n - 1)
    return min(sum(m * m for m in sizes) / n, max(1.0, cr1 / (s2 / n)))


def cr1_jeffreys(y: list[float], cluster: list[str]) -> tuple[float, float]:
    """The interval computed by hand: the design effect d; Jeffreys at n_eff = n/d · (t_{n−1}/t_{G−1})²
    (Korn–Graubard), x_eff = ȳ · n_eff."""
    n, g = len(y), len(set(cluster))
    mean = sum(y) / n
    d = design_effect(y, cluster)
    n_eff = min(n, n / d * (stats.t.ppf(0.975, n - 1) / stats.t.ppf(0.975, g - 1)) ** 2)
    x = mean * n_eff
    lo = 0.0 if x <= 0 else stats.beta.ppf(0.025, x + 0.5, n_eff - x + 0.5)
    hi = 1.0 if x >= n_eff else stats.beta.ppf(0.975, x + 0.5, n_eff - x + 0.5)
    return round(lo * 100, 2), round(hi * 100, 2)


def test_a_run_with_clusters_gets_the_cluster_robust_interval(tmp_path):
    clustered, plain = write_items(tmp_path / "c.jsonl", True), write_items(tmp_path / "p.jsonl", False)
    with instant_server(reply="答案：A") as url:
        for data, out in ((clustered, "c"), (plain, "p")):
            run_cli("run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--no-cache",
                    "--quiet", "--out", str(tmp_path / out))
    rows = [json.loads(x) for x in (tmp_path / "c" / "samples.jsonl").read_text("utf-8").splitlines()]
    assert [r["cluster"] for r in rows] == [f"ehr-{g}" for g in range(GROUPS) for _ in range(SIZE)]
    fig = json.loads((tmp_path / "c" / "results.json").read_text("utf-8"))["tasks"]["BKT"]
    naive = json.loads((tmp_path / "p" / "results.json").read_text("utf-8"))["tasks"]["BKT"]
    assert fig["score"] == naive["score"] == round(100 * len(RIGHT) / GROUPS, 2)
    assert tuple(fig["ci"]) == cr1_jeffreys([r["score"] for r in rows], [r["cluster"] for r in rows])
    assert fig["clusters"] == GROUPS
    d = design_effect([r["score"] for r in rows], [r["cluster"] for r in rows])
    assert d > 1
    printed = " ".join(run_cli("score", str(tmp_path / "c")).stdout.split())
    assert f"This run: intervals resample clusters of items: BKT {GROUPS} clusters, design effect {d:.2f}" in printed
    assert "clusters of items" not in run_cli("score", str(tmp_path / "p")).stdout
    assert fig["ci"][1] - fig["ci"][0] > naive["ci"][1] - naive["ci"][0] + 5  # much wider than the naive one
    x, n = len(RIGHT) * SIZE, GROUPS * SIZE
    assert tuple(naive["ci"]) == tuple(round(v * 100, 2) for v in stats.beta.ppf([0.025, 0.975], x + .5, n - x + .5))


def one_task(scores: list[float], clusters: list[str | None], code: str) -> dict:
    suite = load_suite()
    data = TaskScores(list(scores), [None] * len(scores), clusters=list(clusters))
    return aggregate({code: data}, suite, seed=7, replicates=2000)[0][code].model_dump()


def test_singleton_clusters_give_the_naive_interval():
    rng = np.random.default_rng(3)
    for code, scores in (("BKT", (rng.random(40) < 0.4).astype(float).tolist()),
                         ("KE", rng.beta(2, 3, 40).tolist())):
        labelled = one_task(scores, [f"c{i}" for i in range(40)], code)
        naive = one_task(scores, [None] * 40, code)
        assert labelled == naive


def test_graded_scores_in_clusters_use_the_cr1_standard_error():
    """KE (ROUGE-1, graded): the shrunk-t interval with its standard error × √d and G − 1 + 2 degrees of freedom."""
    rng = np.random.default_rng(5)
    labels = [f"g{g}" for g in range(10) for _ in range(5)]
    centre = {f"g{g}": float(rng.uniform(0.1, 0.9)) for g in range(10)}
    scores = [float(np.clip(centre[c] + rng.normal(0, 0.05), 0, 1)) for c in labels]
    fig = one_task(scores, labels, "KE")
    n, g, mean = len(scores), 10, sum(scores) / len(scores)
    total = sum(sum(v - mean for v, c in zip(scores, labels, strict=True) if c == lab) ** 2 for lab in set(labels))
    s2 = sum((v - mean) ** 2 for v in scores) / (n - 1)
    d = min(5.0, max(1.0, g / (g - 1) * total / n ** 2 / (s2 / n)))
    m_adj = (sum(scores) + 0.5) / (n + 1)
    var = ((n - 1) * s2 + 2 * m_adj * (1 - m_adj)) / (n + 1)
    half = stats.t.ppf(0.975, g - 1 + 2) * (var * d / n) ** 0.5
    assert tuple(fig["ci"]) == (round(max(0, mean - half) * 100, 2), round(min(1, mean + half) * 100, 2))
    assert d > 3  # the planted clusters are strongly correlated


def test_micro_f1_in_clusters_is_widened_and_singletons_are_not():
    """NER micro-F1: whole clusters of items found everything or nothing (planted correlation)."""
    suite = load_suite("clinicbench")
    code = "NCBI-Disease"
    stats_rows, labels = [], []
    for g in range(8):
        for _ in range(5):
            stats_rows.append([3.0, 0.0, 0.0] if g % 2 == 0 else [0.0, 1.0, 3.0])  # (tp, fp, fn)
            labels.append(f"doc{g}")
    scores = [2 * a / (2 * a + b + c) for a, b, c in stats_rows]

    def fig(clusters: list[str | None]) -> dict:
        data = TaskScores(list(scores), [list(s) for s in stats_rows], clusters=list(clusters))
        return aggregate({code: data}, suite, seed=11, replicates=2000)[0][code].model_dump()

    naive, clustered, singles = fig([None] * 40), fig(labels), fig([f"s{i}" for i in range(40)])
    assert clustered["score"] == naive["score"]
    assert clustered["ci"][1] - clustered["ci"][0] > 2 * (naive["ci"][1] - naive["ci"][0])
    assert singles == naive
