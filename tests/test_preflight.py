"""The pre-flight GET /v1/models is retried like every request: a server that stalls or fails it at first still
gets the run (a real instant server behind the real fault-injecting proxy)."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run_cli
from tests.support.fault_proxy import fault_proxy, proxy_stats
from tests.support.instant_server import instant_server

GET_MODELS = ("GET /v1/models",)


@pytest.mark.parametrize("fault", [{"p_stall": 1.0, "stall_seconds": 4.0}, {"p_503": 1.0}, {"p_drop": 1.0}],
                         ids=["stall", "503", "drop"])
def test_run_proceeds_when_the_first_two_model_checks_fail(fault, tmp_path):
    with instant_server() as url, fault_proxy(url, max_faults_per_body=2, only_paths=GET_MODELS, **fault) as proxied:
        out = tmp_path / "run"
        run_cli("run", "--scenarios", "BKT", "--limit", "2", "--no-cache", "--quiet", "--model",
                "openai:instant-test", "--base-url", proxied, "--timeout", "1", "--max-retries", "3",
                "--out", str(out))
        stats = proxy_stats(proxied)
    assert sum(stats["faults"].values()) == 2, stats["faults"]  # both faults were injected, on the GETs
    results = json.loads((out / "results.json").read_text())
    assert results["run"]["items"] == 2 and results["run"]["failed"] == 0


def test_a_check_that_keeps_failing_stops_the_run_with_one_line(tmp_path):
    with instant_server() as url, fault_proxy(url, p_503=1.0, only_paths=GET_MODELS) as proxied:
        out = tmp_path / "run"
        proc = run_cli("run", "--scenarios", "BKT", "--limit", "2", "--no-cache", "--quiet", "--model",
                       "openai:instant-test", "--base-url", proxied, "--max-retries", "2", "--out", str(out),
                       check=False)
        stats = proxy_stats(proxied)
    assert proc.returncode != 0
    assert "gave up after 3 attempts" in proc.stderr and "HTTP 503" in proc.stderr
    assert stats["faults"]["503"] == 3
    assert not out.exists()
