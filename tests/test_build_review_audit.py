"""`climedbench build audit`: the rules that need no model catch the planted bad candidates (each by the rule it
was planted for), LLM2's verdicts come back constrained to the JSON schema from a real llama.cpp server, and a
re-run sends no request to the server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from climedbench.build.audit import Candidate, load_candidates, rule_audit
from climedbench.build.llm import check_reply, load_prompt
from climedbench.cache import request_key
from climedbench.cli.build_review import app
from climedbench.errors import DataError
from climedbench.models.base import GenParams, chat_request
from tests.support.instant_server import get_stats, instant_server, user_digest

FIXTURE = Path(__file__).parent / "fixtures" / "build_review" / "candidates.jsonl"

# What each hand-made candidate was written to be (see the fixture): the kinds the model-free rules must find.
# bad-implausible (a 3-year-old with an enlarged prostate, and a wrong key) is invisible to rules: LLM2's job.
PLANTED = {
    "bad-leak-stem": {"leakage"},      # the stem names the key's diagnosis (门诊考虑左侧输卵管妊娠破裂)
    "bad-leak-exam": {"leakage"},      # the stem names the key's examination (拟行结肠镜检查及病理活检)
    "bad-phi-name": {"phi"},           # a patient's name after 患者
    "bad-phi-phone": {"phi"},          # a mobile number
    "bad-two-answers": {"ambiguity"},  # 急性ST段抬高型心肌梗死 and its more precise form, both defensible
    "bad-duplicate": {"duplicate"},    # ok-01 again with its options shuffled
    "bad-key-missing": {"inconsistency"},  # key E, options A–D
    "bad-implausible": set(),
}


@pytest.fixture(scope="module")
def analyzer():
    from climedbench.deid.engine import Analyzer

    return Analyzer(ner=False)


def build_folder(tmp: Path, src: Path = FIXTURE) -> Path:
    (tmp / ".build").mkdir(parents=True)
    shutil.copy(src, tmp / ".build" / "candidates.jsonl")
    return tmp


def test_the_rules_catch_every_planted_item_and_nothing_else(analyzer):
    cands = load_candidates(FIXTURE)
    assert len(cands) == 20
    found, _ = rule_audit(cands, analyzer)
    kinds = {c.id: {f.kind for f in found[c.id]} for c in cands}
    for item, expected in PLANTED.items():
        assert kinds[item] == expected, item
    clean = [c.id for c in cands if c.id.startswith("ok-")]
    assert len(clean) == 12
    assert {i: kinds[i] for i in clean} == {i: set() for i in clean}


def test_a_cue_in_the_whole_set_marks_the_items_that_show_it(analyzer):
    # 24 diagnosis items whose key is always the one long option, at a balanced position: the set-level
    # `longest option` rule finds the key far beyond chance, so every item is marked; the same items with
    # the long option made a distractor (key elsewhere) are not marked by it.
    long, short = "慢性阻塞性肺疾病急性加重期伴Ⅱ型呼吸衰竭", ["肺炎", "哮喘", "气胸"]
    cued, fair = [], []
    for k in range(24):
        letters = "ABCD"
        key = letters[k % 4]
        opts = dict(zip([x for x in letters if x != key], short, strict=True))
        opts[key] = long + str(k)
        opts = {x: opts[x] for x in letters}
        stem = f"病例{k}：患者男，{50 + k}岁，咳嗽咳痰多年，近{k + 2}天气促加重。最可能的诊断？"
        cued.append(Candidate(id=f"c{k}", code="ID#2", question=stem, options=opts, answer=key))
        fair.append(Candidate(id=f"f{k}", code="ID#2", question=stem, options=opts,
                              answer=letters[(k + 1) % 4]))
    found, report = rule_audit(cued, None)
    assert all(any(f.kind == "cue" and "longest option" in f.detail for f in found[c.id]) for c in cued)
    assert "longest option" in report[0]["flagged"]
    found, _ = rule_audit(fair, None)
    assert not any("longest option" in f.detail for c in fair for f in found[c.id])


def test_a_bad_candidate_line_names_file_line_and_field(tmp_path):
    path = tmp_path / "candidates.jsonl"
    good = FIXTURE.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(good + "\n" + json.dumps({"id": "x", "code": "ID#2", "question": "q", "answer": "A",
                                              "options": ["A", "B"]}) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_candidates(path)
    assert str(e.value) == f"{path}:2: field 'options': expected an object of letter → option text"


def test_response_format_reaches_the_request_and_leaves_other_cache_keys_alone():
    fmt = json.dumps({"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "object"}}})
    body = chat_request([{"role": "user", "content": "hi"}], GenParams(response_format=fmt))
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "object"}}}
    assert "response_format" not in chat_request([{"role": "user", "content": "hi"}], GenParams())
    # A request without one keeps the key it had before the field existed (existing caches stay valid).
    old = {"max_tokens": 512, "temperature": 0.0, "top_p": 1.0, "seed": 0, "stop": [], "top_logprobs": 0}
    assert GenParams().as_dict() == old
    assert request_key({"m": 1}, [], GenParams()) != request_key({"m": 1}, [], GenParams(response_format=fmt))


def replies_for(cands: list[Candidate], verdicts: dict[str, str]) -> dict[str, str]:
    """The instant server's reply per audit prompt (keyed by the sha256 of its user message)."""
    prompt = load_prompt("audit")
    out = {}
    for c in cands:
        user = prompt.messages(item=c, options=list(c.options.items()), kinds=())[-1]["content"]
        out[user_digest([{"role": "user", "content": user}])] = verdicts[c.id]
    return out


