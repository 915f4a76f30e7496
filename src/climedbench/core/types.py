"""The one typed schema every stage shares: items, problems, samples, figures, results and run specs.

Items come out of loaders; samples are the lines of `samples.jsonl`; `Results` is `results.json`;
`RunSpec` is `run.json`. Run, score, aggregate, report, IRT/CAT and the analyses all read and write
these types, never untyped dictionaries.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_serializer, model_validator

Split = Literal["test", "dev", "train"]
Gold = str | list[str] | None


class Item(BaseModel):
    """One benchmark item, parsed and checked: everything the prompt builder, extractor and metric need.

    The gold answer is held in the task's answer shape:
    `answer` — one letter, a sorted letter set, an order of letters, or one label (yes/no, a relation type);
    `targets` — a list (keywords, entity mentions, the labels of a multi-label item);
    `reference` — free text (a summary, a rebuttal, an explanation), or the record's original reference.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    task: str = Field(validation_alias=AliasChoices("task", "scenario"))
    split: Split = "test"
    input: str
    context: str | None = None
    options: dict[str, str] = Field(default_factory=dict)
    answer: str | None = None
    targets: list[str] | None = None
    reference: str = ""
    prompt: str | None = None
    rationale: str | None = None
    specialty: str | None = None
    source: str | None = None
    synthetic: bool | None = None
    # Items that share a source (one EHR cut into several scenarios, one record reused by built suites) declare the
    # same cluster: intervals then resample clusters, not items (climedbench.metrics.clustered).
    cluster: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    file: str = ""
    line: int = 0

    @property
    def letters(self) -> str:
        """The option letters in order, e.g. 'ABCDE'."""
        return "".join(self.options)

    @property
    def uid(self) -> str:
        """Unique key across tasks and splits."""
        return f"{self.task}/{self.split}/{self.id}"

    @property
    def gold(self) -> Gold:
        """The gold in the task's shape, as logged in samples.jsonl."""
        if self.answer is not None:
            return self.answer
        if self.targets is not None:
            return list(self.targets)
        return self.reference


class Problem(BaseModel):
    """An invalid record: where it is and what is wrong with it."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None
    field: str | None
    reason: str
    task: str | None = Field(default=None, validation_alias=AliasChoices("task", "scenario"))
    id: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        fld = f" field '{self.field}':" if self.field else ""
        return f"{where}:{fld} {self.reason}"


class Sample(BaseModel):
    """One line of samples.jsonl: what was asked, what came back, how it was read and scored."""

    model_config = ConfigDict(extra="allow")

    uid: str
    item_id: str
    task: str = Field(validation_alias=AliasChoices("task", "scenario"))
    prompt_hash: str | None = None
    request_key: str | None = None
    variant: str = "vanilla"
    raw: str | None = None
    gold: Any = None
    extracted: Any = None
    extraction_method: str | None = None
    extraction_failure: bool = False
    # Why no answer was read (the rule that decided: hedge, refusal-like no_answer, unterminated_reasoning, …).
    extraction_failure_reason: str | None = None
    # The judge's reply when `--extractor judge:MODEL` re-read a response the rules could not (see judge.py).
    judge_raw: str | None = None
    judge_error: str | None = None
    score: float = 0.0
    # Sufficient statistics for corpus-level aggregations (micro-F1 counts, BLEU n-gram counts).
    stats: list[float] | None = None
    # Per-item facts counted in results (wrong_option, follows_format, a task's own flags, ...).
    flags: dict[str, bool] = Field(default_factory=dict)
    # Other scores of the same answer that re-aggregation may choose (similarity_raw, similarity_rescaled).
    alternatives: dict[str, float] | None = None
    # Further metrics of the task (`also:` in the suite): metric name → {"score", "stats"}; and `strict`: the task's
    # metric on the answer the strict extraction pipeline reads → {"score", "stats", "method", "failed", and
    # "extracted" when it differs from `extracted`}.
    secondary: dict[str, dict[str, Any]] | None = None
    # A task may copy item fields into its samples (an answer the prompt showed: `shown_answer` in its metric
    # options); they are extra keys of the line.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency: float | None = None
    finish_reason: str | None = None
    attempts: int | None = None
    cached: bool = False
    error: str | None = None
    input_chars: int | None = None
    logprobs: dict[str, float] | None = None
    messages: list[dict[str, str]] | None = None
    # `--epochs K` (K > 1): which of the K answers to the item this is (1..K); None in a run of one epoch.
    epoch: int | None = None
    # The item's cluster (Item.cluster), when it declares one.
    cluster: str | None = None
    # sha256 of the gold as canonical JSON (climedbench.gold.target_hash): two runs share gold iff these agree.
    target_hash: str | None = None

    @property
    def key(self) -> str:
        """The sample's key in its run: the item's uid, with `#eK` for epoch K of a run of several epochs."""
        return sample_key(self.uid, self.epoch)

    def jsonl(self) -> str:
        """The samples.jsonl line (no trailing newline); optional extras that are unset are left out."""
        data = self.model_dump(mode="json")
        for key in _OMIT_IF_NONE:
            if data.get(key) is None:
                data.pop(key, None)
        return json.dumps(data, ensure_ascii=False)


_OMIT_IF_NONE = ("stats", "alternatives", "secondary", "logprobs", "messages", "judge_raw",
                 "judge_error", "extraction_failure_reason", "epoch", "cluster", "target_hash")


def sample_key(uid: str, epoch: int | None) -> str:
    """uid, or uid#eK for epoch K of a run of several epochs: what samples.jsonl is keyed by."""
    return uid if epoch is None else f"{uid}#e{epoch}"


