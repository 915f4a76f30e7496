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
    from scipy.stats import kendalltau  # scipy.stats takes ~0.6 s to import: only when a τ is computed

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


# -- the captioning metrics of pycocoevalcap (used by ClinicBench's summarisation scoring) -------------------
# Re-implemented from their definitions (tests check agreement with pycocoevalcap 1.2 on fixed texts):
# whitespace tokens, no lower-casing, ROUGE-L an LCS F-measure with β = 1.2 averaged over items, BLEU corpus-level
# from summed n-gram counts with the reference length closest to each candidate.

COCO_BETA = 1.2


def _coco_tokens(text: str) -> list[str]:
    """pycocoevalcap's ROUGE-L tokens: the text split at single spaces, as its `Rouge.calc_score` does (a newline or
    a tab does not separate words there, and two spaces make an empty token; its BLEU splits at any whitespace)."""
    return text.split(" ")


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, one row at a time)."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def coco_rouge_l(candidate: str, references: Sequence[str]) -> float:
    """ROUGE-L as pycocoevalcap computes it for one candidate (max precision and recall over references)."""
    c = _coco_tokens(candidate)
    precisions, recalls = [], []
    for ref in references:
        r = _coco_tokens(ref)
        lcs = _lcs(r, c)
        precisions.append(lcs / len(c))
        recalls.append(lcs / len(r))
    p, r_ = max(precisions), max(recalls)
    if p == 0 or r_ == 0:
        return 0.0
    return (1 + COCO_BETA**2) * p * r_ / (r_ + COCO_BETA**2 * p)


def coco_bleu_stats(candidate: str, references: Sequence[str], n: int = 4) -> list[float]:
    """One segment's counts for corpus BLEU as pycocoevalcap sums them: [hyp_len, closest ref_len, guesses₁…ₙ,
    clipped matches₁…ₙ] (whitespace tokens)."""
    words = candidate.split()
    counts: Counter[tuple[str, ...]] = Counter(
        tuple(words[i:i + k]) for k in range(1, n + 1) for i in range(len(words) - k + 1))
    max_ref: Counter[tuple[str, ...]] = Counter()
    lengths = []
    for ref in references:
        rw = ref.split()
        lengths.append(len(rw))
        for gram, c in Counter(tuple(rw[i:i + k]) for k in range(1, n + 1) for i in range(len(rw) - k + 1)).items():
            max_ref[gram] = max(max_ref[gram], c)
    reflen = min((abs(length - len(words)), length) for length in lengths)[1]
    guess = [max(0, len(words) - k + 1) for k in range(1, n + 1)]
    correct = [0] * n
    for gram, c in counts.items():
        correct[len(gram) - 1] += min(max_ref.get(gram, 0), c)
    return [float(len(words)), float(reflen), *map(float, guess), *map(float, correct)]


def coco_bleu_from_stats(stats: Sequence[float], n: int = 4) -> float:
    """Corpus BLEU-n (0–1) from summed coco_bleu_stats, with pycocoevalcap's small constants and brevity penalty."""
    import math

    small, tiny = 1e-9, 1e-15
    testlen, reflen = stats[0], stats[1]
    guess, correct = stats[2:2 + n], stats[2 + n:2 + 2 * n]
    bleu = 1.0
    for k in range(n):
        bleu *= (correct[k] + tiny) / (guess[k] + small)
    score = bleu ** (1.0 / n)
    ratio = (testlen + tiny) / (reflen + small)
    if ratio < 1:
        score *= math.exp(1 - 1 / ratio)
    return score
