"""Every mistake a user can make ends as one line saying what is wrong (non-zero exit), found before any model is
loaded or request sent when it can be: the real command line in a child process, a real local server, real files."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server, reset_stats
from tests.support.synthetic import short_items

from .conftest import ROOT

HOSPITAL = ROOT / "docs" / "examples" / "hospital"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, check=False)


def one_line(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    """The process failed with `code` and said so in one line (the last of stderr) holding every needle."""
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == code, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    last = lines[-1]
    for n in needles:
        assert n in last, last
    return last


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with instant_server(model="instant-test") as url:
        yield url


@pytest.fixture
def url(server: str) -> str:
    reset_stats(server)
    return server


def untouched(url: str) -> None:
    """Neither the model check (GET /models) nor any chat request reached the server."""
    st = get_stats(url)
    assert st["requests"] == 0 and st["models"] == 0, st


def items(tmp_path: Path, n: int = 4) -> str:
    return str(short_items(tmp_path / "items.jsonl", n))


def hospital_suite(tmp_path: Path, old: str, new: str) -> str:
    text = (HOSPITAL / "suite.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "suite.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------------------------------- the server

def test_http_401_on_chat_is_one_line(tmp_path):
    """A server whose model list is public (llama.cpp) rejects the key only on the chat request, inside the
    run's task group: the user still reads one line about the key."""
    with instant_server(model="instant-test", api_key="right-key", open_models=True) as keyed:
        proc = cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", keyed,
                   "--api-key-env", "MY_KEY", "--out", str(tmp_path / "run"), "--no-cache", "--quiet",
                   env={"MY_KEY": "wrong-key"})
        assert get_stats(keyed)["unauthorized"] >= 1
    one_line(proc, 3, "rejected the API key", "HTTP 401")


def test_http_404_is_one_line(tmp_path, url):
    proc = cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url",
               url.replace("/v1", "/nope/v1"), "--out", str(tmp_path / "run"), "--no-cache", "--quiet")
    one_line(proc, 3, "answered 404", "--base-url")


# ---------------------------------------------------------------------------------- checked before the model loads

@pytest.mark.parametrize(("spec", "needle"), [("st:/missing/model", "is not a folder"), ("bogus", "use 'e5'")])
def test_a_wrong_embedder_is_refused_before_the_model_loads(tmp_path, url, spec, needle):
    proc = cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", url,
               "--embedder", spec, "--out", str(tmp_path / "run"), "--no-cache", "--quiet")
    one_line(proc, 2, f"--embedder {spec}" if spec.startswith("st:") else "--embedder 'bogus'", needle)
    untouched(url)


@pytest.mark.parametrize("where", ["file", "under-file", "read-only"])
def test_a_wrong_out_is_refused_before_the_model_loads(tmp_path, url, where):
    (tmp_path / "a-file").write_text("x")
    out = {"file": str(tmp_path / "a-file"), "under-file": str(tmp_path / "a-file" / "run"),
           "read-only": "/sys/climedbench-run"}[where]  # sysfs: not writable, even by root
    proc = cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", url, "--out", out,
               "--no-cache", "--quiet")
    one_line(proc, 2, f"--out {out}")
    untouched(url)


def test_irt_matrix_into_a_missing_folder_is_one_line(tmp_path, url):
    run = tmp_path / "run"
    run_cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", url, "--out", str(run),
            "--no-cache", "--quiet")
    proc = cli("irt", "matrix", str(run), "-o", str(tmp_path / "missing" / "m.csv"))
    one_line(proc, 2, "does not exist", "mkdir -p")
    assert not (tmp_path / "missing").exists()


# --------------------------------------------------------------------------------------------- a damaged cache

def damaged_cache(tmp_path: Path, url: str) -> Path:
    """A real cache file with a few hundred entries, then its pages after the first overwritten."""
    path = tmp_path / "damaged.sqlite"
    data = short_items(tmp_path / "many.jsonl", 200)
    run_cli("run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--cache", str(path),
            "--out", str(tmp_path / "first"), "--quiet")
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    size = path.stat().st_size
    assert size > 3 * 4096
    with path.open("r+b") as fh:
        for offset in range(4096, size, 4096):
            fh.seek(offset)
            fh.write(b"\xff" * 512)
    return path


