"""Several endpoints of one model: balancing, failover and backoff, slow endpoints, per-endpoint figures in
results.json, the endpoints file, and a fingerprint that does not depend on which replica answered.

Real servers on 127.0.0.1 (the instant server, the fault-injecting proxy); the counts each server keeps are
the independent check of what results.json reports.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from climedbench.errors import ConfigError, DataError, ModelError
from climedbench.models.endpoints import EndpointSpec, load_endpoints
from climedbench.models.pool import PooledBackend
from climedbench.models.registry import ModelOptions
from climedbench.run.driver import run_plan
from climedbench.run.plan import RunOptions, plan_run
from tests.distributed.conftest import cli, samples
from tests.support.fault_proxy import fault_proxy, proxy_stats
from tests.support.instant_server import answer_letter, get_stats, instant_server
from tests.support.synthetic import short_items as make_items


def run(opts: RunOptions):
    return asyncio.run(run_plan(plan_run(opts)))


def endpoint_figures(run_dir: Path) -> dict[str, dict]:
    res = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    return {e["endpoint"]: e for e in res["run"]["endpoints"]}


def test_requests_are_spread_over_endpoints_and_counted_per_endpoint(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 300)
    with instant_server(latency=0.01, slots=4) as a, instant_server(latency=0.01, slots=4) as b, \
            instant_server(latency=0.01, slots=4) as c:
        out = tmp_path / "run"
        proc = cli("run", "--data", str(data), "--model", "openai:instant-test", "--base-url", a, "--base-url", b,
                   "--base-url", c, "--max-concurrency", "4", "--max-tokens", "8", "--no-cache", "--quiet",
                   "--price-in", "1", "--price-out", "2", "--out", str(out), "--json")
        served = {u: get_stats(u)["requests"] for u in (a, b, c)}
    res = json.loads(proc.stdout)
    assert res["run"]["items"] == 300 and res["run"]["failed"] == 0
    assert sum(served.values()) == 300 and min(served.values()) >= 50  # each replica did a real share
    figs = endpoint_figures(out)
    assert set(figs) == {a, b, c}
    for url, fig in figs.items():
        assert fig["requests"] == fig["ok"] == served[url] and fig["errors"] == 0 and fig["max_concurrency"] == 4
        assert fig["requests_per_second"] > 0 and fig["mean_latency"] >= 0.01
        # Cost from the endpoint's own token counts, at 1 and 2 USD per million prompt and completion tokens.
        assert fig["cost_usd"] == pytest.approx((fig["prompt_tokens"] + 2 * fig["completion_tokens"]) / 1e6)
    assert sum(f["prompt_tokens"] for f in figs.values()) == res["run"]["prompt_tokens"]
    spec = json.loads((out / "run.json").read_text())
    assert spec["model"] == {"backend": "openai", "model": "instant-test"}  # no URL: replicas are interchangeable
    assert sorted(spec["endpoints"]) == sorted([a, b, c])
    plan = plan_run(RunOptions(data=str(data), max_tokens=8))
    for s, req in zip(samples(out), plan.requests, strict=True):
        assert s["raw"] == f"答案：{answer_letter(req.messages(plan.suite))}"


def test_a_failing_endpoint_is_backed_off_and_no_request_is_lost(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 200)
    with instant_server() as good, instant_server() as behind, \
            fault_proxy(behind, seed=2, p_503=1.0, max_faults_per_body=100) as failing:
        out = tmp_path / "run"
        run(RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, no_cache=True, out=str(out),
                       model_options=ModelOptions(endpoints=(EndpointSpec(url=good), EndpointSpec(url=failing)),
                                                  max_concurrency=4, max_retries=3)))
        faults = proxy_stats(failing)["faults"]
        served = get_stats(good)["requests"]
    got = samples(out)
    assert len(got) == 200 and all(s["error"] is None for s in got)
    figs = endpoint_figures(out)
    bad, ok = figs[failing], figs[good]
    assert bad["ok"] == 0 and bad["errors"] == bad["requests"] == faults["503"] >= 1
    assert bad["error_kinds"] == {"http_5xx": bad["errors"]} and bad["backoffs"] == bad["errors"]
    assert ok["ok"] == served == 200 and ok["errors"] == 0
    # Backed off exponentially (0.5 s, 1 s, 2 s, ...): a handful of attempts over the run, not one per item.
    assert bad["requests"] <= 12
    # Every request that failed there was answered elsewhere: attempts recorded on the samples.
    assert sum(s["attempts"] for s in got) == 200 + bad["errors"]


def test_an_endpoint_down_at_start_is_backed_off_while_the_others_serve(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 100)
    with instant_server() as gone:
        pass  # closed: nothing listens there now
    with instant_server() as good:
        out = tmp_path / "run"
        run(RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, no_cache=True, out=str(out),
                       model_options=ModelOptions(endpoints=(EndpointSpec(url=gone), EndpointSpec(url=good)),
                                                  max_concurrency=4, timeout=5)))
        served = get_stats(good)["requests"]
    assert served == 100 and all(s["error"] is None for s in samples(out))
    figs = endpoint_figures(out)
    assert figs[gone]["ok"] == 0 and figs[gone]["backoffs"] >= 1
    assert figs[gone]["errors"] == figs[gone]["requests"] == figs[gone]["error_kinds"].get("connection", 0)


def test_a_slow_endpoint_is_held_to_one_request_in_flight(tmp_path):
    data = make_items(tmp_path / "items.jsonl", 300)
    with instant_server(latency=0.4) as slow, instant_server(latency=0.005) as fast:
        out = tmp_path / "run"
        run(RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, no_cache=True, out=str(out),
                       model_options=ModelOptions(endpoints=(EndpointSpec(url=slow), EndpointSpec(url=fast)),
                                                  max_concurrency=8)))
        n_slow, n_fast = get_stats(slow)["requests"], get_stats(fast)["requests"]
    figs = endpoint_figures(out)
    assert figs[slow]["slowdowns"] >= 1 and figs[fast]["slowdowns"] == 0
    assert n_slow + n_fast == 300 and all(s["error"] is None for s in samples(out))
    assert n_slow < 60  # 8 at a time at first, then one at a time while the fast one serves the rest


def test_the_fingerprint_names_the_model_not_the_replica(tmp_path):
    """A run made on two replicas resumes on two others, and its answers come from the cache."""
    data = make_items(tmp_path / "items.jsonl", 40)

    def opts(out: str, urls: list[str], deployment: str | None = None) -> RunOptions:
        return RunOptions(data=str(data), model="openai:instant-test", max_tokens=8, cache=str(tmp_path / "c.sqlite"),
                          out=str(tmp_path / out), model_options=ModelOptions(
                              endpoints=tuple(EndpointSpec(url=u) for u in urls), deployment=deployment))

    with instant_server() as a, instant_server() as b:
        run(opts("run", [a, b]))
    with instant_server() as c, instant_server() as d:
        # A new run directory: every answer is a cache hit; the same directory: every item is resumed.
        _, res, _ = run(opts("other", [c, d]))
        _, again, _ = run(opts("run", [c, d]))
        asked = get_stats(c)["requests"] + get_stats(d)["requests"]
    assert res.run is not None and again.run is not None
    assert res.run.cache_hits == 40 and again.run.resumed == 40 and asked == 0
    assert [s["raw"] for s in samples(tmp_path / "other")] == [s["raw"] for s in samples(tmp_path / "run")]
    with instant_server() as e, pytest.raises(ConfigError, match=r"holds a different run \(differs in: model\)"):
        run(opts("run", [e], deployment="v2"))  # a deployment label is part of the identity: another model


def test_the_endpoints_file_sets_weights_limits_and_keys(tmp_path, monkeypatch):
    data = make_items(tmp_path / "items.jsonl", 120)
    key = "sk-endpoint-secret-4242"
    monkeypatch.setenv("SECOND_KEY", key)
    with instant_server() as a, instant_server(api_key=key) as b:
        f = tmp_path / "endpoints.yaml"
        f.write_text(f"deployment: instant@test\nendpoints:\n  - url: {a}\n    weight: 1\n    max_concurrency: 2\n"
                     f"  - url: {b}\n    name: keyed\n    weight: 3\n    max_concurrency: 6\n"
                     "    api_key_env: SECOND_KEY\n", encoding="utf-8")
        out = tmp_path / "run"
        proc = cli("run", "--data", str(data), "--model", "openai:instant-test", "--endpoints", str(f), "--max-tokens",
                   "8", "--no-cache", "--quiet", "--out", str(out), "--json")
        sa, sb = get_stats(a), get_stats(b)
    res = json.loads(proc.stdout)
    assert res["run"]["failed"] == 0 and sb["unauthorized"] == 0 and sa["requests"] + sb["requests"] == 120
    assert sb["requests"] > sa["requests"]  # three times the slots and the weight
    figs = endpoint_figures(out)
    assert set(figs) == {a, "keyed"} and figs["keyed"]["weight"] == 3 and figs["keyed"]["max_concurrency"] == 6
    spec = json.loads((out / "run.json").read_text())
    assert spec["model"] == {"backend": "openai", "model": "instant-test", "deployment": "instant@test"}
    for p in out.iterdir():
        assert key not in p.read_text(encoding="utf-8")
    assert key not in proc.stdout + proc.stderr


@pytest.mark.parametrize(("text", "where"), [
    ("endpoints:\n  - url: http://a:1/v1\n  - url: http://b:1/v1\n    wieght: 2\n", ":4: field 'endpoints.1.wieght'"),
    ("endpoints:\n  - url: http://a:1/v1\n    weight: -1\n", ":3: field 'endpoints.0.weight'"),
    ("- url: ftp://a/v1\n", ":1: field 'endpoints.0.url'"),
    ("- url: http://user:pw@a:1/v1\n", ":1: field 'endpoints.0.url'"),
    ("endpoints: []\n", ":1: field 'endpoints'"),
    ("endpoints:\n  - url: [\n", ":3: not valid YAML"),
])
def test_a_bad_endpoints_file_names_file_line_and_field(tmp_path, text, where):
    f = tmp_path / "endpoints.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_endpoints(f)
    assert str(e.value).startswith(f"{f}{where}")
    assert "pw" not in str(e.value)


def test_two_urls_that_are_the_same_endpoint_are_refused():
    with pytest.raises(ModelError, match=r"endpoint http://127\.0\.0\.1:9/v1 is given twice"):
        PooledBackend(model="m", endpoints=[EndpointSpec(url="http://127.0.0.1:9/v1"),
                                            EndpointSpec(url="http://127.0.0.1:9/v1/")])
