"""climedbench build, library level, on the development records (tests/fixtures/build): drops with reasons,
guideline segmentation, keys from the note's own section, distractors from other patients inside the recorded band,
provenance, export, the candidate file's interface and a clear error for notes that were not de-identified."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from climedbench.build.candidates import candidates_path, load_candidates, write_items
from climedbench.build.export import export_suite
from climedbench.build.pipeline import BuildOptions, run_build
from climedbench.build.preprocess import QualityRules, preprocess
from climedbench.build.records import read_notes
from climedbench.build.segments import load_guideline, parse_guideline, split_sections
from climedbench.errors import ConfigError
from climedbench.models.base import GenParams, chat_request

FIX = Path(__file__).parent / "fixtures" / "build"
RECORDS = [json.loads(x) for x in (FIX / "records.jsonl").read_text("utf-8").splitlines() if x.strip()]


def h(kind: str, value: str) -> str:  # the hash of an id, computed here independently of the code under test
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()[:16]


def section_text(text: str, header: str) -> str:
    """The body under a '【header】' or 'HEADER:' line of a fixture note (an independent, minimal reader)."""
    m = re.search(rf"(?:【{header}】|^{header}:)\n(.*?)(?=\n【|\n[A-Z ]+:\n|\Z)", text, re.S | re.M)
    assert m, header
    return m.group(1).strip()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    notes = tmp_path_factory.mktemp("notes")
    for f in ("records.jsonl", "unusable_records.jsonl"):
        shutil.copy(FIX / f, notes / f)
    out = tmp_path_factory.mktemp("suite")
    run_build(BuildOptions(source=notes, out=out, already_deidentified=True))
    export_suite(out)
    return out


def test_every_dropped_note_has_its_reason_and_the_duplicate_names_the_kept_one():
    notes = read_notes(FIX)
    kept, drops = preprocess(notes, {"zh": load_guideline("zh"), "en": load_guideline("en")}, QualityRules())
    reasons = {d.record: d.reason for d in drops}
    assert reasons == {h("record", "B001"): "too_short", h("record", "B002"): "garbled",
                       h("record", "B003"): "template_only", h("record", "B004"): "near_duplicate"}
    dup = next(d for d in drops if d.reason == "near_duplicate")
    assert h("record", "R002") in dup.detail  # B004 is R002 with a name and a number changed
    assert {k.note.record for k in kept} == {h("record", r["record_id"]) for r in RECORDS}


def test_sections_follow_the_guideline_and_a_hospital_can_add_its_own_header():
    r2 = next(r for r in RECORDS if r["record_id"] == "R002")
    g = load_guideline("zh")
    types = [s.ctype for s in split_sections(r2["text"], g, "x")]
    assert types == ["chief_complaint", "present_illness", "history", "exam", "investigations", "diagnosis",
                     "course", "operation", "diagnosis", "discharge_status", "discharge_advice"]
    advice = next(s for s in split_sections(r2["text"], g, "x") if s.ctype == "discharge_advice")
    assert len(advice.sentences) == len(re.findall(r"\d\. ", section_text(r2["text"], "出院医嘱")))
    renamed = r2["text"].replace("【诊疗经过】", "【病程记录】")
    assert "course" not in [s.ctype for s in split_sections(renamed, g, "x")]
    own = yaml.safe_load((Path(__file__).parents[1] / "src/climedbench/build/guidelines/zh.yaml").read_text("utf-8"))
    own["content_types"]["course"]["aliases"].append("病程记录")
    g2 = parse_guideline(yaml.safe_dump(own, allow_unicode=True), "hospital.yaml")
    assert "course" in [s.ctype for s in split_sections(renamed, g2, "x")]


def test_keys_come_from_the_notes_own_section_and_distractors_from_other_patients_in_the_band(built):
    cands = [c for c in load_candidates(built) if c.task in ("ID#2", "ID#2-en")]
    by_hash = {h("record", r["record_id"]): r for r in RECORDS}
    patient_of = {h("record", r["record_id"]): h("patient", r["patient_id"]) for r in RECORDS}
    assert len(cands) == len(RECORDS)
    for c in cands:
        rec = by_hash[c.provenance.record]
        header = "出院诊断" if rec["lang"] == "zh" else "DISCHARGE DIAGNOSIS"
        expected = re.sub(r"^\d\.\s*", "", section_text(rec["text"], header).split("\n")[0])
        options = dict(re.findall(r"^([A-D]): (.*)$", c.item["input"].split("## 选项: " if rec["lang"] == "zh"
                                                                         else "## Options: ")[1], re.M))
        assert options[c.item["reference"]] == expected
        assert len(set(options.values())) == 4
        lo, hi = c.provenance.band
        assert 0.70 - 1e-9 <= lo <= 0.82 and hi == 0.95
        assert len(c.provenance.distractors) == 3
        for d in c.provenance.distractors:
            assert d.text != expected and d.text in options.values()
            assert d.record != c.provenance.record and patient_of[d.record] != patient_of[c.provenance.record]
            assert by_hash[d.record]["lang"] == rec["lang"]
            assert lo <= d.similarity <= hi
            assert d.segment.startswith(d.record + ":diagnosis:")


def test_a_diagnosis_named_in_the_course_is_removed_from_the_stem(built):
    r2 = h("record", "R002")  # its course ends with '病理回报急性化脓性阑尾炎。'
    c = next(c for c in load_candidates(built) if c.task == "ID#2" and c.provenance.record == r2)
    stem = c.item["input"].split("## 选项")[0]
    assert "病理回报" not in stem and "腹腔镜阑尾切除术" in stem
    assert any("removed 1 stem sentence" in n for n in c.provenance.notes)


def test_every_item_has_its_provenance_and_cpr_keys_are_the_notes_order(built):
    cands = load_candidates(built)
    records = {h("record", r["record_id"]) for r in RECORDS}
    bundled = Path(__file__).parents[1] / "src/climedbench/suites/climedbench/build_scenarios"
    templates = {yaml.safe_load(p.read_text(encoding="utf-8"))["id"] for p in bundled.glob("*.yaml")}
    for c in cands:
        p = c.provenance
        assert p.record in records and p.patient and p.generator == "none" and p.prompt_hash is None
        assert p.template.split("@")[0] in templates and len(p.template.split("@")[1]) == 12
        assert p.segments and all(s.startswith(p.record + ":") for s in p.segments) and p.key_segment in p.segments
    by_hash = {h("record", r["record_id"]): r for r in RECORDS}
    for c in (c for c in cands if c.scenario == "CPR"):
        course = by_hash[c.provenance.record]["text"]
        events = dict(re.findall(r"(?:^|: )([A-E])\. (.*)$", c.item["input"], re.M))
        positions = [course.index(events[letter].rstrip("…")) for letter in c.item["reference"]]
        assert positions == sorted(positions) and c.item["reference"] != "".join(sorted(c.item["reference"]))


def test_export_writes_a_suite_the_loader_accepts_with_dev_split_and_card(built):
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items

    suite = load_suite(str(built))
    report = load_items(None, suite)
    assert report.problems == []
    cands = load_candidates(built)
    assert len(report.items) == len(cands)
    assert {i.id for i in report.items} == {c.candidate_id for c in cands}
    assert sum(1 for i in report.items if i.split == "dev" and i.task == "ID#2") == 6 // 5
    assert all(i.meta["provenance"]["record"] for i in report.items)
    card = json.loads((built / "card.json").read_text("utf-8"))
    assert card["source_notes"]["dropped_by_reason"] == {"too_short": 1, "garbled": 1, "template_only": 1,
                                                         "near_duplicate": 1}
    assert sum(t["items"] for t in card["tasks"].values()) == len(cands)
    sims = [d.similarity for c in cands for d in c.provenance.distractors]
    assert card["similarity"]["min"] == min(sims) and card["similarity"]["max"] == max(sims)


def test_review_statuses_written_back_decide_what_is_exported(built, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    cands = load_candidates(out)
    rejected = cands[0]
    rejected.status = "rejected"
    write_items(out, [rejected])
    assert [c.status for c in load_candidates(out)].count("rejected") == 1
    assert len(load_candidates(out)) == len(cands)
    with candidates_path(out).open("a", encoding="utf-8") as fh:  # a line cut short by a kill
        fh.write('{"candidate_id": "ID2-cut", "scen')
    assert len(load_candidates(out)) == len(cands)
    card = export_suite(out)
    assert sum(t["items"] for t in card["tasks"].values()) == len(cands) - 1
    exported = "".join(p.read_text("utf-8") for p in (out / "demo").glob("*.jsonl"))
    assert rejected.candidate_id not in exported


def test_notes_that_did_not_go_through_deid_are_refused(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(FIX / "records.jsonl", notes / "records.jsonl")
    with pytest.raises(ConfigError, match=r"did not go through `climedbench deid`.*--already-deidentified"):
        run_build(BuildOptions(source=notes, out=tmp_path / "suite"))
    assert not candidates_path(tmp_path / "suite").exists()


def test_a_json_schema_travels_in_the_request_and_leaves_other_cache_keys_alone():
    fmt = {"type": "json_schema", "json_schema": {"name": "q", "schema": {"type": "object"}}}
    assert "response_format" not in GenParams().as_dict()
    assert "response_format" not in chat_request([], GenParams())
    body = chat_request([], GenParams(response_format=json.dumps(fmt)))
    assert body["response_format"] == fmt


def test_per_scenario_caps_each_task_and_a_rerun_with_other_settings_is_refused(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(FIX / "records.jsonl", notes / "records.jsonl")
    out = tmp_path / "suite"
    first = run_build(BuildOptions(source=notes, out=out, already_deidentified=True, scenarios=["CPR"],
                                   per_scenario=2))
    assert first["candidates"] == {"CPR": 2, "CPR-en": 2}
    again = run_build(BuildOptions(source=notes, out=out, already_deidentified=True, scenarios=["CPR"],
                                   per_scenario=2))
    assert again["candidates"] == {"CPR": 2, "CPR-en": 2} and len(load_candidates(out)) == 4
    with pytest.raises(ConfigError, match="other settings"):
        run_build(BuildOptions(source=notes, out=out, already_deidentified=True, scenarios=["CPR"], per_scenario=3))


def test_llm1_replies_are_used_only_as_one_question_that_does_not_give_the_key_away():
    from climedbench.build.llm1 import parse_question

    key, stem = "肺炎支原体肺炎（左下肺）", "## 入院情况: 发热7天，咳嗽5天。"
    ok = json.dumps({"question": "该患者最可能的主要诊断是什么？"}, ensure_ascii=False)
    assert parse_question(ok, [key], stem) == ("该患者最可能的主要诊断是什么？", None)
    named = json.dumps({"question": "患者发热7天，诊断为肺炎吗？"}, ensure_ascii=False)  # '肺炎' is the key's
    assert parse_question(named, [key], stem) == (None, "question names part of the key")
    told = json.dumps({"question": "患者发热7天，咳嗽5天？"}, ensure_ascii=False)  # the case's own words are fine
    assert parse_question(told, [key], stem)[0] == "患者发热7天，咳嗽5天？"
    copied = json.dumps({"question": "患者发热7天，咳嗽5天。"}, ensure_ascii=False)
    assert parse_question(copied, [key], stem) == (None, "not a question (no question mark at the end)")
    assert parse_question("答案：B", [key], stem) == (None, "reply is not JSON")
