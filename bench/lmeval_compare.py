"""climedbench vs lm-evaluation-harness 0.4.13 on the HTTP path, side by side (issue 24, part 4).

    python bench/lmeval_compare.py --setup              # once: lm-eval's own venv (CPU torch, lm_eval[api])
    python bench/lmeval_compare.py [--items 1800] [--repeats 3] [--concurrency 64] [--venv /tmp/lmeval-venv]
    python bench/lmeval_compare.py --faults 0.3         # fault injection: which tool finishes

Both tools evaluate the same N synthetic Chinese MCQ items (tests/support/synthetic.py's BKT items, in the official
CliMedBench format) against one instant OpenAI-compatible server on 127.0.0.1 (bench/lmeval_server.py, a child
process: it answers "答案：X" at once, X a hash of the messages, so identical prompts get identical answers), with
64 requests in flight. lm-eval gets a task YAML (generate_until, chat completions, `--apply_chat_template`, model
`local-chat-completions`, `num_concurrent`) over a JSONL whose `prompt` field is the user message climedbench sent
in a warm-up run (read from its samples.jsonl with --log-prompts), so the decoded prompts are the same by
construction; the script checks it at the server, by sha256 of the canonical messages each tool sent.

For each tool and run it prints: the whole wall time (launch to exit), the CPU time of the child's process tree
(user + system), the peak RSS summed over that tree (sampled every 20 ms), the time from launch to the first chat
request read by the server, and items/s while sending (requests read by the server between its first and last
one, per second). Runs are paired (A/B, then B/A, ...) and the ratios climedbench / lm-eval are given per pair and
as medians.

With --faults P the server fails a share P of the attempts (2/3 answer 500, 1/3 stall beyond both tools'
--timeout, at most 3 faults per prompt), and the script reports which tool finishes with every item answered.

lm-eval is never imported here: `--help` works without it. The venv (--setup) installs torch==2.13.0 first (the
CPU wheel this machine keeps on disk; never a CUDA build), then lm_eval[api]==0.4.13, with pip from the registry.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.instant_server import http_json, origin, wait_ready  # noqa: E402
from tests.support.synthetic import bkt_items  # noqa: E402

LMEVAL = "lm_eval[api]==0.4.13"
TORCH = "torch==2.13.0"
TASK = "climedbench_bkt_bench"
MODEL = "instant-test"


@dataclass
class Run:
    """One tool's run, as measured from outside and at the server."""

    tool: str
    wall: float
    peak_mb: float
    cpu: float
    first_request: float
    send_rate: float
    requests: int
    faults: int
    digests: set[str]
    rc: int
    score: float | None


# ---------------------------------------------------------------------------------------------------------------
# Processes: the server, memory of a process tree, one timed tool run.

def start_server(fault_rate: float, stall: float) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, str(ROOT / "bench" / "lmeval_server.py"), "--fault-rate", str(fault_rate),
           "--stall-seconds", str(stall)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        raise SystemExit(f"bench server did not start (exit code {proc.poll()})")
    wait_ready(origin(url) + "/health", proc, "bench server")
    return proc, url