def test_llm2_verdicts_are_stored_and_a_rerun_sends_nothing(tmp_path):
    folder = build_folder(tmp_path / "suite")
    cands = load_candidates(FIXTURE)
    verdicts = {c.id: json.dumps({"verdict": "pass", "problems": [], "reason": "可用"}, ensure_ascii=False)
                for c in cands}
    verdicts["bad-implausible"] = json.dumps({"verdict": "fail", "problems": ["implausible"],
                                              "reason": "3岁男童不会有前列腺增生，标准答案亦与检查不符"},
                                             ensure_ascii=False)
    verdicts["ok-03"] = "这道题没有问题。"  # not JSON: the item cannot be judged, so it is flagged for people
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(replies_for(cands, verdicts), ensure_ascii=False), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    runner = CliRunner()
    with instant_server(replies=replies) as url:
        args = ["audit", str(folder), "--auditor", "openai:instant-test", "--base-url", url, "--cache", str(cache),
                "--json"]
        first = runner.invoke(app, args)
        assert first.exit_code == 0, first.output
        sent = get_stats(url)["requests"]
        again = runner.invoke(app, args)
        assert again.exit_code == 0, again.output
        # The two items with a PHI remnant are never sent to the auditor.
        assert get_stats(url)["requests"] == sent == 18
    assert json.loads(first.stdout)["auditor"] == {"model": "instant-test", "pass": 16, "fail": 1, "unusable": 1,
                                                   "cached": 0, "not_sent_phi": 2}
    assert json.loads(again.stdout)["auditor"]["cached"] == 18
    rows = {r["id"]: r for r in map(json.loads, (folder / ".build" / "audit.jsonl").read_text().splitlines())}
    assert rows["bad-implausible"]["flagged"]
    assert rows["bad-implausible"]["findings"] == [
        {"kind": "implausible", "source": "llm", "detail": json.loads(verdicts["bad-implausible"])["reason"]}]
    assert rows["ok-03"]["flagged"] and rows["ok-03"]["llm"]["verdict"] is None
    assert rows["ok-03"]["llm"]["problem"].startswith("the reply is not JSON")
    assert not rows["ok-01"]["flagged"]
    assert rows["bad-phi-phone"]["llm"] is None and rows["bad-phi-phone"]["flagged"]
    assert "13912345678" not in (folder / ".build" / "audit.jsonl").read_text(encoding="utf-8")


