import pytest

from climedbench.data.loaders import load_items
from climedbench.errors import ConfigError
from climedbench.prompts import PromptSettings, build_messages, demonstration, messages_hash, pick_shots


@pytest.fixture(scope="module")
def demo(suite):
    return load_items(None, suite)


def test_vanilla_cot_and_shots(suite, demo):
    sc = suite.scenario("BKT")
    item = next(i for i in demo.tests() if i.task == "BKT")
    vanilla = build_messages(sc, item, [], PromptSettings(), suite)
    assert [m["role"] for m in vanilla] == ["user"]
    text = vanilla[0]["content"]
    assert text.startswith(sc.prompt.instruction.split("\n")[0]) and item.input in text
    assert "答案：X" in text and "A/B/C/D/E" in text and item.rationale not in text
    cot = build_messages(sc, item, [], PromptSettings(variant="cot"), suite)
    assert "逐步分析" in cot[0]["content"] and messages_hash(cot) != messages_hash(vanilla)
    shots = pick_shots(sc, demo.devs(), 3)
    assert len(shots) == 3 and all(s.split == "dev" and s.task == "BKT" for s in shots)
    few = build_messages(sc, item, shots, PromptSettings(shots=3), suite)
    assert [m["role"] for m in few] == ["user", "assistant"] * 3 + ["user"]
    assert few[1]["content"] == f"答案：{shots[0].answer}" and few[-1] == vanilla[0]
    with pytest.raises(ConfigError, match="only 6 dev/train item"):
        pick_shots(sc, demo.devs(), 7)


def test_demonstrations_per_shape(suite, demo):
    ke = next(i for i in demo.devs() if i.task == "KE")
    assert demonstration(suite.scenario("KE"), ke) == "关键词：" + "；".join(ke.targets or [])
    cpr = next(i for i in demo.devs() if i.task == "CPR")
    assert demonstration(suite.scenario("CPR"), cpr) == f"答案：{cpr.answer}"
    wtd = next(i for i in demo.devs() if i.task == "WTD")
    assert demonstration(suite.scenario("WTD"), wtd) == wtd.reference


def test_logprob_variant_only_for_single_answers(suite, demo):
    bkt = next(i for i in demo.tests() if i.task == "BKT")
    msg = build_messages(suite.scenario("BKT"), bkt, [], PromptSettings(variant="logprob"), suite)
    assert "只输出" in msg[0]["content"]
    cpr = next(i for i in demo.tests() if i.task == "CPR")
    with pytest.raises(ConfigError, match="single-answer choice items only"):
        build_messages(suite.scenario("CPR"), cpr, [], PromptSettings(variant="logprob"), suite)


def test_item_prompts_are_used_only_when_asked(suite):
    from climedbench.suites.climedbench.loader import build_item

    it = build_item({"input": "## 问题: q\n## 选项: A. 甲\nB. 乙", "reference": "A", "prompt": "自定义指令"},
                    suite.scenario("BKT"), file="f", line=1, default_id="x")
    assert "自定义指令" not in build_messages(suite.scenario("BKT"), it, [], PromptSettings(), suite)[0]["content"]
    own = build_messages(suite.scenario("BKT"), it, [], PromptSettings(item_prompts=True), suite)
    assert own[0]["content"].startswith("自定义指令")
