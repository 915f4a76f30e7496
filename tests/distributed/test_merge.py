"""`run --shard I/N` on "different machines" (separate run directories and servers) and `climedbench merge`:
the merged directory equals an unsharded run, resumes like one, and every mismatch is one clear error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from climedbench.errors import ConfigError, DataError
from climedbench.merge import merge_shards
from climedbench.models.registry import ModelOptions
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from tests.distributed.conftest import cli, comparable, figures, samples
from tests.support.instant_server import get_stats, instant_server
from tests.support.synthetic import short_items as make_items

N = 50


DEPLOYMENT = "instant@test"


def run(data: Path, url: str, out: Path, shard: tuple[int, int] | None = None, *, max_tokens: int = 8,
        deployment: str | None = DEPLOYMENT) -> None:
    opts = RunOptions(data=str(data), model="openai:instant-test", max_tokens=max_tokens, no_cache=True, out=str(out),
                      shard=shard, model_options=ModelOptions(base_url=url, deployment=deployment))
    asyncio.run(run_plan(plan_run(opts)))


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Three shards of one plan, each on its own server, and the same plan unsharded (one deployment label)."""
    tmp = tmp_path_factory.mktemp("shards")
    data = make_items(tmp / "items.jsonl", N)
    with instant_server() as whole:
        run(data, whole, tmp / "whole")
    for i in (1, 2, 3):  # a "machine" per shard: its own server, whose URL differs from the others'
        with instant_server() as url:
            run(data, url, tmp / f"shard-{i}", (i, 3))
            ASKED[i] = get_stats(url)["requests"]
    return {"data": data, "whole": tmp / "whole", **{f"shard-{i}": tmp / f"shard-{i}" for i in (1, 2, 3)}}


ASKED: dict[int, int] = {}


def test_shards_are_contiguous_parts_of_the_plan(made):
    parts = [samples(made[f"shard-{i}"]) for i in (1, 2, 3)]
    assert [len(p) for p in parts] == [16, 17, 17]  # ⌊50·i/3⌋ boundaries: 0, 16, 33, 50
    assert [s["uid"] for p in parts for s in p] == [s["uid"] for s in samples(made["whole"])]
    assert [ASKED[i] for i in (1, 2, 3)] == [16, 17, 17]  # each machine asked only its part
    spec = json.loads((made["shard-2"] / "run.json").read_text())
    assert spec["shard"]["index"] == 2 and spec["shard"]["count"] == 3 and spec["shard"]["plan_items"] == N
    assert spec["n_items"] == 17 and spec["model"] == {"backend": "openai", "model": "instant-test",
                                                       "deployment": DEPLOYMENT}


def test_merged_shards_equal_one_unsharded_run_and_resume_like_it(made, tmp_path):
    out = tmp_path / "merged"
    proc = cli("merge", str(made["shard-3"]), str(made["shard-1"]), str(made["shard-2"]), "--out", str(out), "--json")
    assert comparable(samples(out)) == comparable(samples(made["whole"]))
    assert figures(out) == figures(made["whole"])
    res = json.loads(proc.stdout)
    assert res["run"]["items"] == N and res["run"]["missing"] == 0 and res["run"]["answered_now"] == N
    assert res["run"]["merged_from"] == [str(made[f"shard-{i}"]) for i in (1, 2, 3)]
    assert sum(e["ok"] for e in res["run"]["endpoints"]) == N
    spec = json.loads((out / "run.json").read_text())
    assert "shard" not in spec and spec["n_items"] == N and spec["status"] == "complete"
    # The same options without --shard resume the merged directory: nothing is asked.
    with instant_server() as url:
        run(made["data"], url, out)
        assert get_stats(url)["requests"] == 0
    assert json.loads((out / "results.json").read_text())["run"]["resumed"] == N


