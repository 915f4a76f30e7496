"""The test servers themselves: the instant OpenAI-compatible server and the fault-injecting proxy."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import time
import urllib.error
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from climedbench.models.base import GenParams, first_token_logprobs
from climedbench.models.openai_compat import OpenAIBackend
from tests.support.fault_proxy import configure_proxy, fault_proxy, proxy_stats, reset_proxy_stats
from tests.support.instant_server import get_stats, instant_server, reset_stats

KEY = "sk-instant-right-key-42"
BASE_URL = re.compile(r"^http://127\.0\.0\.1:\d+/v1$")
NO_FAULTS = dict(seed=0, p_429=0.0, p_500=0.0, p_503=0.0, p_drop=0.0, p_stall=0.0, p_truncate=0.0,
                 stall_seconds=5.0, retry_after="0", max_faults_per_body=None,
                 only_paths=["POST /v1/chat/completions"], truncate_mode="cut", drop_mode="close")


def msgs(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "你是一名临床医生，只回答选项字母。"}, {"role": "user", "content": text}]


def letter(messages: list[dict[str, str]]) -> str:
    """The documented rule, computed independently of the server's code."""
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    return "ABCD"[int(hashlib.sha256(blob).hexdigest(), 16) % 4]


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def post_raw(client: httpx.Client, payload: dict, **kw) -> tuple[httpx.Response, str]:
    """POST exact bytes, so the test knows the hash the servers count under."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    resp = client.post("/chat/completions", content=body, headers={"Content-Type": "application/json"}, **kw)
    return resp, sha(body)


@pytest.fixture(scope="module")
def instant() -> Iterator[str]:
    with instant_server(model="instant-test") as url:
        assert BASE_URL.match(url), url
        yield url


@pytest.fixture(scope="module")
def keyed() -> Iterator[str]:
    with instant_server(api_key=KEY, model="keyed-model", extra_text="。理由：略") as url:
        yield url


@pytest.fixture(scope="module")
def proxy_url(instant: str) -> Iterator[str]:
    with fault_proxy(instant) as url:
        assert BASE_URL.match(url), url
        yield url


@pytest.fixture
def proxy(proxy_url: str, instant: str) -> str:
    """The shared proxy with no faults and zeroed counters (here and upstream)."""
    configure_proxy(proxy_url, **NO_FAULTS)
    reset_proxy_stats(proxy_url)
    reset_stats(instant)
    return proxy_url


# --- instant server ---------------------------------------------------------------------------------------------

def test_models_lists_the_served_model(instant: str) -> None:
    r = httpx.get(instant + "/models")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert r.json()["object"] == "list"
    assert [m["id"] for m in r.json()["data"]] == ["instant-test"]


def test_chat_completion_is_valid_and_deterministic(instant: str) -> None:
    m = msgs("患者男，45岁，胸骨后压榨样疼痛2小时。最可能的诊断？A.急性心肌梗死 B.胃炎 C.气胸 D.肺炎")
    with httpx.Client(base_url=instant) as c:
        first = c.post("/chat/completions", json={"model": "whatever", "messages": m, "max_tokens": 64})
        second = c.post("/chat/completions", json={"model": "whatever", "messages": m, "max_tokens": 64})
    assert first.status_code == second.status_code == 200
    data = first.json()
    assert data["object"] == "chat.completion"
    assert data["model"] == "instant-test"
    assert data["id"].startswith("chatcmpl-")
    choice = data["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "stop"
    assert choice["message"] == {"role": "assistant", "content": f"答案：{letter(m)}"}
    assert choice["logprobs"] is None
    chars = sum(len(x["content"]) for x in m)
    usage = data["usage"]
    assert abs(usage["prompt_tokens"] - chars / 2) <= 1
    assert usage["completion_tokens"] == 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + 3
    assert second.json()["choices"] == data["choices"] and second.json()["usage"] == usage


def test_answer_letter_follows_the_messages(instant: str, keyed: str) -> None:
    seen = set()
    with httpx.Client(base_url=instant) as c:
        for i in range(40):
            m = msgs(f"第{i}题")
            got = c.post("/chat/completions", json={"messages": m}).json()["choices"][0]["message"]["content"]
            assert got == f"答案：{letter(m)}"
            seen.add(got[-1])
    assert seen == set("ABCD")
    # the extra text option is appended after the letter
    m = msgs("第1题")
    r = httpx.post(keyed + "/chat/completions", json={"messages": m}, headers={"Authorization": f"Bearer {KEY}"})
    assert r.json()["choices"][0]["message"]["content"] == f"答案：{letter(m)}。理由：略"


def test_max_tokens_and_stop_cut_the_reply(instant: str) -> None:
    m = msgs("第2题")
    with httpx.Client(base_url=instant) as c:
        short = c.post("/chat/completions", json={"messages": m, "max_tokens": 1}).json()
        stopped = c.post("/chat/completions", json={"messages": m, "stop": ["："]}).json()
        bad = c.post("/chat/completions", json={"messages": m, "max_tokens": 0})
    assert short["choices"][0]["message"]["content"] == "答案"
    assert short["choices"][0]["finish_reason"] == "length"
    assert short["usage"]["completion_tokens"] == 1
    assert stopped["choices"][0]["message"]["content"] == "答案"
    assert stopped["choices"][0]["finish_reason"] == "stop"
    assert bad.status_code == 400


def test_logprobs_put_the_answer_letter_first(instant: str) -> None:
    m = msgs("第3题")
    r = httpx.post(instant + "/chat/completions",
                   json={"messages": m, "max_tokens": 1, "logprobs": True, "top_logprobs": 5})
    choice = r.json()["choices"][0]
    x = letter(m)
    assert choice["message"]["content"] == x
    first = choice["logprobs"]["content"][0]
    assert first["token"] == x
    top = first["top_logprobs"]
    assert len(top) == 5
    assert [t["token"] for t in top[:4]] == [x] + [c for c in "ABCD" if c != x]
    lps = [t["logprob"] for t in top]
    assert lps == sorted(lps, reverse=True) and all(lp < 0 for lp in lps)
    parsed = first_token_logprobs(choice)
    assert parsed is not None and max(parsed, key=lambda t: parsed[t]) == x


def test_keep_alive_serves_many_requests_on_one_connection(instant: str) -> None:
    reset_stats(instant)  # its own connection is counted before the reset
    with httpx.Client(base_url=instant) as c:
        for i in range(25):
            assert c.post("/chat/completions", json={"messages": msgs(f"k{i}")}).status_code == 200
    stats = get_stats(instant)  # one more connection
    assert stats["requests"] == 25
    assert stats["connections"] == 2


def test_pipelined_requests_and_connection_close(instant: str) -> None:
    u = urlsplit(instant)
    body = json.dumps({"messages": msgs("管线")}).encode()
    req = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    last = req.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1)
    with socket.create_connection((u.hostname, u.port), timeout=5) as s:
        s.sendall(req + req[:10])  # the second request arrives in two pieces
        time.sleep(0.05)
        s.sendall(req[10:] + last)
        data = b""
        while chunk := s.recv(65536):  # the server must close after the 'Connection: close' request
            data += chunk
    assert data.count(b"HTTP/1.1 200 OK\r\n") == 3
    assert b"Connection: close" in data.rsplit(b"HTTP/1.1 200", 1)[1]


def test_http10_closes_unless_keep_alive_is_asked_for(instant: str) -> None:
    u = urlsplit(instant)
    with socket.create_connection((u.hostname, u.port), timeout=5) as s:
        s.sendall(b"GET /v1/models HTTP/1.0\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200 OK\r\n") and b"Connection: close" in data
    with socket.create_connection((u.hostname, u.port), timeout=5) as s:
        s.sendall(b"GET /v1/models HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" * 2)
        data = b""
        while data.count(b"instant-test") < 2:
            data += s.recv(65536)
    assert data.count(b"HTTP/1.1 200 OK") == 2 and b"Connection: close" not in data


def test_api_key_is_required_when_set(keyed: str) -> None:
    m = {"messages": msgs("鉴权")}
    none = httpx.post(keyed + "/chat/completions", json=m)
    wrong = httpx.post(keyed + "/chat/completions", json=m, headers={"Authorization": "Bearer sk-wrong"})
    models = httpx.get(keyed + "/models")
    right = httpx.post(keyed + "/chat/completions", json=m, headers={"Authorization": f"Bearer {KEY}"})
    expected = {"error": {"message": "Invalid API Key", "type": "authentication_error"}}
    for r in (none, wrong, models):
        assert r.status_code == 401
        assert r.json() == expected
    assert right.status_code == 200
    assert httpx.get(keyed + "/models", headers={"Authorization": f"Bearer {KEY}"}).json()["data"][0]["id"] \
        == "keyed-model"


def test_stats_count_each_body_and_reset(instant: str) -> None:
    reset_stats(instant)
    with httpx.Client(base_url=instant) as c:
        _, a = post_raw(c, {"messages": msgs("甲")})
        post_raw(c, {"messages": msgs("甲")})
        _, b = post_raw(c, {"messages": msgs("乙")})
        assert c.get("/models").status_code == 200
    stats = httpx.get(instant.removesuffix("/v1") + "/stats").json()
    assert stats["requests"] == 3
    assert stats["by_body"] == {a: 2, b: 1}
    assert stats["models"] == 1
    assert httpx.post(instant.removesuffix("/v1") + "/stats/reset").status_code == 200
    assert get_stats(instant)["requests"] == 0 and get_stats(instant)["by_body"] == {}


def test_bad_requests_get_json_errors(instant: str) -> None:
    with httpx.Client(base_url=instant) as c:
        not_json = c.post("/chat/completions", content=b"{nope", headers={"Content-Type": "application/json"})
        no_messages = c.post("/chat/completions", json={"model": "x"})
        unknown = c.get("/nowhere")
        wrong_method = c.get("/chat/completions")
        still_fine = c.post("/chat/completions", json={"messages": msgs("仍然可用")})
    assert [r.status_code for r in (not_json, no_messages, unknown, wrong_method)] == [400, 400, 404, 405]
    assert all("message" in r.json()["error"] for r in (not_json, no_messages, unknown, wrong_method))
    assert still_fine.status_code == 200


def test_the_project_backend_talks_to_the_instant_server(instant: str) -> None:
    async def go():
        backend = OpenAIBackend(model="instant-test", base_url=instant, timeout=5)
        try:
            await backend.check()
            plain = await backend.chat(msgs("后端"), GenParams(max_tokens=16))
            lp = await backend.chat(msgs("后端"), GenParams(max_tokens=1, top_logprobs=4))
        finally:
            await backend.aclose()
        return plain, lp

    plain, lp = asyncio.run(go())
    x = letter(msgs("后端"))
    assert plain.text == f"答案：{x}" and plain.attempts == 1 and plain.model_reported == "instant-test"
    assert plain.prompt_tokens and plain.completion_tokens == 3
    assert lp.text == x and lp.first_token_logprobs and set(lp.first_token_logprobs) == set("ABCD")


# --- fault proxy ------------------------------------------------------------------------------------------------

def test_proxy_passes_through_and_counts(proxy: str, instant: str) -> None:
    with httpx.Client(base_url=proxy) as c:
        models = c.get("/models")
        responses = [post_raw(c, {"messages": msgs(f"透传{i % 3}")}) for i in range(6)]
    direct = httpx.post(instant + "/chat/completions", json={"messages": msgs("透传0")}).json()
    assert models.status_code == 200 and models.json()["data"][0]["id"] == "instant-test"
    assert all(r.status_code == 200 for r, _ in responses)
    assert responses[0][0].json()["choices"] == direct["choices"]
    stats = proxy_stats(proxy)
    hashes = {h for _, h in responses}
    assert stats["forwarded"] == 7 and stats["requests"] == 7 and stats["faultable"] == 6
    assert {h: stats["forwarded_by_body"][h] for h in hashes} == dict.fromkeys(hashes, 2)
    assert stats["forwarded_by_path"] == {"/v1/models": 1, "/v1/chat/completions": 6}
    assert sum(stats["faults"].values()) == 0
    assert stats["connections"] == 1 and stats["upstream_connections"] == 1  # both sides kept alive
    upstream = get_stats(instant)
    assert {h: upstream["by_body"][h] for h in hashes} == dict.fromkeys(hashes, 2)


@pytest.mark.parametrize("kind", ["429", "500", "503"])
def test_proxy_injects_http_errors(proxy: str, instant: str, kind: str) -> None:
    configure_proxy(proxy, **{f"p_{kind}": 1.0}, retry_after="1")
    with httpx.Client(base_url=proxy) as c:
        r, h = post_raw(c, {"messages": msgs("错误")})
        configure_proxy(proxy, **{f"p_{kind}": 0.0})
        after, _ = post_raw(c, {"messages": msgs("错误")})  # same connection still usable
    assert r.status_code == int(kind)
    assert r.json()["error"]["message"]
    if kind == "429":
        assert r.headers["retry-after"] == "1"
        assert r.json()["error"]["type"] == "rate_limit_error"
    else:
        assert "retry-after" not in r.headers
    assert after.status_code == 200
    stats = proxy_stats(proxy)
    assert stats["faults"][kind] == 1 and sum(stats["faults"].values()) == 1
    assert stats["faults_by_body"] == {h: [kind]}
    assert stats["forwarded_by_body"] == {h: 1} and stats["connections"] == 1
    assert get_stats(instant)["by_body"] == {h: 1}  # the faulted attempt never reached the server


@pytest.mark.parametrize("mode", ["close", "reset"])
def test_proxy_drops_connections(proxy: str, instant: str, mode: str) -> None:
    configure_proxy(proxy, p_drop=1.0, drop_mode=mode)
    with httpx.Client(base_url=proxy, timeout=5) as c, pytest.raises(httpx.TransportError) as err:
        post_raw(c, {"messages": msgs("断开")})
    assert not isinstance(err.value, httpx.TimeoutException)
    if mode == "reset":
        assert isinstance(err.value, httpx.ReadError | httpx.RemoteProtocolError)
    stats = proxy_stats(proxy)
    assert stats["faults"]["drop"] == 1 and stats["forwarded"] == 0
    assert get_stats(instant)["requests"] == 0


def test_proxy_stalls_past_the_client_timeout(proxy: str, instant: str) -> None:
    configure_proxy(proxy, p_stall=1.0, stall_seconds=0.5)
    with httpx.Client(base_url=proxy) as c:
        with pytest.raises(httpx.ReadTimeout):
            post_raw(c, {"messages": msgs("卡住")}, timeout=0.15)
        deadline = time.monotonic() + 5  # after the stall the proxy notices the client left and does not forward
        while proxy_stats(proxy)["stall_abandoned"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proxy_stats(proxy)["stall_abandoned"] == 1 and get_stats(instant)["requests"] == 0
        t0 = time.perf_counter()
        r, h = post_raw(c, {"messages": msgs("卡住")}, timeout=5)  # a patient client gets the answer
        waited = time.perf_counter() - t0
    assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == f"答案：{letter(msgs('卡住'))}"
    assert waited >= 0.45
    stats = proxy_stats(proxy)
    assert stats["faults"]["stall"] == 2 and stats["forwarded_by_body"] == {h: 1}
    assert get_stats(instant)["by_body"] == {h: 1}


def test_proxy_truncates_the_body_with_a_matching_length(proxy: str) -> None:
    configure_proxy(proxy, p_truncate=1.0, truncate_mode="cut")
    payload = {"messages": msgs("截断")}
    with httpx.Client(base_url=proxy) as c:
        cut, h = post_raw(c, payload)
        configure_proxy(proxy, p_truncate=0.0)
        full, _ = post_raw(c, payload)  # the same kept-alive connection is still in sync
    assert cut.status_code == 200 and full.status_code == 200
    assert int(cut.headers["content-length"]) == len(cut.content)
    assert len(cut.content) == len(full.content) // 2
    assert cut.content[:40] == full.content[:40]
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.content)
    stats = proxy_stats(proxy)
    assert stats["faults"]["truncate"] == 1 and stats["forwarded_by_body"] == {h: 2}  # truncation is after


def test_proxy_truncates_by_closing_early(proxy: str) -> None:
    configure_proxy(proxy, p_truncate=1.0, truncate_mode="short")
    with httpx.Client(base_url=proxy) as c, pytest.raises(httpx.RemoteProtocolError):
        post_raw(c, {"messages": msgs("提前关闭")})
    stats = proxy_stats(proxy)
    assert stats["faults"]["truncate"] == 1 and stats["forwarded"] == 1


def test_max_faults_per_body_lets_every_body_through(proxy: str, instant: str) -> None:
    configure_proxy(proxy, p_500=1.0, max_faults_per_body=2)
    with httpx.Client(base_url=proxy) as c:
        a = [post_raw(c, {"messages": msgs("甲")}) for _ in range(4)]
        b = [post_raw(c, {"messages": msgs("乙")}) for _ in range(3)]
    assert [r.status_code for r, _ in a] == [500, 500, 200, 200]
    assert [r.status_code for r, _ in b] == [500, 500, 200]
    ha, hb = a[0][1], b[0][1]
    stats = proxy_stats(proxy)
    assert stats["faults_by_body"] == {ha: ["500", "500"], hb: ["500", "500"]}
    assert stats["forwarded_by_body"] == {ha: 2, hb: 1}
    assert get_stats(instant)["by_body"] == {ha: 2, hb: 1}


def test_faults_are_seeded_and_reproducible(proxy: str) -> None:
    def statuses() -> list[int]:
        reset_proxy_stats(proxy)  # also restarts each body's draws
        with httpx.Client(base_url=proxy) as c:
            return [post_raw(c, {"messages": msgs(f"种子{i}")})[0].status_code for i in range(30)]

    configure_proxy(proxy, p_500=0.5, seed=11)
    first, again = statuses(), statuses()
    configure_proxy(proxy, seed=12)
    other = statuses()
    assert first == again
    assert first != other
    assert set(first) == {200, 500} and 5 <= first.count(500) <= 25


def test_only_paths_choose_what_gets_faults(proxy: str) -> None:
    configure_proxy(proxy, p_503=1.0)
    with httpx.Client(base_url=proxy) as c:
        assert c.get("/models").status_code == 200  # default: only POST /v1/chat/completions
        assert post_raw(c, {"messages": msgs("路径")})[0].status_code == 503
        configure_proxy(proxy, only_paths=["*"])
        assert c.get("/models").status_code == 503
        configure_proxy(proxy, only_paths=["GET /v1/models"])
        assert c.get("/models").status_code == 503
        assert post_raw(c, {"messages": msgs("路径")})[0].status_code == 200


def test_proxy_rejects_bad_options(proxy: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as err:
        configure_proxy(proxy, p_500=0.7, p_503=0.7)
    assert err.value.code == 400
    with pytest.raises(ValueError), fault_proxy(proxy, p_drop=1.5):
        pass


def test_proxy_command_line_options_and_auth_passthrough(keyed: str) -> None:
    with fault_proxy(keyed, seed=3, p_429=1.0, retry_after=2, max_faults_per_body=1,
                     only_paths=["POST /v1/chat/*"]) as url:
        cfg = httpx.get(url.removesuffix("/v1") + "/proxy/config").json()
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}) as c:
            limited, _ = post_raw(c, {"messages": msgs("命令行")})
            ok, _ = post_raw(c, {"messages": msgs("命令行")})
        anonymous = httpx.post(url + "/chat/completions", json={"messages": msgs("匿名")})
    assert cfg["seed"] == 3 and cfg["p_429"] == 1.0 and cfg["max_faults_per_body"] == 1
    assert cfg["only_paths"] == ["POST /v1/chat/*"] and cfg["upstream"] == keyed
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert ok.status_code == 200 and ok.json()["model"] == "keyed-model"
    assert anonymous.status_code == 429  # faults come first: a 429 before the upstream's own 401
    assert anonymous.headers["retry-after"] == "2"


def test_the_project_backend_survives_every_fault_kind(proxy: str, instant: str) -> None:
    configure_proxy(proxy, seed=5, p_429=0.12, p_500=0.1, p_503=0.1, p_drop=0.1, p_stall=0.06,
                    p_truncate=0.12, stall_seconds=1.2, max_faults_per_body=3)
    params = GenParams(max_tokens=16)
    questions = [msgs(f"综合第{i}题") for i in range(32)]

    async def go():
        backend = OpenAIBackend(model="instant-test", base_url=proxy, timeout=0.5, max_retries=4,
                                backoff_initial=0.01, backoff_max=0.05, max_concurrency=8)
        sem = asyncio.Semaphore(8)

        async def one(m):
            async with sem:
                return await backend.chat(m, params)
        try:
            return await asyncio.gather(*(one(m) for m in questions)), backend
        finally:
            await backend.aclose()

    completions, backend = asyncio.run(go())
    stats, upstream = proxy_stats(proxy), get_stats(instant)
    assert all(v > 0 for v in stats["faults"].values()), stats["faults"]  # every kind was exercised
    for m, comp in zip(questions, completions, strict=True):
        h = sha(backend.request_body(m, params))
        faults = stats["faults_by_body"].get(h, [])
        assert comp.text == f"答案：{letter(m)}"
        assert comp.attempts == 1 + len(faults)
        # every fault but truncation stops the request before the server; truncation costs one more call
        assert upstream["by_body"][h] == stats["forwarded_by_body"][h] == 1 + faults.count("truncate")
    assert backend.retried == sum(len(f) for f in stats["faults_by_body"].values())
