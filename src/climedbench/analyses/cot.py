"""Chain-of-thought vs vanilla prompts (the paper's Fig. 5): paired differences per task, and prompt lengths.

Two runs of one model on the same items, one with the vanilla prompts and one with `--cot` (the
scenario-tailored chain-of-thought instructions of the suite). Per task: both scores, the paired
difference CoT − vanilla with its 95% interval, the paired test and the Holm-adjusted p-value; and how
much longer the CoT prompt is (the paper: the few-shot CoT prompt averages 4.987× the vanilla one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from climedbench.analyses.figures import score_floor
from climedbench.analyses.paired import drop_notes, paired_comparison, paired_table, small_n_note
from climedbench.analyses.readability import mark, unreadable_counts
from climedbench.analyses.record import AnalysisRecord, Table
from climedbench.analyses.runs import Run
from climedbench.errors import ConfigError

TITLE = "Chain-of-thought vs vanilla prompts"


def prompt_chars(run: Run, uids: list[str]) -> dict[str, int]:
    """The length in characters of the exact messages each item was asked with (rebuilt from the run's data
    and prompt settings; empty when the data cannot be read again)."""
    from climedbench.prompts import PromptSettings, build_messages, pick_shots

    report = run.report
    if report is None:
        return {}
    items = {i.uid: i for i in report.items}
    shots = int(run.spec.prompt.get("shots", 0) or 0)
    settings = PromptSettings(variant=run.variant, shots=shots,  # type: ignore[arg-type]
                              item_prompts=bool(run.spec.prompt.get("item_prompts", False)))
    devs = report.devs()
    out: dict[str, int] = {}
    shot_cache: dict[str, Any] = {}
    for uid in uids:
        item = items.get(uid)
        if item is None:
            continue
        task = run.suite.task(item.task)
        if task.code not in shot_cache:
            shot_cache[task.code] = pick_shots(task, devs, shots)
        messages = build_messages(task, item, shot_cache[task.code], settings, run.suite)
        out[uid] = sum(len(m["content"]) for m in messages)
    return out


def _mean_tokens(run: Run, uids: list[str]) -> float | None:
    values = [float(run.samples[u].prompt_tokens or 0) for u in uids if run.samples[u].prompt_tokens]
    return float(np.mean(values)) if values else None


def analyze_cot(vanilla: Run, cot: Run, *, seed: int = 0, replicates: int = 2000,
                tasks: list[str] | None = None) -> tuple[AnalysisRecord, Any]:
    """The record and figure of the CoT analysis."""
    if vanilla.variant == cot.variant:
        raise ConfigError(f"{vanilla.path} and {cot.path} both use the {vanilla.variant!r} prompt; give a vanilla "
                          "run first and a run made with --cot second")
    if vanilla.variant == "cot" and cot.variant == "vanilla":
        raise ConfigError(f"{vanilla.path} is the --cot run: give the vanilla run first (analyze cot VANILLA COT)")
    if cot.variant != "cot":
        raise ConfigError(f"{cot.path} was not made with --cot (its prompt variant is {cot.variant!r})")
    rows, pairs = paired_comparison(vanilla, cot, tasks, seed=seed, replicates=replicates)
    if not rows:
        raise ConfigError(f"{vanilla.path} and {cot.path} share no answered items; run both on the same data, "
                          "tasks, --limit and --seed")
    columns, body = paired_table(rows, "vanilla", "cot")
    columns += ["prompt_vanilla", "prompt_cot", "prompt_ratio"]
    lengths: dict[str, dict[str, Any]] = {}
    unit = "tokens"
    for row, line in zip(rows, body, strict=True):
        pair = pairs.get(row.key)
        if pair is None:  # group and overall rows
            line += [None, None, None]
            continue
        tv, tc = _mean_tokens(vanilla, pair.uids), _mean_tokens(cot, pair.uids)
        cv, cc = prompt_chars(vanilla, pair.uids), prompt_chars(cot, pair.uids)
        chars_v = float(np.mean(list(cv.values()))) if cv else None
        chars_c = float(np.mean(list(cc.values()))) if cc else None
        lengths[row.key] = {"tokens_vanilla": tv, "tokens_cot": tc, "chars_vanilla": chars_v, "chars_cot": chars_c}
        v, c = (tv, tc) if tv and tc else (chars_v, chars_c)
        if not (tv and tc):
            unit = "characters"
        line += [round(v, 1) if v else None, round(c, 1) if c else None,
                 round(c / v, 3) if v and c else None]
    ratios: list[float] = [line[-1] for line, r in zip(body, rows, strict=True) if r.level == "task" and line[-1]]
    notes = [
        f"Model: {cot.model} (vanilla run {vanilla.path.name}, CoT run {cot.path.name}); difference = CoT − vanilla, "
        "×100, on the items both runs answered.",
        "p: McNemar exact for accuracy, Wilcoxon signed-rank for graded scores; p_holm adjusts all rows together "
        "(Holm).",
        f"Prompt length is the mean prompt in {unit} per item"
        + (f"; the CoT prompt is {np.mean(ratios):.2f}× the vanilla one on average over tasks" if ratios else "")
        + f" (shots: vanilla {vanilla.spec.prompt.get('shots', 0)}, CoT {cot.spec.prompt.get('shots', 0)}).",
    ]
    if vanilla.spec.mc_mode != cot.spec.mc_mode:
        notes.append(f"Single-answer items were answered differently: vanilla with --mc-mode {vanilla.spec.mc_mode}, "
                     f"CoT with --mc-mode {cot.spec.mc_mode} (a CoT answer is always generated), so the difference "
                     "mixes the prompt and the way the answer was read.")
    if vanilla.model != cot.model:
        notes.append(f"The runs are of different models ({vanilla.model} vs {cot.model}): the difference mixes "
                     "model and prompt.")
    notes += small_n_note(rows) + drop_notes(rows)
    record = AnalysisRecord(
        analysis="cot", title=TITLE, suite=vanilla.suite.suite, inputs=[str(vanilla.path), str(cot.path)],
        table=Table(columns=columns, rows=body), notes=notes,
        data={"model": cot.model, "prompt_lengths": lengths, "prompt_unit": unit,
              "mc_mode": {"vanilla": vanilla.spec.mc_mode, "cot": cot.spec.mc_mode},
              "discordant": {r.key: {"vanilla_only": r.a_only, "cot_only": r.b_only} for r in rows
                             if r.a_only is not None}},
    )
    shown = {r.key for r in rows if r.level == "task"}
    fig = _figure(rows, cot.model, score_floor(vanilla.suite.task(c) for c in shown))
    mark(record, fig, unreadable_counts([vanilla, cot], shown, {c: p.uids for c, p in pairs.items()}))
    return record, fig


def _figure(rows: list[Any], model: str, floor: float = 0.0) -> Any:
    from climedbench.analyses.figures import forest, grouped_bars, pyplot

    plt = pyplot()
    tasks = [r for r in rows if r.level == "task"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    labels = [r.key for r in tasks]
    grouped_bars(left, labels, {"vanilla": ([r.a for r in tasks], [r.a_ci[0] for r in tasks],
                                            [r.a_ci[1] for r in tasks]),
                                "CoT": ([r.b for r in tasks], [r.b_ci[0] for r in tasks], [r.b_ci[1] for r in tasks])},
                 f"{model}: score by prompt (95% intervals)", "score (×100)", floor)
    forest(right, [f"{r.key} (n={r.n})" for r in rows], [r.difference for r in rows], [r.lower for r in rows],
           [r.upper for r in rows], "CoT − vanilla, 95% paired interval", "difference (points)")
    fig.tight_layout()
    return fig
