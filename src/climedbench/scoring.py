"""Extract the answer from a raw response and score it against the item: the extract → score step."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from climedbench import metrics
from climedbench.data.schema import Item
from climedbench.embeddings import Embedder, load_embedder
from climedbench.extract import Extraction, extract
from climedbench.taxonomy import Scenario

_FOLD = str.maketrans({chr(c): chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)})


def letter_from_logprobs(logprobs: dict[str, float] | None, letters: str) -> Extraction:
    """The option letter with the highest first-token log-probability (tokens ' B', 'Ｂ', '(B' count as B)."""
    if not logprobs:
        return Extraction(None, "logprob_missing")
    best: dict[str, float] = {}
    for token, lp in logprobs.items():
        t = token.translate(_FOLD).strip().strip("(（[【").strip()
        if len(t) == 1 and t.upper() in letters and t.isupper():
            best[t] = max(best.get(t, -math.inf), lp)
    if not best:
        return Extraction(None, "logprob_no_letter")
    return Extraction(max(best, key=lambda k: best[k]), "logprob")


@dataclass
class Scored:
    """One item's extraction and score."""

    extracted: str | list[str] | None
    method: str
    score: float
    extraction_failure: bool
    details: dict[str, Any] = field(default_factory=dict)

    def sample_fields(self, scenario: Scenario, item: Item, error: str | None) -> dict[str, Any]:
        """The fields of a samples.jsonl record that come from extraction and scoring."""
        fields: dict[str, Any] = {
            "extracted": self.extracted,
            "extraction_method": self.method,
            "extraction_failure": self.extraction_failure if error is None else False,
            "score": self.score,
            # Answered with an option that is not the gold (FTT: picked a wrong treatment).
            "wrong_option": bool(scenario.is_choice and error is None and self.extracted is not None
                                 and self.score == 0),
        }
        if item.misleading_answer:
            fields["misleading_answer"] = item.misleading_answer
            fields["repeated_misleading"] = bool(self.details.get("repeated_misleading"))
        return fields


@dataclass
class Scorer:
    """Scores items by their scenario's metric; the embedder is loaded only if a similarity item appears."""

    tokenizer: metrics.Tokenizer = "jieba"
    embedder_spec: str = "e5"
    _embedder: Embedder | None = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.embedder_spec)
        return self._embedder

    def describe(self) -> dict[str, str]:
        return {"rouge_tokenizer": self.tokenizer, "embedder": self.embedder_spec}

    def score(self, scenario: Scenario, item: Item, raw: str | None,
              logprobs: dict[str, float] | None = None, mc_mode: str = "generate") -> Scored:
        """Extract and score one response; a missing response (request error) scores 0."""
        if raw is None:
            return Scored(None, "no_response", 0.0, False)
        if scenario.shape == "single" and mc_mode == "logprob":
            ext = letter_from_logprobs(logprobs, item.letters)
            if ext.answer is None:
                ext = extract("single", raw, item.letters, item.options)
        else:
            ext = extract(scenario.shape, raw, item.letters, item.options)
        details: dict[str, Any] = {}
        if scenario.metric == "accuracy":
            value = metrics.accuracy(ext.answer if isinstance(ext.answer, str) else None, item.answer)
            if item.misleading_answer:
                details["repeated_misleading"] = ext.answer == item.misleading_answer
        elif scenario.metric == "kendall_tau":
            value = metrics.kendall_tau(ext.answer if isinstance(ext.answer, str) else None, item.answer or "")
        elif scenario.metric == "rouge1":
            if scenario.shape == "keywords":
                predicted = ext.answer if isinstance(ext.answer, list) else None
                value = metrics.keywords_rouge1(predicted, item.keywords or [item.reference], self.tokenizer)
            else:
                value = metrics.rouge1_f(str(ext.answer or ""), item.reference, self.tokenizer)
        elif scenario.metric == "similarity":
            if ext.answer is None:
                value = 0.0
            else:
                value = metrics.cosine_similarities(self.embedder, [str(ext.answer)], [item.reference])[0]
        else:  # pragma: no cover - the suite schema admits no other metric
            raise ValueError(scenario.metric)
        return Scored(ext.answer, ext.method, float(value), ext.answer is None, details)
