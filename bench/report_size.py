"""Size, build time and load time of the HTML report for a full-size synthetic run set.

    python bench/report_size.py [--items 33735] [--models 3] [--response-scale 1] [--keep DIR]

Simulated data, real code: 33,735 CliMedBench-format test items (the 14 scenarios in proportion to their official
sizes, scaled to the paper's total) × N models, written as run directories, then `climedbench report RUN... --html`
is run as a user would and the page is opened in headless Chromium (/usr/bin/chromium).

Realistic lengths: each synthetic item copies the structure of a bundled demo item of its scenario (sections,
options, reference) and replaces its Chinese text by text of the same length drawn word by word (jieba words, with
their frequencies in the demo set), so inputs have the demo set's length distribution and a similar
compressibility (printed: gzip ratio of the synthetic inputs vs the demo inputs). Responses: lengths drawn from the
749 model responses of tests/fixtures/extraction_*.jsonl (choice and order scenarios; × --response-scale) and from
the demo references (keywords, rebuttals, reasons), then an answer line. Scores are random (simulated).

Prints: the number of items and samples, the HTML size, the size the sample data would have as plain JSON and
embedded naively (each run's samples.jsonl plus every item's input), the build time (wall, the CLI) and its peak
memory, and in Chromium the time to the first page of samples, the time to show the largest scenario filtered to
A's wrong answers, and the JS heap afterwards.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from climedbench.core.suite import load_suite  # noqa: E402
from climedbench.core.types import RunSpec, Sample  # noqa: E402
from climedbench.data.hashing import data_hash  # noqa: E402
from climedbench.data.loaders import load_items  # noqa: E402
from climedbench.results import build_results  # noqa: E402
from tests.support.browser import chromium  # noqa: E402

TOTAL = 33735
HAN = re.compile(r"[\u4e00-\u9fff]+")
DEMO = ROOT / "src" / "climedbench" / "suites" / "climedbench" / "demo"


class Words:
    """Chinese text of a given length drawn word by word from the demo set's word frequencies."""

    def __init__(self, corpus: str, seed: int) -> None:
        import jieba
        import numpy as np

        jieba.setLogLevel(60)
        counts = Counter(w for w in jieba.lcut(corpus) if HAN.fullmatch(w))
        self.words = list(counts)
        p = np.array([counts[w] for w in self.words], dtype=float)
        self.rng = np.random.default_rng(seed)
        self.p = p / p.sum()
        self.buf = ""
        self.pos = 0

    def take(self, n: int) -> str:
        if self.pos + n > len(self.buf):
            picks = self.rng.choice(len(self.words), size=200_000, p=self.p)
            self.buf = self.buf[self.pos:] + "".join(self.words[i] for i in picks)
            self.pos = 0
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out


def resynth(text: str, words: Words) -> str:
    """The same text with every run of Chinese characters replaced by as many drawn characters; section headers
    ('## 标题:') are kept so the item parses as before."""
    lines = []
    for line in text.split("\n"):
        head = ""
        m = re.match(r"(##\s*[^:：]*[:：])", line)
        if m:
            head, line = m.group(1), line[m.end():]
        lines.append(head + HAN.sub(lambda x: words.take(len(x.group(0))), line))
    return "\n".join(lines)


def sizes(suite, total: int) -> dict[str, int]:
    """Items per scenario: official sizes scaled to `total` (largest remainders)."""
    official = {t.code: t.official_size or 1 for t in suite.tasks}
    scale = total / sum(official.values())
    raw = {c: n * scale for c, n in official.items()}
    out = {c: int(v) for c, v in raw.items()}
    for c in sorted(raw, key=lambda c: raw[c] - out[c], reverse=True)[:total - sum(out.values())]:
        out[c] += 1
    return out


