"""Named extraction pipelines: the rules tables (their order pinned), strict vs flexible readings of hand-made
responses (each expected reading worked out from the rule definitions in climedbench/extract/), and the strict
figure beside the flexible one in results.json, the terminal table and the HTML report of a real run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from scipy.stats import beta

from climedbench.extract import RULES, extract, extract_choice, extract_label, extract_labels

from .support.cli import run_cli
from .support.instant_server import instant_server

RELEASES = Path(__file__).resolve().parent / "fixtures" / "releases"

# The rules of each answer kind, in order, with their roles: the order is the behaviour, so a reorder must show here.
EXPECTED_RULES = {
    "single": [
        ("unterminated_reasoning", "guard"), ("empty", "guard"), ("alternatives", "guard"),
        ("self_contradiction", "guard"), ("truncated", "guard"), ("marker", "stated"), ("tentative", "flexible"),
        ("tentative_only", "guard"), ("hedge", "guard"), ("no_option_correct", "guard"),
        ("answer_then_others", "flexible"), ("marked_lines", "flexible"), ("leading_letters", "stated"),
        ("leading_option_text", "flexible"), ("leading_letter", "stated"), ("letters_only", "stated"),
        ("last_line_letters", "flexible"), ("trailing_letters", "flexible"), ("trailing_letter", "flexible"),
        ("option_text", "flexible"), ("ordinal", "flexible")],
    "order": [
        ("unterminated_reasoning", "guard"), ("truncated", "guard"), ("only_possibilities", "guard"),
        ("either_order", "guard"), ("self_contradiction", "guard"), ("marker", "stated"), ("sequence", "stated"),
        ("option_lines", "flexible"), ("order_completed_by_text", "flexible"), ("invalid_order", "guard"),
        ("sequence_sentence", "flexible"), ("order_by_text", "flexible")],
    "keywords": [("unterminated_reasoning", "guard"), ("keyword_marker", "stated"), ("keyword_list", "flexible")],
    "text": [("text", "stated")],
    "label": [
        ("unterminated_reasoning", "guard"), ("empty", "guard"), ("label_correction", "stated"),
        ("self_contradiction", "guard"), ("label_marker", "stated"), ("opening_hedge", "guard"),
        ("leading_label", "stated"), ("last_line_label", "flexible"), ("only_label", "flexible"),
        ("no_label", "guard")],
    "labels": [("unterminated_reasoning", "guard"), ("empty", "guard"), ("labels_marker", "stated"),
               ("labels", "flexible"), ("labels_none", "stated")],
}


def test_rules_tables_keep_their_order_and_roles():
    assert {kind: [(r.name, r.role) for r in rules] for kind, rules in RULES.items() if kind != "multi"} \
        == EXPECTED_RULES
    assert RULES["multi"] is RULES["single"]


OPTS = {"A": "阿司匹林", "B": "华法林", "C": "肝素", "D": "氯吡格雷"}
# (kind, response, option texts, flexible reading, strict reading): each reading worked out by hand from the rules.
CASES = [
    ("single", "答案：C", None, ("C", "marker"), ("C", "marker")),
    ("single", "B", None, ("B", "leading_letter"), ("B", "leading_letter")),
    # "so B." closes the response: only trailing_letter (flexible) reads it.
    ("single", "The findings fit best with the last option, so B.", None, ("B", "trailing_letter"),
     (None, "no_answer")),
    # "所以可能是C": an answer statement made tentative by 可能; strict stops at the guard after `tentative`.
    ("single", "所以可能是C。", None, ("C", "tentative"), (None, "hedge")),
    # The option named by its text after 首选: option_text (flexible).
    ("single", "首选华法林抗凝治疗。", OPTS, ("B", "option_text"), (None, "no_answer")),
    # Marks on option lines (marked_lines, flexible) come before the opening letter (leading_letter, stated): strict
    # runs on to the later stated rule and reads another answer.
    ("single", "A\n✅ 华法林\n❌ 肝素", OPTS, ("B", "marked_lines"), ("A", "leading_letter")),
    ("multi", "正确答案：AC", None, ("AC", "marker"), ("AC", "marker")),
    ("multi", "分析如下。\nA、C", None, ("AC", "last_line_letters"), (None, "no_answer")),
    ("order", "正确顺序：B→A→D→C", None, ("BADC", "marker"), ("BADC", "marker")),
    # Words between the letters break every letter run but "D,最后C" (two letters): only the sentence reads it.
    ("order", "先做B检查，再行A处理，接着D，最后C。", None, ("BADC", "sequence_sentence"), (None, "no_order")),
    ("keywords", "关键词：高血压；糖尿病", None, (["高血压", "糖尿病"], "keyword_marker"),
     (["高血压", "糖尿病"], "keyword_marker")),
    ("keywords", "1. 高血压\n2. 糖尿病", None, (["高血压", "糖尿病"], "keyword_list"), (None, "no_keywords")),
    ("text", "<think>x</think>Hypertension.", None, ("Hypertension.", "text"), ("Hypertension.", "text")),
]


@pytest.mark.parametrize(("kind", "response", "texts", "flexible", "strict"), CASES)
def test_strict_reads_stated_answers_only(kind, response, texts, flexible, strict):
    got = {p: extract(kind, response, "ABCD", texts, pipeline=p) for p in ("flexible", "strict")}
    assert (got["flexible"].answer, got["flexible"].method) == flexible
    assert (got["strict"].answer, got["strict"].method) == strict


YNM = ("yes", "no", "maybe")


@pytest.mark.parametrize(("response", "flexible", "strict"), [
    ("The answer is no.", ("no", "label_marker"), ("no", "label_marker")),
    ("No. The trial was negative.", ("no", "leading_label"), ("no", "leading_label")),
    # A label alone on the last line (flexible); strict ends at no_label's guard: a label is named, so a hedge.
    ("The evidence is consistent.\n\nmaybe", ("maybe", "last_line_label"), (None, "hedge")),
    ("Trials found a benefit; yes overall.", ("yes", "only_label"), (None, "hedge")),
])
def test_strict_label(response, flexible, strict):
    for pipeline, want in (("flexible", flexible), ("strict", strict)):
        got = extract_label(response, YNM, pipeline=pipeline)
        assert (got.answer, got.method) == want


def test_strict_label_set():
    labels = ("alpha", "beta", "gamma")
    assert extract_labels("Answer: alpha, gamma", labels, pipeline="strict").answer == ["alpha", "gamma"]
    prose = "This abstract discusses alpha and beta."
    assert extract_labels(prose, labels).answer == ["alpha", "beta"]
    assert (extract_labels(prose, labels, pipeline="strict").answer,
            extract_labels(prose, labels, pipeline="strict").method) == (None, "no_label")


def test_unknown_pipeline_is_refused():
    with pytest.raises(ValueError, match="unknown extraction pipeline 'lenient'"):
        extract_choice("答案：A", "ABCD", pipeline="lenient")  # type: ignore[arg-type]


def test_both_pipelines_read_a_response_once(monkeypatch):
    """A scorer reads every response by both pipelines; the second reading reuses the first one's cleaned text and
    rule decisions (each rule applied at most once) and reads what a reading of its own reads."""
    import climedbench.extract.choice as choice

    cleaned: list[str] = []
    applied: dict[str, int] = {}
    real_clean = choice.clean_response

    def clean(text: str) -> str | None:
        cleaned.append(text)
        return real_clean(text)

    def counted(rule):
        def apply(ctx):
            applied[rule.name] = applied.get(rule.name, 0) + 1
            return rule.apply(ctx)
        return choice.Rule(rule.name, apply, rule.role)

    monkeypatch.setattr(choice, "clean_response", clean)
    monkeypatch.setattr(choice, "CHOICE_RULES", tuple(counted(r) for r in choice.CHOICE_RULES))
    response = "患者第4711号的表现符合膜增生性肾炎。\n答案：C"
    flexible = extract_choice(response, "ABCDE")
    strict = extract_choice(response, "ABCDE", pipeline="strict")
    assert (flexible.answer, flexible.method) == ("C", "marker")
    assert (strict.answer, strict.method) == ("C", "marker")
    assert cleaned == [response]
    assert applied == {"unterminated_reasoning": 1, "empty": 1, "alternatives": 1, "self_contradiction": 1,
                       "truncated": 1, "marker": 1}


# -- a real run: MMLU-Medicine (single choice) and PubMedQA (yes/no/maybe) of the release fixtures -------------------

TASKS = ("MMLU-Medicine", "PubMedQA")


def _replies(folder: Path) -> dict[str, dict[str, bool]]:
    """Replies that give every test item its gold answer: every third one as a stated answer ("The answer is
    X."), the others only in a form a flexible rule reads (a closing "so X." / the label alone on the last line).
    Returns, per task, uid → stated."""
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items
    from climedbench.prompts import PromptSettings, user_message

    suite = load_suite("clinicbench")
    items = [i for i in load_items(RELEASES, suite, list(TASKS)).items if i.split == "test"]
    replies: dict[str, str] = {}
    stated: dict[str, dict[str, bool]] = {t: {} for t in TASKS}
    for k, item in enumerate(items):
        task = suite.task(item.task)
        gold = item.answer
        said = k % 3 == 0
        if task.answer == "single":
            reply = f"The answer is {gold}." if said else f"The findings fit best with that option, so {gold}."
        else:
            reply = f"The answer is {gold}." if said else f"The evidence is consistent.\n\n{gold}"
        key = hashlib.sha256(user_message(task, item, PromptSettings(), suite).encode("utf-8")).hexdigest()
        if key in replies:  # two items with one prompt: skip the second, it would get the first one's reply
            continue
        replies[key] = reply
        stated[item.task][item.uid] = said
    (folder / "replies.json").write_text(json.dumps(replies), "utf-8")
    return stated


def _jeffreys(x: int, n: int) -> tuple[float, float]:
    lo = 0.0 if x == 0 else float(beta.ppf(0.025, x + 0.5, n - x + 0.5))
    hi = 1.0 if x == n else float(beta.ppf(0.975, x + 0.5, n - x + 0.5))
    return round(100 * lo, 2), round(100 * hi, 2)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipelines")
    stated = _replies(tmp)
    out = tmp / "run"
    with instant_server(model="fixed", replies=tmp / "replies.json") as url:
        run_cli("run", "--suite", "clinicbench", "--data", str(RELEASES), "--tasks", ",".join(TASKS), "--limit", "0",
                "--model", "openai:fixed", "--base-url", url, "--no-cache", "--quiet", "--out", str(out))
    return out, stated


def test_results_json_carries_the_strict_figure_beside_the_flexible_one(run):
    out, stated = run
    results = json.loads((out / "results.json").read_text("utf-8"))
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    assert {s["uid"] for s in samples} == {u for t in TASKS for u in stated[t]}  # every item asked, none twice
    for code in TASKS:
        fig = results["tasks"][code]
        n, k = len(stated[code]), sum(stated[code].values())
        assert 0 < k < n
        assert (fig["score"], fig["n"]) == (100.0, n)  # every reply gives the gold: flexible reads them all
        strict = fig["strict"]
        assert strict["score"] == round(100 * k / n, 2)  # strict reads the stated ones only
        assert tuple(strict["ci"]) == _jeffreys(k, n) and strict["interval"] == "jeffreys"
        assert strict["extraction_failures"] == n - k
    for s in samples:
        strict = s["secondary"]["strict"]
        if stated[s["task"]][s["uid"]]:  # read as the flexible pipeline read it: the answer is not stored twice
            assert (strict["score"], strict["failed"], "extracted" in strict) == (1.0, False, False)
            assert strict["method"] == s["extraction_method"] == ("marker" if s["task"] == "MMLU-Medicine"
                                                                  else "label_marker")
        else:
            assert (strict["score"], strict["failed"], strict["extracted"]) == (0.0, True, None)
            assert s["extraction_method"] == ("trailing_letter" if s["task"] == "MMLU-Medicine"
                                              else "last_line_label")
    # Groups and overall: the same means of the tasks' strict figures.
    strict_tasks = {c: results["tasks"][c]["strict"]["score"] for c in TASKS}
    assert results["overall"]["strict"]["score"] == pytest.approx(
        sum(strict_tasks.values()) / len(TASKS), abs=0.01)
    assert results["overall"]["score"] == 100.0


def test_table_and_html_show_strict_and_score_adds_it_to_an_old_run(run, tmp_path):
    out, stated = run
    old = tmp_path / "old"
    old.mkdir()
    for f in out.iterdir():
        if f.is_file():
            (old / f.name).write_bytes(f.read_bytes())
    # A run scored before pipelines existed: no strict reading in its samples, no strict figure in results.json.
    lines = [json.loads(x) for x in (old / "samples.jsonl").read_text("utf-8").splitlines()]
    for s in lines:
        s.pop("secondary", None)
    (old / "samples.jsonl").write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in lines), "utf-8")
    before = json.loads((old / "results.json").read_text("utf-8"))
    for fig in [*before["tasks"].values(), *before["groups"].values(), before["overall"]]:
        fig.pop("strict", None)
    (old / "results.json").write_text(json.dumps(before), "utf-8")
    shown = run_cli("aggregate", str(old)).stdout
    assert "Strict" not in shown
    table = run_cli("score", str(old)).stdout
    assert "Strict [95% CI]" in table and "stated-answer rules only" in table
    after = json.loads((old / "results.json").read_text("utf-8"))
    for code in TASKS:
        k, n = sum(stated[code].values()), len(stated[code])
        assert after["tasks"][code]["strict"]["score"] == round(100 * k / n, 2)
        row = next(line for line in table.splitlines() if code in line)
        assert "100.0" in row and f"{100 * k / n:.1f}" in row
    html = tmp_path / "report.html"
    run_cli("report", str(old), "--html", str(html), "--no-samples")
    page = html.read_text("utf-8")
    k, n = sum(stated["PubMedQA"].values()), len(stated["PubMedQA"])
    assert page.count('class="strict"') >= len(TASKS) + 1
    assert f'{100 * k / n:.1f}' in page and "stated-answer rules only" in page


def test_extract_command_takes_a_pipeline():
    line = json.dumps({"kind": "single", "options": "ABCD", "response": "The findings fit best, so B."})
    import subprocess
    import sys

    def read(*args: str) -> dict:
        proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "extract", *args], input=line + "\n",
                              capture_output=True, text=True, timeout=120, check=True)
        return json.loads(proc.stdout)

    assert read() == {"answer": "B", "method": "trailing_letter"}
    assert read("--pipeline", "strict") == {"answer": None, "method": "no_answer"}
    bad = run_cli("extract", "--pipeline", "lenient", check=False)
    assert bad.returncode != 0 and "--pipeline must be flexible or strict, not 'lenient'" in bad.stderr


def test_a_strict_figure_that_reads_as_flexible_is_the_same_figure():
    """Every item read alike by both pipelines: every strict figure (task, group, overall) is the main one, interval
    included, although ReferralQA's corpus BLEU (`also:`) draws from the main pass's generator before HospSumm's."""
    from climedbench.core.suite import load_suite
    from climedbench.core.types import Sample
    from climedbench.data.loaders import load_items
    from climedbench.results import build_results
    from climedbench.scoring import Scorer

    suite = load_suite("clinicbench")
    codes = ["MMLU-Medicine", "PubMedQA", "ReferralQA", "HospSumm", "PatientEdu"]
    items = [i for i in load_items(None, suite, codes).items if i.split == "test"]
    scorer = Scorer(language="en")
    samples = []
    for k, item in enumerate(items):
        task = suite.task(item.task)
        reply = (f"The answer is {item.answer}." if task.answer in ("single", "label")
                 else " ".join(str(item.reference).split()[: 5 + k % 7]))
        scored = scorer.score(task, item, reply)
        samples.append(Sample(uid=item.uid, item_id=item.id, task=item.task, raw=reply, score=scored.score,
                              stats=list(scored.stats) if scored.stats is not None else None,
                              extraction_failure=scored.extraction_failure, secondary=scored.secondary))
    assert {s.task for s in samples} == set(codes)
    results = build_results(samples, suite, "m")
    figures = [*results.tasks.values(), *results.groups.values(), results.overall]
    assert results.tasks["ReferralQA"].secondary and 0 < results.tasks["HospSumm"].score < 100
    for fig in figures:
        assert fig.strict is not None
        assert (fig.strict.score, fig.strict.ci, fig.strict.n) == (fig.score, fig.ci, fig.n)
