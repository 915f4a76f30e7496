"""--extractor judge:MODEL — a judge re-reads only what the rules cannot, visibly, and strictly."""

import json

from climedbench.core.suite import load_suite
from climedbench.core.types import Item
from climedbench.judge import judge_prompt, parse_judge
from tests.support.cli import run_cli

from .support.instant_server import answer_letter, get_stats, instant_server, reset_stats


def cli(*args, check=True):
    return run_cli(*args, check=check, timeout=300)


def _items(path, n=4):
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"j{i}", "input": f"## 问题: 第{i}题\n## 选项: A. 甲{i}\nB. 乙{i}\nC. 丙{i}\nD. 丁{i}",
                                 "reference": "ABCD"[i % 4]}, ensure_ascii=False) + "\n")
    return path


def test_parse_judge_is_strict():
    suite = load_suite()
    task = suite.task("BKT")
    item = Item(id="1", task="BKT", input="q", options={"A": "x", "B": "y", "C": "z", "D": "w"}, answer="B")
    assert parse_judge(task, item, "B") == "B" and parse_judge(task, item, "答案：C") == "C"
    assert parse_judge(task, item, "NONE") is None
    assert parse_judge(task, item, "maybe B or C") is None  # an unclear judge leaves the item unanswered
    assert "Do not solve the question yourself" in judge_prompt(task, item, "嗯")[0]["content"]


def test_run_with_a_judge(tmp_path):
    data = _items(tmp_path / "BKT.jsonl")
    with instant_server(model="mumbler", reply="嗯，这道题我需要再想想。") as main, \
            instant_server(model="instant-judge") as judge:
        out = tmp_path / "run"
        args = ["run", "--data", str(data), "--model", "openai:mumbler", "--base-url", main, "--quiet", "--out",
                str(out), "--extractor", f"judge:openai:instant-judge@{judge}", "--json",
                "--cache", str(tmp_path / "c.sqlite")]
        res = json.loads(cli(*args).stdout)
        samples = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
        assert len(samples) == 4
        for s in samples:
            assert s["raw"] == "嗯，这道题我需要再想想。"
            assert s["extraction_method"] == "judge:instant-judge" and s["judge_raw"].startswith("答案：")
            assert s["extracted"] == s["judge_raw"][-1] and s["flags"]["judged"] is True
        assert res["tasks"]["BKT"]["counts"]["judged"] == 4 and res["tasks"]["BKT"]["extraction_failures"] == 0
        assert json.loads((out / "run.json").read_text())["metrics"]["extractor"] == \
            f"judge:openai:instant-judge@{judge}"
        # The judge's answers are the instant server's letters for the judge prompts (not the main model's).
        suite = load_suite()
        for s in samples:
            item = Item(id=s["item_id"], task="BKT", input="x", options={k: f"{v}{s['item_id'][1:]}" for k, v in
                                                                          zip("ABCD", "甲乙丙丁", strict=True)})
            msgs = judge_prompt(suite.task("BKT"), item, s["raw"])
            assert s["extracted"] == answer_letter(msgs)
        # Without the judge the same responses are extraction failures, with the reason logged.
        out2 = tmp_path / "rules"
        res2 = json.loads(cli("run", "--data", str(data), "--model", "openai:mumbler", "--base-url", main, "--quiet",
                              "--out", str(out2), "--json", "--cache", str(tmp_path / "c.sqlite")).stdout)
        assert res2["tasks"]["BKT"]["extraction_failures"] == 4 and "judged" not in res2["tasks"]["BKT"]["counts"]
        s2 = json.loads((out2 / "samples.jsonl").read_text().splitlines()[0])
        assert s2["extraction_failure_reason"] == "no_answer" and "judge_raw" not in s2
        # score --extractor judge:... re-reads them post hoc, from the cache: the judge is not asked again.
        reset_stats(judge)
        again = json.loads(cli("score", str(out2), "--extractor", f"judge:openai:instant-judge@{judge}",
                               "--json").stdout)
        assert again["tasks"]["BKT"]["counts"]["judged"] == 4
        assert get_stats(judge)["requests"] == 0
