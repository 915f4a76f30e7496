"""Synthetic item files and a memory probe, shared by the tests and the benchmark scripts."""

from __future__ import annotations

import json
from pathlib import Path


def short_items(path: Path, n: int, task: str = "BKT") -> Path:
    """n distinct four-option items of one task (short: for runs against instant or fault-injecting servers)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            opts = "\n".join(f"{x}. 方案{x}{i}" for x in "ABCD")
            fh.write(json.dumps({"id": f"q{i:05d}", "scenario": task, "input": f"## 问题: 第{i}题，患者{i}号首选？\n"
                                 f"## 选项: {opts}", "reference": "ABCD"[i % 4]}, ensure_ascii=False) + "\n")
    return path


def bkt_items(path: Path, n: int) -> Path:
    """n distinct BKT-style items (five options, realistic length: for throughput figures)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            stem = (f"患者{i}号，男，{20 + i % 60}岁，因反复上腹痛{i % 12 + 1}年、加重{i % 7 + 1}天入院。"
                    "查体：剑突下压痛。")
            opts = "\n".join(f"{x}. 选项{x}{i}：治疗方案{(i * 7 + k) % 97}" for k, x in enumerate("ABCDE"))
            fh.write(json.dumps({"id": f"q{i}", "scenario": "BKT", "input": f"## 问题: {stem}最可能的诊断是\n"
                                 f"## 选项: {opts}", "reference": "ABCDE"[i % 5]}, ensure_ascii=False) + "\n")
    return path


def rss_mb(pid: int | str = "self") -> float:
    """Current resident set size of a process in MB, from /proc (NaN where there is no /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
