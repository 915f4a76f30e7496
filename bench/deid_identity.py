"""Is `climedbench deid`'s output the same before and after a change? Records, for every note of the given corpora,
what the command's analysis and replacement give (the de-identified text, the detected spans, the replaced spans) as
a digest, with the spans' offsets, types, scores and detectors (never a note's text), then compares two records.

    python bench/deid_identity.py record CORPUS.jsonl [...] --out before.jsonl [--no-ner]
    python bench/deid_identity.py compare before.jsonl after.jsonl

`record` runs the notes as `climedbench deid` does in one worker (chunks of `pipeline.MAX_CHUNK` notes through
`deidentify_many`, language per note, a fixed salt) and prints each corpus's CPU seconds and notes per CPU second.
`compare` prints, per corpus, the notes whose digest or spans differ (by id) and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any


def record(corpora: list[Path], out: Path, ner: bool) -> None:
    from climedbench.deid.engine import Analyzer
    from climedbench.deid.pipeline import MAX_CHUNK, deidentify_many
    from climedbench.deid.surrogates import Replacer

    analyzer, replacer = Analyzer(ner=ner), Replacer(bytes(32))
    deidentify_many([("warm-up note, Dr. Smith", "p", ()), ("患者张三，男，入院。", "p", ())], analyzer, replacer)
    lines = []
    for path in corpora:
        rows = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
        items = [(str(r["text"]), str(r.get("patient", r["id"])), ()) for r in rows]
        c0 = time.process_time()
        answers: list[Any] = []
        for i in range(0, len(items), MAX_CHUNK):
            answers += deidentify_many(items[i:i + MAX_CHUNK], analyzer, replacer)
        cpu = time.process_time() - c0
        print(f"{path}: {len(rows)} notes, {cpu:.1f} CPU s, {len(rows) / cpu:.0f} notes per CPU second", flush=True)
        for row, answer in zip(rows, answers, strict=True):
            if isinstance(answer, str):
                lines.append({"corpus": str(path), "id": row["id"], "withheld": answer})
                continue
            text, lang, spans, replaced = answer
            spans_out = [[s.start, s.end, s.entity, s.score, s.detector] for s in spans]
            blob = json.dumps([text, lang, spans_out, replaced], ensure_ascii=False).encode("utf-8")
            digest = hashlib.sha256(blob).hexdigest()
            lines.append({"corpus": str(path), "id": row["id"], "lang": lang, "digest": digest, "spans": spans_out})
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")


def compare(a: Path, b: Path) -> int:
    def load(p: Path) -> dict[tuple[str, str], dict[str, Any]]:
        return {(x["corpus"], x["id"]): x for x in map(json.loads, p.read_text("utf-8").splitlines())}

    old, new = load(a), load(b)
    notes: Counter[str] = Counter(c for c, _ in old)
    differ: dict[str, list[str]] = {}
    for key in sorted(old.keys() | new.keys()):
        x, y = old.get(key), new.get(key)
        if x is None or y is None or x != y:
            differ.setdefault(key[0], []).append(str(key[1]))
    for corpus in sorted(notes):
        ids = differ.get(corpus, [])
        print(f"{corpus}: {notes[corpus]} notes, {len(ids)} differ" + (f": {', '.join(ids[:20])}" if ids else ""))
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="Record the output digests of the corpora's notes.")
    rec.add_argument("corpora", nargs="+", type=Path)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--no-ner", action="store_true")
    cmp = sub.add_parser("compare", help="Compare two records.")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.corpora, args.out, not args.no_ner)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
