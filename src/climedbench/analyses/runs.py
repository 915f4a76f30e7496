"""Run directories as the analyses read them: spec, suite, results and samples by item."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from climedbench.core.suite import Suite
from climedbench.core.types import Item, Results, RunSpec, Sample
from climedbench.data.loaders import LoadReport
from climedbench.errors import DataError


@dataclass
class Run:
    """One run directory, read once."""

    path: Path
    spec: RunSpec
    suite: Suite
    results: Results | None
    samples: dict[str, Sample] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return self.results.model if self.results is not None else self.spec.model_name

    @property
    def label(self) -> str:
        """How tables name the run: the model, and the folder when that is not obvious."""
        return f"{self.model} ({self.path.name})"

    @property
    def variant(self) -> str:
        return str(self.spec.prompt.get("variant", "vanilla"))

    def task_samples(self, code: str) -> dict[str, Sample]:
        return {uid: s for uid, s in self.samples.items() if s.task == code}

    @property
    def tasks(self) -> list[str]:
        """The tasks this run answered, in suite order."""
        present = {s.task for s in self.samples.values()}
        return [c for c in self.suite.codes if c in present]

    @cached_property
    def report(self) -> LoadReport | None:
        """The run's data read again (test and dev items); None when it is no longer where the run found it."""
        from climedbench.data.loaders import DEMO_NAME, load_items

        try:
            return load_items(None if self.spec.data == DEMO_NAME else self.spec.data, self.suite,
                              self.spec.tasks or None)
        except DataError:
            return None

    @property
    def items(self) -> dict[str, Item] | None:
        """The run's items by uid (None when its data cannot be read again)."""
        return {i.uid: i for i in self.report.items} if self.report is not None else None


def load_run(path: str | Path) -> Run:
    """Read a run directory; a DataError naming the file when it is not one or holds no samples."""
    from climedbench.epochs import reduce_epochs
    from climedbench.rescore import suite_of_run
    from climedbench.rundir import RunDir, iter_samples

    rd = RunDir(path)
    if not rd.run_file.exists():
        raise DataError(f"{rd.run_file}: not found (is {path} a climedbench run directory?)")
    spec = rd.read_spec()
    suite = suite_of_run(spec)
    results = rd.read_results() if rd.results_file.exists() else None
    # a run of several epochs: one sample per item, reduced as the run's figures are (climedbench.epochs)
    rows, _, _ = reduce_epochs(iter_samples(rd.samples_file), spec.epoch_reducer or "mean")
    samples = {s.uid: s for s in rows}
    if not samples:
        raise DataError(f"{rd.samples_file}: no samples (the run has not answered any item yet)")
    return Run(Path(path), spec, suite, results, samples)


def load_runs(paths: list[Path] | list[str]) -> list[Run]:
    """Several runs of one suite; a DataError when the suites differ."""
    runs = [load_run(p) for p in paths]
    names = {r.suite.suite for r in runs}
    if len(names) > 1:
        raise DataError(f"the runs are of different suites ({', '.join(sorted(names))}); compare runs of one suite")
    return runs


def shared_answered(a: Run, b: Run, code: str) -> tuple[list[str], int]:
    """Items of task `code` that both runs answered without a request error (sorted uids), and how many
    shared items were left out because one of the runs had an error on them."""
    sa, sb = a.task_samples(code), b.task_samples(code)
    shared = sorted(set(sa) & set(sb))
    ok = [u for u in shared if not sa[u].error and not sb[u].error]
    return ok, len(shared) - len(ok)
