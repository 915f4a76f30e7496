"""Perturbed and none-of-the-above copies: what changes, what never changes, formats, determinism."""

import csv
import importlib.util
import json
import re
from pathlib import Path

import opencc
import pytest
from pypinyin import Style, pinyin

from climedbench.core.suite import load_suite
from climedbench.data.loaders import demo_dir, load_items
from climedbench.errors import ConfigError
from climedbench.perturb import perturb_data
from climedbench.perturb.nota import nota_data
from climedbench.perturb.text import perturb_record

HEADER = re.compile(r"##\s*[^\n:：#]{1,24}?\s*(?:[:：]|(?=\n)|$)")


@pytest.fixture(scope="module")
def suite():
    return load_suite()


@pytest.fixture(scope="module")
def demo(suite):
    return {i.uid: i for i in load_items(None, suite).items}


def han(ch):
    return "\u4e00" <= ch <= "\u9fff"


def diffs(a, b):
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


@pytest.fixture(scope="module")
def copies(tmp_path_factory, suite):
    root = tmp_path_factory.mktemp("perturbed")
    out = {}
    for kind in ("glyph", "homophone", "traditional", "symbol"):
        out[kind] = (root / kind, perturb_data(None, root / kind, suite, kind=kind, rate=0.12, seed=5))
    return out


def loaded(folder, suite):
    return {i.uid: i for i in load_items(folder, suite).items}


@pytest.mark.parametrize("kind", ["glyph", "homophone", "traditional"])
def test_substitutions_keep_everything_but_some_han_characters(copies, demo, suite, kind):
    folder, manifest = copies[kind]
    items = loaded(folder, suite)
    assert set(items) == set(demo)
    changed = total = 0
    table = {}
    if kind == "glyph":
        folder = importlib.util.find_spec("lavender_sscc").submodule_search_locations[0]
        text = (Path(folder) / "top_sccs.csv").read_text(encoding="utf-8")
        table = {row[0]: row[1] for row in csv.reader(text.splitlines()[1:])}
    s2t = opencc.OpenCC("s2t")
    for uid, item in items.items():
        orig = demo[uid]
        assert (item.id, item.answer, item.targets, item.reference, item.meta.get("misleading_answer"), item.letters) == (
            orig.id, orig.answer, orig.targets, orig.reference, orig.meta.get("misleading_answer"), orig.letters)
        assert HEADER.findall(item.input) == HEADER.findall(orig.input)
        pairs = diffs(orig.input, item.input)
        context = s2t.convert(orig.input) if kind == "traditional" else ""
        positions = [i for i, (x, y) in enumerate(zip(orig.input, item.input, strict=True)) if x != y]
        for (old, new), i in zip(pairs, positions, strict=True):
            assert han(old) and han(new) and not old.isnumeric()
            if kind == "glyph":
                assert new in table[old]
            elif kind == "homophone":
                assert pinyin(new, style=Style.TONE3)[0][0] in pinyin(old, style=Style.TONE3, heteronym=True)[0]
            else:  # OpenCC's phrase-aware form at that position (复 → 復 or 覆)
                assert len(context) == len(orig.input) and new == context[i]
        changed += len(pairs)
        total += sum(1 for c in orig.input if han(c))
    # 12% of the eligible characters; all Han characters (a few are protected) is the larger denominator.
    assert 0.09 < changed / total <= 0.12
    assert manifest["achieved_rate"] == pytest.approx(0.12, abs=0.005) and manifest["kind"] == kind


SYMBOL_BEFORE_HAN = re.compile(r"[!$%&*+\-/<=>?@^~](?=[\u3400-\u4dbf\u4e00-\u9fff])")


def test_symbols_are_inserted_before_han_characters(copies, demo, suite):
    folder, manifest = copies["symbol"]
    checked = 0
    for uid, item in loaded(folder, suite).items():
        orig = demo[uid].input
        if SYMBOL_BEFORE_HAN.search(orig):
            continue
        assert SYMBOL_BEFORE_HAN.sub("", item.input) == orig
        checked += 1
    assert checked > 200  # texts such as "次/分" already hold a symbol before a Han character
    assert manifest["by_kind"] == {"symbol": manifest["changed"]}