class Figure(BaseModel):
    """One reported figure (×100): a task, a group or the overall score, with its interval and counts.

    Completeness (docs/RESULTS.md): `n` is the items the figure is about and `answered` those that got an answer
    (failed requests and items a stopped run never asked are the difference). `score` is computed on the answered
    items only, and `ci` is widened to cover every outcome the unanswered items could have; with no item answered
    `score` and `ci` are null and `note` says why. For groups and overall, `all_tasks` says whether every task of
    the group (of the suite) is present. `complete` is True only when every task is present AND every item
    answered. results.json files written before `answered` existed are read with answered = n − errors and their
    old `complete` (which meant "every task present") as `all_tasks`.
    """

    model_config = ConfigDict(extra="forbid")

    score: float | None = None
    ci: tuple[float, float] | None = None
    n: int | None = None
    answered: int | None = None
    metric: str
    aggregation: str | None = None
    # How `ci` was computed: jeffreys, shrunk-t, dirichlet (F1), bootstrap, "full range (n = 1)", or "mean of task
    # draws" for groups and overall; "…, widened for K unanswered" when items are missing.
    interval: str | None = None
    # Which variant of the metric the score is (similarity: 'raw' or 'rescaled').
    variant: str | None = None
    extraction_failures: int | None = None
    errors: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    tasks: list[str] | None = None
    all_tasks: bool | None = None
    complete: bool | None = None
    # Why there is no score (nothing answered), or what is missing.
    note: str | None = None
    predicted: bool = False
    # Further metrics of a task (`also:` in the suite), by metric name.
    secondary: dict[str, Figure] | None = None
    # `--epochs K`: how much the K answers to an item disagree (climedbench.epochs.generation_noise).
    generation_noise: dict[str, float] | None = None
    # Items in clusters: how many clusters, and the design effect the interval allowed for.
    clusters: int | None = None
    design_effect: float | None = None
    # The same figure from the strict extraction pipeline's readings (stated answers only; docs/REPORT.md).
    strict: Figure | None = None

    @model_validator(mode="before")
    @classmethod
    def _old_format(cls, data: Any) -> Any:
        """results.json before `answered`: answered = n − errors; old `complete` meant every task present."""
        if not isinstance(data, dict) or "answered" in data or data.get("n") is None or data.get("predicted"):
            return data
        data = dict(data)
        data["answered"] = max(0, int(data["n"]) - int(data.get("errors") or 0))
        if data.get("tasks") is not None and data.get("complete") is not None and "all_tasks" not in data:
            data["all_tasks"] = bool(data["complete"])
            data["complete"] = bool(data["complete"]) and data["answered"] == data["n"]
        return data

    @model_serializer(mode="wrap")
    def _keep_null_score(self, handler: Any) -> Any:
        """`score` is written even when null (exclude_none would drop it): a figure without a score says so."""
        out = handler(self)
        if isinstance(out, dict) and "score" not in out:
            out = {"score": None, **out}
        return out

    @property
    def incomplete(self) -> bool:
        """Some of the figure's items got no answer."""
        return self.answered is not None and self.n is not None and self.answered < self.n


