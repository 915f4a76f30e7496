"""`climedbench build --generator MODEL --distractors model`: single-choice distractors written by the generator,
each reply checked before use (hand-written replies below), the records' distractors kept with the reason when a
check fails; end to end on a real OpenAI-compatible server on 127.0.0.1 (tests/support/instant_server.py), with
the provenance naming the source and a second run asking nothing (the response cache)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from climedbench.build.candidates import load_candidates
from climedbench.build.llm_distractors import bundled_prompt, check_distractors, schema_for
from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server

KEY = "急性前壁ST段抬高型心肌梗死"
GOOD = ["急性心包炎", "主动脉夹层", "急性肺栓塞"]
PROMPT_FILE = Path(__file__).parents[1] / "src" / "climedbench" / "build" / "prompts" / "llm1_distractors.yaml"


def _check(distractors: object, key: str = KEY, lang: str = "zh", limit: int = 60) -> tuple[object, object]:
    reply = distractors if isinstance(distractors, str) else json.dumps({"distractors": distractors},
                                                                          ensure_ascii=False)
    return check_distractors(reply, schema_for(bundled_prompt(), 3), key, 3, limit, 0.6, lang)


def test_a_good_reply_is_accepted_stripped():
    assert _check([" 急性心包炎", "主动脉夹层 ", "急性肺栓塞"]) == (GOOD, None)
    assert _check(["Acute pericarditis", "Aortic dissection", "Pulmonary embolism"], key="Acute STEMI",
                  lang="en") == (["Acute pericarditis", "Aortic dissection", "Pulmonary embolism"], None)


@pytest.mark.parametrize(("reply", "why"), [
    (["急性心包炎", "急性心包炎", "急性肺栓塞"], "two distractors are the same"),
    (["急性心包炎", KEY, "急性肺栓塞"], "overlaps the key"),
    (["急性心包炎", "前壁ST段抬高型心肌梗死", "急性肺栓塞"], "overlaps the key"),  # inside the key
    (["急性心包炎", "急性下壁ST段抬高型心肌梗死", "急性肺栓塞"], "overlaps the key"),  # most bigrams shared
    (["急性心包炎", "急性心包炎症", "急性肺栓塞"], "the same answer in other words"),
    (["急性心包炎", "主动脉夹层"], "does not match the schema"),
    (["急性心包炎", "主动脉夹层", "急性肺栓塞", "气胸"], "does not match the schema"),
    (["急性心包炎", "主动脉\n夹层", "急性肺栓塞"], "line break"),
    (["急性心包炎", "主动脉夹层" * 13, "急性肺栓塞"], "longer than 60"),
    ('答案：B', "not JSON"),
    ('{"options": ["急性心包炎", "主动脉夹层", "急性肺栓塞"]}', "does not match the schema"),
])
def test_a_bad_reply_is_rejected_with_its_reason(reply, why):
    got, reason = _check(reply)
    assert got is None and why in str(reason)


def test_an_option_copied_from_the_case_is_refused():
    stem = "## 辅助检查: 双髋X线：右股骨头软骨下新月征，股骨头轻度塌陷。"
    got, reason = check_distractors(json.dumps({"distractors": ["右股骨头软骨下新月征", "髋关节骨关节炎", "类风湿关节炎"]},
                                               ensure_ascii=False), schema_for(bundled_prompt(), 3),
                                    "右股骨头缺血性坏死", 3, 60, 0.6, "zh", stem)
    assert got is None and reason == "a distractor is copied from the case"
    assert check_distractors(json.dumps({"distractors": ["髋关节骨关节炎", "类风湿关节炎", "髋关节结核"]}, ensure_ascii=False),
                             schema_for(bundled_prompt(), 3), "右股骨头缺血性坏死", 3, 60, 0.6, "zh", stem)[1] is None


def test_an_english_item_refuses_chinese_options():
    got, reason = _check(GOOD, key="Acute STEMI", lang="en")
    assert got is None and "language" in str(reason)


def _options(text: str) -> list[str]:
    block = text[text.rfind("\n## "):].split(": ", 1)[1]
    return [line.split(": ", 1)[1] for line in block.split("\n")]


def _build(notes: Path, out: Path, url: str | None, cache: Path) -> list:
    args = ["build", str(notes), "--out", str(out), "--scenarios", "ID#2", "--per-scenario", "2"]
    if url is not None:
        args += ["--generator", "openai:instant-test", "--base-url", url, "--cache", str(cache),
                 "--distractors", "model", "--max-concurrency", "2"]
    run_cli(*args)
    return sorted(load_candidates(out), key=lambda c: c.candidate_id)


def test_a_build_uses_the_models_distractors_or_keeps_the_records_with_the_reason(build_notes, tmp_path):
    reply = json.dumps({"distractors": GOOD}, ensure_ascii=False)
    plain = _build(build_notes, tmp_path / "plain", None, tmp_path / "unused")
    with instant_server(reply=reply) as url:
        first = _build(build_notes, tmp_path / "model", url, tmp_path / "c.sqlite")
        asked = get_stats(url)["requests"]
        again = _build(build_notes, tmp_path / "again", url, tmp_path / "c.sqlite")
        stats = get_stats(url)
    digest = hashlib.sha256(PROMPT_FILE.read_bytes()).hexdigest()[:16]
    zh = [c for c in first if c.lang == "zh"]
    en = [c for c in first if c.lang == "en"]
    assert len(zh) == 2 and len(en) == 2 and [c.candidate_id for c in plain] == [c.candidate_id for c in first]
    for c, p in zip(first, plain, strict=True):
        src = c.provenance.distractors_from
        assert src is not None and src["model"] == "instant-test" and src["prompt_hash"] == digest
        options = _options(c.item["input"])
        key = options["ABCD".index(c.item["reference"])]
        assert c.item["reference"] == p.item["reference"] and key == _options(p.item["input"])[
            "ABCD".index(p.item["reference"])]
        if c.lang == "zh":  # accepted: the model's three, the key at its letter
            assert src["source"] == "model" and "fallback" not in src
            assert [o for o in options if o != key] == GOOD and c.provenance.distractors == []
            assert "model distractors used" in c.provenance.notes
        else:  # Chinese options for an English item: the records' distractors stay, with the reason
            assert src["source"] == "records" and "language" in src["fallback"]
            assert options == _options(p.item["input"]) and c.provenance.distractors == p.provenance.distractors
    exported = [json.loads(line) for f in sorted((tmp_path / "model" / "demo").glob("ID2*.jsonl"))
                for line in f.read_text("utf-8").splitlines()]
    assert len(exported) == 4
    assert all(r["provenance"]["distractors_from"]["prompt_hash"] == digest for r in exported)
    card = json.loads((tmp_path / "model" / "card.json").read_text("utf-8"))
    assert card["model_distractors"] == {"model distractors used": 2, "model distractors not used: a distractor is "
                                         "not in the item's language (Chinese characters in an English item)": 2}
    assert "model_distractors" not in json.loads((tmp_path / "plain" / "card.json").read_text("utf-8"))
    assert asked == 8  # per item: the distractors and LLM1's question
    assert stats["requests"] == asked and [c.item for c in again] == [c.item for c in first]
    run_cli("validate", "--suite", str(tmp_path / "model"))


def test_model_distractors_need_a_generator_and_a_known_source(tmp_path):
    no_model = run_cli("build", str(tmp_path), "--out", str(tmp_path / "s"), "--distractors", "model", check=False)
    unknown = run_cli("build", str(tmp_path), "--out", str(tmp_path / "s"), "--distractors", "llm", check=False)
    assert no_model.returncode == 2 and "name the --generator" in no_model.stderr
    assert unknown.returncode == 2 and "use 'records' or 'model'" in unknown.stderr
