"""The WTD similarity's dynamic range, raw and rescaled, on the bundled demo WTD items.

    python bench/similarity_floor.py [--run RUN_DIR ...]

For every demo WTD test item: the score of a copy of its reference, of every other item's reference (another
case, same kind of text), and of unrelated sentences (below: written for this script, none of them in the
rescaling baseline in climedbench/data/baseline/zh.txt). With --run, also the raw and rescaled scores of the
WTD answers in those run directories (samples.jsonl `alternatives`). Prints mean [min, max] ×100 of each.
The issue's target: a copy ~100, unrelated text ~0, another case's reference clearly lower than a copy.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.embeddings import baseline_sentences
from climedbench.metrics.item import ScoreContext, similarity_from_vectors

# Unrelated text, not in the baseline file (checked below): news, weather, sport, cooking, travel, software.
UNRELATED = [
    "昨晚的足球比赛踢得很激烈，主队在补时阶段扳平了比分。",
    "这款手机的电池续航比上一代提升了不少，充电速度也更快。",
    "明天早上有大雾，高速公路可能会临时封闭。",
    "红烧肉要先焯水，再用冰糖炒出糖色，小火慢炖一个小时。",
    "图书馆新到了一批历史类图书，周末对外开放借阅。",
    "这段代码在处理空列表时会抛出异常，需要先判断长度。",
    "今年的桂花开得比往年晚，小区里到处都是香味。",
    "他坐了十几个小时的绿皮火车，终于回到了老家。",
    "股市今天小幅上涨，成交量有所放大。",
    "新开的咖啡店装修很有特色，下午常常坐满了学生。",
]


def stats(values: list[float]) -> str:
    a = np.asarray(values) * 100
    return f"{a.mean():6.1f} [{a.min():6.1f}, {a.max():6.1f}]  (n={len(a)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, action="append", default=[], help="Run directories with WTD answers.")
    args = ap.parse_args()
    overlap = set(UNRELATED) & set(baseline_sentences("zh"))
    if overlap:
        raise SystemExit(f"these test sentences are in the baseline itself: {overlap}")
    suite = load_suite()
    items = [i for i in load_items(None, suite).items if i.task == "WTD" and i.split == "test"]
    ctx = ScoreContext(language="zh", similarity="rescaled")
    rows: dict[str, tuple[list[float], list[float]]] = {"copy of the reference": ([], []),
                                                        "another case's reference": ([], []),
                                                        "unrelated sentence": ([], [])}
    texts = list(dict.fromkeys([i.reference for i in items] + UNRELATED))
    vecs = np.asarray(ctx.embedder(texts), dtype=np.float64)  # each text embedded once
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    vec = dict(zip(texts, vecs, strict=True))
    for k, it in enumerate(items):
        pairs = {"copy of the reference": [it.reference],
                 "another case's reference": [o.reference for j, o in enumerate(items) if j != k],
                 "unrelated sentence": UNRELATED}
        for name, group in pairs.items():
            for t in group:
                raw, resc = similarity_from_vectors(ctx, vec[t], vec[it.reference])
                rows[name][0].append(raw)
                rows[name][1].append(resc)
    print(f"WTD demo items: {len(items)}; embedder: bundled multilingual-e5-small; mean [min, max] ×100\n")
    print(f"{'text scored against the reference':<34} {'raw':<32} rescaled")
    for name, (raw, resc) in rows.items():
        print(f"{name:<34} {stats(raw):<32} {stats(resc)}")
    for run in args.run:
        raw, resc = [], []
        for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines():
            s = json.loads(line)
            alt = s.get("alternatives") or {}
            if s.get("task") == "WTD" and "similarity_raw" in alt:
                raw.append(alt["similarity_raw"])
                resc.append(alt["similarity_rescaled"])
        if raw:
            print(f"{'answers in ' + run.name:<34} {stats(raw):<32} {stats(resc)}")


if __name__ == "__main__":
    main()