class EndpointStats(BaseModel):
    """What one HTTP endpoint served during a run (or a shard of it): requests, errors, time, tokens, cost.

    Counters add up across workers and shards (`merge_endpoint_stats`); rates are derived from them.
    """

    model_config = ConfigDict(extra="forbid")

    # The endpoint's public URL (no credentials, no query string) or the name given in the endpoints file.
    endpoint: str
    weight: float = 1.0
    max_concurrency: int | None = None
    requests: int = 0  # HTTP attempts sent
    ok: int = 0
    errors: int = 0  # failed attempts (each retried elsewhere or later, or recorded on the sample)
    error_kinds: dict[str, int] = Field(default_factory=dict)  # 'timeout', 'connection', 'http_429', 'http_5xx', ...
    backoffs: int = 0  # times the endpoint was taken out of rotation after a failure
    slowdowns: int = 0  # times it was held to one request in flight for being much slower than the others
    latency_sum: float = 0.0  # seconds, over successful requests
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Derived when a run is written: ok / wall seconds of the run, mean latency of successful requests, cost.
    requests_per_second: float | None = None
    mean_latency: float | None = None
    cost_usd: float | None = None


def endpoint_stats_since(now: list[EndpointStats], before: list[EndpointStats]) -> list[EndpointStats]:
    """The counters added between two snapshots of the same endpoints (a backend shared by several runs)."""
    old = {e.endpoint: e for e in before}
    out = []
    for e in now:
        b = old.get(e.endpoint)
        if b is None:
            out.append(e.model_copy(deep=True))
            continue
        kinds = {k: v - b.error_kinds.get(k, 0) for k, v in e.error_kinds.items()}
        out.append(e.model_copy(update={
            "requests": e.requests - b.requests, "ok": e.ok - b.ok, "errors": e.errors - b.errors,
            "error_kinds": {k: v for k, v in kinds.items() if v}, "backoffs": e.backoffs - b.backoffs,
            "slowdowns": e.slowdowns - b.slowdowns, "latency_sum": e.latency_sum - b.latency_sum,
            "prompt_tokens": e.prompt_tokens - b.prompt_tokens,
            "completion_tokens": e.completion_tokens - b.completion_tokens}))
    return out


def merge_endpoint_stats(groups: list[list[EndpointStats]]) -> list[EndpointStats]:
    """Per-endpoint sums of several workers' or shards' counters, in order of first appearance."""
    out: dict[str, EndpointStats] = {}
    for group in groups:
        for e in group:
            acc = out.get(e.endpoint)
            if acc is None:
                out[e.endpoint] = e.model_copy(deep=True, update={"requests_per_second": None, "mean_latency": None,
                                                                  "cost_usd": None})
                continue
            acc.requests += e.requests
            acc.ok += e.ok
            acc.errors += e.errors
            for k, v in e.error_kinds.items():
                acc.error_kinds[k] = acc.error_kinds.get(k, 0) + v
            acc.backoffs += e.backoffs
            acc.slowdowns += e.slowdowns
            acc.latency_sum += e.latency_sum
            acc.prompt_tokens += e.prompt_tokens
            acc.completion_tokens += e.completion_tokens
    return list(out.values())


class ShardInfo(BaseModel):
    """Which part of a plan a run directory holds (`climedbench run --shard I/N`); see `climedbench merge`."""

    model_config = ConfigDict(extra="forbid")

    index: int  # 1..count
    count: int
    items: int  # items of this shard
    plan_items: int  # items of the whole plan
    plan_sha256: str  # sha256 of the whole plan's item order (uids)


class RunAccounting(BaseModel):
    """Items, tokens, time, retries, failures and cost of a run."""

    model_config = ConfigDict(extra="allow")

    items: int
    planned: int
    missing: int
    answered_now: int = 0
    resumed: int = 0
    cache_hits: int = 0
    failed: int = 0
    retried_now: int = 0
    wall_seconds: float = 0.0
    model_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_now: int = 0
    completion_tokens_now: int = 0
    cost_usd: float | None = None
    cost_usd_now: float | None = None
    prices_per_mtok: dict[str, float] | None = None
    stopped: str | None = None
    # How the items were executed this time: 'local', or 'ray (N workers)'.
    executor: str | None = None
    # Per HTTP endpoint: requests, errors, backoffs, throughput, latency, tokens and cost (HTTP backends only).
    endpoints: list[EndpointStats] | None = None
    # Run directories merged into this one (`climedbench merge`).
    merged_from: list[str] | None = None


