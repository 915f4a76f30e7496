"""The typed content of the HTML report: what the builders produce and the template renders.

Every text field here is plain text; the template escapes it (Jinja autoescape) or passes it to the page's
script as JSON (`tojson`, which escapes `<`, `>` and `&`). Only `Chart.svg` holds markup, and that markup has
been through `climedbench.report.svg.sanitize_svg`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Label(BaseModel):
    """A display name in Chinese and English (either may repeat the other when a suite gives only one)."""

    zh: str
    en: str

    @classmethod
    def same(cls, text: str) -> Label:
        return cls(zh=text, en=text)


class RunInfo(BaseModel):
    """Who a run was: enough to tell runs apart in the leaderboard and the sample browser."""

    key: str  # "r0", "r1", … (stable within one report)
    name: str  # unique display name
    model: str
    backend: str | None = None
    variant: str = "vanilla"
    mc_mode: str = "generate"  # 'logprob': single-answer items read from the first token's log-probabilities
    shots: int = 0
    date: str | None = None
    data: str | None = None
    data_sha256: str | None = None
    path: str
    adaptive: bool = False


class Cell(BaseModel):
    """One leaderboard figure (×100), with its 95% interval and item count when known."""

    score: float | None = None
    lower: float | None = None
    upper: float | None = None
    n: int | None = None
    answered: int | None = None  # set when fewer than n items were answered
    mark: str = ""  # '†' unanswered items, '*' partial (see climedbench.report.marks)
    note: str | None = None  # why there is no score
    strict: Cell | None = None  # the same figure by the strict extraction pipeline (stated answers only)


class Column(BaseModel):
    """A leaderboard score column: overall, a group (any level) or a task."""

    key: str
    kind: Literal["overall", "group", "task"]
    label: Label
    title: Label  # the longer name shown on hover
    metric: str | None = None


class RankInterval(BaseModel):
    rank: int
    lower: int
    upper: int


class Row(BaseModel):
    """One leaderboard row: a run of ours, or a published result."""

    key: str
    name: str
    published: bool = False
    source: str | None = None
    meta: dict[str, str] = Field(default_factory=dict)
    run: RunInfo | None = None
    cells: dict[str, Cell] = Field(default_factory=dict)
    rank: RankInterval | None = None


class Leaderboard(BaseModel):
    columns: list[Column]
    rows: list[Row]
    notes: list[str] = Field(default_factory=list)


class Chart(BaseModel):
    """A figure: sanitised inline SVG per language (the same markup twice when labels do not differ)."""

    id: str
    title: Label
    svg: dict[str, str]  # language → sanitised SVG markup
    caption: Label | None = None


class AnalysisView(BaseModel):
    """One analysis record of `--analyses DIR` (docs/ANALYSES.md), ready to display."""

    kind: str
    file: str
    title: str
    created_at: str | None = None
    inputs: list[str] = Field(default_factory=list)
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = Field(default_factory=list)
    svg: str | None = None  # sanitised markup of the figure of the same stem


class ErrorCount(BaseModel):
    message: str
    count: int
    items: list[str]  # the first few item ids


class RunDetails(BaseModel):
    """Reproducibility, accounting and errors of one run."""

    run: RunInfo
    spec_json: str  # run.json, pretty-printed (secrets redacted)
    accounting: list[tuple[str, str]]
    errors: list[ErrorCount] = Field(default_factory=list)
    skipped: int = 0
    notes: list[str] = Field(default_factory=list)


class SampleTask(BaseModel):
    """A task in the sample browser: its index chunk and text blocks (ids of inline data elements)."""

    code: str
    label: Label
    metric: str
    n: int
    index: str
    blocks: list[str]
    block_size: int


class SampleBrowser(BaseModel):
    """The sample browser: tasks with the ids of their compressed chunks, and the chunks themselves."""

    runs: list[RunInfo]
    tasks: list[SampleTask]
    chunks: dict[str, str]  # element id → base64 of gzip of UTF-8 JSON
    raw_bytes: int = 0  # total size of the JSON before compression
    notes: list[str] = Field(default_factory=list)


class ReportPage(BaseModel):
    title: str
    suite: str
    suite_title: str
    language: str
    languages: list[str]
    generated_at: str
    version: str
    leaderboard: Leaderboard
    charts: list[Chart] = Field(default_factory=list)
    analyses: list[AnalysisView] = Field(default_factory=list)
    analyses_notes: list[str] = Field(default_factory=list)
    samples: SampleBrowser
    details: list[RunDetails] = Field(default_factory=list)
