"""Studies built for the rater tests: a small WTD data set (one item full of markup), runs of two models whose
answers are constructed (no model is called), and a study file made through the library."""

from __future__ import annotations

import json
import re
from pathlib import Path

from climedbench.apps.rater.design import Source, answer_cases, plan_study
from climedbench.apps.rater.rubric import load_rubric
from climedbench.apps.rater.store import Tokens, create_study
from tests.analyses.runs import make_run

MODELS = ("secret-model-alpha", "secret-model-beta")
MARKUP = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><b>加粗</b>'


def write_wtd(folder: Path, n: int) -> Path:
    """n WTD items in the official format; the first one's case text carries markup (EHR text can)."""
    folder.mkdir(parents=True)
    rows = []
    for k in range(1, n + 1):
        text = f"病例{k}：患者发热三天，医生给予处理方案{k}。" + (MARKUP if k == 1 else "")
        rows.append({"id": f"WTD-{k:03d}", "scenario": "WTD", "split": "test", "input": text,
                     "reference": f"参考答案{k}：这并不合适。"})
    (folder / "WTD.test.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
    return folder


def make_runs(tmp: Path, n: int = 4) -> tuple[list[Path], Path]:
    """Two runs (MODELS) answering every item of a fresh WTD data set; scores differ by model and item."""
    data = write_wtd(tmp / "data", n)
    runs = []
    for m, model in enumerate(MODELS):
        rows = [{"task": "WTD", "id": f"WTD-{k:03d}", "score": round(0.1 * k + 0.3 * m, 3),
                 "raw": f"第{m + 1}种回答{k}：<i>不合适</i>" if k == 1 else f"回答{k}，第{m + 1}种写法。"}
                for k in range(1, n + 1)]
        runs.append(make_run(tmp / f"run-{m}", rows, model=model, data=str(data)))
    return runs, data


def make_study(tmp: Path, *, n: int = 4, raters: int = 2, per_item: int = 2, per_task: int = 0, seed: int = 0,
               aspects: str = "answer") -> tuple[Path, Tokens]:
    """A study file rating the answers of make_runs; returns its path and the tokens."""
    from climedbench.analyses.runs import load_runs

    paths, _ = make_runs(tmp, n)
    runs = load_runs(paths)
    cases, notes = answer_cases(runs, None, seed)
    plan = plan_study(cases, rubric=load_rubric(aspects), raters=[f"rater-{k}" for k in range(1, raters + 1)],
                      per_item=per_item, per_task=per_task, seed=seed,
                      source=Source(kind="runs", paths=[str(p) for p in paths], suite="climedbench"), lang="zh",
                      notes=notes)
    db = tmp / "study.sqlite"
    return db, create_study(db, plan)


def form_fields(html: str) -> tuple[str, str, list[str]]:
    """(submission id, case uid, score field names) of a rendered case page."""
    sid = re.search(r'name="sid" value="([^"]+)"', html)
    case = re.search(r'name="case" value="([^"]+)"', html)
    fields = list(dict.fromkeys(re.findall(r'data-field="(s:\d+:\w+)"', html)))
    assert sid and case and fields, "not a case page"
    return sid.group(1), case.group(1), fields
