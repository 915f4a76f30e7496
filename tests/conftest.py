"""Shared fixtures: the real embedded model, a real llama.cpp HTTP server, the suite."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from climedbench.taxonomy import Suite, load_suite

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
OFFICIAL = FIXTURES / "official_examples.json"


@pytest.fixture(scope="session")
def suite() -> Suite:
    return load_suite()


@pytest.fixture(scope="session")
def model_path() -> Path:
    """The embedded default GGUF, assembled from the pinned wheels and SHA-256 checked."""
    from climedbench.models.default_model import default_model_path

    return default_model_path()


@pytest.fixture(scope="session")
def server_url(model_path: Path) -> Iterator[str]:
    """A real xllamacpp OpenAI-compatible server on 127.0.0.1 serving the default model."""
    from tests.support.llama_server import llama_server

    with llama_server(model_path, alias="qwen-test") as url:
        yield url


@pytest.fixture(scope="session")
def keyed_server_url(model_path: Path) -> Iterator[str]:
    """The same, requiring the API key 'sk-test-right-key-123'."""
    from tests.support.llama_server import llama_server

    with llama_server(model_path, api_key="sk-test-right-key-123", alias="qwen-test") as url:
        yield url


def run_async(coro):
    return asyncio.run(coro)