class Results(BaseModel):
    """results.json: per task, per group and overall figures, plus accounting."""

    model_config = ConfigDict(extra="allow")

    model: str
    suite: str
    suite_version: str | None = None
    tasks: dict[str, Figure] = Field(default_factory=dict)
    groups: dict[str, Figure] = Field(default_factory=dict)
    overall: Figure | None = None
    run: RunAccounting | None = None
    published: bool = False
    published_source: str | None = None
    model_meta: dict[str, str] | None = None
    adaptive: bool = False
    # Adaptive runs: the ability estimate, its SE, the items asked and the CAT's own record.
    theta: float | None = None
    se: float | None = None
    n_items: int | None = None
    cat: dict[str, Any] | None = None
    rescored: dict[str, str] | None = None
    # {"samples_sha256", "results_sha256"}: what results.json was computed from, and its own content; a reader
    # recomputes the figures from samples.jsonl when either differs (climedbench.runcheck).
    integrity: dict[str, str] | None = None
    # `--epochs K` (K > 1): {"k": K, "reducer": name}; each task's `generation_noise` says how much the answers vary.
    epochs: dict[str, Any] | None = None

    def figures(self) -> dict[str, Figure]:
        """Every figure keyed by task code, group key, or 'overall'."""
        out = dict(self.tasks)
        out.update(self.groups)
        if self.overall is not None:
            out["overall"] = self.overall
        return out


class RunSpec(BaseModel):
    """run.json: everything needed to reproduce a run (identity keys must match to resume it)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["full", "adaptive"] = "full"
    climedbench_version: str | None = None
    suite: str = "climedbench"
    suite_version: str | None = None
    suite_source: str | None = Field(default=None, validation_alias=AliasChoices("suite_source", "suite_file"))
    data: str | None = None
    data_sha256: str | None = None
    data_sources: list[str] = Field(default_factory=list)
    tasks: list[str] = Field(default_factory=list, validation_alias=AliasChoices("tasks", "scenarios"))
    limit: int | None = None
    seed: int = 0
    prompt: dict[str, Any] = Field(default_factory=dict)
    mc_mode: str = "generate"
    generation: dict[str, Any] = Field(default_factory=dict)
    model_spec: str | None = None
    model: dict[str, Any] | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    limits: dict[str, Any] = Field(default_factory=dict)
    cache: str | None = None
    skip_invalid: bool = False
    invalid_skipped: int = 0
    n_items: int = 0
    # Items planned per task (of this shard): items a stopped run never asked count as unanswered in results.
    items_by_task: dict[str, int] | None = None
    # sha256 of the plan's item order (uids), and for `--shard I/N` which part of the plan this run holds.
    plan_sha256: str | None = None
    shard: ShardInfo | None = None
    # `--epochs K` (K > 1; None = one answer per item) and the reducer of the K scores of an item.
    epochs: int | None = None
    epoch_reducer: str | None = None
    # Where the items were executed the last time ('local', 'ray (N workers)'): not part of the run's identity.
    executor: str | None = None
    # HTTP endpoints (public URLs) the model was served from: not part of its identity (see docs/DISTRIBUTED.md).
    endpoints: list[str] | None = None
    # The --include-path (and $CLIMEDBENCH_INCLUDE_PATH) folders whose plug-ins the run imported: later commands on
    # the run (score, report, merge, …) import them again (climedbench.rescore.suite_of_run). Not its identity.
    include_path: list[str] | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    git_commit: str | None = None
    platform: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    status: str | None = None
    # Adaptive runs: the item bank and the CAT settings.
    bank: str | None = None
    bank_sha256: str | None = None
    cat: dict[str, Any] | None = None

    @property
    def model_name(self) -> str:
        return str((self.model or {}).get("model") or self.model_spec or "model")


class Rating(BaseModel):
    """One clinician rating (a row of `climedbench rate export`): a rater's score of one aspect of an item, or of
    one answer to it (answer studies; `answer` is its neutral number within the item, `model` is filled only in
    an unblinded export)."""

    model_config = ConfigDict(frozen=True)

    item: str
    answer: str = ""
    rater: str
    aspect: str
    score: float
    model: str | None = None
    task: str | None = None
    time: str | None = None

    @property
    def unit(self) -> str:
        """What agreement is computed over: the item's answer (by its number, else by its model) or the item."""
        if self.answer:
            return f"{self.item}#{self.answer}"
        return f"{self.item}@{self.model}" if self.model else self.item
