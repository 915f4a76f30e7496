"""A run's test items out of memory: spooled, one temporary file per task, as they are read, and read back lazily
each time the plan's requests are iterated, so a run's memory does not grow with its number of items.

Items are pickled (an exact round trip of every field, `meta` included); the folder is removed when the spool is
closed or garbage-collected."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from climedbench.core.suite import Suite
from climedbench.core.types import Item
from climedbench.data.hashing import DataHash
from climedbench.data.loaders import LoadReport, iter_items


class ItemSpool:
    """Test items per task, in the order they were added."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="climedbench-plan-")
        self._paths: dict[str, Path] = {}
        self._writers: dict[str, BinaryIO] = {}
        self.counts: dict[str, int] = {}

    def add(self, item: Item) -> None:
        fh = self._writers.get(item.task)
        if fh is None:
            path = self._paths[item.task] = Path(self._dir.name) / f"{len(self._paths)}.pickle"
            fh = self._writers[item.task] = path.open("wb")
        pickle.dump(item, fh, protocol=pickle.HIGHEST_PROTOCOL)
        self.counts[item.task] = self.counts.get(item.task, 0) + 1

    def seal(self) -> None:
        """Done adding: flush the files so they can be read."""
        for fh in self._writers.values():
            fh.close()
        self._writers.clear()

    def items(self, task: str, keep: frozenset[int] | None = None) -> Iterator[Item]:
        """The task's items in order; with `keep`, only those at these positions."""
        path = self._paths.get(task)
        if path is None:
            return
        with path.open("rb") as fh:
            for position in range(self.counts[task]):
                item = pickle.load(fh)
                if keep is None or position in keep:
                    yield item

    def close(self) -> None:
        self.seal()
        self._dir.cleanup()


def spool_items(path: str | Path | None, suite: Suite,
                tasks: list[str]) -> tuple[LoadReport, ItemSpool, str, list[Item]]:
    """Read and check the items of `tasks` under `path` once, as a stream: the test items go to a spool, the others
    (the shots' pool) to the report; also the data's hash (run.json's data_sha256, over every item in file order)
    and each task's first test and first other item (the ones run.check renders)."""
    report, spool, digest = LoadReport(), ItemSpool(), DataHash()
    firsts: dict[tuple[str, bool], Item] = {}
    for item in iter_items(path, suite, tasks, report):
        digest.add(item)
        firsts.setdefault((item.task, item.split == "test"), item)
        if item.split == "test":
            spool.add(item)
        else:
            report.items.append(item)
    spool.seal()
    return report, spool, digest.hexdigest(), list(firsts.values())
