"""How a run's limits are split between Ray workers, and how the plan is cut into shards (pure logic)."""

from __future__ import annotations

import itertools

import pytest

from climedbench.errors import ConfigError
from climedbench.executors import ExecutorOptions
from climedbench.executors.ray_driver import shard_size, worker_options
from climedbench.models.endpoints import EndpointSpec
from climedbench.models.registry import ModelOptions
from climedbench.run.plan import shard_bounds


def test_limits_are_split_evenly_rounded_down_and_never_below_one():
    mo = ModelOptions(max_concurrency=9, endpoints=(EndpointSpec(url="http://a:1/v1", max_concurrency=64, rpm=600,
                                                                 tpm=90000),
                                                    EndpointSpec(url="http://b:1/v1")))
    w = worker_options(mo, 4, local_cluster=False)
    assert w.max_concurrency == 2  # 9 // 4
    a, b = w.endpoints
    assert (a.max_concurrency, a.rpm, a.tpm) == (16, 150, 22500)
    assert (b.max_concurrency, b.rpm, b.tpm) == (2, None, None)  # the run's 9, split
    assert worker_options(ModelOptions(max_concurrency=1), 4, local_cluster=False).max_concurrency == 1
    assert w.threads is None  # a cluster's nodes choose their own threads


def test_a_private_cluster_shares_this_machines_cores_between_in_process_models():
    import os

    cores = os.cpu_count() or 2
    assert worker_options(ModelOptions(), 2, local_cluster=True).threads == max(1, (cores - 1) // 2)
    assert worker_options(ModelOptions(threads=3), 2, local_cluster=True).threads == 3


def test_shards_are_contiguous_near_equal_and_cover_the_plan():
    for n, count in ((50, 3), (7, 7), (100, 1), (34000, 4)):
        bounds = [shard_bounds(n, i, count) for i in range(1, count + 1)]
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
        sizes = [hi - lo for lo, hi in bounds]
        assert max(sizes) - min(sizes) <= 1
    with pytest.raises(ConfigError, match=r"--shard 4/3: give I/N with 1 <= I <= N"):
        shard_bounds(10, 4, 3)


def test_shard_size_spreads_work_over_workers():
    assert shard_size(34000, 2, None) == 256  # capped
    assert shard_size(100, 2, None) == 7  # ⌈100 / 16⌉: eight shards per worker
    assert shard_size(3, 4, None) == 1
    assert shard_size(1000, 2, 50) == 50


def test_executor_options_are_checked():
    with pytest.raises(ConfigError, match="--executor must be 'local' or 'ray'"):
        ExecutorOptions(kind="dask")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="--workers must be at least 1"):
        ExecutorOptions(kind="ray", workers=0)
    with pytest.raises(ConfigError, match="--ray-address needs --executor ray"):
        ExecutorOptions(address="auto")