def test_protected_spans_at_full_rate():
    record = {"id": "x", "input": "## 问题: 患者63岁，每日3次，服药二十天。\n## 选项: A. 头痛 B. 发热\n## 参考答案: 说明B",
              "reference": "A"}
    new, outcome = perturb_record(record, "symbol", 1.0, 0, "k", load_suite().sections.keep)
    text = new["input"]
    for kept in ("## 问题:", "63岁", "3次", "二十天", "## 选项:", "A. ", "## 参考答案: 说明B"):
        assert kept in text
    assert re.search(r"[!$%&*+\-/<=>?@^~]患", text)
    assert outcome.changed == outcome.target == outcome.eligible
    assert new["reference"] == "A" and new["id"] == "x"


def test_deterministic_per_seed():
    record = {"input": "## 问题: 急性心肌梗死发生后，血中最早升高的心肌坏死标志物是什么"}
    first = perturb_record(record, "mixed", 0.3, 7, "a")[0]
    assert first == perturb_record(record, "mixed", 0.3, 7, "a")[0]
    assert first != perturb_record(record, "mixed", 0.3, 8, "a")[0]
    assert first != record


def test_same_format_out_as_in(tmp_path, suite):
    src = tmp_path / "src"
    src.mkdir()
    rec = {"id": "B1", "input": "## 问题: 血清补体持续下降见于\n## 选项: A. 狼疮性肾炎 B. 膜增生性肾炎", "reference": "B"}
    with (src / "BKT.test.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "input", "reference", "note"])
        w.writeheader()
        w.writerow({**rec, "note": "保留"})
    (src / "FTT.json").write_text(json.dumps({"FTT": [{**rec, "id": "F1", "input": rec["input"] + " C. 以上均不对",
                                                       "reference": "C"}]}, ensure_ascii=False))
    perturb_data(str(src), tmp_path / "out", suite, kind="traditional", rate=0.5, seed=1)
    rows = list(csv.DictReader((tmp_path / "out" / "BKT.test.csv").open(encoding="utf-8")))
    assert list(rows[0]) == ["id", "input", "reference", "note"] and rows[0]["note"] == "保留"
    assert rows[0]["input"] != rec["input"] and rows[0]["reference"] == "B"
    top = json.loads((tmp_path / "out" / "FTT.json").read_text(encoding="utf-8"))
    assert list(top) == ["FTT"] and top["FTT"][0]["id"] == "F1"
    assert json.loads((tmp_path / "out" / ".perturbation.json").read_text())["files"] == {
        "BKT.test.csv": "rewritten", "FTT.json": "rewritten"}
    with pytest.raises(ConfigError, match="exists and is not empty"):
        perturb_data(str(src), tmp_path / "out", suite, kind="glyph", rate=0.1, seed=1)


def test_text_without_han_characters_is_refused(tmp_path, suite):
    src = tmp_path / "BKT.test.jsonl"
    src.write_text(json.dumps({"id": "e", "input": "## Q: Which?\n## 选项: A. yes B. no", "reference": "A"}) + "\n")
    with pytest.raises(ConfigError, match="no Han characters"):
        perturb_data(str(src), tmp_path / "out", suite, kind="glyph", rate=0.12, seed=0)


def test_nota_replaces_only_the_correct_option(tmp_path, suite, demo):
    manifest = nota_data(None, tmp_path / "nota", suite)
    items = loaded(tmp_path / "nota", suite)
    for uid, item in items.items():
        orig = demo[uid]
        assert item.answer == orig.answer and item.id == orig.id
        if suite.task(item.task).answer != "single":
            assert item.input == orig.input
            continue
        assert item.options[item.answer] == "以上都不是"
        assert {k: v for k, v in item.options.items() if k != item.answer} == {
            k: v for k, v in orig.options.items() if k != orig.answer}
    assert manifest["tasks"]["FTT"]["already_none_of_the_above"] == manifest["tasks"]["FTT"]["replaced"] > 0
    assert manifest["tasks"]["SSO"]["not_single"] > 0


def test_nota_in_an_options_field(tmp_path, suite):
    src = tmp_path / "BKT.test.jsonl"
    src.write_text(json.dumps({"id": "1", "question": "哪一项正确", "options": {"A": "甲", "B": "乙", "C": "丙"},
                               "answer": "B", "reference": "B"}, ensure_ascii=False) + "\n")
    nota_data(str(src), tmp_path / "out", suite, text="None of the above")
    out = json.loads((tmp_path / "out" / "BKT.test.jsonl").read_text(encoding="utf-8"))
    assert out["options"] == {"A": "甲", "B": "None of the above", "C": "丙"} and out["answer"] == "B"


def test_demo_data_is_untouched(copies):
    before = {p.name: p.read_bytes() for p in demo_dir(load_suite()).iterdir()}
    assert all(len(v) > 0 for v in before.values())
    assert all(".perturbation" not in n for n in before)
