"""Notes per second of `climedbench deid` (no model pass), in one process and with N worker processes.

    python bench/deid_speed.py [--notes 1000] [--lang zh|en|both] [--workers N] [--corpus FILE.jsonl]

Generates N notes from the bundled demo notes with their identifiers replaced by fresh Faker values (so no two notes
are the same), or takes the notes of an annotated corpus (--corpus: its "text" and "patient"; --lang filters by its
"lang"), then:
- one process: the command's analysis and replacement (chunks of notes through `deidentify_many`) in this process,
  after start-up (spaCy and the gazetteers load once; printed apart);
- N workers: the command's own process pool (`DeidRun._answer_all`), as a user sees it: the wall time including the
  start-up (the analyzer built in this process and the workers forked from it, or, where fork is not used, each
  spawned worker building its own), and the rate once the first chunk came back (start-up excluded). Measured first,
  in a fresh process (nothing loaded yet, torch and transformers hidden as the command hides them).
Each with CPU seconds (for the pool: of this process during the run and of all the workers, start-up included): on a
shared, loaded machine the wall time mostly measures the other jobs, notes per CPU second much less so.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import time
from pathlib import Path

from faker import Faker

from climedbench.deid.engine import Analyzer, DeidConfig
from climedbench.deid.pipeline import MAX_CHUNK, DeidRun, deidentify_many, hide_unused_modules
from climedbench.deid.surrogates import Replacer

DEMO = Path(__file__).resolve().parents[1] / "src" / "climedbench" / "deid" / "demo"


def notes(n: int, lang: str) -> list[str]:
    zh = [json.loads(x)["text"] for x in (DEMO / "notes_zh.jsonl").read_text("utf-8").splitlines()]
    en = [json.loads(x)["text"] for x in (DEMO / "notes_en.jsonl").read_text("utf-8").splitlines()]
    pool = zh if lang == "zh" else en if lang == "en" else zh + en
    fz, fe = Faker("zh_CN"), Faker("en_US")
    fz.seed_instance(1)
    fe.seed_instance(1)
    rng = random.Random(1)
    out = []
    for i in range(n):
        t = pool[i % len(pool)]
        t = t.replace("欧阳明华", fz.name()).replace("138 1234 5678", fz.phone_number()).replace(
            "John A. Smith", fe.name()).replace("(217) 555-0134", fe.phone_number())
        out.append(t.replace("2023", str(rng.randint(2010, 2024))))
    return out


def corpus_notes(path: Path, lang: str) -> list[tuple[str, str]]:
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    return [(r["text"], str(r.get("patient", r["id"]))) for r in rows if lang == "both" or r.get("lang") == lang]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=1000, help="Generated notes (without --corpus).")
    ap.add_argument("--lang", choices=["zh", "en", "both"], default="both")
    ap.add_argument("--corpus", type=Path, help="Time the notes of this annotated corpus instead.")
    ap.add_argument("--no-ner", action="store_true", help="Without spaCy's statistical NER (English names from rules).")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="Processes for the second measurement, as `climedbench deid --workers` (default: the cores; "
                         "1: only the one-process measurement).")
    a = ap.parse_args()
    work = corpus_notes(a.corpus, a.lang) if a.corpus else [(t, f"p{i % 50}") for i, t in
                                                             enumerate(notes(a.notes, a.lang))]
    what = f"{len(work)} notes ({a.corpus.name if a.corpus else 'generated'}, {a.lang}, mean " \
           f"{sum(len(t) for t, _ in work) / len(work):.0f} chars)"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {what}")
    hide_unused_modules()  # as the command does without --model
    if a.workers > 1:
        _pool(work, a.workers, a.no_ner)
    _one_process(work, a.no_ner)


def _one_process(work: list[tuple[str, str]], no_ner: bool) -> None:
    t0 = time.perf_counter()
    analyzer = Analyzer(ner=not no_ner)
    replacer = Replacer(bytes(32))
    deidentify_many([(work[0][0], "warm-up", ())], analyzer, replacer)
    startup = time.perf_counter() - t0
    items = [(t, p, ()) for t, p in work]
    t1, c1 = time.perf_counter(), time.process_time()
    answers = []
    for i in range(0, len(items), MAX_CHUNK):
        answers += deidentify_many(items[i:i + MAX_CHUNK], analyzer, replacer)
    dt, cpu = time.perf_counter() - t1, time.process_time() - c1
    bad = sum(isinstance(x, str) for x in answers)
    print(f"1 process: start-up {startup:.1f} s; {len(work)} notes in {dt:.1f} s: {len(work) / dt:.0f} notes/s, "
          f"{cpu:.1f} CPU s: {len(work) / cpu:.0f} notes per CPU second ({bad} withheld)")


def _pool(work: list[tuple[str, str]], workers: int, no_ner: bool) -> None:
    run = DeidRun(Path("."), Path("."), bytes(32), workers=workers, ner=not no_ner, config=DeidConfig())
    first: list[tuple[float, int]] = []
    before, own = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
    t0 = time.perf_counter()
    answers = run._answer_all([(t, p, ()) for t, p in work], lambda n: first or first.append((time.perf_counter(), n)))
    dt = time.perf_counter() - t0
    after, own = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time() - own
    cpu = own + (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    bad = sum(isinstance(x, str) for x in answers)
    t_first, n_first = first[0]
    steady = (len(work) - n_first) / (t0 + dt - t_first) if len(work) > n_first else float("nan")
    print(f"{workers} workers: {len(work)} notes in {dt:.1f} s including start-up: {len(work) / dt:.0f} notes/s; "
          f"after the first chunk ({n_first} notes, {t_first - t0:.1f} s): {steady:.0f} notes/s; "
          f"{cpu:.1f} CPU s ({own:.1f} in this process; start-up included): {len(work) / cpu:.0f} notes per CPU second "
          f"({bad} withheld)")


if __name__ == "__main__":
    main()
