"""The results step reads the final samples.jsonl as a stream (issue 24, 4c): a run holds no per-item summary while it
answers or aggregates, and its results.json is byte for byte the one built from every sample held in memory and
sorted by (task, uid), as the results step did before."""

import asyncio
import gc
import json
import random
import shutil

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items
from climedbench.models.registry import ModelOptions
from climedbench.results import build_results
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from climedbench.rundir import RunDir, Summary, iter_samples, summarize
from climedbench.scoring import Scorer
from tests.support.instant_server import instant_server, user_digest
from tests.support.synthetic import bkt_items


def summaries_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Summary)


def _run(out, progress=None, replies=None, **options):
    with instant_server(model="instant-test", replies=replies) as url:
        opts = RunOptions(model="openai:instant-test", no_cache=True, out=str(out), max_tokens=8,
                          model_options=ModelOptions(base_url=url, max_concurrency=8), **options)
        plan = plan_run(opts)
        _, results, _ = asyncio.run(run_plan(plan, progress=progress))
    return plan, results


def keyword_items(path, n: int):
    """n keyword items (ROUGE-1: graded scores, the t interval sums them) in clusters of about 7 (their intervals
    resample clusters), with ids k0..k{n-1}, so uid order is not file order; and the instant server's reply to each,
    keywords that overlap its reference by a varying amount."""
    words = ["高血压", "糖尿病", "护理", "老年", "社区", "随访", "干预", "预后"]
    replies = {}
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            record = {"id": f"k{i}", "scenario": "KE", "split": "test", "cluster": f"c{i % 7}",
                      "input": f"摘要{i}：研究{words[i % 8]}与{words[(i * 3) % 8]}患者的{words[(i * 5) % 8]}。",
                      "reference": "；".join(words[(i + k) % 8] for k in range(3))}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            replies[i] = "关键词：" + "；".join(words[(i * k + 1) % 8] for k in range(1 + i % 4))
    return path, replies


def _as_held_in_memory(plan, out, tmp_path) -> bytes:
    """results.json as built from every sample in memory, sorted by (task, uid), with the run's own run block."""
    rundir = RunDir(out)
    rows = sorted((summarize(s) for s in iter_samples(rundir.samples_file)), key=lambda s: (s.task, s.uid))
    opts = plan.options
    expected = build_results(rows, plan.suite, "instant-test", opts.seed, similarity=opts.similarity,
                             planned=plan.spec.items_by_task, reducer=opts.epoch_reducer)
    written = json.loads(rundir.results_file.read_text(encoding="utf-8"))
    expected.model = written["model"]
    expected.run = type(expected).model_validate(written).run
    again = RunDir(tmp_path / "again")
    again.path.mkdir()
    shutil.copyfile(rundir.samples_file, again.samples_file)
    again.write_results(expected)
    return again.results_file.read_bytes()


def test_a_run_holds_no_per_item_summary_and_its_results_equal_those_held_in_memory(tmp_path):
    data = bkt_items(tmp_path / "items.jsonl", 1200)  # uids q0..q1199: uid order is not file order
    seen: list[int] = []

    def progress(done: int, total: int, code: str) -> None:
        if done == total:
            seen.append(summaries_alive())

    plan, results = _run(tmp_path / "run", progress, data=str(data), seed=3)
    assert results.run is not None and results.run.items == 1200
    assert seen == [0]  # the old store held one summary per item answered (1,200 here)
    assert (tmp_path / "run" / "results.json").read_bytes() == _as_held_in_memory(plan, tmp_path / "run", tmp_path)


def test_graded_clustered_results_in_uid_order_equal_those_held_in_memory(tmp_path):
    data, by_index = keyword_items(tmp_path / "items.jsonl", 120)
    plan = plan_run(RunOptions(data=str(data), model="openai:instant-test", max_tokens=8))
    replies = {user_digest(r.messages(plan.suite)): by_index[int(r.item.id[1:])] for r in plan.requests}
    (tmp_path / "replies.json").write_text(json.dumps(replies, ensure_ascii=False), encoding="utf-8")
    plan, results = _run(tmp_path / "run", replies=tmp_path / "replies.json", data=str(data), seed=5)
    assert results.run is not None and results.run.items == 120
    assert results.tasks["KE"].clusters == 7 and 0 < results.tasks["KE"].score < 100
    assert (tmp_path / "run" / "results.json").read_bytes() == _as_held_in_memory(plan, tmp_path / "run", tmp_path)


def test_the_demo_tasks_results_equal_those_held_in_memory(tmp_path):
    # every task of the demo: flags, further metrics (also:), the strict pipeline, similarity, orderings
    plan, results = _run(tmp_path / "run", limit=3)
    assert results.run is not None and results.run.items == 3 * len(plan.task_plans)
    assert (tmp_path / "run" / "results.json").read_bytes() == _as_held_in_memory(plan, tmp_path / "run", tmp_path)


def test_samples_in_any_order_give_the_figures_of_the_samples_sorted_by_task_and_uid():
    """Pure logic on real scores: ClinicBench's open-ended tasks (ROUGE-L, corpus BLEU by bootstrap, whose
    resamples depend on the items' order), a failed request and flags here and there; the records shuffled."""
    suite = load_suite("clinicbench")
    items = [i for i in load_items(None, suite).items if i.split == "test" and suite.task(i.task).also]
    scorer = Scorer(language=suite.language)
    rng = random.Random(7)
    rows = []
    for k in range(3):
        for it in items:
            task = suite.task(it.task)
            words = it.reference.split()
            text = " ".join(rng.sample(words, max(1, len(words) * rng.randint(1, 9) // 10)))
            s = scorer.score(task, it, text, finish_reason="length" if k % 4 == 0 else "stop")
            error = "timeout" if (k + len(it.id)) % 11 == 0 else None
            rows.append(Summary(f"{it.task}/test/{k}-{it.id}", it.task, s.score, list(s.stats) if s.stats else None,
                                error, s.extraction_failure, {"follows_format": k % 3 == 0, "long": k % 5 == 0},
                                s.secondary, 10, 5, 1, False))
    assert len({r.task for r in rows}) >= 3 and len(rows) >= 60
    in_order = sorted(rows, key=lambda r: (r.task, r.uid))
    expected = build_results(in_order, suite, "m", seed=4).model_dump_json()
    rng.shuffle(rows)
    assert build_results(rows, suite, "m", seed=4, single_epoch=True).model_dump_json() == expected
    assert build_results(iter(rows), suite, "m", seed=4).model_dump_json() == expected
