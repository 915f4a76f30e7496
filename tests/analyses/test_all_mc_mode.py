"""`climedbench analyze all` asks choice items by their first token's log-probabilities on the bundled demo set
(issue 24 part 5): one token, never cut off. The CoT run still generates. Against the instant local server."""

import json

from tests.support.cli import run_cli
from tests.support.instant_server import instant_server


def samples(folder):
    return {s["uid"]: s for s in map(json.loads, (folder / "samples.jsonl").read_text().splitlines())}


def test_the_analysis_demo_reads_choice_items_from_logprobs(tmp_path):
    out = tmp_path / "all"
    with instant_server() as url:
        run_cli("analyze", "all", "--model", "openai:instant-test", "--base-url", url, "--tasks", "BKT,SSO",
                "--limit", "1", "--kinds", "glyph", "--out", str(out), "--quiet")
    for name in ("vanilla", "glyph", "nota"):
        spec = json.loads((out / "runs" / name / "run.json").read_text())
        assert spec["mc_mode"] == "logprob", name
        got = samples(out / "runs" / name)
        assert {uid.split("/")[0]: s["variant"] for uid, s in got.items()} == (
            {"BKT": "logprob"} if name == "nota" else {"BKT": "logprob", "SSO": "vanilla"}), name
    # The CoT run reasons before it answers, so it generates every answer.
    assert json.loads((out / "runs" / "cot" / "run.json").read_text())["mc_mode"] == "generate"
    assert {s["variant"] for s in samples(out / "runs" / "cot").values()} == {"cot"}
    index = json.loads((out / "index.json").read_text())
    assert index["mc_mode"] == "logprob"
    cot = json.loads((out / "cot.json").read_text())
    assert cot["data"]["mc_mode"] == {"vanilla": "logprob", "cot": "generate"}
    assert any("mixes the prompt and the way the answer was read" in n for n in cot["notes"])


def test_generate_mode_can_be_asked_for(tmp_path):
    out = tmp_path / "all"
    with instant_server() as url:
        run_cli("analyze", "all", "--model", "openai:instant-test", "--base-url", url, "--tasks", "BKT",
                "--limit", "1", "--kinds", "glyph", "--mc-mode", "generate", "--out", str(out), "--quiet")
    assert json.loads((out / "runs" / "vanilla" / "run.json").read_text())["mc_mode"] == "generate"
    assert {s["variant"] for s in samples(out / "runs" / "vanilla").values()} == {"vanilla"}
    bad = run_cli("analyze", "all", "--mc-mode", "first-token", "--out", str(tmp_path / "x"), check=False)
    assert bad.returncode == 2 and "--mc-mode must be 'generate' or 'logprob'" in bad.stderr