@pytest.mark.model
def test_llm2_on_a_real_llama_server_answers_in_the_schema(tmp_path, server_url):
    # The embedded 0.5B model through a real llama.cpp server: its replies are constrained by the schema sent as
    # response_format, so every one parses and validates, whatever the verdicts say.
    # Three items keep it affordable on a CPU (about 50 s an item on a loaded 2-core machine).
    chosen = [line for line in FIXTURE.read_text(encoding="utf-8").splitlines()
              if json.loads(line)["id"] in ("ok-01", "bad-two-answers", "bad-implausible")]
    (tmp_path / "three.jsonl").write_text("\n".join(chosen) + "\n", encoding="utf-8")
    folder = build_folder(tmp_path / "suite", tmp_path / "three.jsonl")
    result = CliRunner().invoke(app, ["audit", str(folder), "--auditor", "openai:qwen-test", "--base-url",
                                      server_url, "--cache", str(tmp_path / "c.sqlite"), "--phi", "off", "--json"])
    assert result.exit_code == 0, result.output
    schema = load_prompt("audit").schema
    rows = [json.loads(line) for line in (folder / ".build" / "audit.jsonl").read_text().splitlines()]
    assert len(rows) == 3
    for row in rows:
        llm = row["llm"]
        assert llm["problem"] is None, (row["id"], llm)
        reply = {"verdict": llm["verdict"], "problems": llm["problems"], "reason": llm["reason"]}
        assert check_reply(json.dumps(reply, ensure_ascii=False), schema) == (reply, None)


def test_the_review_steps_are_reached_through_climedbench_build():

    from tests.support.cli import run_cli

    for step in ("audit", "review", "refine", "rounds"):  # reached through `climedbench build STEP`
        shown = run_cli("build", step, "--help")
        assert shown.returncode == 0 and "Usage: climedbench build " + step in shown.stdout
    assert "--stop" in run_cli("build", "rounds", "--help").stdout
    assert "--demo" in run_cli("build", "--help").stdout  # `build NOTES …` itself is unchanged


def _surrogate_folder(folder: Path) -> Path:
    (folder / ".build" / "deid-notes").mkdir()
    manifest = folder / ".build" / "deid-notes" / "deid_manifest.json"
    manifest.write_text(json.dumps({"deidentified_by": "climedbench deid", "mode": "surrogate"}), encoding="utf-8")
    return manifest


def test_surrogate_notes_narrow_the_phi_check_to_the_options_contact_details(tmp_path):
    # Notes that `climedbench deid` wrote with surrogates hold fake names the same detectors would find again: by
    # default only the options are checked, for contact details and identifiers. The planted name and phone number
    # are in stems, so nothing is flagged; with `--phi on` the whole item is checked and both are.
    folder = build_folder(tmp_path / "suite")
    manifest = _surrogate_folder(folder)
    result = CliRunner().invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["phi_check"] == f"options only, contact details and identifiers (surrogate notes: {manifest})"
    assert "phi" not in summary["by_kind"]
    forced = CliRunner().invoke(app, ["audit", str(folder), "--json", "--phi", "on"])
    assert json.loads(forced.stdout)["by_kind"]["phi"] == 2
    off = CliRunner().invoke(app, ["audit", str(folder), "--json", "--phi", "off"])
    assert json.loads(off.stdout)["phi_check"] == "off (asked)"


