"""Item-level metrics: pure functions of the gold item and the extracted answer, each in [-1, 1] or [0, 1].

Reported figures are these scores ×100 (see aggregate.py).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Literal

from scipy.stats import kendalltau

Tokenizer = Literal["jieba", "char"]

# Punctuation and symbols that are not words for ROUGE (ASCII and CJK).
_PUNCT = re.compile(r"^[\s\W_]+$", re.UNICODE)


def accuracy(predicted: str | None, gold: str | None) -> float:
    """1 when the predicted letter (or sorted letter set) equals the gold, else 0."""
    if predicted is None or gold is None:
        return 0.0
    return 1.0 if "".join(sorted(predicted)) == "".join(sorted(gold)) else 0.0


def kendall_tau(predicted: str | None, gold: str) -> float:
    """Kendall's τ between a predicted and the gold order; 0 when the prediction is not a permutation."""
    if predicted is None or sorted(predicted) != sorted(gold) or len(gold) < 2:
        return 0.0
    rank = {letter: i for i, letter in enumerate(predicted)}
    tau = kendalltau(list(range(len(gold))), [rank[letter] for letter in gold]).statistic
    return float(tau)


@cache
def _jieba() -> object:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def tokenize(text: str, tokenizer: Tokenizer = "jieba") -> list[str]:
    """Word (jieba) or character tokens, lower-cased, punctuation and whitespace dropped."""
    tokens = list(text) if tokenizer == "char" else list(_jieba().cut(text))  # type: ignore[attr-defined]
    return [t.lower() for t in tokens if t.strip() and not _PUNCT.match(t)]


def rouge1_f(predicted: str, reference: str, tokenizer: Tokenizer = "jieba") -> float:
    """ROUGE-1 F-measure with clipped unigram counts (the definition rouge-score implements)."""
    p, r = Counter(tokenize(predicted, tokenizer)), Counter(tokenize(reference, tokenizer))
    if not p or not r:
        return 0.0
    overlap = sum((p & r).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / sum(p.values()), overlap / sum(r.values())
    return 2 * precision * recall / (precision + recall)


def keywords_rouge1(predicted: Sequence[str] | None, reference: Sequence[str], tokenizer: Tokenizer = "jieba"
                    ) -> float:
    """ROUGE-1 F between predicted and reference keyword lists (each joined with spaces)."""
    if not predicted:
        return 0.0
    return rouge1_f(" ".join(predicted), " ".join(reference), tokenizer)


Embedder = Callable[[list[str]], "object"]


def cosine_similarities(embed: Callable[[list[str]], object], predicted: list[str], references: list[str]
                        ) -> list[float]:
    """Cosine similarity of each prediction with its reference, batched through one embedder call."""
    import numpy as np

    if len(predicted) != len(references):
        raise ValueError("predicted and references differ in length")
    if not predicted:
        return []
    vectors = np.asarray(embed(list(predicted) + list(references)), dtype=np.float64)
    a, b = vectors[: len(predicted)], vectors[len(predicted):]
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return [float(x) for x in np.sum(a * b, axis=1)]


@cache
def rouge_scorer(kind: str = "rougeL", stemmer: bool = False) -> Any:
    """A cached rouge-score scorer (English tokenisation: lower-cased alphanumeric words)."""
    from rouge_score import rouge_scorer as rs

    return rs.RougeScorer([kind], use_stemmer=stemmer)


@cache
def _bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU()


def bleu_stats(hypothesis: str, references: list[str]) -> list[float]:
    """sacrebleu's sufficient statistics of one segment: [hyp_len, ref_len, correct₁₋₄, total₁₋₄]."""
    return [float(x) for x in _bleu()._extract_corpus_statistics([hypothesis], [[r] for r in references])[0]]


def bleu_from_stats(stats: Sequence[float]) -> float:
    """Corpus BLEU-4 (0–100, sacrebleu's defaults: 'exp' smoothing) from summed segment statistics."""
    from sacrebleu.metrics import BLEU

    s = [round(x) for x in stats]
    return float(BLEU.compute_bleu(correct=s[2:6], total=s[6:10], sys_len=s[0], ref_len=s[1]).score)


@cache
def _sentence_bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)


def sentence_bleu(hypothesis: str, references: list[str]) -> float:
    """Sentence BLEU (0–100) with effective n-gram order, sacrebleu's recommendation for single segments."""
    return float(_sentence_bleu().sentence_score(hypothesis, references).score)
