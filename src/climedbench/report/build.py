"""Build the HTML report's content from run directories, published results and an analyses folder.

Data flows one way: run directories → `Run` (analyses.runs) → leaderboard, charts, samples, details
(`climedbench.report.page` types) → `ReportPage` → `render.write_html`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from climedbench import __version__
from climedbench.analyses.runs import Run
from climedbench.core.suite import Suite
from climedbench.core.types import Results
from climedbench.errors import ConfigError
from climedbench.report.page import ReportPage, SampleBrowser
from climedbench.report.published import published_results

BLOCK_SIZE = 100  # items per compressed block of the sample browser


def languages_of(suite: Suite) -> list[str]:
    """The suite's language first, and the other one when some task or group is named differently in it."""
    other = "en" if suite.language == "zh" else "zh"
    keys = [*suite.groups, *suite.codes]
    differ = any(suite.name(k, "zh") != suite.name(k, "en") for k in keys)
    return [suite.language, other] if differ and suite.language in ("zh", "en") else [suite.language]


def results_of(run: Run) -> Results:
    """results.json when it still describes samples.jsonl, else figures computed from the samples (an interrupted
    run, an edited or stale results.json: climedbench.runcheck)."""
    from climedbench.runcheck import checked_results

    return checked_results(run.path, spec=run.spec, suite=run.suite, samples=run.samples.values())


def build_page(paths: list[Path], *, analyses: Path | None = None,
               published: Mapping[str, Results] | None = None, paper: bool = False, setting: str | None = None,
               from_csv: Path | None = None, seed: int = 0, block_size: int = BLOCK_SIZE,
               level: int = 6, with_samples: bool = True) -> ReportPage:
    """Everything the page shows. `published` (already read) and `paper`/`from_csv` add published rows; without
    `with_samples` the sample browser is left out (a page small enough to e-mail for any run size)."""
    from climedbench.report.analyses import read_analyses

    if not paths:
        raise ConfigError("give at least one run directory")
    # Inputs that can be wrong are read first, so a mistake is reported before the slow parts.
    views, analysis_notes = read_analyses(analyses) if analyses is not None else ([], [])
    from climedbench.analyses.runs import load_runs
    from climedbench.report.charts import build_charts
    from climedbench.report.details import run_details
    from climedbench.report.leaderboard import build_leaderboard, display_names, run_info
    from climedbench.report.samples import build_samples

    runs = load_runs(paths)
    suite = runs[0].suite
    pub = dict(published or {})
    pub.update(published_results(suite, paper=paper, setting=setting, from_csv=from_csv))
    results = [results_of(r) for r in runs]
    infos = [run_info(r, f"r{i}", name) for i, (r, name) in enumerate(zip(runs, display_names(runs), strict=True))]
    board = build_leaderboard(runs, infos, results, pub, suite, seed=seed)
    languages = languages_of(suite)
    charts = build_charts(suite, board, languages)
    if with_samples:
        samples = build_samples(runs, infos, suite, block_size=block_size, level=level)
    else:
        samples = SampleBrowser(runs=infos, tasks=[], chunks={},
                                notes=["The sample browser was left out of this page (--no-samples)."])
    details = []
    for run, info, res in zip(runs, infos, results, strict=True):
        notes = [n for n in samples.notes if n.startswith(f"{run.path}:")]
        if run.results is None:
            notes.append("results.json is missing (the run did not finish); its figures were computed from "
                         "samples.jsonl.")
        else:
            from climedbench.runcheck import mismatch
            from climedbench.rundir import RunDir

            problem = mismatch(RunDir(run.path), run.results)
            if problem is not None:
                notes.append(f"results.json {problem}; its figures were computed from samples.jsonl.")
        details.append(run_details(run, info, res if run.results is not None else None, notes))
    return ReportPage(title=f"{suite.title} report", suite=suite.suite, suite_title=suite.title,
                      language=languages[0], languages=languages,
                      generated_at=datetime.now(UTC).isoformat(timespec="seconds"), version=__version__,
                      leaderboard=board, charts=charts, analyses=views, analyses_notes=analysis_notes,
                      samples=samples, details=details)
