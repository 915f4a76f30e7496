"""Checks written to fail when a metric, an interval or the resume logic silently changes.

Each expectation comes from an independent source — the reference package run on the same text (rouge-score with
its own tokenizer, pycocoevalcap), scipy's Beta quantiles, a Monte Carlo of the task posteriors, or a count of the
requests a real local server received — never from climedbench's own output.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path

import jieba
import numpy as np
import pytest
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.rouge.rouge import Rouge
from rouge_score import rouge_scorer
from scipy.stats import beta
from scipy.stats import t as student_t

from climedbench.aggregate import TaskScores, aggregate
from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.metrics import functions as fn
from tests.support.cli import run_cli as cli
from tests.support.instant_server import get_stats, instant_server
from tests.support.synthetic import short_items

FIXTURES = Path(__file__).parent / "fixtures"


def _english_texts() -> list[str]:
    """Real English prose with capitals, punctuation and numbers: the bundled ClinicBench demo's inputs and references."""
    suite = load_suite("clinicbench")
    items = load_items(None, suite).items
    texts = [t for i in items for t in (i.input, i.reference) if isinstance(t, str) and len(t) > 30]
    texts = [t for t in texts if re.search(r"[A-Z]", t) and re.search(r"[.,;:()]", t)]
    # The known differences are jieba's, not case or punctuation: it keeps "3.6" and "6%" as one word where
    # rouge-score splits them; such numbers are written out before comparing.
    return [re.sub(r"(\d)\.(\d)", r"\1 point \2", t).replace("%", " percent") for t in texts]


def _chinese_texts() -> list[str]:
    """Real Chinese clinical text: the official CliMedBench examples (MIT)."""
    examples = json.loads((FIXTURES / "official_examples.json").read_text("utf-8"))
    out = []
    for ex in examples:
        for key in ("input_zh", "reference", "prompt_zh"):
            value = ex.get(key)
            if isinstance(value, str):
                out += [s for s in re.split(r"[。\n]", value) if len(s) > 8]
    return out


def test_rouge1_equals_rouge_score_with_its_own_tokenizer_on_real_english():
    """rouge-score's default tokenizer lower-cases and drops punctuation; ours must agree on English prose."""
    texts = _english_texts()
    assert len(texts) > 100
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    rng = random.Random(5)
    for _ in range(300):
        pred, ref = rng.sample(texts, 2)
        pred = pred[:400]
        ref = ref[:400]
        assert fn.rouge1_f(pred, ref) == pytest.approx(scorer.score(ref, pred)["rouge1"].fmeasure, abs=1e-12)
    # Case and punctuation alone change nothing.
    t = texts[0][:300]
    assert fn.rouge1_f(t.upper(), t.lower() + " ,.;") == pytest.approx(1.0)


class _IndependentChinese:
    """jieba words, lower-cased, with every token made only of punctuation, symbols or spaces dropped — written here
    from Unicode categories, not taken from climedbench."""

    def tokenize(self, text: str) -> list[str]:
        out = []
        for tok in jieba.cut(text):
            if all(unicodedata.category(ch)[0] in "PSZC" or ch.isspace() or ch == "_" for ch in tok):
                continue
            out.append(tok.lower())
        return out