def test_a_damaged_cache_is_one_line(tmp_path, url):
    path = damaged_cache(tmp_path, url)
    run = cli("run", "--data", str(tmp_path / "many.jsonl"), "--model", "openai:instant-test", "--base-url", url,
              "--cache", str(path), "--out", str(tmp_path / "second"), "--quiet")
    one_line(run, 2, f"the response cache {path} is damaged", "--no-cache")
    stats = cli("cache", "stats", "--cache", str(path))
    one_line(stats, 2, f"the response cache {path} is damaged")


# ----------------------------------------------------------------------------------------------------- suites

BAD_SUITES = {
    "unknown metric": ("metric: rougeL", "metric: rougeLL", "metric: unknown metric 'rougeLL'"),
    "sandbox": ("Write only the summary.", "{{ item.__class__.__mro__ }}", "not allowed in a prompt template"),
    "syntax": ("Write only the summary.", "{{ oops ", "prompt.answer_format: unexpected end of template"),
    "options not shown": ('template: "{{ instruction }}\\n\\n{{ input }}\\n{% if options %}\\n{{ options }}\\n'
                          '{% endif %}', 'template: "{{ instruction }}\\n\\n{{ input }}\\n',
                          "the prompt does not show option(s) A, B, C, D"),
}


@pytest.mark.parametrize("case", sorted(BAD_SUITES))
def test_a_bad_suite_fails_validate_and_run_before_any_request(tmp_path, url, case):
    old, new, needle = BAD_SUITES[case]
    suite = hospital_suite(tmp_path, old, new)
    one_line(cli("validate", "--suite", suite, str(HOSPITAL / "data")), 2, suite, needle)
    proc = cli("run", "--suite", suite, "--data", str(HOSPITAL / "data"), "--model", "openai:instant-test",
               "--base-url", url, "--out", str(tmp_path / "run"), "--no-cache", "--quiet")
    one_line(proc, 2, suite, needle)
    untouched(url)


def test_a_suite_without_tasks_is_one_line(tmp_path, url):
    suite = tmp_path / "empty.yaml"
    suite.write_text('suite: e\nversion: "1"\ntitle: E\nlanguage: en\ntasks: []\n', encoding="utf-8")
    one_line(cli("validate", "--suite", str(suite), str(HOSPITAL / "data")), 2, "the suite has no tasks")
    proc = cli("run", "--suite", str(suite), "--data", str(HOSPITAL / "data"), "--model", "openai:instant-test",
               "--base-url", url, "--out", str(tmp_path / "run"), "--no-cache", "--quiet")
    one_line(proc, 2, "the suite has no tasks")
    untouched(url)


def test_validate_and_run_name_a_task_of_ones_suite_without_data(tmp_path, url):
    data = tmp_path / "data"
    data.mkdir()
    for name in ("ward-mcq.jsonl", "discharge-safe.jsonl"):
        (data / name).write_bytes((HOSPITAL / "data" / name).read_bytes())
    proc = run_cli("validate", "--suite", str(HOSPITAL / "suite.yaml"), str(data))
    assert "note: no data for task(s) plain-summary in" in proc.stderr
    run = run_cli("run", "--suite", str(HOSPITAL / "suite.yaml"), "--data", str(data), "--model",
                  "openai:instant-test", "--base-url", url, "--out", str(tmp_path / "run"), "--no-cache", "--quiet")
    assert "note: no test items for task(s) plain-summary in" in run.stderr
    # Only a dev split: run refuses it, and so does validate (one line each, no request).
    dev = tmp_path / "dev-only"
    dev.mkdir()
    (dev / "ward-mcq.dev.jsonl").write_bytes((HOSPITAL / "data" / "ward-mcq.jsonl").read_bytes())
    one_line(cli("validate", "--suite", str(HOSPITAL / "suite.yaml"), str(dev)), 2, "no test items for any task")
    reset_stats(url)
    one_line(cli("run", "--suite", str(HOSPITAL / "suite.yaml"), "--data", str(dev), "--model", "openai:instant-test",
                 "--base-url", url, "--out", str(tmp_path / "run2"), "--no-cache"), 2, "no valid test items")
    untouched(url)


