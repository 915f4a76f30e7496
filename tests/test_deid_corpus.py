"""Every PHI span of the annotated development corpus that the detectors remove today stays removed, and every hard
negative stays kept: a regression on one span fails, naming it (bench/data/deid_corpus_v1.jsonl, 268 notes
written by a helper who never saw the detectors; its first, blind figures are in docs/DEID.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from climedbench.deid.engine import Analyzer

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "data" / "deid_corpus_v1.jsonl"
# PHI spans the detectors are known to miss (note id, start): the only ones allowed to be missed.
KNOWN_MISSES = {("en-052", 100)}  # ("en-091", 61) is found since the kin-cue names, ("zh-003", 255) since role labels


@pytest.fixture(scope="module")
def outcome() -> tuple[set[tuple[str, int]], set[tuple[str, int]], int, int]:
    analyzer = Analyzer()
    missed, touched, n_phi, n_keep = set(), set(), 0, 0
    for line in CORPUS.read_text("utf-8").splitlines():
        note = json.loads(line)
        covered: set[int] = set()
        for s in analyzer.analyze(note["text"], note["lang"]):
            covered.update(range(s.start, s.end))
        for p in note["phi"]:
            n_phi += 1
            if not set(range(p["start"], p["end"])) <= covered:
                missed.add((note["id"], p["start"]))
        for k in note["keep"]:
            n_keep += 1
            if set(range(k["start"], k["end"])) & covered:
                touched.add((note["id"], k["start"]))
    return missed, touched, n_phi, n_keep


def test_no_phi_span_regresses(outcome):
    missed, _, n_phi, _ = outcome
    assert n_phi == 2990
    assert missed <= KNOWN_MISSES, sorted(missed - KNOWN_MISSES)


def test_every_hard_negative_is_kept(outcome):
    _, touched, _, n_keep = outcome
    assert n_keep == 2668
    assert not touched, sorted(touched)