def test_rouge1_on_real_chinese_equals_rouge_score_with_independent_word_tokens():
    texts = _chinese_texts()
    assert len(texts) > 40
    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=_IndependentChinese())
    rng = random.Random(9)
    for _ in range(300):
        pred, ref = rng.sample(texts, 2)
        if rng.random() < 0.3:  # half-overlapping pairs too
            ref = pred[: len(pred) // 2] + ref
        assert fn.rouge1_f(pred, ref) == pytest.approx(scorer.score(ref, pred)["rouge1"].fmeasure, abs=1e-12)


UNTIDY = [
    ("No acute cardiopulmonary process.\nStable cardiomegaly.", "No acute cardiopulmonary process. Stable cardiomegaly."),
    ("  No  acute disease. ", "No acute disease."),
    ("Left base opacity,\n\nlikely atelectasis.", "Left base opacity, likely atelectasis."),
    ("\nNo pleural effusion or pneumothorax.", "No pleural effusion  or pneumothorax.\n"),
    ("Heart size normal. Lungs clear.", "heart size normal.\tlungs clear."),
]


@pytest.mark.parametrize("candidate, reference", UNTIDY)
def test_rouge_l_equals_pycocoevalcap_on_newlines_and_extra_spaces(candidate, reference):
    expected = Rouge().calc_score([candidate], [reference])
    assert fn.coco_rouge_l(candidate, [reference]) == pytest.approx(expected, abs=1e-12)


def test_corpus_bleu_equals_pycocoevalcap_on_newlines_and_extra_spaces():
    gts = {str(i): [r] for i, (_, r) in enumerate(UNTIDY)}
    res = {str(i): [c] for i, (c, _) in enumerate(UNTIDY)}
    stats = np.sum([fn.coco_bleu_stats(res[k][0], gts[k]) for k in gts], axis=0)
    expected, _ = Bleu(4).compute_score(gts, res, verbose=0)
    assert fn.coco_bleu_from_stats(stats.tolist()) == pytest.approx(expected[3], rel=1e-9)


@pytest.fixture(scope="module")
def climed():
    return load_suite()


def test_each_task_interval_is_computed_by_its_method(climed):
    """Accuracies: Jeffreys, equal to scipy's Beta(x+½, n−x+½) quantiles; graded means: the shrunk t, never
    Jeffreys; the method is named on each figure."""
    rng = np.random.default_rng(4)
    data = {}
    for t in climed.tasks:
        if t.metric == "accuracy":
            data[t.code] = TaskScores(list(rng.integers(0, 2, 23).astype(float)), [None] * 23)
        else:
            data[t.code] = TaskScores(list(rng.uniform(0.1, 0.9, 23)), [None] * 23)
    tasks, _, _ = aggregate(data, climed, seed=1)
    methods = set()
    for t in climed.tasks:
        fig = tasks[t.code]
        methods.add(fig.interval)
        if t.metric == "accuracy":
            x = sum(data[t.code].scores)
            lo = 0.0 if x == 0 else beta.ppf(0.025, x + 0.5, 23 - x + 0.5)
            hi = 1.0 if x == 23 else beta.ppf(0.975, x + 0.5, 23 - x + 0.5)
            assert fig.interval == "jeffreys", t.code
            assert fig.ci == pytest.approx((100 * lo, 100 * hi), abs=0.01), t.code
        else:
            assert fig.interval == "shrunk-t", t.code
            # The documented formula on the [0, 1]-rescaled scores: s~2 = ((n-1)s2 + 2 m~(1-m~)) / (n+1),
            # m~ = (sum + 1/2)/(n+1), t with n+1 degrees of freedom, clipped to the range.
            low = -1.0 if t.metric == "kendall_tau" else 0.0
            y = (np.asarray(data[t.code].scores) - low) / (1 - low)
            n = len(y)
            m_adj = (y.sum() + 0.5) / (n + 1)
            var = ((n - 1) * y.var(ddof=1) + 2 * m_adj * (1 - m_adj)) / (n + 1)
            half = student_t.ppf(0.975, n + 1) * np.sqrt(var / n)
            expected = (low + (1 - low) * max(0.0, y.mean() - half), low + (1 - low) * min(1.0, y.mean() + half))
            assert fig.ci == pytest.approx((100 * expected[0], 100 * expected[1]), abs=0.01), t.code
    assert methods == {"jeffreys", "shrunk-t"}


def test_a_group_interval_is_the_interval_of_the_mean_of_its_tasks(climed):
    """The hallucination group (FIT, FTT) combines its tasks' posteriors; recomputed here by Monte Carlo from
    independent Beta posteriors: not the mean of the task intervals, not one task's interval."""
    members = [t.code for t in climed.tasks if "hallucination" in t.groups]
    assert len(members) >= 2
    counts = dict(zip(members, [(3, 20), (18, 20), (10, 40), (7, 9)], strict=False))
    data = {c: TaskScores([1.0] * counts[c][0] + [0.0] * (counts[c][1] - counts[c][0]),
                          [None] * counts[c][1]) for c in members}
    _, groups, _ = aggregate(data, climed, seed=2, replicates=20000)
    fig = groups["hallucination"]
    rng = np.random.default_rng(0)
    draws = np.mean([rng.beta(counts[c][0] + 0.5, counts[c][1] - counts[c][0] + 0.5, 200000) for c in members],
                    axis=0)
    expected = 100 * np.quantile(draws, [0.025, 0.975])
    assert fig.score == pytest.approx(100 * np.mean([counts[c][0] / counts[c][1] for c in members]), abs=0.01)
    assert fig.ci == pytest.approx(tuple(expected), abs=0.6)
    mean_of_task_bounds = np.mean([[100 * beta.ppf(q, counts[c][0] + 0.5, counts[c][1] - counts[c][0] + 0.5)
                                    for q in (0.025, 0.975)] for c in members], axis=0)
    assert abs(fig.ci[0] - mean_of_task_bounds[0]) > 2 and abs(fig.ci[1] - mean_of_task_bounds[1]) > 2


def test_rescaled_similarity_is_floored_at_zero_and_linear_above_the_baseline(climed):
    from climedbench.embeddings import baseline_sentences, load_embedder
    from climedbench.metrics.item import ScoreContext, get_metric

    items = [i for i in load_items(None, climed).items if i.task == "WTD" and i.split == "test"][:2]
    task = climed.task("WTD")
    ctx = ScoreContext(language="zh", similarity="rescaled")
    e5 = load_embedder("e5")
    base_v = np.asarray(e5(baseline_sentences("zh")), dtype=np.float64)
    base_v /= np.linalg.norm(base_v, axis=1, keepdims=True)
    for it in items:
        ref_v = np.asarray(e5([it.reference]), dtype=np.float64)[0]
        ref_v /= np.linalg.norm(ref_v)
        base = float(np.mean(base_v @ ref_v))
        for text in ("The quick brown fox jumps.", "。", it.reference[: len(it.reference) // 2]):
            tv = np.asarray(e5([text]), dtype=np.float64)[0]
            raw = float(tv @ ref_v / np.linalg.norm(tv))
            got = get_metric("similarity").score(it, text, task, ctx)
            assert got.alternatives["similarity_raw"] == pytest.approx(raw, abs=1e-6)
            assert got.score == pytest.approx(max(0.0, (raw - base) / (1 - base)), abs=1e-6)
        below = get_metric("similarity").score(it, "The quick brown fox jumps.", task, ctx)
        assert below.alternatives["similarity_raw"] < base and below.score == 0.0


def test_resume_with_the_cache_off_asks_only_for_the_missing_items(tmp_path):
    """With --no-cache nothing but the run directory can spare a request: a run cut to 7 of 20 samples, re-run,
    sends exactly the 13 missing requests (counted by the server) and ends with the same answers."""
    data = short_items(tmp_path / "items.jsonl", 20)
    out = tmp_path / "run"
    with instant_server(model="instant-test") as url:
        args = ["run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--max-tokens", "8",
                "--no-cache", "--quiet", "--out", str(out)]
        cli(*args)
        full = (out / "samples.jsonl").read_text("utf-8").splitlines()
        first = get_stats(url)["requests"]
        assert first == 20
        keep = [full[i] for i in (0, 3, 4, 9, 12, 15, 19)]
        (out / "samples.jsonl").write_text("\n".join(keep) + "\n", encoding="utf-8")
        cli(*args)
        assert get_stats(url)["requests"] - first == 13
        cli(*args)
        assert get_stats(url)["requests"] - first == 13
    after = {json.loads(x)["uid"]: json.loads(x)["raw"] for x in (out / "samples.jsonl").read_text().splitlines()}
    before = {json.loads(x)["uid"]: json.loads(x)["raw"] for x in full}
    assert after == before
