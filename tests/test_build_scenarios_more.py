"""climedbench build's further CliMedBench scenarios (issue 22, step 3): CS and DS (which summary is faithful), KE
(keywords), SSO (surgical steps in order) and WTD (a wrong treatment to critique). Pure logic on notes written here
by hand (keys from the note, replacements from other patients, ambiguous notes skipped), then the bundled demo
records built with `climedbench build --demo` into a suite that `validate`, `list`, `audit-items` and `run --suite`
on a real OpenAI-compatible server on 127.0.0.1 accept."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from climedbench.build.candidates import load_candidates
from climedbench.build.critique import critique_item, drug_name, element_pool, elements, wrong_here
from climedbench.build.distractors import EmbeddingStore, PoolEntry
from climedbench.build.generate import Skip
from climedbench.build.keys import diagnosis_names, first_positive
from climedbench.build.keywords import named_keywords
from climedbench.build.kinds import build_unit
from climedbench.build.preprocess import Kept
from climedbench.build.records import BuildNote
from climedbench.build.scenarios import load_scenarios
from climedbench.build.segments import load_guideline, split_sections
from climedbench.build.steps import hidden_of, steps_of
from climedbench.build.summary import fact_pool, options_2x2, summary_item
from tests.support.cli import run_cli
from tests.support.instant_server import get_stats, instant_server

ZH = load_guideline("zh")
EN = load_guideline("en")
SCENARIOS = load_scenarios()
NEW = ("CS", "DS", "KE", "SSO", "WTD")


def kept(record: str, patient: str, text: str, lang: str = "zh") -> Kept:
    g = ZH if lang == "zh" else EN
    note = BuildNote(record=record, patient=patient, text=text, where=f"test:{record}", lang=lang, specialty=None,
                     note_type=None)
    return Kept(note=note, sections=split_sections(text, g, record))


CHOLE = ("2025年2月21日全麻下行腹腔镜胆囊切除术：胆囊轻度水肿，内见多发结石；建立气腹，解剖胆囊三角，确认胆囊管及胆囊动脉后"
         "夹闭切断，顺行剥离胆囊，胆囊床电凝止血，放置腹腔引流管1根。术中出血约10 mL。病理：慢性胆囊炎。术者：钟某。")


def test_sso_steps_are_the_operation_notes_action_clauses_in_its_order():
    name, steps = steps_of(CHOLE, SCENARIOS["SSO"].steps, "zh")
    assert name == "腹腔镜胆囊切除术"
    # findings (水肿, 内见结石), bleeding, pathology and the surgeon are no steps
    assert steps == ["建立气腹", "解剖胆囊三角", "确认胆囊管及胆囊动脉后夹闭切断", "顺行剥离胆囊", "胆囊床电凝止血",
                     "放置腹腔引流管1根"]


def test_an_sso_items_key_puts_the_hidden_steps_back_in_the_notes_order():
    k = kept("r-sso", "p-sso", "【主诉】\n右上腹痛3天。\n【手术经过】\n" + CHOLE + "\n")
    sc = SCENARIOS["SSO"]
    c = build_unit(sc, k, ZH, [], None)  # type: ignore[arg-type]
    assert not isinstance(c, Skip)
    text, ref = c.item["input"], c.item["reference"]
    assert text.startswith("## 手术名称：腹腔镜胆囊切除术\n## 手术步骤：1. 建立气腹\n")
    hidden = dict(re.findall(r"^([A-D]): (.*)$", text.split("## 遮挡文本: ")[1], re.M))
    numbered = re.findall(r"^(?:## 手术步骤：)?(\d+)\.(?: (.*)|____)$", text, re.M)
    filled, letters = [], iter(ref)
    for _, shown in numbered:
        filled.append(shown if shown else hidden[next(letters)])
    assert filled == ["建立气腹", "解剖胆囊三角", "确认胆囊管及胆囊动脉后夹闭切断", "顺行剥离胆囊", "胆囊床电凝止血",
                      "放置腹腔引流管1根"]
    assert len(ref) == len(hidden) >= 3 and ref != "".join(sorted(ref))  # shuffled, each letter once
    assert "钟某" not in text and "出血" not in text


def test_sso_skips_hidden_steps_that_repeat_an_action_and_notes_with_too_few_steps():
    spec = SCENARIOS["SSO"].steps
    same = ["俯卧位", "切开皮肤", "切开筋膜", "切开关节囊", "关闭切口"]  # three '切开' in a row: either order reads well
    assert hidden_of(same, spec, "zh", random.Random(1)) is None
    distinct = ["俯卧位", "切开皮肤", "游离神经根", "摘除髓核", "关闭切口"]
    assert hidden_of(distinct, spec, "zh", random.Random(1)) == [1, 2, 3]
    short = kept("r-s2", "p-s2", "【手术经过】\n局麻下行清创缝合术：清创，缝合。术者：某。\n")
    assert isinstance(build_unit(SCENARIOS["SSO"], short, ZH, [], None), Skip)  # type: ignore[arg-type]


def test_wtd_drug_elements_are_a_drug_with_its_dose_not_a_laboratory_value():
    spec = SCENARIOS["WTD"].critique
    assert drug_name("入院后即予阿司匹林300 mg", spec, "zh") == "阿司匹林"
    assert drug_name("美托洛尔缓释片23.75 mg qd", spec, "zh") == "美托洛尔"
    assert drug_name("改利格列汀5 mg qd", spec, "zh") == "利格列汀"
    assert drug_name("术后第1天血钾4.6 mmol/L", spec, "zh") is None
    assert drug_name("术前30分钟头孢唑林2 g静滴", spec, "zh") == "头孢唑林"
    assert drug_name("泼尼松自10 mg qd起始", spec, "zh") == "泼尼松"
    assert drug_name("按空腹血糖每3天上调2 U至16 U", spec, "zh") is None  # the regimen of a drug named before
    assert drug_name("先予0.9%氯化钠20 mL/kg", spec, "zh") is None  # not a drug name before the dose
    assert drug_name("creatinine returned to 1.31 mg/dL", spec, "en") is None
    assert drug_name("Metoprolol succinate 25 mg daily was started", spec, "en") == "Metoprolol"
    assert drug_name("then 81 mg daily", spec, "en") is None
    k = kept("r-w", "p-w", "【诊疗经过】\n予阿司匹林100 mg qd，1周后加量至300 mg qd。予头孢唑林2 g静滴。\n")
    # aspirin is followed by a dose without a drug (its own regimen): replaced, that clause would dangle
    assert [e[1] for e in elements(k, ZH, spec)] == ["头孢唑林"]


STEMI = ("【主诉】\n突发胸骨后压榨样疼痛4小时。\n【诊疗经过】\n入院后即予阿司匹林300 mg、替格瑞洛180 mg嚼服负荷，阿托伐他汀40 mg口服，"
         "急诊行冠脉造影及直接PCI。\n【出院诊断】\n1. 急性前壁ST段抬高型心肌梗死\n【出院情况】\n无胸痛。\n")


def test_a_wtd_replacement_must_be_absent_from_the_note_of_another_class_and_another_diagnosis():
    spec = SCENARIOS["WTD"].critique
    note = kept("r-stemi", "p1", STEMI)
    own = {"^阿司", "匹林$", "^替格", "瑞洛$", "^阿托", "他汀$"}
    dx = "急性前壁ST段抬高型心肌梗死"

    def entry(text: str, context: str = "糖尿病酮症酸中毒") -> PoolEntry:
        return PoolEntry(text, "r-other", "p2", "r-other:course:1", kind="element", context=context)

    assert wrong_here(entry("予胰岛素0.1 U/kg/h静脉泵入"), spec, "zh", note.note.text, own, dx)
    assert not wrong_here(entry("予阿托伐他汀20 mg qn"), spec, "zh", note.note.text, own, dx)  # in the note
    assert not wrong_here(entry("予瑞舒伐他汀10 mg qn"), spec, "zh", note.note.text, own, dx)  # '…他汀': same class
    assert not wrong_here(entry("予氯吡格雷300 mg", dx), spec, "zh", note.note.text, own, dx)  # same diagnosis


def test_a_wtd_items_replaced_element_is_not_in_the_note_and_the_reference_names_both(tmp_path):
    from climedbench.embeddings import load_embedder

    others = [
        kept("r-dka", "p2", "【主诉】\n多饮多尿1月。\n【诊疗经过】\n予胰岛素0.1 U/kg/h静脉泵入，补液。\n【出院诊断】\n1. 糖尿病酮症酸中毒\n"),
        kept("r-pe", "p3", "【主诉】\n胸闷气促2天。\n【诊疗经过】\n予利伐沙班15 mg bid口服抗凝。\n【出院诊断】\n1. 急性肺血栓栓塞症\n"),
        kept("r-cap", "p4", "【主诉】\n发热咳嗽3天。\n【诊疗经过】\n予头孢曲松2 g静滴qd抗感染。\n【出院诊断】\n1. 社区获得性肺炎\n"),
    ]
    note = kept("r-stemi", "p1", STEMI)
    sc = SCENARIOS["WTD"]
    pool = element_pool(sc, [note, *others], {"zh": ZH, "en": EN}, "zh")
    store = EmbeddingStore(tmp_path / "e.sqlite", load_embedder("e5"))
    try:
        c = critique_item(sc, sc.languages["zh"], note, ZH, pool, store)
    finally:
        store.close()
    assert not isinstance(c, Skip), c
    repl = c.provenance.distractors[0]
    wrong = drug_name(repl.text, sc.critique, "zh")
    assert repl.record != "r-stemi" and wrong and wrong not in STEMI
    assert c.item["input"].startswith("患者因突发胸骨后压榨样疼痛4小时入院，诊断为急性前壁ST段抬高型心肌梗死。")
    assert repl.text in c.item["input"]
    replaced = re.search(r"此处的治疗是“(.*?)”", c.item["reference"]).group(1)
    assert replaced in STEMI and replaced not in c.item["input"] and wrong in c.item["reference"]


def test_summary_options_are_the_2x2_of_own_and_replaced_facts():
    for at in range(4):
        opts = options_2x2(("胸痛4小时", "高血压8年"), ("腹痛2天", "糖尿病5年"), "{0}；{1}", at, random.Random(at))
        assert opts[at] == "胸痛4小时；高血压8年" and len(set(opts)) == 4
        facts = Counter(f for o in opts for f in o.split("；"))
        assert facts == {"胸痛4小时": 2, "高血压8年": 2, "腹痛2天": 2, "糖尿病5年": 2}  # no option is central


def test_a_summary_replacement_the_stem_names_is_not_used(tmp_path):
    from climedbench.embeddings import load_embedder

    def note(rid: str, cc: str, hist: str, illness: str) -> Kept:
        return kept(rid, "p-" + rid, f"【主诉】\n{cc}\n【现病史】\n{illness}\n【既往史】\n否认肝炎史。{hist}\n")

    me = note("r1", "突发胸痛4小时。", "高血压病史8年。", "患者4小时前突发胸痛，既往糖尿病史5年。")
    pool_notes = [me, note("r2", "胸闷气促2天。", "糖尿病史5年。", "气促。"), note("r3", "胸痛伴大汗1天。", "高脂血症3年。", "胸痛。"),
                  note("r4", "心悸3天。", "冠心病史2年。", "心悸。")]
    sc = SCENARIOS["CS"]
    pool = fact_pool(sc, pool_notes, {"zh": ZH, "en": EN}, "zh")
    store = EmbeddingStore(tmp_path / "e.sqlite", load_embedder("e5"))
    try:
        c = summary_item(sc, sc.languages["zh"], me, ZH, pool, store, 0)
    finally:
        store.close()
    assert not isinstance(c, Skip), c
    options = dict(re.findall(r"^(?:## 选项: )?([A-D]): (.*)$", c.item["input"], re.M))
    assert options[c.item["reference"]] == "主诉：突发胸痛4小时；既往：高血压病史8年。"
    # '糖尿病史5年' is another patient's history, but this patient's present illness names it: not a distractor
    assert all("糖尿病史5年" not in o for o in options.values())
    assert first_positive(me.sections[2:], ZH) == ("高血压病史8年", "r1:history:2")
    assert first_positive(kept("r5", "p5", "【既往史】\n既往无抽搐史。体健。足月顺产。\n").sections, ZH) == (
        "足月顺产", "r5:history:0")


def test_ke_keywords_are_the_diagnoses_the_text_names():
    k = kept("r-k", "p-k", "【出院诊断】\n1. 高血压病3级（很高危）\n2. 慢性肾脏病3b期\n3. GRACE score 128\n4. 急性胰腺炎\n")
    got = diagnosis_names(k.sections, ZH)
    assert got is not None and got[0].split("；") == ["高血压病", "慢性肾脏病", "急性胰腺炎"]
    text = "患者有高血压病10年，此次因胰腺炎入院。"
    assert named_keywords(got[0].split("；"), text) == ["高血压病", "胰腺炎"]


@pytest.fixture(scope="module")
def demo_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "suite"
    run_cli("build", "--demo", "--out", str(out), "--scenarios", ",".join(NEW), "--json")
    return out


def test_the_demo_records_build_every_new_scenario_into_a_suite_that_validates_and_runs(demo_suite, tmp_path):
    card = json.loads((demo_suite / "card.json").read_text("utf-8"))
    assert {"CS", "CS-en", "DS", "DS-en", "KE", "SSO", "WTD", "WTD-en"} <= set(card["tasks"])
    for code in NEW:
        assert card["tasks"][code]["items"] >= 3, code
    run_cli("validate", "--suite", str(demo_suite))
    listed = run_cli("list", "--suite", str(demo_suite)).stdout
    assert all(code in listed for code in NEW)
    n_test = sum(v["test"] for v in card["tasks"].values())
    with instant_server() as url:
        run_cli("run", "--suite", str(demo_suite), "--model", "openai:instant-test", "--base-url", url,
                "--limit", "0", "--out", str(tmp_path / "run"))
        assert get_stats(url)["requests"] == n_test
    results = json.loads((tmp_path / "run" / "results.json").read_text("utf-8"))
    assert set(results["tasks"]) == set(card["tasks"])
    assert all(t["n"] == card["tasks"][code]["test"] and t["complete"] for code, t in results["tasks"].items())
    audit = json.loads(run_cli("audit-items", "--suite", str(demo_suite), "--split", "all", "--json").stdout)
    assert {t["task"] for t in audit["tasks"]} >= {"CS", "DS"}


def test_every_new_item_keeps_its_provenance_and_keys_come_from_its_own_note(demo_suite):
    cands = [c for c in load_candidates(demo_suite)]
    assert {c.scenario for c in cands} == set(NEW)
    for c in cands:
        p = c.provenance
        assert p.generator == "none" and p.key_segment in p.segments
        assert all(s.startswith(p.record + ":") for s in p.segments)
        assert all(d.record != p.record for d in p.distractors)
        if c.scenario in ("CS", "DS"):
            assert len(p.distractors) == 2 and p.band is not None and c.item["reference"] in "ABCD"
        if c.scenario == "WTD":
            assert p.distractors[0].text.lower() in c.item["input"].lower()  # English: capitalised when it opens
        if c.scenario == "SSO":
            assert p.key_segment.split(":")[1] == "operation" and not p.distractors
    letters = Counter(c.item["reference"] for c in cands if c.scenario in ("CS", "DS") and c.lang == "zh")
    assert set(letters) == set("ABCD")
