"""One writer per run directory, and figures that always describe samples.jsonl: real CLI processes against the
instant OpenAI-compatible server, real files."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.instant_server import instant_server
from tests.support.synthetic import short_items

ROOT = Path(__file__).resolve().parents[1]
ENV = {"PYTHONPATH": str(ROOT / "src")}
BUSY = 6  # climedbench.errors.RunDirBusy.exit_code


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=ENV, check=check, timeout=300)


def run_args(data: Path, url: str, out: Path) -> list[str]:
    return ["run", "--data", str(data), "--model", "openai:m", "--base-url", url, "--out", str(out), "--no-cache",
            "--quiet", "--max-concurrency", "2"]


def start_run(data: Path, url: str, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "climedbench.cli", *run_args(data, url, out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **ENV})


def wait_holding(proc: subprocess.Popen[str], out: Path, answered: int = 1, timeout: float = 120) -> None:
    """Until `proc` holds the lock of `out` (its PID in .lock) and has written `answered` samples."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        lock, samples = out / ".lock", out / "samples.jsonl"
        if lock.exists() and f'"pid": {proc.pid}' in lock.read_text() and samples.exists() and \
                samples.read_bytes().count(b"\n") >= answered:
            return
        time.sleep(0.05)
    raise AssertionError(f"{out}: the run never held its lock")


def records(path: Path) -> list[dict]:
    """Every line of samples.jsonl, parsed (a line that is not JSON fails the test)."""
    return [json.loads(line) for line in path.read_bytes().decode("utf-8").splitlines()]


def one_line(proc: subprocess.CompletedProcess[str], code: int) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.fixture()
def slow_server():
    # One request at a time, 0.1 s each: a 40-item run lasts about 4 s, long enough to collide with.
    with instant_server(latency=0.1, slots=1) as url:
        yield url


def test_a_second_run_on_the_same_out_is_refused_and_the_first_loses_nothing(tmp_path, slow_server):
    data = short_items(tmp_path / "items.jsonl", 40)
    out = tmp_path / "run"
    first = start_run(data, slow_server, out)
    try:
        wait_holding(first, out)
        second = cli(*run_args(data, slow_server, out), check=False)
        line = one_line(second, BUSY)
        assert f"PID {first.pid} on host {socket.gethostname()}" in line and str(out) in line
        _, err = first.communicate(timeout=300)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
    rows = records(out / "samples.jsonl")
    assert len(rows) == 40 and len({r["uid"] for r in rows}) == 40
    assert json.loads((out / "results.json").read_text())["run"]["items"] == 40


@pytest.fixture()
def slower_server():
    # 0.25 s a request: the run lasts about 10 s, so `score` (a new interpreter, seconds on a loaded machine)
    # starts while it still writes; with 0.1 s the run finished first twice at load 10-13.
    with instant_server(latency=0.25, slots=1) as url:
        yield url


def test_score_is_refused_while_a_run_writes_and_a_killed_run_does_not_block(tmp_path, slower_server):
    slow_server = slower_server
    data = short_items(tmp_path / "items.jsonl", 40)
    out = tmp_path / "run"
    first = start_run(data, slow_server, out)
    try:
        wait_holding(first, out, answered=3)
        line = one_line(cli("score", str(out), check=False), BUSY)
        assert f"PID {first.pid}" in line and "climedbench run" in line
        first.send_signal(signal.SIGKILL)  # no clean-up: only the OS releases the lock
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    assert not (out / "results.json").exists()  # it was killed mid-run
    cli(*run_args(data, slow_server, out))  # resumes: the dead run's lock does not block
    rows = records(out / "samples.jsonl")
    assert len(rows) == 40 and len({r["uid"] for r in rows}) == 40
    assert cli("score", str(out)).returncode == 0  # and nobody holds the lock now


@pytest.fixture()
def quick_run(tmp_path):
    data = short_items(tmp_path / "items.jsonl", 8)
    with instant_server() as url:
        out = tmp_path / "run"
        cli(*run_args(data, url, out))
        yield data, url, out