def make_data(folder: Path, total: int, seed: int) -> tuple[float, float]:
    """Synthetic test files per scenario; returns the gzip ratios of (demo inputs, synthetic inputs)."""
    suite = load_suite()
    demo = load_items(None, suite)
    corpus = "\n".join(i.input for i in demo.items)
    words = Words(corpus + "\n".join(i.rationale or "" for i in demo.items), seed)
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    synth_inputs = []
    stems = {}
    for f in DEMO.glob("*.test.jsonl"):
        found = suite.lookup(f.name.split(".")[0])
        if found is not None:
            stems[found.code] = f.name.split(".")[0]
    for code, n in sizes(suite, total).items():
        task = suite.task(code)
        stem = stems[code]
        lines = (DEMO / f"{stem}.test.jsonl").read_text(encoding="utf-8").splitlines()
        templates = [json.loads(line) for line in lines]
        with (folder / f"{stem}.test.jsonl").open("w", encoding="utf-8") as fh:
            for k in range(n):
                rec = dict(rng.choice(templates))
                rec["id"] = f"{stem}-{k:05d}"
                rec["input"] = resynth(rec["input"], words)
                if task.answer in ("text", "keywords"):
                    rec["reference"] = resynth(rec["reference"], words)
                rec.pop("rationale", None)
                if len(synth_inputs) < 2000:
                    synth_inputs.append(rec["input"])
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def ratio(texts: list[str]) -> float:
        raw = "\n".join(texts).encode()
        return len(gzip.compress(raw, 6)) / len(raw)

    return ratio([i.input for i in demo.items if i.split == "test"]), ratio(synth_inputs)


