"""Figures carry their completeness: failed requests are not wrong answers, a run with failures says so (exit 5),
and partial runs are marked beside published figures.

Real parts: the real CLI in a child process, the instant OpenAI-compatible server on 127.0.0.1 behind the real
fault-injecting proxy, headless Chromium for the HTML report. Expected figures are computed here from
samples.jsonl read as plain JSON (and scipy for the Jeffreys interval), never by the aggregation code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scipy import stats

from tests.support.browser import chromium
from tests.support.cli import run_cli
from tests.support.fault_proxy import configure_proxy, fault_proxy
from tests.support.instant_server import get_stats, instant_server

TASKS = ["ID#1", "BKT", "FIT"]
INCOMPLETE_EXIT = 5


def run_args(url: str, out: Path, *extra: str) -> list[str]:
    return ["run", "--tasks", ",".join(TASKS), "--limit", "0", "--model", "openai:instant-test", "--base-url", url,
            "--max-retries", "0", "--no-cache", "--quiet", "--out", str(out), *extra]


def samples(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """A run through a proxy that answers 500 to 40% of the requests (no retries), then the servers for more."""
    root = tmp_path_factory.mktemp("complete")
    with instant_server() as upstream, fault_proxy(upstream, seed=3, p_500=0.4) as url:
        out = root / "run"
        proc = run_cli(*run_args(url, out), check=False)
        yield {"root": root, "out": out, "proc": proc, "url": url, "upstream": upstream}


def test_failed_requests_are_not_wrong_answers_and_the_run_exits_5(faulty):
    proc, out = faulty["proc"], faulty["out"]
    assert proc.returncode == INCOMPLETE_EXIT, proc.stderr
    recs = samples(out)
    failed = [s for s in recs if s["error"]]
    assert 0 < len(failed) < len(recs)
    last = proc.stderr.strip().splitlines()[-1]
    assert f"{len(failed)} of {len(recs)} request(s) failed" in last and "re-run the same command" in last
    res = results(out)
    for code in TASKS:
        task = [s for s in recs if s["task"] == code]
        ok = [s for s in task if not s["error"]]
        fig = res["tasks"][code]
        assert (fig["n"], fig["answered"], fig["errors"]) == (len(task), len(ok), len(task) - len(ok))
        assert fig["complete"] is False
        x, m, n = sum(s["score"] for s in ok), len(ok), len(task)
        assert fig["score"] == pytest.approx(100 * x / m, abs=0.01)
        lo, hi = fig["ci"]
        # Every way the unanswered items could have turned out lies inside the interval ...
        for k in range(n - m + 1):
            assert lo - 0.01 <= 100 * (x + k) / n <= hi + 0.01, (code, k)
        # ... and so does the answered items' own Jeffreys interval, scaled by the answered share.
        j_lo = 0.0 if x == 0 else stats.beta.ppf(0.025, x + 0.5, m - x + 0.5)
        j_hi = 1.0 if x == m else stats.beta.ppf(0.975, x + 0.5, m - x + 0.5)
        assert lo <= 100 * j_lo * m / n + 0.01 and hi >= 100 * (j_hi * m + (n - m)) / n - 0.01
    overall = res["overall"]
    assert overall["complete"] is False and overall["all_tasks"] is False
    assert overall["answered"] == len(recs) - len(failed) and overall["n"] == len(recs)
    means = [100 * sum(s["score"] for s in recs if s["task"] == c and not s["error"])
             / sum(1 for s in recs if s["task"] == c and not s["error"]) for c in TASKS]
    assert overall["score"] == pytest.approx(sum(means) / len(means), abs=0.02)
    # The terminal table marks each task's score and shows answered/n.
    fig = res["tasks"]["ID#1"]
    assert f"{fig['score']:.1f}†" in proc.stdout and f"{fig['answered']}/{fig['n']}" in proc.stdout


def test_report_leaderboard_and_json_mark_the_incomplete_run(faulty):
    out = faulty["out"]
    res = results(out)
    id1 = res["tasks"]["ID#1"]
    lb = run_cli("leaderboard", "--paper", str(out))
    assert f"{id1['score']:.1f}†*" in lb.stdout and f"{res['overall']['score']:.1f}†*" in lb.stdout
    assert "† not every item was answered" in lb.stdout and "* partial" in lb.stdout
    assert f"ID#1 {id1['answered']}/{id1['n']}" in lb.stdout
    rep = run_cli("report", str(out), "--paper")
    assert f"{id1['score']:.1f}†*" in rep.stdout
    as_json = json.loads(run_cli("leaderboard", str(out), "--json").stdout)
    fig = as_json["instant-test"]["tasks"]["ID#1"]
    assert (fig["answered"], fig["n"], fig["complete"]) == (id1["answered"], id1["n"], False)


def test_html_report_marks_the_incomplete_and_partial_cells(faulty, tmp_path):
    out = faulty["out"]
    res = results(out)
    html = tmp_path / "report.html"
    run_cli("report", str(out), "--paper", "--html", str(html), "--no-samples")
    with chromium() as browser:
        page = browser.new_page()
        page.goto(html.as_uri())
        cols = page.eval_on_selector_all("#board thead th", "els => els.map(e => e.dataset.key)")
        row = page.locator("#board tbody tr.run").first
        for key, fig in (("ID#1", res["tasks"]["ID#1"]), ("overall", res["overall"])):
            td = row.locator("td, th").nth(cols.index(key))
            assert td.locator("sup.mark").text_content() == "†*"
            assert td.locator(".n").text_content() == f"n={fig['answered']}/{fig['n']}"
        notes = page.eval_on_selector_all("#leaderboard p.note", "els => els.map(e => e.textContent)")
        assert any(n.startswith("† not every item was answered") for n in notes)
        assert any(n.startswith("* instant-test: 3 of 14 tasks") for n in notes)
        # Published rows carry no mark.
        assert page.locator("#board tbody tr.published sup.mark").count() == 0


def test_rerunning_the_same_command_completes_the_run(faulty):
    out = faulty["root"] / "resumed"
    shutil.copytree(faulty["out"], out)
    failed = sum(1 for s in samples(out) if s["error"])
    configure_proxy(faulty["url"], p_500=0.0)
    try:
        proc = run_cli(*run_args(faulty["url"], out), check=False)
    finally:
        configure_proxy(faulty["url"], p_500=0.4)
    assert proc.returncode == 0, proc.stderr
    res = results(out)
    assert res["run"]["resumed"] == len(samples(faulty["out"])) - failed and res["run"]["failed"] == 0
    for fig in [*res["tasks"].values(), res["overall"]]:
        assert fig["answered"] == fig["n"] and "†" not in proc.stdout
    assert res["overall"]["complete"] is False and res["overall"]["all_tasks"] is False  # 3 of 14 tasks


def test_allow_incomplete_exits_0(faulty):
    out = faulty["root"] / "allowed"
    proc = run_cli(*run_args(faulty["url"], out, "--allow-incomplete"), check=False)
    assert proc.returncode == 0, proc.stderr
    assert results(out)["run"]["failed"] > 0 and "request(s) failed" in proc.stderr


def test_score_of_an_incomplete_run_exits_5(faulty):
    out = faulty["root"] / "scored"
    shutil.copytree(faulty["out"], out)
    assert run_cli("score", str(out), check=False).returncode == INCOMPLETE_EXIT
    assert run_cli("score", str(out), "--allow-incomplete", check=False).returncode == 0


def test_a_run_with_no_answers_has_no_score(tmp_path):
    with instant_server() as upstream, fault_proxy(upstream, seed=1, p_500=1.0) as url:
        proc = run_cli(*run_args(url, tmp_path / "run"), check=False)
    assert proc.returncode == INCOMPLETE_EXIT
    text = (tmp_path / "run" / "results.json").read_text(encoding="utf-8")
    res = json.loads(text)
    for fig in [*res["tasks"].values(), *res["groups"].values(), res["overall"]]:
        assert fig["score"] is None and "ci" not in fig and fig["answered"] == 0 and fig["note"].startswith("no")
    assert '"score": null' in text
    assert "0.0" not in proc.stdout and "no answers" in proc.stdout
    lb = run_cli("leaderboard", "--paper", str(tmp_path / "run"))
    overall_line = next(line for line in lb.stdout.splitlines() if line.lstrip("│ ").startswith("Overall"))
    assert overall_line.rstrip(" │").endswith("—†*")


def test_report_shows_no_overall_when_samples_are_empty_or_missing(faulty, tmp_path):
    out = tmp_path / "gone"
    shutil.copytree(faulty["out"], out)
    overall = f"{results(out)['overall']['score']:.1f}"
    assert overall in run_cli("report", str(out)).stdout
    (out / "samples.jsonl").write_text("", encoding="utf-8")
    for command in ("report", "leaderboard"):
        empty = run_cli(command, str(out)).stdout
        assert overall not in empty and "no overall" in empty, command
    (out / "samples.jsonl").unlink()
    assert "no overall" in run_cli("report", str(out)).stdout
    assert "no overall" in run_cli("leaderboard", str(out)).stdout


def test_from_csv_rejects_fractions_and_negative_scores(tmp_path):
    fractions = tmp_path / "fractions.csv"
    fractions.write_text("model,ID#1,BKT\nm1,0.52,0.61\nm2,0.48,0.7\n", encoding="utf-8")
    proc = run_cli("leaderboard", "--from-csv", str(fractions), check=False)
    assert proc.returncode == 2
    assert f"{fractions}:2: field 'ID#1'" in proc.stderr and "fractions" in proc.stderr
    negative = tmp_path / "negative.csv"
    negative.write_text("model,ID#1,CPR\nm1,52,-10\nm2,-3,20\n", encoding="utf-8")
    proc = run_cli("leaderboard", "--from-csv", str(negative), check=False)
    assert proc.returncode == 2 and f"{negative}:3: field 'ID#1'" in proc.stderr
    signed = tmp_path / "signed.csv"  # CPR is Kendall's τ: negative scores are possible
    signed.write_text("model,ID#1,CPR\nm1,52,-10\n", encoding="utf-8")
    assert "-10.0" in run_cli("leaderboard", "--from-csv", str(signed)).stdout


BAD_SUITE = """
suite: mismatched
version: "1"
title: Mismatched
language: en
tasks:
  - code: QA
    name: {en: Free-text QA}
    answer: text
    metric: accuracy
