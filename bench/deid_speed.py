"""Notes per second of `climedbench deid` (no model pass) on generated notes shaped like the bundled demo.

    python bench/deid_speed.py [--notes 1000] [--lang zh|en|both]

Generates N notes from the demo notes with their identifiers replaced by fresh Faker values (so no two notes are
the same), runs the same pipeline as the command (analysis, Presidio anonymizer, surrogates) in this process and prints
notes/s and characters/s after start-up (start-up is printed apart: spaCy and the gazetteers load once).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from faker import Faker

from climedbench.deid.engine import Analyzer
from climedbench.deid.pipeline import deidentify_text
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--lang", choices=["zh", "en", "both"], default="both")
    ap.add_argument("--no-ner", action="store_true", help="Without spaCy's statistical NER (English names from rules).")
    ap.add_argument("--workers", type=int, default=1, help="Processes, as `climedbench deid --workers`.")
    a = ap.parse_args()
    texts = notes(a.notes, a.lang)
    if a.workers > 1:
        return _pool(texts, a)
    t0 = time.perf_counter()
    analyzer = Analyzer(ner=not a.no_ner)
    replacer = Replacer(bytes(32))
    deidentify_text(texts[0], "warm-up", analyzer, replacer)
    startup = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    chars = 0
    for i, t in enumerate(texts):
        deidentify_text(t, f"p{i % 50}", analyzer, replacer)
        chars += len(t)
    dt, cpu = time.perf_counter() - t1, time.process_time() - c1
    mean = chars / len(texts)
    # CPU seconds as well as wall seconds: on a shared, loaded machine the wall time mostly measures the others.
    print(f"start-up {startup:.1f} s; {len(texts)} notes ({a.lang}, mean {mean:.0f} chars) in {dt:.1f} s: "
          f"{len(texts) / dt:.0f} notes/s, {chars / dt / 1000:.0f} k chars/s (one process); "
          f"{cpu:.1f} CPU s: {len(texts) / cpu:.0f} notes per CPU second")


def _pool(texts: list[str], a: argparse.Namespace) -> None:
    """The command's own process pool (DeidRun._answer_all): start-up included, as a user sees it."""
    from climedbench.deid.engine import DeidConfig
    from climedbench.deid.pipeline import DeidRun

    run = DeidRun(Path("."), Path("."), bytes(32), workers=a.workers, ner=not a.no_ner, config=DeidConfig())
    t0 = time.perf_counter()
    answers = run._answer_all([(t, f"p{i % 50}") for i, t in enumerate(texts)], None)
    dt = time.perf_counter() - t0
    bad = sum(isinstance(x, str) for x in answers)
    print(f"{len(texts)} notes ({a.lang}) with {a.workers} processes in {dt:.1f} s including start-up: "
          f"{len(texts) / dt:.0f} notes/s ({bad} withheld)")


if __name__ == "__main__":
    main()