def response_lengths() -> list[int]:
    out = []
    for f in (ROOT / "tests" / "fixtures").glob("extraction_*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(len(json.loads(line).get("response", "")))
    return out


def make_runs(data: Path, folder: Path, models: int, seed: int, scale: float) -> list[Path]:
    suite = load_suite()
    report = load_items(data, suite)
    items = report.tests()
    words = Words("\n".join(i.input for i in items[:3000]), seed + 1)
    lengths = response_lengths()
    digest = data_hash(report.items)
    runs = []
    for m in range(models):
        rng = random.Random(seed * 100 + m)
        skill = 0.45 + 0.15 * m
        samples = []
        for item in items:
            task = suite.task(item.task)
            gold = item.gold
            if task.answer == "single":
                letters = item.letters or "ABCD"
                x = str(gold) if rng.random() < skill else rng.choice(letters)
                raw = f"答案：{x}\n" + words.take(int(rng.choice(lengths) * scale))
                score, extracted = float(x == gold), x
            elif task.answer in ("order", "multi"):
                letters = list(item.letters or "ABCDE")
                rng.shuffle(letters)
                x = "".join(letters)
                raw = f"答案：{x}\n" + words.take(int(rng.choice(lengths) * scale))
                score, extracted = (1.0 if x == gold else rng.uniform(-1, 1) if task.answer == "order"
                                    else 0.0), x
            else:
                ref = item.reference or ""
                text = words.take(max(8, int(len(ref) * rng.uniform(0.6, 1.4))))
                raw, extracted, score = text, text, rng.uniform(0, 1)
            fail = rng.random() < 0.02
            samples.append(Sample(uid=item.uid, item_id=item.id, task=item.task, raw=raw,
                                  extracted=None if fail else extracted, extraction_failure=fail,
                                  extraction_method=None if fail else "marker", gold=gold,
                                  score=0.0 if fail else score, prompt_tokens=len(item.input) // 2,
                                  completion_tokens=len(raw) // 2, input_chars=len(item.input)))
        path = folder / f"model-{m}"
        path.mkdir(parents=True)
        name = f"synthetic-{m}"
        spec = RunSpec(suite="climedbench", suite_source="bundled:climedbench", data=str(data), data_sha256=digest,
                       tasks=list(suite.codes), prompt={"variant": "vanilla", "shots": 0},
                       model={"model": name, "backend": "simulated"}, model_spec=name, n_items=len(items))
        (path / "run.json").write_text(spec.model_dump_json(exclude_none=True), encoding="utf-8")
        with (path / "samples.jsonl").open("w", encoding="utf-8") as fh:
            for s in samples:
                fh.write(s.jsonl() + "\n")
        results = build_results(samples, suite, name)
        (path / "results.json").write_text(results.model_dump_json(exclude_none=True), encoding="utf-8")
        runs.append(path)
    return runs


def wait_until(page, expression: str, timeout: float = 600.0) -> None:
    """Poll from here (the page's Content-Security-Policy forbids the eval() of Playwright's wait_for_function)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {expression}")
        page.wait_for_timeout(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=TOTAL)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--response-scale", type=float, default=1.0, help="multiply the response lengths")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", type=Path, default=None, help="build in this folder and keep it")
    args = ap.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="report-size-"))
    try:
        t0 = time.perf_counter()
        demo_ratio, synth_ratio = make_data(work / "data", args.items, args.seed)
        runs = make_runs(work / "data", work / "runs", args.models, args.seed, args.response_scale)
        made = time.perf_counter() - t0
        samples_bytes = sum((r / "samples.jsonl").stat().st_size for r in runs)
        inputs_bytes = sum(len(json.dumps(json.loads(line)["input"], ensure_ascii=False).encode())
                           for f in (work / "data").glob("*.jsonl")
                           for line in f.read_text(encoding="utf-8").splitlines())
        naive = samples_bytes + args.models * inputs_bytes
        html = work / "report.html"
        cmd = [sys.executable, "-m", "climedbench.cli", "report", *map(str, runs), "--html", str(html)]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
        build = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size = html.stat().st_size

        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            start = time.perf_counter()
            page.goto(html.as_uri(), wait_until="load", timeout=600_000)
            loaded = time.perf_counter() - start
            wait_until(page, "window.climedbenchReport && window.climedbenchReport.ready")
            first = time.perf_counter() - start
            ready_at = page.evaluate("window.climedbenchReport.readyAt")
            meta = json.loads(page.text_content("#report-meta") or "{}")
            largest = max(range(len(meta["tasks"])), key=lambda i: meta["tasks"][i]["n"])
            renders = page.evaluate("window.climedbenchReport.renders")
            start = time.perf_counter()
            page.select_option("#s-task", str(largest))
            page.select_option("#s-filter", "wrong")
            wait_until(page, f"window.climedbenchReport.renders >= {renders + 2}")
            switch = time.perf_counter() - start
            status = page.text_content("#s-status")
            heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null")
            if errors or page.evaluate("window.climedbenchReport.errors"):
                raise SystemExit(f"script errors: {errors} {page.evaluate('window.climedbenchReport.errors')}")

        print(f"synthetic run set: {args.items} items × {args.models} models = {args.items * args.models} samples "
              f"(made in {made:.0f} s; samples.jsonl total {samples_bytes / 1e6:.1f} MB)")
        print(f"gzip ratio of item inputs: demo set {demo_ratio:.3f}, synthetic {synth_ratio:.3f}")
        print(f"HTML report: {size / 1e6:.1f} MB; its sample data as plain JSON (each input once) "
              f"{_raw_json_mb(html):.1f} MB before gzip + base64; embedded naively (every run's samples.jsonl with "
              f"every item's input) {naive / 1e6:.1f} MB")
        print(f"build (climedbench report --html, wall): {build:.1f} s, peak RSS {peak_mb:.0f} MB")
        print(f"Chromium: load event {loaded:.1f} s; first page of samples shown {first:.1f} s "
              f"(performance.now() {ready_at / 1000:.1f} s)")
        print(f"Chromium: largest scenario ({meta['tasks'][largest]['code']}, {meta['tasks'][largest]['n']} items) "
              f"filtered to A's wrong answers in {switch:.2f} s — {status}")
        if heap is not None:
            print(f"Chromium: JS heap used afterwards {heap / 1e6:.0f} MB")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _raw_json_mb(html: Path) -> float:
    """The plain-JSON size of the sample data, from the page's own chunks (decoded here)."""
    import base64

    text = html.read_text(encoding="utf-8")
    total = 0
    for m in re.finditer(r'<script type="application/octet-stream" id="[^"]+">([^<]*)</script>', text):
        total += len(gzip.decompress(base64.b64decode(m.group(1))))
    return total / 1e6


if __name__ == "__main__":
    main()
