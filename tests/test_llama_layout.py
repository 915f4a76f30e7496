"""How an in-process model uses the cores: copies × threads (pure logic; files are sparse, nothing is loaded)."""

from __future__ import annotations

import os

from climedbench.models.llamacpp import _available_memory, default_threads, layout


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