def test_a_choice_task_without_a_template_shows_its_options(tmp_path, url):
    """The default template lists the options when the question does not already hold them."""
    suite = hospital_suite(tmp_path, 'template: "{{ instruction }}\\n\\n{{ input }}\\n{% if options %}\\n'
                                     '{{ options }}\\n{% endif %}\\n{{ answer_format }}"', "")
    assert "template:" not in Path(suite).read_text(encoding="utf-8")
    run_cli("validate", "--suite", suite, str(HOSPITAL / "data"))
    out = tmp_path / "run"
    run_cli("run", "--suite", suite, "--data", str(HOSPITAL / "data"), "--tasks", "ward-mcq", "--model",
            "openai:instant-test", "--base-url", url, "--out", str(out), "--no-cache", "--quiet", "--log-prompts")
    records = {json.loads(x)["id"]: json.loads(x) for x in
               (HOSPITAL / "data" / "ward-mcq.jsonl").read_text(encoding="utf-8").splitlines()}
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert samples
    for s in samples:
        prompt = s["messages"][-1]["content"]
        for letter, text in zip("ABCD", records[s["item_id"]]["options"], strict=True):
            assert f"{letter}. {text}" in prompt
    # CliMedBench's questions hold their options: there the new default template renders as the old one did.
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items
    from climedbench.prompts import PromptSettings, build_messages

    old_default = "{{ instruction }}\n{{ input }}\n\n{{ answer_format }}"
    bundled = load_suite("climedbench")
    checked = 0
    for item in load_items(None, bundled).items:
        task = bundled.task(item.task)
        assert "options_shown" in task.prompt.template  # the default template
        legacy = task.model_copy(update={"prompt": task.prompt.model_copy(update={"template": old_default})})
        assert (build_messages(task, item, [], PromptSettings(), bundled)
                == build_messages(legacy, item, [], PromptSettings(), bundled))
        checked += bool(item.options)
    assert checked > 100


# ------------------------------------------------------------------------------------------------- bad options

BAD_OPTIONS = [("--max-concurrency", "0"), ("--max-concurrency", "-4"), ("--limit", "-1"), ("--timeout", "-5"),
               ("--timeout", "0"), ("--max-retries", "-1"), ("--rpm", "0"), ("--rpm", "-3"), ("--tpm", "0"),
               ("--shots", "-1"), ("--temperature", "-1"), ("--price-in", "-5"), ("--ctx", "0"),
               ("--threads", "0"), ("--max-tokens", "0")]


@pytest.mark.parametrize(("option", "value"), BAD_OPTIONS)
def test_bad_numbers_are_refused(tmp_path, url, option, value):
    proc = cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", url,
               "--out", str(tmp_path / "run"), "--no-cache", "--quiet", option, value)
    assert proc.returncode == 2 and f"Invalid value for '{option}'" in proc.stderr, proc.stderr
    untouched(url)


def test_rate_create_refuses_a_negative_per_task(tmp_path):
    proc = cli("rate", "create", "--per-task", "-5", "--db", str(tmp_path / "study.sqlite"), "--items",
               str(HOSPITAL / "data"), "--suite", str(HOSPITAL / "suite.yaml"))
    assert proc.returncode == 2 and "Invalid value for '--per-task'" in proc.stderr, proc.stderr


def test_cache_clear_asks_first(tmp_path, url):
    path = tmp_path / "c.sqlite"
    run_cli("run", "--data", items(tmp_path), "--model", "openai:instant-test", "--base-url", url, "--cache",
            str(path), "--out", str(tmp_path / "run"), "--quiet")
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "cache", "clear", "--cache", str(path)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    one_line(proc, 2, "add --yes", "4 cached response(s)")
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 4
    assert "deleted 4 cached response(s)" in run_cli("cache", "clear", "--cache", str(path), "--yes").stdout
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0


# ------------------------------------------------------------------------------------- progress and Ctrl-C

