"""ClinicBench's metrics agree with their reference implementations on fixed test sets."""

import random

import numpy as np
import pytest
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.rouge.rouge import Rouge
from seqeval.metrics import f1_score as seqeval_f1
from sklearn.metrics import f1_score

from climedbench.aggregate import TaskScores, task_value
from climedbench.core.suite import load_suite
from climedbench.core.types import Item
from climedbench.metrics.item import ScoreContext, get_metric
from climedbench.suites.clinicbench.loaders import spans

WORDS = ["No", "acute", "cardiopulmonary", "disease", ".", "Mild", "cardiomegaly", "is", "stable", ".", "There", "is", "no", "pleural", "effusion", "or", "pneumothorax", ".", "XXXX", "opacity", "in", "the", "left", "base", ",", "likely", "atelectasis"]


@pytest.fixture(scope="module")
def suite():
    return load_suite("clinicbench")


def _texts(seed, n=150):
    rng = random.Random(seed)
    gts = {str(i): [" ".join(rng.choices(WORDS, k=rng.randint(3, 30)))] for i in range(n)}
    res = {str(i): [" ".join(rng.choices(WORDS, k=rng.randint(1, 30)))] for i in range(n)}
    return gts, res


def _figure(suite, code, items, answers):
    task = suite.task(code)
    metric = get_metric(task.metric)
    data = TaskScores()
    for item, ans in zip(items, answers, strict=True):
        r = metric.score(item, ans, task, ScoreContext(language="en"))
        data.add(r.score, r.stats)
    return task_value(task, data, 50, np.random.default_rng(0)).point


def test_rouge_l_and_bleu_equal_pycocoevalcap(suite):
    gts, res = _texts(1)
    items = [Item(id=k, task="IU-Xray", input="findings", reference=gts[k][0]) for k in gts]
    mine = _figure(suite, "IU-Xray", items, [res[k][0] for k in gts])
    ref, _ = Rouge().compute_score(gts, res)
    assert mine == pytest.approx(ref, abs=1e-12)
    task = suite.task("IU-Xray")
    bleu_task = task.secondary(task.also[0])
    data = TaskScores()
    for k in gts:
        r = get_metric("bleu_coco").score(Item(id=k, task="IU-Xray", input="f", reference=gts[k][0]), res[k][0],
                                          bleu_task, ScoreContext())
        data.add(r.score, r.stats)
    point = task_value(bleu_task, data, 20, np.random.default_rng(0)).point
    ref_bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    assert point == pytest.approx(ref_bleu[3], rel=1e-6)


def test_entity_micro_f1_equals_seqeval(suite):
    rng = random.Random(3)
    tokens_all, gold_tags, pred_tags = [], [], []
    vocab = ["colorectal", "cancer", "ataxia", "telangiectasia", "in", "patients", "with", "the", "gene", "deficiency",
             "breast", "tumour", "of", "and"]
    for _ in range(120):
        n = rng.randint(4, 14)
        toks = rng.sample(vocab, n)  # distinct words: a mention string then identifies its position
        def tags(n=n):
            out, inside = [], False
            for _ in range(n):
                r = rng.random()
                if r < 0.2:
                    out.append("B-Disease")
                    inside = True
                elif r < 0.35 and inside:
                    out.append("I-Disease")
                else:
                    out.append("O")
                    inside = False
            return out
        tokens_all.append(toks)
        gold_tags.append(tags())
        pred_tags.append(tags())
    # Mention strings repeated within a sentence count once in a set: keep sentences where they do not repeat.
    keep = [i for i in range(len(tokens_all))
            if len(set(spans(tokens_all[i], gold_tags[i]))) == len(spans(tokens_all[i], gold_tags[i]))
            and len(set(spans(tokens_all[i], pred_tags[i]))) == len(spans(tokens_all[i], pred_tags[i]))]
    assert len(keep) > 60
    items = [Item(id=str(i), task="NCBI-Disease", input=" ".join(tokens_all[i]),
                  targets=spans(tokens_all[i], gold_tags[i])) for i in keep]
    mine = _figure(suite, "NCBI-Disease", items, [spans(tokens_all[i], pred_tags[i]) for i in keep])
    ref = seqeval_f1([gold_tags[i] for i in keep], [pred_tags[i] for i in keep])
    assert mine == pytest.approx(ref, abs=1e-12)


def test_relation_micro_f1_and_macro_f1_equal_scikit_learn(suite):
    rng = random.Random(4)
    task = suite.task("DDI")
    labels = list(task.labels)
    gold = [rng.choice(labels + ["DDI-false"] * 3) for _ in range(300)]
    pred = [g if rng.random() < 0.6 else rng.choice(labels) for g in gold]
    items = [Item(id=str(i), task="DDI", input="s", answer=g) for i, g in enumerate(gold)]
    mine = _figure(suite, "DDI", items, pred)
    positive = [lab for lab in labels if lab != "DDI-false"]
    assert mine == pytest.approx(f1_score(gold, pred, labels=positive, average="micro"), abs=1e-12)
    macro = task.model_copy(update={"aggregation": "macro_f1", "metric_options": {}})
    data = TaskScores()
    for item, p in zip(items, pred, strict=True):
        r = get_metric("label_f1").score(item, p, macro, ScoreContext())
        data.add(r.score, r.stats)
    point = task_value(macro, data, 10, np.random.default_rng(0)).point
    assert point == pytest.approx(f1_score(gold, pred, average="macro"), abs=1e-12)


def test_gad_positive_class_f1_equals_scikit_learn(suite):
    rng = random.Random(5)
    gold = [rng.choice(["yes", "no"]) for _ in range(200)]
    pred = [g if rng.random() < 0.7 else ("no" if g == "yes" else "yes") for g in gold]
    items = [Item(id=str(i), task="GAD", input="s", answer=g) for i, g in enumerate(gold)]
    assert _figure(suite, "GAD", items, pred) == pytest.approx(f1_score(gold, pred, pos_label="yes"), abs=1e-12)


def test_hoc_multilabel_micro_f1_equals_scikit_learn(suite):
    rng = random.Random(6)
    labels = list(suite.task("HoC").labels)
    gold = [sorted(rng.sample(labels, rng.randint(0, 3))) for _ in range(150)]
    pred = [sorted(set(g[: rng.randint(0, len(g))]) | set(rng.sample(labels, rng.randint(0, 2)))) for g in gold]
    items = [Item(id=str(i), task="HoC", input="d", targets=g) for i, g in enumerate(gold)]
    mine = _figure(suite, "HoC", items, pred)
    y = np.array([[lab in g for lab in labels] for g in gold])
    yhat = np.array([[lab in p for lab in labels] for p in pred])
    assert mine == pytest.approx(f1_score(y, yhat, average="micro"), abs=1e-12)


def test_medication_f1_accepts_either_name(suite):
    task = suite.task("TreatmentRec")
    item = Item(id="1", task="TreatmentRec", input="Disease: Panic disorder",
                targets=["Lorazepam", "Alprazolam (Xanax)", "Paroxetine (Paxil)"])
    r = get_metric("entity_f1").score(item, ["xanax", "lorazepam", "ibuprofen"], task, ScoreContext())
    assert r.stats == (2, 1, 1) and r.score == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    both = get_metric("entity_f1").score(item, ["Alprazolam", "Xanax"], task, ScoreContext())
    assert both.stats == (1, 0, 2)  # one gold medication, found by both of its names, counts once