def tree_rss_mb(pid: int) -> float:
    """RSS summed over pid and its descendants (from /proc's children lists), in MiB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total / 1024


def timed(cmd: list[str], env: dict[str, str], log: Path) -> tuple[float, float, float, float, int]:
    """Run cmd; (start time.time(), wall seconds, peak tree RSS MiB, CPU seconds of the tree, exit code); its output
    goes to `log`. CPU seconds: user + system of every descendant waited for (less sensitive to the machine's load
    than wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("w") as out:
        start = time.time()
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        peak = 0.0
        while proc.poll() is None:
            peak = max(peak, tree_rss_mb(proc.pid))
            time.sleep(0.02)
        wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return start, wall, peak, cpu, proc.returncode


def measure(tool: str, cmd: list[str], env: dict[str, str], url: str, work: Path,
            score_of: Any) -> Run:
    http_json(origin(url) + "/bench/reset", method="POST", payload={})
    start, wall, peak, cpu, rc = timed(cmd, env, work / f"{tool}.log")
    chat = http_json(origin(url) + "/bench/log", timeout=60)["chat"]
    times = [c[0] for c in chat]
    rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else float("nan")
    first = times[0] - start if times else float("nan")
    return Run(tool, wall, peak, cpu, first, rate, len(chat), sum(c[3] != "ok" for c in chat),
               {c[1] for c in chat if c[3] == "ok"}, rc, score_of() if rc == 0 else None)


# ---------------------------------------------------------------------------------------------------------------
# The two tools' commands and inputs.

def climedbench_cmd(data: Path, url: str, out: Path, args: argparse.Namespace, log_prompts: bool = False
                    ) -> list[str]:
    cmd = [sys.executable, "-m", "climedbench.cli", "run", "--data", str(data), "--model", f"openai:{MODEL}",
           "--base-url", url, "--no-cache", "--out", str(out), "--max-tokens", str(args.max_tokens),
           "--max-concurrency", str(args.concurrency), "--timeout", str(args.timeout), "--quiet"]
    return cmd + (["--log-prompts"] if log_prompts else [])


def climedbench_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def lmeval_cmd(venv: Path, tasks: Path, url: str, out: Path, args: argparse.Namespace) -> list[str]:
    model_args = (f"model={MODEL},base_url={url}/chat/completions,num_concurrent={args.concurrency},"
                  f"max_retries={args.lmeval_retries},timeout={int(args.timeout)},tokenized_requests=False")
    cmd = [str(venv / "bin" / "lm_eval"), "--model", "local-chat-completions", "--model_args", model_args,
           "--tasks", TASK, "--include_path", str(tasks), "--apply_chat_template", "--output_path", str(out)]
    return cmd + (["--log_samples"] if args.log_samples else [])


def lmeval_env(work: Path) -> dict[str, str]:
    return {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(work / "hf-datasets"), "TOKENIZERS_PARALLELISM": "false"}


TASK_YAML = """task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: reference
generation_kwargs:
  until: []
  max_gen_toks: {max_tokens}
  do_sample: false
  temperature: 0.0
filter_list:
  - name: letter
    filter:
      - function: regex
        regex_pattern: "答案：([A-E])"
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
"""


def write_lmeval_task(samples: Path, items: Path, tasks: Path, max_tokens: int) -> int:
    """The lm-eval task over the user messages climedbench sent (from its samples.jsonl); number of docs."""
    gold = {json.loads(line)["id"]: json.loads(line)["reference"] for line in items.open(encoding="utf-8")}
    tasks.mkdir(parents=True, exist_ok=True)
    data = tasks / "items.jsonl"
    n = 0
    with samples.open(encoding="utf-8") as src, data.open("w", encoding="utf-8") as dst:
        for line in src:
            s = json.loads(line)
            msgs = s["messages"]
            if len(msgs) != 1 or msgs[0]["role"] != "user":
                raise SystemExit(f"{samples}: item {s['item_id']}: expected one user message, got {len(msgs)}")
            row = {"id": s["item_id"], "prompt": msgs[0]["content"], "reference": gold[s["item_id"]]}
            dst.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    (tasks / f"{TASK}.yaml").write_text(TASK_YAML.format(task=TASK, data=data, max_tokens=max_tokens), "utf-8")
    return n


def climedbench_score(out: Path) -> float | None:
    tasks = json.loads((out / "results.json").read_text("utf-8")).get("tasks", {})
    task = tasks.get("BKT") if isinstance(tasks, dict) else None
    return task.get("score") if isinstance(task, dict) else None


def lmeval_score(out: Path) -> float | None:
    for f in sorted(out.rglob("results_*.json")):
        res = json.loads(f.read_text("utf-8"))["results"].get(TASK, {})
        value = res.get("exact_match,letter")
        return None if value is None else 100 * value
    return None


# ---------------------------------------------------------------------------------------------------------------
# Reporting.

def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "uptime: not available"


def row(r: Run) -> str:
    score = "-" if r.score is None else f"{r.score:.1f}"
    return (f"{r.tool:<12} wall {r.wall:7.2f} s  cpu {r.cpu:6.2f} s  peak {r.peak_mb:6.0f} MiB  "
            f"first request {r.first_request:6.2f} s  "
            f"sending {r.send_rate:7.0f} items/s  requests {r.requests:5d} (faults {r.faults})  exit {r.rc}  "
            f"score {score}")


def explain_difference(url: str, a: set[str], b: set[str]) -> None:
    """Print how the prompts only one tool sent differ (the first pair, character-level)."""
    import difflib
    prompts = http_json(origin(url) + "/bench/prompts", timeout=60)
    print(f"PROMPTS DIFFER: {len(a - b)} only from climedbench, {len(b - a)} only from lm-eval")
    if a - b and b - a:
        x, y = prompts.get(sorted(a - b)[0], ""), prompts.get(sorted(b - a)[0], "")
        for op in difflib.SequenceMatcher(None, x, y).get_opcodes():
            if op[0] != "equal":
                print(f"  first difference: {op[0]} climedbench {x[op[1]:op[2]]!r} -> lm-eval {y[op[3]:op[4]]!r}")
                break


def ratios(pairs: list[tuple[Run, Run]]) -> None:
    fields = [("wall", "whole wall time"), ("cpu", "CPU time"), ("peak_mb", "peak memory"),
              ("first_request", "time to first request"), ("send_rate", "items/s while sending")]
    for attr, label in fields:
        each = [getattr(c, attr) / getattr(lm, attr) for c, lm in pairs if getattr(lm, attr)]
        shown = ", ".join(f"{x:.3f}" for x in each)
        med = statistics.median(each) if each else float("nan")
        print(f"  climedbench / lm-eval, {label:<22}: median {med:.3f}  (pairs: {shown})")


# ---------------------------------------------------------------------------------------------------------------
# The venv, the paired runs, the fault runs.

def setup_venv(venv: Path) -> None:
    """lm-eval's own venv: the local CPU torch wheel first (so nothing pulls a CUDA build), then lm_eval[api]."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, TORCH], check=True)
    subprocess.run([*pip, LMEVAL], check=True)
    check = "import torch, lm_eval.models.openai_completions; print(torch.__version__, torch.version.cuda)"
    out = subprocess.run([str(venv / "bin" / "python"), "-c", check], capture_output=True, text=True, check=True)
    print(f"lm-eval venv {venv}: torch {out.stdout.strip()} (cuda None = the CPU build)")


def prepare(args: argparse.Namespace, work: Path, url: str) -> tuple[Path, Path]:
    """The items, a warm-up climedbench run that logs its prompts, and lm-eval's task over those prompts."""
    items = bkt_items(work / "items.jsonl", args.items)
    warm = work / "warmup-climedbench"
    rc = subprocess.run(climedbench_cmd(items, url, warm, args, log_prompts=True), env=climedbench_env(),
                        cwd=ROOT, capture_output=True, text=True, check=False)
    if rc.returncode != 0:
        raise SystemExit(f"warm-up climedbench run failed ({rc.returncode}):\n{rc.stderr[-2000:]}")
    tasks = work / "lmeval-tasks"
    n = write_lmeval_task(warm / "samples.jsonl", items, tasks, args.max_tokens)
    if n != args.items:
        raise SystemExit(f"warm-up run logged {n} samples, expected {args.items}")
    shutil.rmtree(warm)
    return items, tasks


def one(tool: str, args: argparse.Namespace, work: Path, url: str, items: Path, tasks: Path, tag: str) -> Run:
    out = work / f"out-{tool}-{tag}"
    if tool == "climedbench":
        run = measure(tool, climedbench_cmd(items, url, out, args), climedbench_env(), url, work,
                      lambda: climedbench_score(out))
    else:
        run = measure(tool, lmeval_cmd(args.venv, tasks, url, out, args), lmeval_env(work), url, work,
                      lambda: lmeval_score(out))
    if run.rc != 0:
        shutil.copy(work / f"{tool}.log", work / f"failed-{tool}-{tag}.log")
        print(f"  ({tool} exited {run.rc}; its output: {work / f'failed-{tool}-{tag}.log'})")
    shutil.rmtree(out, ignore_errors=True)
    return run


def paired(args: argparse.Namespace, work: Path, url: str, items: Path, tasks: Path) -> None:
    print("warm-up lm-eval run (not counted: builds the datasets cache)...", flush=True)
    warm = one("lm-eval", args, work, url, items, tasks, "warmup")
    if warm.rc != 0:
        raise SystemExit(f"lm-eval warm-up failed; see {work}")
    pairs: list[tuple[Run, Run]] = []
    for k in range(args.repeats):
        order = ["climedbench", "lm-eval"] if k % 2 == 0 else ["lm-eval", "climedbench"]
        got = {tool: one(tool, args, work, url, items, tasks, str(k)) for tool in order}
        print(f"pair {k + 1} ({' then '.join(order)}), {uptime()}")
        for tool in order:
            print("  " + row(got[tool]))
        c, lm = got["climedbench"], got["lm-eval"]
        if c.digests == lm.digests and len(c.digests) == args.items:
            print(f"  prompts: the same {len(c.digests)} distinct messages from both tools")
        else:
            explain_difference(url, c.digests, lm.digests)
        pairs.append((c, lm))
    print(f"ratios over {len(pairs)} pairs (load at the end: {uptime()}):")
    ratios(pairs)


def faults(args: argparse.Namespace, work: Path, url: str, items: Path, tasks: Path) -> None:
    done = {"climedbench": 0, "lm-eval": 0}
    for k in range(args.repeats):
        order = ["climedbench", "lm-eval"] if k % 2 == 0 else ["lm-eval", "climedbench"]
        print(f"fault run {k + 1}, {uptime()}")
        for tool in order:
            r = one(tool, args, work, url, items, tasks, f"fault{k}")
            complete = r.rc == 0 and len(r.digests) == args.items
            done[tool] += complete
            print(f"  {row(r)}  -> {'finished, every item answered' if complete else 'did NOT finish'}")
    for tool, n in done.items():
        print(f"{tool}: finished {n} of {args.repeats} runs with a {args.faults:.0%} fault rate")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See the module docstring and docs/PERFORMANCE.md.")
    ap.add_argument("--setup", action="store_true", help="create/complete lm-eval's venv at --venv, then exit")
    ap.add_argument("--venv", type=Path, default=Path("/tmp/lmeval-venv"), help="lm-eval's own venv")
    ap.add_argument("--items", type=int, default=1800)
    ap.add_argument("--repeats", type=int, default=3, help="pairs of runs (or fault runs per tool)")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per request, both tools (default 5)")
    ap.add_argument("--lmeval-retries", type=int, default=3, help="lm-eval's max_retries (its default: 3)")
    ap.add_argument("--no-log-samples", dest="log_samples", action="store_false",
                    help="run lm-eval without --log_samples (climedbench always writes samples.jsonl)")
    ap.add_argument("--faults", type=float, default=0.0, help="fault-injection mode: share of attempts failed")
    ap.add_argument("--stall-seconds", type=float, default=8.0, help="a stalled request's hold (> --timeout)")
    ap.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.setup:
        setup_venv(args.venv)
        return
    if not (args.venv / "bin" / "lm_eval").exists():
        raise SystemExit(f"no lm-eval at {args.venv}; run: python bench/lmeval_compare.py --setup --venv {args.venv}")
    work = args.work or Path(tempfile.mkdtemp(prefix="lmeval-compare-"))
    work.mkdir(parents=True, exist_ok=True)
    server, url = start_server(args.faults, args.stall_seconds)
    try:
        print(f"{args.items} items, concurrency {args.concurrency}, server {url}, work {work}; {uptime()}")
        items, tasks = prepare(args, work, url)
        (faults if args.faults > 0 else paired)(args, work, url, items, tasks)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
