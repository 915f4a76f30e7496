"""`climedbench deid --model`: a language model as a second detector, through a real OpenAI-compatible server on
127.0.0.1 whose replies the test writes; its spans are added to the rules' and never trusted alone, and notes go
to a server off this machine only with --allow-remote."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from climedbench.deid.engine import Analyzer
from climedbench.deid.model_pass import PROMPTS, chunks, parse_values
from tests.support.cli import run_cli as cli
from tests.support.instant_server import instant_server

# 阿强 is a nickname: no surname, no 患者/姓名 cue before it, so the rule detectors cannot know it is a name.
NOTE = "主诉：胸闷3天。现病史：阿强自述3天前劳累后出现胸闷，休息后缓解，今来我院就诊。查体：血压130/80mmHg。"


def _replies(tmp: Path, answer: list[dict[str, str]]) -> Path:
    (piece,) = [p for _, p in chunks(NOTE)]
    key = hashlib.sha256((PROMPTS["zh"] + piece).encode("utf-8")).hexdigest()
    path = tmp / "replies.json"
    path.write_text(json.dumps({key: json.dumps(answer, ensure_ascii=False)}, ensure_ascii=False), "utf-8")
    return path


def _notes(tmp: Path) -> Path:
    src = tmp / "notes"
    src.mkdir()
    (src / "note1.txt").write_text(NOTE, "utf-8")
    return src


def test_rules_alone_miss_the_nickname():
    spans = Analyzer(ner=False).analyze(NOTE, "zh")
    assert not any(NOTE[s.start:s.end].find("阿强") >= 0 for s in spans)


def test_model_spans_are_added_and_only_verbatim_phi_values_count(tmp_path):
    # the model names the nickname, a value not in the note (made up), and a role word that is never PHI
    replies = _replies(tmp_path, [{"type": "NAME", "text": "阿强"}, {"type": "NAME", "text": "王小明"},
                                  {"type": "NAME", "text": "患者"}, {"type": "ORGANIZATION", "text": "我院"}])
    out = tmp_path / "out"
    with instant_server(replies=replies) as url:
        cli("deid", str(_notes(tmp_path)), "--out", str(out), "--mode", "mask", "--lang", "zh", "--no-ner",
            "--workers", "1", "--salt-file", str(tmp_path / "salt"), "--model", "openai:instant-test",
            "--base-url", url)
    text = (out / "note1.txt").read_text("utf-8")
    assert "阿强" not in text
    assert text.count("[NAME]") == 1
    assert "我院" in text and "胸闷" in text  # the role word and the clinical text stay
    report = json.loads((out / "deid_report.json").read_text("utf-8"))
    assert report["detectors"].get("model") == 1
    assert json.loads((out / "deid_manifest.json").read_text("utf-8"))["model_pass"] == "openai:instant-test"


def test_without_the_model_the_same_note_keeps_the_nickname(tmp_path):
    out = tmp_path / "out"
    cli("deid", str(_notes(tmp_path)), "--out", str(out), "--mode", "mask", "--lang", "zh", "--no-ner",
        "--workers", "1", "--salt-file", str(tmp_path / "salt"))
    assert "阿强" in (out / "note1.txt").read_text("utf-8")


def test_a_remote_model_is_refused_without_allow_remote(tmp_path):
    out = tmp_path / "out"
    res = cli("deid", str(_notes(tmp_path)), "--out", str(out), "--salt-file", str(tmp_path / "salt"),
              "--model", "openai:big", "--base-url", "https://api.example.com/v1", check=False)
    assert res.returncode != 0
    assert "--allow-remote" in res.stderr and "api.example.com" in res.stderr
    assert not (out / "note1.txt").exists()


def test_a_cut_off_array_still_yields_its_complete_objects():
    answer = '[{"type": "NAME", "text": "张三"}, {"type": "PHONE", "text": "13812345678"}, {"type": "DA'
    assert parse_values(answer) == [("NAME", "张三"), ("PHONE", "13812345678")]


def test_the_examination_header_is_not_a_name():
    # 查体 ("physical examination") is in almost every Chinese note; jieba's HMM tags it as a person name
    note = "现病史：胸闷3天。\n查体：血压130/80mmHg，心肺无异常。"
    spans = Analyzer(ner=False).analyze(note, "zh")
    assert [note[s.start:s.end] for s in spans if s.entity == "NAME"] == []


def test_drugs_and_anatomy_at_a_sentence_start_are_not_names():
    # spaCy tags a capitalised drug or Latin anatomy word opening a sentence as PERSON; 窦律 (sinus rhythm) reads as
    # surname 窦 + given name in jieba
    analyzer = Analyzer()
    for note, lang in (("Started apixaban 5 mg twice daily. Apixaban was held before surgery.", "en"),
                       ("Metoprolol was increased. Rate control improved.", "en"),
                       ("Fascia iliaca block was performed.", "en"),
                       ("予胺碘酮复律，维持窦律。", "zh")):
        assert [note[s.start:s.end] for s in analyzer.analyze(note, lang) if s.entity == "NAME"] == [], note
    note = "Seen by Dr Margaret Ellison. Mrs Ellison's daughter called."  # real names still found (with the title,
    # which the span holds and the surrogate keeps)
    assert {note[s.start:s.end] for s in analyzer.analyze(note, "en") if s.entity == "NAME"} >= {"Dr Margaret Ellison"}
