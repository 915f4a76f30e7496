"""The paper's seven CoT scenarios have their own, tailored chain-of-thought instruction (suite data)."""

from climedbench.analyses.pipeline import cot_tasks
from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.prompts import PromptSettings, build_messages


def test_tailored_cot_prompts():
    suite = load_suite()
    seven = ["ID#1", "ID#2", "BKT", "ID#3", "MC", "FTT", "SSO"]  # the paper's Fig. 5
    assert cot_tasks(suite, suite.codes) == [c for c in suite.codes if c in seven] and len(seven) == 7
    cots = {c: suite.task(c).prompt.cot for c in suite.codes}
    assert len({cots[c] for c in seven}) == 7  # one instruction per scenario
    shared = {cots[c] for c in ("ID#4", "CS", "DS", "FIT")}
    assert len(shared) == 1 and not shared & {cots[c] for c in seven}
    items = {i.task: i for i in load_items(None, suite).tests()}
    for code in seven:
        text = build_messages(suite.task(code), items[code], [], PromptSettings(variant="cot"), suite)[0]["content"]
        vanilla = build_messages(suite.task(code), items[code], [], PromptSettings(), suite)[0]["content"]
        assert "逐步分析" in text and "答案：" in text and "{{" not in text
        assert len(text) > len(vanilla)



def test_few_shot_cot_examples_show_their_reasoning():
    suite = load_suite()
    report = load_items(None, suite)
    task = suite.task("BKT")
    item = next(i for i in report.tests() if i.task == "BKT")
    shots = [i for i in report.devs() if i.task == "BKT"][:2]
    assert all(s.rationale for s in shots)
    cot = build_messages(task, item, shots, PromptSettings(variant="cot", shots=2), suite)
    vanilla = build_messages(task, item, shots, PromptSettings(shots=2), suite)
    cot_answers = [m["content"] for m in cot if m["role"] == "assistant"]
    assert cot_answers == [f"{s.rationale.strip()}\n答案：{s.answer}" for s in shots]
    assert [m["content"] for m in vanilla if m["role"] == "assistant"] == [f"答案：{s.answer}" for s in shots]
