"""`--epochs K` on Ray: each worker rebuilds an item's request at its epoch (its own seed), so the samples equal
a local run's. Real parts: a local Ray cluster, the real CLI, the instant server answering per request seed."""

from __future__ import annotations

from tests.distributed.conftest import cli, comparable, figures, samples
from tests.support.instant_server import get_stats, instant_server
from tests.support.synthetic import short_items


def test_epochs_on_ray_equal_a_local_run(ray_address, tmp_path):
    data = short_items(tmp_path / "items.jsonl", 6)
    with instant_server(vary_by_seed=True) as url:
        base = ["run", "--data", str(data), "--model", "openai:instant-test", "--base-url", url, "--no-cache",
                "--quiet", "--epochs", "3", "--temperature", "0.7"]
        cli(*base, "--out", str(tmp_path / "local"))
        cli(*base, "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-address", ray_address, "--workers", "2")
        st = get_stats(url)
    local, ray = samples(tmp_path / "local"), samples(tmp_path / "ray")
    assert len(ray) == 18 and [s["epoch"] for s in ray] == [1, 2, 3] * 6
    assert comparable(local) == comparable(ray)
    assert set(st["by_body"].values()) == {2}  # each (item, epoch) request: once locally, once on Ray
    assert figures(tmp_path / "local") == figures(tmp_path / "ray")