def test_a_missing_or_repeated_shard_is_refused(made, tmp_path):
    with pytest.raises(DataError, match=r"shard\(s\) 2 of 3 missing"):
        merge_shards([made["shard-1"], made["shard-3"]], tmp_path / "a")
    with pytest.raises(DataError, match=r"shard-1 and .*shard-1 are both shard 1/3"):
        merge_shards([made["shard-1"], made["shard-1"], made["shard-2"], made["shard-3"]], tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_shard_missing_items_or_holding_one_twice_is_refused(made, tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("run.json", "results.json"):
        (cut / name).write_bytes((made["shard-2"] / name).read_bytes())
    lines = (made["shard-2"] / "samples.jsonl").read_text().splitlines(keepends=True)
    (cut / "samples.jsonl").write_text("".join(lines[:-1]))
    with pytest.raises(DataError, match=r"cut: shard 2/3 holds 16 of its 17 items"):
        merge_shards([made["shard-1"], cut, made["shard-3"]], tmp_path / "a")
    (cut / "samples.jsonl").write_text("".join([lines[0], *lines]))
    with pytest.raises(DataError, match=r"samples.jsonl:2: item BKT/test/q00016 is twice in it"):
        merge_shards([made["shard-1"], cut, made["shard-3"]], tmp_path / "b")
    (cut / "samples.jsonl").write_text("".join(samples_lines(made["shard-1"])[:1] + lines[1:]))
    with pytest.raises(DataError, match=r"item BKT/test/q00000 is also in .*shard-1"):
        merge_shards([made["shard-1"], cut, made["shard-3"]], tmp_path / "c")


def samples_lines(run_dir: Path) -> list[str]:
    return (run_dir / "samples.jsonl").read_text().splitlines(keepends=True)


def test_shards_of_another_plan_or_model_are_refused(made, tmp_path):
    with instant_server() as url:
        run(made["data"], url, tmp_path / "longer", (2, 3), max_tokens=9)
        run(made["data"], url, tmp_path / "by-url-1", (1, 3), deployment=None)  # fingerprinted by its URL
    with instant_server() as url:
        run(made["data"], url, tmp_path / "by-url-2", (2, 3), deployment=None)
    with pytest.raises(DataError, match=r"longer is not a shard of the same plan as .*shard-1 \(its run.json differs "
                                        r"in: generation\)"):
        merge_shards([made["shard-1"], tmp_path / "longer", made["shard-3"]], tmp_path / "a")
    with pytest.raises(DataError, match=r"by-url-1 is not a shard of the same plan as .*shard-1 \(its run.json "
                                        r"differs in: model\)$"):
        merge_shards([made["shard-1"], tmp_path / "by-url-1"], tmp_path / "b")
    # Two machines that each fingerprinted their own server: the error says how to make them one model.
    proc = cli("merge", str(tmp_path / "by-url-1"), str(tmp_path / "by-url-2"), str(made["shard-3"]), "--out",
               str(tmp_path / "c"), check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "differs in: model); each shard was fingerprinted by its server's URL: run every shard with the same " \
           "--deployment LABEL" in proc.stderr


def test_an_unsharded_run_or_a_used_out_directory_is_refused(made, tmp_path):
    with pytest.raises(DataError, match=r"whole: not a shard"):
        merge_shards([made["whole"]], tmp_path / "a")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="exists and is not empty"):
        merge_shards([made["shard-1"], made["shard-2"], made["shard-3"]], tmp_path / "used")
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["notes.txt"]


def test_aggregate_reads_shards_as_parts_of_the_whole_plan(made):
    from climedbench.reaggregate import aggregate_files

    results, _ = aggregate_files([made[f"shard-{i}"] for i in (1, 2, 3)])
    whole = json.loads((made["whole"] / "results.json").read_text())
    assert results.model_dump(mode="json", include={"tasks", "groups", "overall"}, exclude_none=True) == {
        k: whole[k] for k in ("tasks", "groups", "overall")}
    assert results.run is not None and results.run.planned == N and results.run.missing == 0
    part, _ = aggregate_files([made["shard-1"], made["shard-2"]])
    assert part.run is not None and part.run.items == 33 and part.run.missing == 17  # shard 3's 17 items
