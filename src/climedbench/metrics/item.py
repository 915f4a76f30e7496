"""Item metrics, registered by name: a score for one item's extracted answer, plus the sufficient
statistics a corpus-level aggregation needs (entity counts for micro-F1, n-gram counts for BLEU).

A metric is pure: `score(item, extracted, task, ctx) -> ItemScore`. The item score is what per-item
analyses and IRT use; `stats` (when present) is what `aggregations` sum over items.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Literal

from climedbench.core.registry import METRICS
from climedbench.core.suite import Task
from climedbench.core.types import Item
from climedbench.metrics import functions as fn

Scale = Literal["unit", "signed"]


@dataclass(frozen=True)
class ItemScore:
    """One item's score, its sufficient statistics for corpus-level aggregation, facts to count, and
    alternative scores of the same answer (e.g. raw and rescaled similarity) kept for re-aggregation."""

    score: float
    stats: tuple[float, ...] | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    alternatives: dict[str, float] = field(default_factory=dict)


SimilarityMode = Literal["raw", "rescaled"]


@dataclass
class ScoreContext:
    """Settings shared by every item of a run: the ROUGE-1 tokenizer for Chinese, the embedder, which
    similarity is reported, and the language of the unrelated-text baseline (the suite's; needed only by a
    similarity score)."""

    tokenizer: fn.Tokenizer = "jieba"
    embedder_spec: str = "e5"
    similarity: SimilarityMode = "raw"
    language: str | None = None
    _embedder: Any = None
    _baseline: Any = None

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = _shared_embedder(self.embedder_spec)
        return self._embedder

    def baseline_vectors(self) -> Any:
        """Unit vectors of the bundled unrelated-text sentences in the suite's language."""
        if self._baseline is None:
            if self.language is None:
                raise ValueError("the similarity baseline needs the suite's language (ScoreContext.language)")
            self._baseline = _shared_baseline(self.embedder_spec, self.language)
        return self._baseline

    def prefetch(self) -> threading.Thread:
        """Load the embedder and the baseline vectors in a background thread (seconds of CPU), so that a run's
        first similarity answer does not wait for them. A failure is dropped here and raised again where they
        are first used, as without a prefetch (a failed load is not cached); a first use during the load waits
        for it."""

        def load() -> None:
            try:
                self.embedder  # noqa: B018 - the property loads it
                if self.language is not None:
                    self.baseline_vectors()
            except Exception:  # raised again at first use
                pass

        thread = threading.Thread(target=load, name="climedbench-embedder-prefetch", daemon=True)
        thread.start()
        return thread


# One load at a time: a first use while the prefetch thread loads waits for it instead of loading a second copy.
_LOADING = threading.RLock()


def _shared_embedder(spec: str) -> Any:
    with _LOADING:
        return _embedder(spec)


def _shared_baseline(spec: str, language: str) -> Any:
    with _LOADING:
        return _baseline(spec, language)


@cache
def _embedder(spec: str) -> Any:
    """One embedder per spec in a process (scoring, re-scoring and every context share it)."""
    from climedbench.embeddings import load_embedder

    return load_embedder(spec)


