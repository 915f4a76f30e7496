"""Build real, public LLM response matrices (the `irt matrix` CSV format) from public repositories.

    python bench/real_matrices.py --mirror DIR --out DIR

DIR holds git directories of these public repositories (e.g. from `git clone --bare` or any mirror):
  lamalab-org+irt-on-bench/repo   (MIT)         results/binary_matrix.csv: ChemBench, 22 LLMs x 2,854 questions
  tatsu-lab+alpaca_eval/repo      (Apache-2.0)  results/*/<annotator>/annotations.json: AlpacaEval 1 and 2
  the-crypt-keeper+can-ai-code/repo (MIT)       results/**/eval_<suite>_*.ndjson: can-ai-code junior-v2 and senior
  Peiyu-Georgia-Li+ATLAS/repo     (no licence file; the per-item results are the Open LLM Leaderboard's public
                                  details): experiments/arc_by_family_mixtral/clean_response_matrix.csv (ARC,
                                  320 Mixtral-family models x 735 questions) and
                                  experiments/baseline_compare/tinybenchmark_calibration/response_matrices.zip
                                  (tinyBenchmarks' items of ARC, GSM8K, HellaSwag, TruthfulQA and WinoGrande,
                                  thousands of leaderboard models each)

Nothing is downloaded; the data files are not part of climedbench. Files absent from a mirror are skipped and
counted. Output: chembench.csv, alpacaeval2.csv, alpacaeval1.csv, canaicode_junior-v2.csv (+ .items.csv: the
language as scenario), canaicode_senior.csv, arc_mixtral.csv, tiny5.csv (+ .items.csv: the benchmark as
scenario, k = answer options) (rows: models or model runs; columns: items; 1/0/empty).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import pandas as pd


def _git(repo: Path, *args: str) -> bytes | None:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    return r.stdout if r.returncode == 0 else None


def _files(repo: Path) -> list[str]:
    out = _git(repo, "ls-tree", "-r", "--name-only", "HEAD") or b""
    return out.decode().splitlines()


def _show(repo: Path, path: str) -> bytes | None:
    return _git(repo, "show", f"HEAD:{path}")


def chembench(mirror: Path) -> pd.DataFrame:
    raw = _show(mirror / "lamalab-org+irt-on-bench" / "repo", "results/binary_matrix.csv")
    if raw is None:
        raise SystemExit("irt-on-bench mirror lacks results/binary_matrix.csv")
    d = pd.read_csv(io.BytesIO(raw), index_col=0)
    m = d.T.astype(int)
    m.columns = [f"q{int(c):04d}" for c in m.columns]
    return m


def alpacaeval(mirror: Path, annotator: str) -> tuple[pd.DataFrame, int]:
    repo = mirror / "tatsu-lab+alpaca_eval" / "repo"
    rows: dict[str, dict[str, int]] = {}
    absent = 0
    for f in _files(repo):
        parts = f.split("/")
        if len(parts) != 4 or parts[0] != "results" or parts[2] != annotator or parts[3] != "annotations.json":
            continue
        raw = _show(repo, f)
        if raw is None:
            absent += 1
            continue
        r: dict[str, int] = {}
        for x in json.loads(raw):
            p = x.get("preference")
            try:
                v = float(p)
            except (TypeError, ValueError):
                continue
            if v != v:  # NaN
                continue
            iid = "i" + hashlib.sha1((x["dataset"] + "\x00" + x["instruction"]).encode()).hexdigest()[:10]
            r[iid] = 1 if v > 1.5 else 0
        rows[parts[1]] = r
    return pd.DataFrame(rows).T.sort_index(axis=1), absent


def canaicode(mirror: Path, suite: str) -> tuple[pd.DataFrame, dict[str, str], int]:
    repo = mirror / "the-crypt-keeper+can-ai-code" / "repo"
    rows: dict[str, dict[str, int]] = {}
    absent = 0
    for f in sorted(_files(repo)):
        name = f.rsplit("/", 1)[-1]
        if not (f.startswith("results/") and name.startswith(f"eval_{suite}_") and name.endswith(".ndjson")):
            continue
        raw = _show(repo, f)
        if raw is None:
            absent += 1
            continue
        r: dict[str, int] = {}
        for line in raw.decode("utf-8", "replace").splitlines():
            if not line.strip():
                continue
            d = json.loads(line)
            checks = d.get("checks")
            if isinstance(checks, str):
                try:
                    checks = ast.literal_eval(checks)
                except (ValueError, SyntaxError):
                    checks = None
            if not isinstance(checks, list):
                continue
            for k, c in enumerate(checks):
                r[f"{d['language']}:{d['name']}:{k}"] = 1 if c.get("status") in (1, True, "PASS") else 0
        if r:
            rows[name[:-7]] = r
    m = pd.DataFrame(rows).T.sort_index(axis=1)
    m = m[m.columns[m.notna().mean() >= 0.9]]
    m = m[m.notna().mean(axis=1) >= 0.9]
    ids = [f"{suite}-run{i:04d}" for i in range(len(m))]
    names = dict(zip(ids, m.index, strict=True))
    m.index = pd.Index(ids)
    return m, names, absent


ATLAS = "Peiyu-Georgia-Li+ATLAS"
#: tinyBenchmarks' five Open LLM Leaderboard benchmarks and their answer options (0 = generated answer / mc2)
TINY = {"arc": 4, "gsm8k": 0, "hellaswag": 4, "truthfulqa": 0, "winogrande": 2}


def arc_mixtral(mirror: Path) -> pd.DataFrame | None:
    raw = _show(mirror / ATLAS / "repo", "experiments/arc_by_family_mixtral/clean_response_matrix.csv")
    if raw is None:
        return None
    d = pd.read_csv(io.BytesIO(raw), index_col=0)
    d.columns = [f"arc{c.lstrip('X')}" for c in d.columns]
    return d


def tiny5(mirror: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    raw = _show(mirror / ATLAS / "repo",
                "experiments/baseline_compare/tinybenchmark_calibration/response_matrices.zip")
    if raw is None:
        return None
    parts = []
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        for bench in TINY:
            d = pd.read_csv(z.open(f"response_matrix_tiny{bench}.csv"), index_col=0)
            d.columns = [f"{bench}:{c}" for c in d.columns]
            parts.append(d)
    m = pd.concat(parts, axis=1, join="inner")  # the models present in all five
    items = pd.DataFrame({"item": m.columns, "scenario": [c.split(":")[0] for c in m.columns],
                          "k": [TINY[c.split(":")[0]] for c in m.columns]})
    return m, items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)

    def save(m: pd.DataFrame, name: str, note: str = "") -> None:
        m.index.name = "model"
        m.to_csv(a.out / name, float_format="%.0f")
        print(f"{name}: {m.shape[0]} examinees x {m.shape[1]} items, {int(m.isna().sum().sum())} missing, "
              f"mean {float(m.stack().mean()):.3f}{note}")

    save(chembench(a.mirror), "chembench.csv")
    for ann, name in [("weighted_alpaca_eval_gpt4_turbo", "alpacaeval2.csv"), ("alpaca_eval_gpt4", "alpacaeval1.csv")]:
        m, absent = alpacaeval(a.mirror, ann)
        save(m, name, f" ({absent} annotation files absent from the mirror)")
    names: dict[str, str] = {}
    for suite in ["junior-v2", "senior"]:
        m, n, absent = canaicode(a.mirror, suite)
        names.update(n)
        save(m, f"canaicode_{suite}.csv", f" ({absent} result files absent from the mirror)")
        langs = pd.DataFrame({"item": m.columns, "scenario": [c.split(":")[0] for c in m.columns], "k": 0})
        langs.to_csv(a.out / f"canaicode_{suite}.items.csv", index=False)
    pd.Series(names, name="source_file").to_csv(a.out / "canaicode_runs.csv", index_label="model")
    arc = arc_mixtral(a.mirror)
    if arc is None:
        print("arc_mixtral.csv: skipped (no ATLAS mirror)")
    else:
        save(arc, "arc_mixtral.csv")
    tiny = tiny5(a.mirror)
    if tiny is None:
        print("tiny5.csv: skipped (no ATLAS mirror)")
    else:
        save(tiny[0], "tiny5.csv")
        tiny[1].to_csv(a.out / "tiny5.items.csv", index=False)


if __name__ == "__main__":
    main()
