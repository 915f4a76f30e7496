"""The options that choose an executor: `--executor`, `--ray-address`, `--workers`, `--shard-size` (apart from the
executors themselves, which import it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from climedbench.errors import ConfigError

ExecutorKind = Literal["local", "ray"]


@dataclass(frozen=True)
class ExecutorOptions:
    """`--executor`, `--ray-address`, `--workers`, `--shard-size`."""

    kind: ExecutorKind = "local"
    # None: start a private local Ray cluster; 'auto': the cluster `ray start` made on this machine;
    # 'HOST:PORT' or 'ray://HOST:PORT': a running cluster.
    address: str | None = None
    workers: int = 2
    # Items per unit of work handed to a worker (None: chosen from the plan size and the number of workers).
    shard_size: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("local", "ray"):
            raise ConfigError(f"--executor must be 'local' or 'ray', not {self.kind!r}")
        if self.workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {self.workers}")
        if self.shard_size is not None and self.shard_size < 1:
            raise ConfigError(f"--shard-size must be at least 1, not {self.shard_size}")
        if self.kind == "local" and self.address is not None:
            raise ConfigError("--ray-address needs --executor ray")
