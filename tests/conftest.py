"""Shared fixtures: the real embedded model, a real llama.cpp HTTP server, the suite."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

# BLAS on one thread in the tests and the commands they start (set before numpy loads OpenBLAS; a value set by the
# developer wins). The tests' matrices are small, and a second OpenBLAS thread spins while it waits: on the shared
# 2-core machine (load 12) tests/irt/test_calibrate.py and tests/cat/test_intervals.py took 32.7 CPU-s and 228 s
# with it, 9.8 CPU-s and 87 s without (docs/PERFORMANCE.md, "The test suite's time").
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest

from climedbench.core.suite import Suite, load_suite

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
OFFICIAL = FIXTURES / "official_examples.json"


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never read or fill the user's response cache (child processes inherit the variable)."""
    old = os.environ.get("CLIMEDBENCH_CACHE")
    os.environ["CLIMEDBENCH_CACHE"] = str(tmp_path_factory.mktemp("cache") / "responses.sqlite")
    yield
    if old is None:
        os.environ.pop("CLIMEDBENCH_CACHE", None)
    else:
        os.environ["CLIMEDBENCH_CACHE"] = old


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


@pytest.fixture(scope="session")
def _deidentified_build_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`climedbench deid` of the build tests' development records, run once per session: a de-identification
    loads presidio and spaCy (about 9 CPU-seconds), and four test modules build from the same records."""
    from tests.support.build_notes import deidentified_records

    return deidentified_records(tmp_path_factory.mktemp("deid") / "notes")


@pytest.fixture(scope="module")
def build_notes(_deidentified_build_records: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The de-identified development records (tests/fixtures/build), a copy of their own for each test module."""
    out = tmp_path_factory.mktemp("deid") / "notes"
    shutil.copytree(_deidentified_build_records, out)
    return out


def run_async(coro):
    return asyncio.run(coro)


# The longest test files first (longest-processing-time-first): with `-n 2 --dist loadfile` each worker takes whole
# files, and a long file started last leaves the other worker idle at the end. Seconds per file of a parallel run
# with --junitxml (2026-11-29, loaded machine, 3,711 s of tests in all): test_faults 352, test_llama_determinism 344,
# test_run_e2e 301, test_errors 158, test_build_scenarios_more 157, test_lint 156, test_build_review_audit 130,
# test_epochs 114, test_rapid_assessment 109, analyses/test_all_e2e 109, test_build_e2e 96, test_rundir_integrity 96,
# distributed/test_ray_executor 92. Within a file the order is unchanged.
LONGEST_FIRST = ("test_faults.py", "test_llama_determinism.py", "test_run_e2e.py", "test_errors.py",
                 "test_build_scenarios_more.py", "test_lint.py", "test_build_review_audit.py", "test_epochs.py",
                 "test_rapid_assessment.py", "analyses/test_all_e2e.py", "test_build_e2e.py",
                 "test_rundir_integrity.py", "distributed/test_ray_executor.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next((i for i, name in enumerate(LONGEST_FIRST) if path.endswith("/tests/" + name)), len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: the other files, and the tests inside each file, keep their order