def test_surrogate_notes_are_recognised_in_the_source_folder_the_build_read(tmp_path):
    # `climedbench build NOTES --out SUITE`: the manifest is beside the notes, named by .build/state.json's source.
    folder = build_folder(tmp_path / "suite")
    notes = tmp_path / "notes-deid"
    notes.mkdir()
    manifest = notes / "deid_manifest.json"
    manifest.write_text(json.dumps({"deidentified_by": "climedbench deid", "mode": "surrogate"}), encoding="utf-8")
    (folder / ".build" / "state.json").write_text(json.dumps({"source": str(notes)}), encoding="utf-8")
    result = CliRunner().invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["phi_check"] == (f"options only, contact details and identifiers (surrogate "
                                                      f"notes: {manifest})")


def test_a_phone_number_left_in_a_discharge_option_is_flagged_on_surrogate_notes(tmp_path):
    # An ID#4 option with the phone number de-identification missed (or its surrogate): flagged as a PHI remnant
    # even on surrogate notes; the same item without it is not.
    rows = [json.loads(x) for x in FIXTURE.read_text("utf-8").splitlines() if x.strip()]
    ok = next(r for r in rows if r["code"] == "ID#4" and r["id"].startswith("ok-"))
    phoned = {**ok, "id": "phone-in-option",
              "options": {**ok["options"], ok["answer"]: ok["options"][ok["answer"]] + "，如有不适请拨打13912345678。"}}
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (ok, phoned)), encoding="utf-8")
    folder = build_folder(tmp_path / "suite", src)
    _surrogate_folder(folder)
    result = CliRunner().invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    rows_out = {r["id"]: r for r in (json.loads(x) for x in
                                     (folder / ".build" / "audit.jsonl").read_text("utf-8").splitlines())}
    phi = [f for f in rows_out["phone-in-option"]["findings"] if f["kind"] == "phi"]
    assert len(phi) == 1 and phi[0]["detail"].startswith(f"PHONE in the option {ok['answer']}")
    assert "13912345678" not in phi[0]["detail"]
    assert not [f for f in rows_out[ok["id"]]["findings"] if f["kind"] == "phi"]


def test_the_records_climedbench_build_writes_are_read_and_english_is_compared_by_words(tmp_path):
    # The shape `climedbench build` writes: the official record under `item`, options inside its input.
    def nested(cid, text, key):
        return {"candidate_id": cid, "scenario": "ID#2", "task": "ID#2-en", "lang": "en",
                "item": {"id": cid, "scenario": "ID#2-en", "input": text, "reference": key},
                "provenance": {"record": "ab12", "segments": ["ab12:diagnosis:3"], "template": "id2@1",
                               "generator": "none", "prompt_hash": None}, "round": 0}

    options = ("## Options: A: Acute ischemic stroke\nB: Acute exacerbation of chronic obstructive pulmonary "
               "disease\nC: Community-acquired pneumonia\nD: Acute calculous cholecystitis")
    fair = ("## Admission: A 52-year-old woman with right upper quadrant pain for two days after a fatty meal, "
            "fever of 38.6 degrees and vomiting. Murphy's sign is positive. Ultrasound shows a thickened "
            "gallbladder wall with several echogenic stones casting acoustic shadows and a little "
            "pericholecystic fluid; white cell count 14.2.\n")
    told = ("## Admission: A 52-year-old woman referred with suspected calculous cholecystitis after two days of "
            "right upper quadrant pain and fever.\n")
    path = tmp_path / "candidates.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (nested("fair", fair + options, "D"),
                                                              nested("told", told + options, "D"))),
                    encoding="utf-8")
    fair_c, told_c = load_candidates(path)
    assert fair_c.options["D"] == "Acute calculous cholecystitis"
    assert list(fair_c.options) == ["A", "B", "C", "D"] and fair_c.answer == "D" and fair_c.code == "ID#2-en"
    assert fair_c.stem == fair.strip() and fair_c.provenance["prompt_sha256"] is None
    # (Each alone: the two share their options, so together they are near-duplicates.)
    assert [f.kind for f in rule_audit([fair_c], None)[0]["fair"]] == []
    assert [f.kind for f in rule_audit([told_c], None)[0]["told"]] == ["leakage"]
