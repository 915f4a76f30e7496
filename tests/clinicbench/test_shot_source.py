"""`--shot-source test`: the ClinicBench authors' few-shot draw (random examples from the test file itself, never the
item; radiology half 'normal', half 'abnormal' findings), seeded and recorded in run.json; dev stays the default."""

from __future__ import annotations

import json

from ..support.cli import run_cli
from ..support.instant_server import instant_server

# Written for this test (the selection rule only needs findings that do or do not mention "abnormal").
NORMAL = ["Heart size is normal. Lungs are clear.", "The cardiomediastinal silhouette is normal.",
          "Normal chest. No effusion.", "Lungs are normal in appearance."]
ABNORMAL = ["Abnormal opacity in the right lower lobe.", "Abnormal widening of the mediastinum.",
            "Heart size abnormal, enlarged.", "Abnormal nodule in the left apex."]


def _write(tmp_path):
    d = tmp_path / "data" / "IU-Xray"
    d.mkdir(parents=True)
    recs = [{"uid": f"r{k}", "findings": f, "impression": f"impression {k}"}
            for k, f in enumerate(NORMAL + ABNORMAL)]
    (d / "test.json").write_text(json.dumps(recs), "utf-8")
    (d / "dev.json").write_text(json.dumps([{"uid": f"d{k}", "findings": "Normal dev study.",
                                             "impression": f"dev impression {k}"} for k in range(2)]), "utf-8")
    return {r["impression"]: r for r in recs}


def _run(tmp_path, url, out, *extra):
    run_cli("run", "--suite", "clinicbench", "--data", str(tmp_path / "data"), "--datasets", "IU-Xray", "--limit", "0",
            "--shots", "2", "--model", "openai:fixed", "--base-url", url, "--no-cache", "--log-prompts", "--quiet",
            "--out", str(out), *extra)
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    spec = json.loads((out / "run.json").read_text("utf-8"))
    return samples, spec


def test_test_source_draws_other_items_balanced_and_seeded(tmp_path):
    by_impression = _write(tmp_path)
    with instant_server(model="fixed", reply="No acute disease.") as url:
        samples, spec = _run(tmp_path, url, tmp_path / "a", "--shot-source", "test")
        again, _ = _run(tmp_path, url, tmp_path / "b", "--shot-source", "test")
        dev, dev_spec = _run(tmp_path, url, tmp_path / "c")
    assert spec["prompt"]["shot_source"] == "test" and dev_spec["prompt"]["shot_source"] == "dev"
    assert len(samples) == 8
    drawn = set()
    for s in samples:
        shots = [by_impression[m["content"]] for m in s["messages"] if m["role"] == "assistant"]
        assert len(shots) == 2 and all(f"IU-Xray/test/{r['uid']}" != s["uid"] for r in shots), s["uid"]
        assert "normal" in shots[0]["findings"].lower() and "abnormal" in shots[1]["findings"].lower()
        drawn.add(tuple(r["uid"] for r in shots))
    assert len(drawn) > 1  # drawn per item, not one set for all
    assert [s["messages"] for s in again] == [s["messages"] for s in samples]  # seeded: the same draw again
    assert {m["content"] for s in dev for m in s["messages"] if m["role"] == "assistant"} == {"dev impression 0",
                                                                                       "dev impression 1"}


def test_too_few_abnormal_findings_for_the_balanced_draw_is_a_clear_error(tmp_path):
    d = tmp_path / "IU-Xray"
    d.mkdir()
    (d / "test.json").write_text(json.dumps([{"uid": f"r{k}", "findings": f, "impression": "x"}
                                             for k, f in enumerate(NORMAL)]), "utf-8")
    with instant_server(model="fixed", reply="x") as url:
        proc = run_cli("run", "--suite", "clinicbench", "--data", str(tmp_path), "--datasets", "IU-Xray",
                       "--limit", "0", "--shots", "2", "--shot-source", "test", "--model", "openai:fixed",
                       "--base-url", url, "--no-cache", "--quiet", "--out", str(tmp_path / "o"), check=False)
    assert proc.returncode != 0
    assert f"mention 'normal' ({len(NORMAL)}) or 'abnormal' (0)" in proc.stderr