@pytest.fixture(scope="module")
def slow() -> Iterator[str]:
    with instant_server(model="instant-test", latency=0.05, slots=1) as u:
        yield u


def test_progress_lines_without_a_terminal(tmp_path, slow):
    proc = run_cli("run", "--data", str(short_items(tmp_path / "i.jsonl", 30)), "--model", "openai:instant-test",
                   "--base-url", slow, "--out", str(tmp_path / "run"), "--no-cache",
                   env={"CLIMEDBENCH_PROGRESS_EVERY": "0.3"})
    lines = re.findall(r"^items: (\d+)/30 \(\d+%\), elapsed \d+:\d\d:\d\d", proc.stderr, re.M)
    assert len(lines) >= 2 and lines[-1] == "30", proc.stderr
    assert [int(x) for x in lines] == sorted(int(x) for x in lines)


def _ctrl_c_as_at_a_terminal() -> None:
    """In the child before exec: SIGINT with its default action and not blocked, as in a command typed at a
    terminal. A process inherits an ignored or blocked SIGINT from its parent (a shell's background job ignores
    it), and this test's parent, a pytest worker, may have run anything before it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_says_what_is_saved_and_how_to_resume(tmp_path, slow):
    data = short_items(tmp_path / "i.jsonl", 200)
    args = ["run", "--data", str(data), "--model", "openai:instant-test", "--base-url", slow, "--no-cache"]
    child = subprocess.Popen([sys.executable, "-m", "climedbench.cli", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=tmp_path, preexec_fn=_ctrl_c_as_at_a_terminal)
    deadline = time.time() + 120
    samples: list[Path] = []
    while time.time() < deadline:
        samples = list(tmp_path.glob("runs/*/samples.jsonl"))
        if samples and samples[0].read_text(encoding="utf-8").count("\n") >= 5:
            break
        time.sleep(0.05)
    running = child.poll() is None
    seen = samples[0].read_text(encoding="utf-8").count("\n") if samples else 0
    status = Path(f"/proc/{child.pid}/status")
    masks = re.findall(r"Sig(?:Blk|Ign|Cgt):\s*\w+", status.read_text()) if running and status.exists() else []
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, f"still running when signalled: {running}, lines then: {seen}, {masks}\n{err}"
    (sample_file,) = samples
    saved = sample_file.read_text(encoding="utf-8").count("\n")
    assert 5 <= saved < 200
    match = re.search(r"interrupted: (\d+) finished item\(s\) are saved in (\S+); resume with:\n  (climedbench .+)",
                      err)
    assert match, err
    assert int(match[1]) == saved and Path(match[2]) == sample_file.relative_to(tmp_path)
    command = match[3].split()
    assert command[1:] == [*args, "--out", str(sample_file.parent.relative_to(tmp_path))]
    again = subprocess.run([sys.executable, "-m", "climedbench.cli", *command[1:], "--quiet"], capture_output=True,
                           text=True, cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"200 items ({saved} resumed from" in again.stderr


def _started_run(tmp_path: Path, url: str, preexec=_ctrl_c_as_at_a_terminal) -> tuple[subprocess.Popen, Path]:
    """A 200-item run against the slow server with its own temporary folder, once it has saved 5 answers."""
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    child = subprocess.Popen([sys.executable, "-m", "climedbench.cli", "run", "--data",
                              str(short_items(tmp_path / "i.jsonl", 200)), "--model", "openai:instant-test",
                              "--base-url", url, "--no-cache", "--out", "r"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, preexec_fn=preexec)
    deadline = time.time() + 120
    while time.time() < deadline and not ((tmp_path / "r" / "samples.jsonl").exists() and (
            tmp_path / "r" / "samples.jsonl").read_text(encoding="utf-8").count("\n") >= 5):
        time.sleep(0.05)
    return child, tmp_path / "r" / "samples.jsonl"


def test_sigterm_ends_a_run_like_ctrl_c(tmp_path, slow):
    """`kill`, `timeout` or a scheduler's time limit: the answers so far are saved, the command says how to resume,
    exit code 130, and the run's item spool is removed from the temporary folder."""
    child, samples = _started_run(tmp_path, slow)
    assert list((tmp_path / "tmp").glob("climedbench-plan-*")), "the run spools its items while it runs"
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    saved = samples.read_text(encoding="utf-8").count("\n")
    assert 5 <= saved < 200
    assert f"interrupted: {saved} finished item(s) are saved in r/samples.jsonl; resume with:" in err
    assert list((tmp_path / "tmp").iterdir()) == []