"""


def test_a_metric_that_cannot_score_the_answer_kind_is_refused_before_any_request(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(BAD_SUITE, encoding="utf-8")
    data = tmp_path / "QA.test.jsonl"
    data.write_text(json.dumps({"id": "1", "task": "QA", "input": "What is 2+2?", "reference": "4"}) + "\n",
                    encoding="utf-8")
    with instant_server() as url:
        proc = run_cli("run", "--suite", str(suite), "--data", str(data), "--model", "openai:instant-test",
                       "--base-url", url, "--no-cache", "--quiet", "--out", str(tmp_path / "run"), check=False)
        assert get_stats(url)["requests"] == 0
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(suite) in lines[0] and "task QA" in lines[0]
    assert "'accuracy' cannot score answer kind 'text'" in lines[0]
    assert not (tmp_path / "run").exists()


def test_a_run_stopped_by_max_cost_is_marked_beside_the_paper(tmp_path):
    out = tmp_path / "stopped"
    with instant_server() as url:
        proc = run_cli(*run_args(url, out, "--price-in", "1000", "--price-out", "1000", "--max-cost", "2",
                                 "--max-concurrency", "1"), check=False)
    assert proc.returncode == 4, proc.stderr
    recs = samples(out)
    res = results(out)
    assert 0 < len(recs) < 84 and res["overall"]["answered"] == len(recs) and res["overall"]["n"] == 84
    lb = run_cli("leaderboard", "--paper", str(out)).stdout
    overall_line = next(line for line in lb.splitlines() if line.lstrip("│ ").startswith("Overall"))
    assert overall_line.rstrip(" │").endswith(f"{res['overall']['score']:.1f}†*")
    assert "stopped by --max-cost" in lb


# --- pure logic: the widened intervals and reading results.json files written before `answered` ---------------


def _scores(values: list[float], failed: list[bool], stats: list[list[float]] | None = None):
    from climedbench.aggregate import TaskScores

    data = TaskScores()
    for i, (v, f) in enumerate(zip(values, failed, strict=True)):
        data.add(v, stats[i] if stats else None, error=f)
    return data


def test_a_signed_graded_task_covers_every_completion_from_minus_one_to_one():
    from climedbench.aggregate import aggregate
    from climedbench.core.suite import load_suite

    suite = load_suite()
    values = [1.0, -1 / 3, 2 / 3, 0.0, 1 / 3, 0.0, 0.0]
    failed = [False, False, False, False, False, True, True]
    tasks, _, _ = aggregate({"CPR": _scores(values, failed)}, suite, seed=0)
    fig = tasks["CPR"]
    answered = [v for v, f in zip(values, failed, strict=True) if not f]
    assert fig.score == pytest.approx(100 * sum(answered) / len(answered), abs=0.01)
    lo, hi = fig.ci
    for missing in (-1.0, 1.0):  # the mean is linear in the missing scores: the extremes bound every completion
        completed = 100 * (sum(answered) + 2 * missing) / 7
        assert lo - 0.01 <= completed <= hi + 0.01
    assert (fig.answered, fig.n, fig.complete) == (5, 7, False) and "widened for 2 unanswered" in fig.interval


def test_micro_f1_with_failed_items_reaches_the_perfect_completion():
    from climedbench.aggregate import aggregate
    from climedbench.core.suite import load_suite

    suite = load_suite("clinicbench")
    # (tp, fp, fn) per item; the failed items recorded their gold mentions as false negatives.
    stats = [[2, 1, 0], [1, 0, 1], [0, 2, 1], [0, 0, 3], [0, 0, 2]]
    failed = [False, False, False, True, True]
    tasks, _, _ = aggregate({"NCBI-Disease": _scores([0.0] * 5, failed, stats)}, suite, seed=0)
    fig = tasks["NCBI-Disease"]
    tp, fp, fn = 3, 3, 2  # answered items only
    assert fig.score == pytest.approx(100 * 2 * tp / (2 * tp + fp + fn), abs=0.01)
    best = 100 * 2 * (tp + 5) / (2 * (tp + 5) + fp + fn)  # the failed items' 5 gold mentions all found
    assert fig.ci[0] == 0.0 and fig.ci[1] >= best - 0.01


def test_results_json_written_before_answered_is_read_with_its_errors_as_unanswered():
    from climedbench.core.types import Results

    old = {"model": "m", "suite": "climedbench",
           "tasks": {"ID#1": {"score": 17.9, "ci": [7.2, 34.8], "n": 28, "metric": "accuracy", "errors": 9}},
           "overall": {"score": 17.9, "n": 28, "metric": "mean of task scores", "errors": 9, "tasks": ["ID#1"],
                       "complete": False}}
    res = Results.model_validate(old)
    assert (res.tasks["ID#1"].answered, res.tasks["ID#1"].incomplete) == (19, True)
    assert res.overall is not None and res.overall.all_tasks is False and res.overall.complete is False
    whole = Results.model_validate({**old, "overall": {**old["overall"], "complete": True, "errors": 0}})
    assert whole.overall is not None and whole.overall.all_tasks is True and whole.overall.complete is True


def test_the_bundled_suites_metrics_fit_their_answer_kinds():
    from climedbench.core.fit import check_fit
    from climedbench.core.suite import BUNDLED, load_suite

    for name in BUNDLED:
        check_fit(load_suite(name), name)