def test_score_keeps_a_cut_off_last_record_and_the_run_answers_it_again(quick_run):
    data, url, out = quick_run
    samples = out / "samples.jsonl"
    whole = samples.read_bytes()
    lines = whole.splitlines(keepends=True)
    cut = lines[-1][: len(lines[-1]) // 2]  # a run killed while writing its last record
    samples.write_bytes(b"".join(lines[:-1]) + cut)
    proc = cli("score", str(out), "--json")
    warning = [x for x in proc.stderr.splitlines() if "cut off" in x]
    assert len(warning) == 1 and f"{samples}:8" in warning[0]
    after = samples.read_bytes()
    assert after.endswith(cut)  # kept as it was
    kept = [json.loads(x) for x in after[: -len(cut)].decode("utf-8").splitlines()]
    assert [r["uid"] for r in kept] == [json.loads(x)["uid"] for x in lines[:-1]]
    assert [r["raw"] for r in kept] == [json.loads(x)["raw"] for x in lines[:-1]]
    run = json.loads((out / "results.json").read_text())["run"]
    assert (run["items"], run["missing"]) == (7, 1)
    cli(*run_args(data, url, out))
    again = records(samples)
    assert len(again) == 8 and again[-1]["uid"] == json.loads(lines[-1])["uid"]


def test_an_edited_results_json_does_not_pass(quick_run):
    _, _, out = quick_run
    rows = records(out / "samples.jsonl")
    expected = round(100 * sum(r["score"] for r in rows) / len(rows), 2)  # one accuracy task: its mean ×100
    results = json.loads((out / "results.json").read_text())
    assert results["overall"]["score"] == expected
    results["overall"]["score"] = 88.8
    results["tasks"]["BKT"]["score"] = 99.0
    (out / "results.json").write_text(json.dumps(results), encoding="utf-8")
    proc = cli("report", str(out), "--json")
    shown = json.loads(proc.stdout)[str(out)]
    assert shown["overall"]["score"] == expected and shown["tasks"]["BKT"]["score"] == expected
    assert "results.json was changed after it was written" in proc.stderr
    board = json.loads(cli("leaderboard", str(out), "--json").stdout)
    assert [v["overall"]["score"] for v in board.values()] == [expected]


def test_report_json_keeps_two_runs_of_one_model_apart(quick_run, tmp_path):
    data, url, out = quick_run
    other = tmp_path / "again"
    cli(*run_args(data, url, other), "--seed", "1")
    shown = json.loads(cli("report", str(out), str(other), "--json").stdout)
    assert sorted(shown) == sorted([str(out), str(other)])
    assert {v["model"] for v in shown.values()} == {"m"}


def test_html_never_overwrites_without_force_and_never_a_run_file(quick_run, tmp_path):
    _, _, out = quick_run
    page = tmp_path / "page.html"
    page.write_text("mine", encoding="utf-8")
    line = one_line(cli("report", str(out), "--html", str(page), "--no-samples", check=False), 2)
    assert "--force" in line and page.read_text(encoding="utf-8") == "mine"
    cli("report", str(out), "--html", str(page), "--no-samples", "--force")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    for name in ("samples.jsonl", "results.json", "run.json"):
        before = (out / name).read_bytes()
        line = one_line(cli("report", str(out), "--html", str(out / name), "--force", check=False), 2)
        assert name in line and (out / name).read_bytes() == before


def test_corrupt_samples_are_one_line_naming_file_and_line(quick_run, tmp_path):
    _, _, out = quick_run
    samples = out / "samples.jsonl"
    lines = samples.read_bytes().splitlines(keepends=True)
    samples.write_bytes(b"".join(lines[:3]) + b'{"uid": "\xff\xfe"}\n' + b"".join(lines[3:]))
    for args in (("score", str(out)), ("report", str(out)), ("rate", "create", str(out), "--db",
                                                             str(tmp_path / "s.sqlite"))):
        line = one_line(cli(*args, check=False), 2)
        assert f"{samples}:4" in line and "internal error" not in line


def test_merge_and_rate_create_refuse_bad_run_arguments_in_one_line(quick_run, tmp_path):
    data, _, out = quick_run
    line = one_line(cli("merge", str(data), "--out", str(tmp_path / "merged"), check=False), 2)
    assert str(data) in line and not (tmp_path / "merged").exists()
    db = tmp_path / "study.sqlite"
    line = one_line(cli("rate", "create", str(out), str(out), "--db", str(db), check=False), 2)
    assert "same run directory" in line and not db.exists()
    line = one_line(cli("irt", "matrix", str(out), str(out), "--out", str(tmp_path / "m.csv"), check=False), 2)
    assert "same run directory" in line and not (tmp_path / "m.csv").exists()
