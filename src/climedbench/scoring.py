"""Extract the answer from a raw response and score it against the item: the extract → score step.

The task names its extractor and metric (registered by name); this module only wires them together.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from climedbench import metrics
from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.extract import Extraction, Pipeline, strip_reasoning
from climedbench.extractors import get_extractor, read_with
from climedbench.metrics.item import ScoreContext, SimilarityMode, get_metric

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


@cache
@cache
def _say_once(message: str) -> None:
    import sys

    print(message, file=sys.stderr)


def _format_re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.M)


def follows_format(pattern: str, raw: str) -> bool:
    """Whether a response contains a line in the requested answer format (reasoning blocks excluded)."""
    text = strip_reasoning(raw)
    return bool(text and _format_re(pattern).search(text))


# Extraction rules that infer an answer from what the text mentions last rather than from a stated answer.
GUESSING_RULES = frozenset({"option_text", "trailing_letter", "last_line_letters", "ordinal", "order_by_text",
                            "order_completed_by_text", "sequence_sentence", "only_label", "tentative"})


# The key, in a sample's `secondary`, of the task's metric scored on the answer the strict extraction pipeline reads
# (stated answers only; see climedbench.extract.base): {"score", "stats", "method", "failed", "extracted" (only
# when it differs from the sample's)}.
STRICT = "strict"


@dataclass
class Scored:
    """One item's extraction and score."""

    extracted: str | list[str] | None
    method: str
    score: float
    extraction_failure: bool
    stats: tuple[float, ...] | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    alternatives: dict[str, float] = field(default_factory=dict)
    secondary: dict[str, dict[str, Any]] = field(default_factory=dict)


def shown_answer_of(task: Task, item: Item) -> dict[str, Any]:
    """The answer the prompt showed the model, as the sample logs it ({field: letter}); {} for other tasks."""
    shown = task.shown_answer
    if shown is None or item.meta.get(shown[0]) is None:
        return {}
    return {shown[0]: item.meta[shown[0]]}


@dataclass
class Scorer:
    """Extracts and scores items by their task's extractor and metric; the embedder is loaded only if a
    similarity item appears."""

    tokenizer: metrics.Tokenizer = "jieba"
    embedder_spec: str = "e5"
    similarity: SimilarityMode = "raw"
    # The suite's language (the similarity baseline's); no default language is assumed.
    language: str | None = None
    ctx: ScoreContext = field(init=False)

    def __post_init__(self) -> None:
        self.ctx = ScoreContext(self.tokenizer, self.embedder_spec, self.similarity, self.language)

    def describe(self) -> dict[str, str]:
        return {"rouge_tokenizer": self.tokenizer, "embedder": self.embedder_spec, "similarity": self.similarity}

    def prefetch(self, tasks: Iterable[Task]) -> threading.Thread | None:
        """When one of `tasks` is scored with the embedder (its metric or one of its `also:` metrics), start loading
        it in a background thread (ScoreContext.prefetch) and return the thread; otherwise load nothing (None)."""
        if any(get_metric(name).needs_embedder for t in tasks for name in (t.metric, *(r.metric for r in t.also))):
            return self.ctx.prefetch()
        return None

    def extract(self, task: Task, item: Item, raw: str, logprobs: dict[str, float] | None = None,
                mc_mode: str = "generate", pipeline: Pipeline = "flexible") -> Extraction:
        """The answer read from a response by the extraction `pipeline` (from first-token log-probabilities in logprob
        mode, in either pipeline: the letter the model ranks first is the letter it states)."""
        if task.answer == "single" and mc_mode == "logprob":
            ext = letter_from_logprobs(logprobs, item.letters)
            if ext.answer is not None:
                return ext
        return read_with(get_extractor(task.extractor_name), raw, item, task, pipeline)

    def score(self, task: Task, item: Item, raw: str | None,
              logprobs: dict[str, float] | None = None, mc_mode: str = "generate",
              finish_reason: str | None = None) -> Scored:
        """Extract and score one response; a missing response (request error) scores 0.

        A response cut off at the token limit (finish_reason 'length') is read only by rules that find a stated
        answer: the fallbacks that guess from the last option the text mentions would read the option the model
        was still discussing."""
        metric = get_metric(task.metric)
        if raw is None:
            stats = metric.score(item, None, task, self.ctx).stats
            secondary = self._secondary(task, item, None)
            secondary[STRICT] = _strict_record(Extraction(None, "no_response"), 0.0, stats)
            return Scored(None, "no_response", 0.0, False, stats, secondary=secondary)
        ext = self._read(task, item, raw, logprobs, mc_mode, finish_reason, "flexible")
        result = metric.score(item, ext.answer, task, self.ctx)
        flags = dict(result.flags)
        if task.prompt.format is not None and mc_mode != "logprob":
            flags["follows_format"] = follows_format(task.prompt.format, raw)
        secondary = self._secondary(task, item, ext.answer)
        # The strict pipeline's reading, scored by the same metric (the same score when it reads the same).
        strict = self._read(task, item, raw, logprobs, mc_mode, finish_reason, "strict")
        strict_result = result if strict == ext else metric.score(item, strict.answer, task, self.ctx)
        secondary[STRICT] = _strict_record(strict, float(strict_result.score), strict_result.stats, ext.answer)
        return Scored(ext.answer, ext.method, float(result.score), ext.answer is None, result.stats, flags,
                      dict(result.alternatives), secondary)

    def _read(self, task: Task, item: Item, raw: str, logprobs: dict[str, float] | None, mc_mode: str,
              finish_reason: str | None, pipeline: Pipeline) -> Extraction:
        ext = self.extract(task, item, raw, logprobs, mc_mode, pipeline)
        if finish_reason == "length" and ext.method in GUESSING_RULES:
            ext = Extraction(None, f"cut_off_{ext.method}")
        return ext

    def _secondary(self, task: Task, item: Item, answer: Any) -> dict[str, dict[str, Any]]:
        """The task's further metrics (`also:`) of the same extracted answer."""
        from climedbench.metrics.meteor import WordNetMissing

        out: dict[str, dict[str, Any]] = {}
        for ref in task.also:
            try:
                r = get_metric(ref.metric).score(item, answer, task.secondary(ref), self.ctx)
            except WordNetMissing as e:  # METEOR without WordNet: that figure is left out, once said why
                _say_once(f"note: {ref.metric} is not reported: {e}")
                continue
            out[ref.metric] = {"score": float(r.score), "stats": list(r.stats) if r.stats is not None else None}
        return out


def _strict_record(ext: Extraction, score: float, stats: Any, flexible: Any = None) -> dict[str, Any]:
    """The strict pipeline's reading and score, as kept in a sample's `secondary`: its answer only when it differs
    from the flexible reading `flexible` (a free-text answer is not stored twice), and whether it read none."""
    record = {"score": score, "stats": list(stats) if stats is not None else None, "method": ext.method,
              "failed": ext.answer is None and ext.method != "no_response"}
    if ext.answer != flexible:
        record["extracted"] = ext.answer
    return record
