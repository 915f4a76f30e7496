"""`climedbench run --suite clinicbench` end to end with the real in-process model: a label task, an entity task
and a corpus-BLEU summarisation task, one item each, through the bundled English demo."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.model

DATASETS = ["TreatmentRec", "IU-Xray", "GAD"]  # suite order


def test_clinicbench_demo_with_the_embedded_model(tmp_path, model_path):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "run", "--suite", "clinicbench", "--datasets",
                           ",".join(DATASETS), "--limit", "1", "--max-tokens", "32", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads((out / "run.json").read_text())
    assert spec["suite"] == "clinicbench" and spec["tasks"] == DATASETS and spec["model"]["backend"] == "llamacpp"
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["task"] for s in samples] == DATASETS
    for s in samples:
        assert s["raw"] and s["error"] is None and s["completion_tokens"] > 0 and s["prompt_tokens"] > 0
        assert 0.0 <= s["score"] <= 1.0 and s["extraction_method"]
    by = {s["task"]: s for s in samples}
    assert by["GAD"]["gold"] in ("yes", "no")
    assert isinstance(by["TreatmentRec"]["gold"], list) and by["TreatmentRec"]["stats"] is not None
    assert "bleu_coco" in by["IU-Xray"]["secondary"]  # corpus BLEU beside ROUGE-L
    results = json.loads((out / "results.json").read_text())
    assert set(results["tasks"]) == set(DATASETS)
    assert results["tasks"]["IU-Xray"]["metric"] == "rougeL_coco"
    assert results["tasks"]["IU-Xray"]["secondary"]["bleu_coco"]["aggregation"] == "corpus_bleu_coco"
    assert results["tasks"]["GAD"]["metric"] == "label_f1" and results["tasks"]["GAD"]["aggregation"] == "micro_f1"
    assert set(results["groups"]) >= {"reasoning", "generation", "understanding"}
    assert results["overall"]["score"] == pytest.approx(
        sum(f["score"] for f in results["tasks"].values()) / 3, abs=0.02)
