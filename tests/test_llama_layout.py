"""How an in-process model uses the cores: copies × threads, and its llama.cpp parameters (pure logic; files are
sparse, nothing is loaded)."""

from __future__ import annotations

import os

import pytest

from climedbench.errors import ModelError
from climedbench.models.llamacpp import _available_memory, default_threads, layout, server_params


def _sparse(tmp_path, size: int):
    path = tmp_path / "m.gguf"
    with path.open("wb") as fh:
        fh.truncate(size)
    return path


def test_default_is_one_single_thread_copy_per_core_for_a_small_model(tmp_path):
    small = _sparse(tmp_path, 1 << 20)
    cores = os.cpu_count() or 1
    assert layout(small, None, None) == ((1, cores) if cores > 1 else (default_threads(), 1))


def test_a_model_larger_than_half_the_free_memory_gets_one_copy(tmp_path):
    big = _sparse(tmp_path, _available_memory())
    assert layout(big, None, None) == (default_threads(), 1)


def test_what_the_user_asks_for_wins(tmp_path):
    small = _sparse(tmp_path, 1 << 20)
    cores = os.cpu_count() or 1
    assert layout(small, 3, None) == (3, 1)  # --threads alone: one copy, as before
    assert layout(small, None, 2) == (max(1, cores // 2), 2)
    assert layout(small, 2, 4) == (2, 4)


def test_server_params_are_one_sequence_without_prompt_cache_and_take_named_settings(tmp_path):
    """bench/llama_settings.py measures settings through server_params; a misspelt one is an error, not ignored."""
    path = _sparse(tmp_path, 1 << 20)
    p = server_params(path, 2048, 1, {"n_ubatch": 256, "cpuparams.poll": 0})
    assert (p.n_parallel, p.cache_prompt, p.n_ctx, p.cpuparams.n_threads) == (1, False, 2048, 1)
    assert (p.n_ubatch, p.cpuparams.poll, p.cpuparams_batch.poll) == (256, 0, 50)
    with pytest.raises(ModelError, match="n_ubach"):
        server_params(path, 2048, 1, {"n_ubach": 256})