def _sigint_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_sigterm_still_ends_a_run_whose_ctrl_c_is_ignored(tmp_path, slow):
    """A background job of a script ignores SIGINT; SIGTERM must still end it (at once, as the signal's default)."""
    child, samples = _started_run(tmp_path, slow, preexec=_sigint_ignored)
    child.send_signal(signal.SIGTERM)
    child.communicate(timeout=120)
    assert child.returncode == -signal.SIGTERM
    assert 5 <= samples.read_text(encoding="utf-8").count("\n") < 200


def _children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _state(pid: int) -> str:
    """The process's state letter from /proc ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_sigterm_ends_deid_and_its_workers_quietly(tmp_path):
    """`deid` with two forked workers: SIGTERM ends it like Ctrl-C (exit code 130), the workers end with it without
    a traceback each, and nothing in the output claims to be de-identified."""
    demo = ROOT / "src" / "climedbench" / "deid" / "demo" / "notes_en.jsonl"
    lines = [json.loads(x) for x in demo.read_text("utf-8").splitlines() if x.strip()]
    (tmp_path / "in").mkdir()
    with (tmp_path / "in" / "notes.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(4000):
            fh.write(json.dumps({**lines[i % len(lines)], "id": f"r{i}"}) + "\n")
    child = subprocess.Popen([sys.executable, "-m", "climedbench.cli", "deid", str(tmp_path / "in"), "--out",
                              str(tmp_path / "out"), "--lang", "en", "--workers", "2", "--salt-file",
                              str(tmp_path / "salt")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_ctrl_c_as_at_a_terminal)
    deadline = time.time() + 120
    while time.time() < deadline and len(_children(child.pid)) < 2:
        time.sleep(0.05)
    workers = _children(child.pid)
    assert len(workers) == 2 and child.poll() is None
    time.sleep(1)
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert [w for w in workers if _state(w) not in ("", "Z")] == []  # ended (a zombie waits for init to reap it)
    assert not (tmp_path / "out" / "deid_manifest.json").exists()
    assert f"interrupted: nothing in {tmp_path / 'out'} is de-identified output (it has no deid_manifest.json); run " \
           "the same command again" in err, err


def test_analyze_all_prints_progress_lines(tmp_path, url):
    proc = run_cli("analyze", "all", "--model", "openai:instant-test", "--base-url", url, "--limit", "1", "--kinds",
                   "glyph", "--out", str(tmp_path / "all"), env={"CLIMEDBENCH_PROGRESS_EVERY": "0.01"})
    runs = re.findall(r"^run (\w+): (\d+) task\(s\)$", proc.stderr, re.M)
    finished = re.findall(r"^items: (\d+)/(\d+) \(100%\), elapsed", proc.stderr, re.M)
    assert [name for name, _ in runs] == ["vanilla", "cot", "glyph", "nota"], proc.stderr
    # --limit 1: one item per task, so each run's last line counts its tasks.
    assert [(n, n) for _, n in runs] == finished


def test_other_outputs_are_checked_before_the_work(tmp_path, url):
    (tmp_path / "a-file").write_text("x")
    a_file = str(tmp_path / "a-file")
    proc = cli("analyze", "all", "--model", "openai:instant-test", "--base-url", url, "--out", a_file)
    one_line(proc, 2, f"--out {a_file}: is a file")
    proc = cli("mps", "--models", f"openai:a@{url},openai:b@{url}", "--out", a_file)
    one_line(proc, 2, f"--out {a_file}: is a file")
    untouched(url)
    matrix = tmp_path / "m.csv"
    matrix.write_text("examinee,i1,i2\ne1,1,0\ne2,0,1\n")
    proc = cli("irt", "fit", str(matrix), "--out", f"{a_file}/bank.json")
    one_line(proc, 2, f"{a_file} is a file")