@cache
def _baseline(spec: str, language: str) -> Any:
    """The baseline sentences' unit vectors, computed once per embedder and language in a process."""
    import numpy as np

    from climedbench.embeddings import baseline_sentences

    v = np.asarray(_embedder(spec)(baseline_sentences(language)), dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


class Metric:
    """A registered item metric."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    # 'signed' scores lie in [-1, 1] (Kendall's τ); 'unit' in [0, 1].
    scale: ClassVar[Scale] = "unit"
    # True when every item score is 0 or 1 (IRT uses it as is; graded scores are binarised).
    binary: ClassVar[bool] = False
    # The answer kinds (suite `answer:`) the metric can score; None: any. Checked when a suite is loaded.
    answers: ClassVar[frozenset[str] | None] = None
    # True when scoring uses the run's sentence embedder (ScoreContext.embedder: seconds of CPU to load).
    needs_embedder: ClassVar[bool] = False

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        raise NotImplementedError


def _register(metric: Metric) -> Metric:
    METRICS.add(metric.name, metric)
    return metric


class Accuracy(Metric):
    """1 when the extracted letter, letter set or label equals the gold, else 0."""

    name, label, binary = "accuracy", "Acc.", True
    answers = frozenset({"single", "multi", "order", "label"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        predicted = extracted if isinstance(extracted, str) else None
        if task.answer in ("label",):
            value = 1.0 if predicted is not None and predicted == item.answer else 0.0
        else:
            value = fn.accuracy(predicted, item.answer)
        flags: dict[str, bool] = {}
        if task.is_choice and predicted is not None and value == 0.0:
            flags["wrong_option"] = True  # answered with an option that is not the gold
        shown = task.shown_answer
        if shown is not None and item.meta.get(shown[0]):
            flags[shown[1]] = predicted == item.meta[shown[0]]  # repeated the answer the prompt showed
        return ItemScore(value, flags=flags)


class KendallTau(Metric):
    """Kendall's τ between the extracted and the gold order; 0 when the answer is not a permutation."""

    name, label, scale = "kendall_tau", "Kendall τ", "signed"
    answers = frozenset({"order"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        return ItemScore(fn.kendall_tau(extracted if isinstance(extracted, str) else None, item.answer or ""))


class Rouge1(Metric):
    """ROUGE-1 F with the run's tokenizer (jieba words or characters): keyword lists or free text."""

    name, label = "rouge1", "ROUGE-1"
    answers = frozenset({"keywords", "text"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        if task.answer == "keywords":
            predicted = extracted if isinstance(extracted, list) else None
            return ItemScore(fn.keywords_rouge1(predicted, item.targets or [item.reference], ctx.tokenizer))
        return ItemScore(fn.rouge1_f(str(extracted or ""), item.reference, ctx.tokenizer))


class RougeL(Metric):
    """ROUGE-L F-measure of English free text against the reference, computed by Google's rouge-score
    (`RougeScorer(['rougeL'])`; stemming per `metric_options.stemmer`, default off)."""

    name, label = "rougeL", "ROUGE-L"
    answers = frozenset({"text"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        if not extracted:
            return ItemScore(0.0)
        scorer = fn.rouge_scorer("rougeL", bool(task.metric_options.get("stemmer", False)))
        return ItemScore(float(scorer.score(item.reference, str(extracted))["rougeL"].fmeasure))


class RougeLCoco(Metric):
    """ROUGE-L as ClinicBench's scoring code computes it (pycocoevalcap): LCS F-measure with β = 1.2 on whitespace
    tokens, case-sensitive, new lines as spaces; the task figure is the mean over items."""

    name, label = "rougeL_coco", "ROUGE-L"
    answers = frozenset({"text"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        return ItemScore(fn.coco_rouge_l(str(extracted or ""), [item.reference]))


class BleuCoco(Metric):
    """Corpus BLEU-4 as pycocoevalcap computes it (whitespace tokens, closest reference length); the item score is
    the item's own BLEU-4 by the same formula, `stats` are the counts the `corpus_bleu_coco` aggregation sums."""

    name, label = "bleu_coco", "BLEU-4"
    answers = frozenset({"text"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        stats = fn.coco_bleu_stats(str(extracted or ""), [item.reference])
        return ItemScore(fn.coco_bleu_from_stats(stats), tuple(stats))


class Meteor(Metric):
    """METEOR as nltk computes it (see climedbench.metrics.meteor; WordNet from this machine, never downloaded),
    on whitespace tokens against the reference; the task figure is the mean over items (pycocoevalcap's Java
    METEOR reports a corpus-level score instead). Without WordNet it raises `WordNetMissing`."""

    name, label = "meteor", "METEOR"

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        from climedbench.metrics.meteor import meteor

        return ItemScore(meteor(str(extracted or ""), [item.reference]))


class Similarity(Metric):
    """Cosine similarity of the response and the reference under the run's sentence embedder: `raw` (the
    paper's score), or `rescaled` against a baseline of unrelated text, as BERTScore rescales:
    (s − b) / (1 − b), where b is the mean similarity of the bundled unrelated sentences
    (climedbench/data/baseline/) to this item's reference; floored at 0. A copy of the reference scores 1,
    a text as unrelated as the baseline about 0. Both are kept per sample (`alternatives`)."""

    name, label = "similarity", "Sim."
    answers = frozenset({"text"})
    needs_embedder = True

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        if extracted is None:
            return ItemScore(0.0, alternatives={"similarity_raw": 0.0, "similarity_rescaled": 0.0})
        raw, rescaled = similarity_pair(ctx, str(extracted), item.reference)
        chosen = rescaled if ctx.similarity == "rescaled" else raw
        return ItemScore(chosen, alternatives={"similarity_raw": raw, "similarity_rescaled": rescaled})


def similarity_pair(ctx: ScoreContext, text: str, reference: str) -> tuple[float, float]:
    """(raw cosine similarity, rescaled similarity) of a text to a reference."""
    import numpy as np

    v = np.asarray(ctx.embedder([text, reference]), dtype=np.float64)
    v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    return similarity_from_vectors(ctx, v[0], v[1])


def similarity_from_vectors(ctx: ScoreContext, text_vec: Any, reference_vec: Any) -> tuple[float, float]:
    """(raw, rescaled) from unit vectors of a text and its reference (see `Similarity`)."""
    import numpy as np

    raw = float(text_vec @ reference_vec)
    base = float(np.mean(ctx.baseline_vectors() @ reference_vec))
    rescaled = max(0.0, (raw - base) / (1.0 - base)) if base < 1.0 else 0.0
    return raw, min(1.0, rescaled)


def normalize_mention(text: str) -> str:
    """An entity mention compared loosely: case, surrounding punctuation, and the spaces that tokenisation puts
    around punctuation ("5 - fluorouracil" = "5-fluorouracil")."""
    t = re.sub(r"\s+", " ", text.strip().strip(".,;:\"'[]").lower())
    t = re.sub(r"\s*([^\w\s])\s*", r"\1", t)
    return t.strip()


def _alias_names(mention: str) -> set[str]:
    """A gold mention with a bracketed alias ('Alprazolam (Xanax)') is matched by either name."""
    m = re.fullmatch(r"\s*(.+?)\s*\((.+)\)\s*", mention)
    names = {normalize_mention(mention)}
    if m:
        names |= {normalize_mention(m.group(1)), normalize_mention(m.group(2))}
    return {n for n in names if n}


def set_counts(predicted: Sequence[str] | None, gold: Sequence[str], aliases: bool = False) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of predicted and gold mentions, normalised. Mentions are
    counted as a multiset, every occurrence once, as seqeval and BLURB count entities: a sentence naming
    'cancer' twice has two gold mentions. With `aliases` (a list of distinct names, e.g. medications), a gold
    mention 'Name (Brand)' is found by either name (each gold name counted once)."""
    from collections import Counter

    if not aliases:
        pc = Counter(n for x in predicted or [] if (n := normalize_mention(x)))
        gc = Counter(n for x in gold if (n := normalize_mention(x)))
        return sum((pc & gc).values()), sum((pc - gc).values()), sum((gc - pc).values())
    p = {normalize_mention(x) for x in predicted or [] if normalize_mention(x)}
    golds = [(normalize_mention(x), _alias_names(x)) for x in dict.fromkeys(gold) if _alias_names(x)]
    fulls = {full for full, _ in golds}
    free = set(p)
    found = [False] * len(golds)
    # A gold named in full first ('Dextroamphetamine (Adderall)' and 'Adderall' both gold: each finds its own), then
    # by either name; a found drug's other name written too is not a false positive.
    for k, (full, _) in enumerate(golds):
        if full in free:
            found[k] = True
            free.discard(full)
    for k, (_, names) in enumerate(golds):
        hit = (names & free) - fulls
        if not found[k] and hit:
            found[k] = True
            free -= hit
    for k, (_, names) in enumerate(golds):
        if found[k]:
            free -= names - fulls
    tp = sum(found)
    return tp, len(free), len(golds) - tp


def f1(tp: float, fp: float, fn_: float) -> float:
    """F1 from counts; 1 when there was nothing to find and nothing was found."""
    if tp + fp + fn_ == 0:
        return 1.0
    return 2 * tp / (2 * tp + fp + fn_)


class EntityF1(Metric):
    """Entity mentions: the item score is the item's F1; stats (tp, fp, fn) feed entity-level micro-F1.

    Mentions are compared as multisets of normalised strings (every occurrence counts, as in seqeval; case, outer
    punctuation and the spaces tokenisation puts around punctuation ignored); with `metric_options: {aliases:
    true}`, a gold 'Name (Brand)' is found by either name (Treatment Recommendation's medications)."""

    name, label = "entity_f1", "Entity F1"
    answers = frozenset({"entities", "keywords"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        predicted = extracted if isinstance(extracted, list) else None
        tp, fp, fn_ = set_counts(predicted, item.targets or [], bool(task.metric_options.get("aliases")))
        return ItemScore(f1(tp, fp, fn_), (tp, fp, fn_))


class LabelF1(Metric):
    """One label per item (relation type, yes/no): the item score is accuracy; stats are per-class
    (tp, fp, fn) in the order of the task's labels, for micro- or macro-F1."""

    name, label, binary = "label_f1", "F1", True
    answers = frozenset({"label"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        labels = task.labels or ()
        predicted = extracted if isinstance(extracted, str) else None
        stats: list[float] = []
        for lab in labels:
            stats += [float(predicted == lab == item.answer), float(predicted == lab != item.answer),
                      float(item.answer == lab != predicted)]
        return ItemScore(1.0 if predicted == item.answer else 0.0, tuple(stats))


class MultiLabelF1(Metric):
    """Several labels per item (answer kind labels): the item score is the item's F1 over labels; stats are per-class
    (tp, fp, fn) in the order of the task's labels."""

    name, label = "multilabel_f1", "F1"
    answers = frozenset({"labels"})

    def score(self, item: Item, extracted: Any, task: Task, ctx: ScoreContext) -> ItemScore:
        labels = task.labels or ()
        predicted = set(extracted) if isinstance(extracted, list) else set()
        gold = set(item.targets or [])
        stats: list[float] = []
        for lab in labels:
            stats += [float(lab in predicted and lab in gold), float(lab in predicted and lab not in gold),
                      float(lab in gold and lab not in predicted)]
        tp, fp, fn_ = (sum(stats[i::3]) for i in range(3))
        return ItemScore(f1(tp, fp, fn_), tuple(stats))


for _m in (Accuracy(), KendallTau(), Rouge1(), RougeL(), RougeLCoco(), BleuCoco(), Meteor(), Similarity(),
           EntityF1(),
           LabelF1(), MultiLabelF1()):
    _register(_m)


def get_metric(name: str) -> Metric:
    """The metric registered as `name`."""
    return METRICS.get(name)  # type: ignore[return-value]
