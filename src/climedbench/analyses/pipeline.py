"""`climedbench analyze all`: the paper's analysis set for one model against one data set, in one folder.

Runs (each an ordinary, resumable run directory under OUT/runs/, answers shared through the response cache):
vanilla on the chosen tasks; CoT on the suite's CoT tasks among them (`analyses.cot_tasks`; with --cot-shots N
as few-shot CoT, the examples showing their worked explanations); one run per
perturbation on a perturbed copy of the data (OUT/data/KIND/); one run on the none-of-the-above copy
(OUT/data/nota/) for the single-answer tasks. Every run uses the same items (same --limit and --seed),
and the same answer length except the CoT run. Then every analysis the runs support is written into OUT
with index.json (docs/ANALYSES.md); one that cannot be computed is listed under `skipped` with the reason,
and the others are still written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from climedbench.core.suite import Suite, load_suite
from climedbench.errors import ClimedError, ConfigError
from climedbench.executors import Executor, ExecutorOptions
from climedbench.models.registry import ModelOptions


@dataclass
class PipelineOptions:
    out: Path
    data: str | None = None
    suite: str | None = None
    tasks: list[str] | None = None
    model: str = "default"
    model_options: ModelOptions = field(default_factory=ModelOptions)
    limit: int | None = None
    max_tokens: int | None = None
    # Single-answer choice items of the non-CoT runs: 'generate' or 'logprob'; None: logprob on the bundled demo set
    mc_mode: str | None = None
    seed: int = 0
    cot_shots: int = 0
    rate: float = 0.12
    kinds: list[str] = field(default_factory=lambda: ["glyph", "homophone", "traditional", "symbol"])
    compare: list[Path] = field(default_factory=list)
    groups: dict[str, str] = field(default_factory=dict)
    ours: Path | None = None
    other: Path | None = None
    quiet: bool = False
    # Where the runs' items are answered (the same Ray workers serve every run of the pipeline).
    executor: ExecutorOptions = field(default_factory=ExecutorOptions)
    # Called as items finish in each run: (done, total, task code); (0, total, '') when a run starts.
    progress: Callable[[int, int, str], None] | None = None


def cot_tasks(suite: Suite, codes: list[str]) -> list[str]:
    """The tasks of the CoT comparison: those the suite names (`analyses: {cot_tasks: [...]}` in its YAML), else
    every task; of these, the selected ones with a CoT prompt."""
    wanted = suite.analyses.cot_tasks or codes
    return [c for c in codes if c in wanted and suite.task(c).prompt.cot is not None]


async def run_pipeline(opts: PipelineOptions, say: Callable[[str], None] | None = None,
                       backend: Any = None) -> dict[str, Any]:
    """Make the runs, then write every analysis and index.json into opts.out; returns the index."""
    from climedbench.models.registry import open_backend
    from climedbench.perturb.text import KINDS
    from climedbench.run.plan import DEMO_LIMIT, DEMO_MAX_TOKENS

    say = say or (lambda _msg: None)
    suite = load_suite(opts.suite)
    codes = [t.code for t in suite.select(opts.tasks)]
    bad = [k for k in opts.kinds if k not in KINDS]
    if bad:
        raise ConfigError(f"--kinds: unknown perturbation {bad[0]!r}; choose from {', '.join(KINDS)}")
    if (opts.ours is None) != (opts.other is None):
        raise ConfigError("the validity analysis needs both --ours and --other")
    demo = opts.data is None
    limit = opts.limit if opts.limit is not None else (DEMO_LIMIT if demo else 0)
    tokens = opts.max_tokens or (DEMO_MAX_TOKENS if demo else None)
    mc_mode = opts.mc_mode or ("logprob" if demo else "generate")  # a CoT run always generates
    opts.out.mkdir(parents=True, exist_ok=True)
    runs_dir, data_dir = opts.out / "runs", opts.out / "data"
    skipped: list[str] = []
    made: dict[str, Path] = {}
    from climedbench.executors import make_executor

    executor = make_executor(opts.executor)
    own = backend is None and opts.executor.kind == "local"  # Ray workers open their own models
    if own:
        say(f"loading model {opts.model}")
        backend = await open_backend(opts.model, opts.model_options)
    try:
        async def run(name: str, data: str | None, tasks: list[str], *, cot: bool = False) -> None:
            say(f"run {name}: {len(tasks)} task(s)")
            made[name] = await _run(opts, backend, executor, data, tasks, runs_dir / name, limit=limit,
                                    max_tokens=opts.max_tokens if cot else tokens, cot=cot,
                                    shots=opts.cot_shots if cot else 0, mc_mode="generate" if cot else mc_mode)

        await run("vanilla", opts.data, codes)
        cot_codes = cot_tasks(suite, codes)
        if cot_codes:
            await run("cot", opts.data, cot_codes, cot=True)
        else:
            skipped.append("cot: none of the chosen tasks has a chain-of-thought prompt")
        for kind in opts.kinds:
            try:
                folder = _perturbed(opts, suite, kind, data_dir / kind)
            except ClimedError as e:
                skipped.append(f"robustness ({kind}): {e}")
                continue
            await run(kind, str(folder), codes)
        single = [c for c in codes if suite.task(c).answer == "single"]
        if single:
            folder = _nota(opts, suite, data_dir / "nota")
            await run("nota", str(folder), single)
        else:
            skipped.append("nota: none of the chosen tasks has single-answer items")
    finally:
        if own:
            await backend.aclose()
        executor.close()
    return _analyses(opts, made, skipped, say)


async def _run(opts: PipelineOptions, backend: Any, executor: Executor, data: str | None, tasks: list[str],
               out: Path, *, limit: int, max_tokens: int | None, cot: bool, shots: int = 0,
               mc_mode: str = "generate") -> Path:
    from climedbench.run.driver import run_plan
    from climedbench.run.plan import RunOptions, plan_run

    ro = RunOptions(data=data, suite=opts.suite, model=opts.model, model_options=opts.model_options, tasks=tasks,
                    limit=limit, seed=opts.seed, cot=cot, shots=shots, max_tokens=max_tokens, out=str(out),
                    mc_mode=mc_mode)  # type: ignore[arg-type]
    plan = plan_run(ro)
    await run_plan(plan, backend=backend, executor=executor, progress=opts.progress)
    return out


def _same(manifest: Path, expected: dict[str, Any]) -> bool:
    try:
        m = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    return all(m.get(k) == v for k, v in expected.items())


def _perturbed(opts: PipelineOptions, suite: Suite, kind: str, folder: Path) -> Path:
    """The perturbed copy (made now, or reused when the folder holds the same one)."""
    from climedbench.data.loaders import DEMO_NAME
    from climedbench.perturb import PERTURB_MANIFEST, perturb_data

    expected = {"kind": kind, "rate": opts.rate, "seed": opts.seed, "source": opts.data or DEMO_NAME}
    if (folder / PERTURB_MANIFEST).exists() and _same(folder / PERTURB_MANIFEST, expected):
        return folder
    perturb_data(opts.data, folder, suite, kind=kind, rate=opts.rate, seed=opts.seed)
    return folder


def _nota(opts: PipelineOptions, suite: Suite, folder: Path) -> Path:
    from climedbench.data.loaders import DEMO_NAME
    from climedbench.perturb import NOTA_MANIFEST
    from climedbench.perturb.nota import nota_data

    if (folder / NOTA_MANIFEST).exists() and _same(folder / NOTA_MANIFEST, {"source": opts.data or DEMO_NAME}):
        return folder
    nota_data(opts.data, folder, suite)
    return folder


def _analyses(opts: PipelineOptions, made: dict[str, Path], skipped: list[str],
              say: Callable[[str], None]) -> dict[str, Any]:
    from climedbench.analyses.compare import analyze_compare, analyze_ranks
    from climedbench.analyses.cot import analyze_cot
    from climedbench.analyses.instruction import analyze_instruction
    from climedbench.analyses.length import analyze_length
    from climedbench.analyses.nota import analyze_nota
    from climedbench.analyses.record import write_record
    from climedbench.analyses.robustness import analyze_robustness
    from climedbench.analyses.runs import load_run, load_runs
    from climedbench.analyses.toxicity import analyze_toxicity
    from climedbench.analyses.validity import analyze_validity

    runs = {name: load_run(path) for name, path in made.items()}
    vanilla = runs["vanilla"]
    others = load_runs(opts.compare) if opts.compare else []
    perturbed = [runs[k] for k in opts.kinds if k in runs]
    entries: list[dict[str, Any]] = []
    seed = opts.seed

    def attempt(kind: str, build: Callable[[], tuple[Any, Any]]) -> None:
        say(f"analysis {kind}")
        try:
            record, fig = build()
        except ClimedError as e:
            skipped.append(f"{kind}: {e}")
            return
        files = write_record(record, opts.out, fig)
        entries.append({"kind": record.analysis, **files, "title": record.title})

    if "cot" in runs:
        attempt("cot", lambda: analyze_cot(vanilla, runs["cot"], seed=seed))
    attempt("length", lambda: analyze_length([vanilla, *others], groups=opts.groups, seed=seed,
                                             segments=min(10, _answered(vanilla))))
    if perturbed:
        attempt("robustness", lambda: analyze_robustness(vanilla, perturbed, seed=seed))
    if "nota" in runs:
        attempt("nota", lambda: analyze_nota(vanilla, runs["nota"], seed=seed))
    attempt("instruction", lambda: analyze_instruction([vanilla, *([runs["cot"]] if "cot" in runs else []),
                                                        *others]))
    if _labelled(vanilla):
        attempt("toxicity", lambda: analyze_toxicity([vanilla, *others]))
    else:
        skipped.append("toxicity: no item carries option_labels (docs/ANALYSES.md explains how to label items)")
    if others:
        attempt("compare", lambda: analyze_compare([vanilla, *others], seed=seed))
        attempt("ranks", lambda: analyze_ranks([vanilla, *others], seed=seed))
    else:
        skipped.append("compare, ranks: no other model's runs given (--compare RUN)")
    if opts.ours is not None and opts.other is not None:
        ours, other = opts.ours, opts.other

        def validity() -> tuple[Any, Any]:
            record, _, fig = analyze_validity(ours, other, seed=seed)
            return record, fig

        attempt("validity", validity)
    else:
        skipped.append("validity: no leaderboards given (--ours and --other)")
    index = {"analyses": entries, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
             "inputs": [str(p) for p in made.values()] + [str(p) for p in opts.compare],
             "model": vanilla.model, "data": vanilla.spec.data, "mc_mode": vanilla.spec.mc_mode, "skipped": skipped}
    (opts.out / "index.json").write_text(json.dumps(index, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return index


def _answered(run: Any) -> int:
    return sum(1 for s in run.samples.values() if not s.error and s.input_chars is not None)


def _labelled(run: Any) -> bool:
    items = run.items or {}
    return any("option_labels" in i.meta for i in items.values())
