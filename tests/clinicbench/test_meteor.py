"""METEOR beside ROUGE-L and BLEU for the radiology tasks: nltk's implementation with WordNet read from this machine
(Debian's wordnet-base, installed by `make test`), never downloaded; without WordNet the figure is left out and the
run says why once. Expected values are worked out from METEOR's definition (Banerjee & Lavie 2005; nltk's α = 0.9,
β = 3, γ = 0.5), not taken from the implementation."""

from __future__ import annotations

import json

import pytest

from ..support.cli import run_cli
from ..support.instant_server import instant_server


def _meteor_by_hand(matches: int, hyp_len: int, ref_len: int, chunks: int) -> float:
    p, r = matches / hyp_len, matches / ref_len
    fmean = p * r / (0.9 * p + 0.1 * r)
    return fmean * (1 - 0.5 * (chunks / matches) ** 3)


def test_meteor_matches_exact_words_and_wordnet_synonyms():
    from climedbench.metrics.meteor import meteor

    assert meteor("No acute disease", ["No acute disease"]) == pytest.approx(_meteor_by_hand(3, 3, 3, 1), abs=1e-12)
    # 'ill' and 'sick' share a WordNet synset (ill.a.01): three matches in one chunk; without WordNet, two
    synonym = meteor("the patient is ill", ["patient is sick"])
    assert synonym == pytest.approx(_meteor_by_hand(3, 4, 3, 1), abs=1e-12)
    assert synonym > _meteor_by_hand(2, 4, 3, 1) + 0.3
    assert meteor("", ["patient is sick"]) == 0.0


def test_radiology_runs_report_meteor_and_leave_it_out_without_wordnet(tmp_path):
    reply = "No acute cardiopulmonary abnormality."
    figures = {}
    with instant_server(model="fixed", reply=reply) as url:
        for name, env in (("with", {}), ("without", {"CLIMEDBENCH_WORDNET": str(tmp_path)})):
            proc = run_cli("run", "--suite", "clinicbench", "--datasets", "IU-Xray", "--limit", "0", "--model",
                           "openai:fixed", "--base-url", url, "--no-cache", "--quiet", "--out", str(tmp_path / name),
                           env=env)
            results = json.loads((tmp_path / name / "results.json").read_text("utf-8"))
            figures[name] = (results["tasks"]["IU-Xray"], proc.stderr)
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items
    from climedbench.metrics.meteor import meteor

    items = [i for i in load_items(None, load_suite("clinicbench")).items if i.task == "IU-Xray" and i.split == "test"]
    expected = 100 * sum(meteor(reply, [i.reference]) for i in items) / len(items)
    with_wn, stderr = figures["with"]
    assert with_wn["secondary"]["meteor"]["score"] == pytest.approx(expected, abs=0.005)
    assert "meteor is not reported" not in stderr
    without, stderr = figures["without"]
    assert "meteor" not in without["secondary"] and "bleu_coco" in without["secondary"]
    assert without["score"] == with_wn["score"]
    assert stderr.count("note: meteor is not reported") == 1 and "no WordNet dict folder there" in stderr
