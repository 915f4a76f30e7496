import json
import subprocess
import sys

import pytest

from climedbench.extract import extract, extract_choice, extract_keywords, extract_order, extract_text

from .conftest import FIXTURES


def _accuracy(name: str) -> tuple[float, list[str]]:
    cases = [json.loads(line) for line in (FIXTURES / name).read_text("utf-8").splitlines() if line.strip()]
    wrong = [c["id"] for c in cases
             if extract(c["kind"], c["response"], c["options"], c.get("option_texts") or None).answer
             != c["expected"]]
    return 1 - len(wrong) / len(cases), wrong


# A regression check on the development fixtures, NOT an accuracy estimate: the extractor was tuned on these.
# The honest figure comes from a blind set, measured once: python benchmarks/extraction_accuracy.py --blind PATH.
@pytest.mark.parametrize("name, floor", [
    ("extraction_cases.jsonl", 0.96),    # used while developing the extractor
    ("extraction_heldout.jsonl", 0.96),  # blind at first (83.6%), then used while developing
    ("extraction_blind.jsonl", 0.96),    # blind at first (91.9%), then its misses were studied too
    ("extraction_final.jsonl", 0.96),    # blind at first (89.4%), then its misses were studied too
])
def test_extraction_accuracy_on_realistic_responses(name, floor):
    acc, wrong = _accuracy(name)
    assert acc >= floor, f"{name}: {acc:.3f}, wrong: {wrong}"


def test_final_answer_beats_earlier_mentions():
    opts = "ABCDE"
    assert extract_choice("A 错误……B 正确……C 错误。综上，选B。", opts).answer == "B"
    assert extract_choice("我最初选A，但仔细考虑后，正确答案应为C", opts).answer == "C"
    assert extract_choice("参考答案 C 并不正确，因此答案应为 E 而不是 C。", opts).answer == "E"
    assert extract_choice("<think>答案是A吧</think>\n**答案：（Ｄ）**", opts).answer == "D"
    assert extract_choice("<think>答案是A……不对，再想想", opts).answer is None
    assert extract_choice("需要做B超和CT。答案：D", opts).answer == "D"
    assert extract_choice("答案：F", opts).answer is None
    assert extract_choice("A和C都有可能，需要进一步检查。", opts).answer is None
    assert extract_choice("作为AI，我无法提供医疗建议。", opts).answer is None
    assert extract_choice("我选择狼疮性肾炎。", opts, option_texts={"A": "乙肝相关肾炎", "B": "狼疮性肾炎"}).answer == "B"


@pytest.mark.parametrize("response, expected", [
    ("D。", "D"), ("A</s>", "A"), ("B<|im_end|>", "B"), ("C<|endoftext|>", "C"), ("the answer is b.", "B"),
    ("選D", "D"), ("答案為：C，因為……", "C"), ("I'd go with option d", "D"), ("The answer is a fracture.", None),
    ("…选B。不对，应选C", "C"), ("可能是A也可能是C，无法确定", None), ("以上都不对", "D"), ("我认为以上都对。", "C"),
    ("答案不是以上都对，而是A", "A"), ("最可能的诊断是急性胆囊炎。", "B"),
])
def test_normalised_forms_written_out_answers_and_hedges(response, expected):
    """The misses an outside check found: end tokens, case, traditional characters, none/all of the above written
    out, restated-then-corrected answers, and hedges that never commit."""
    opts = {"A": "急性胰腺炎", "B": "急性胆囊炎", "C": "以上都对", "D": "以上都不对"}
    assert extract_choice(response, "ABCD", option_texts=opts).answer == expected


@pytest.mark.parametrize("response", ["(1)E (2)B (3)A (4)D (5)C", "① E ② B ③ A ④ D ⑤ C", "（1）E（2）B（3）A（4）D（5）C",
                                      "先E后B再A然后D最后C", "首先E，然后B，接着A，再D，最后C"])
def test_order_styles(response):
    assert extract_order(response, "ABCDE").answer == "EBADC"


def test_multi_and_order():
    assert extract_choice("正确选项为A，C和D", "ABCDE", multi=True).answer == "ACD"
    assert extract_choice("答案：ACD", "ABCDE").answer is None  # several letters for a single answer
    assert extract_order("答案：A→B→D→C", "ABCD").answer == "ABDC"
    assert extract_order("应先进行D，再进行B，接着A，最后C", "ABCD").answer == "DBAC"
    assert extract_order("答案：ABD", "ABCD").answer is None
    assert extract_order("答案：DCBA\n理由：\n1. A. 入院\n2. B. 查体\n3. C. 手术\n4. D. 出院", "ABCD").answer == "DCBA"


def test_keywords_and_text():
    assert extract_keywords("关键词：慢性病；养老；医养结合\n解释：……").answer == ["慢性病", "养老", "医养结合"]
    assert extract_keywords("关键词：\n1. 慢性病\n2. 养老\n\n理由……").answer == ["慢性病", "养老"]
    assert extract_keywords("本文研究了老年人。").answer is None
    assert extract_text("<think>x</think> 这并不合适。").answer == "这并不合适。"
    assert extract_text("").answer is None


def test_cli_extract_reads_stdin_lines():
    lines = [
        {"kind": "single", "options": "ABCDE", "response": "综上所述，答案：（Ｃ）"},
        {"kind": "order", "options": "ABCD", "response": "正确顺序为：B、A、D、C"},
        {"kind": "multi", "options": "ABCD", "response": "我选择血常规和肝功能",
         "option_texts": {"A": "血常规", "B": "胃镜", "C": "肝功能", "D": "腰椎MRI"}},
        {"kind": "single", "options": "ABCD", "response": "无法确定"},
        {"kind": "label", "labels": ["yes", "no", "maybe"], "response": "Based on the abstract, the answer is no."},
    ]
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "extract"], capture_output=True, text=True,
                          input="\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", check=True)
    assert [json.loads(x)["answer"] for x in proc.stdout.splitlines()] == ["C", "BADC", "AC", None, "no"]
    assert json.loads(proc.stdout.splitlines()[3])["method"] == "hedge"  # the rule that decided is named
    bad = subprocess.run([sys.executable, "-m", "climedbench.cli", "extract"], capture_output=True, text=True,
                         input='{"kind": "single"}\n')
    assert bad.returncode != 0 and "stdin line 1" in bad.stderr and "Traceback" not in bad.stderr
