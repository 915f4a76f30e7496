"""None of the above (the paper's section 5, 'lack of innovative thinking').

`climedbench nota DATA --out DIR` writes a copy of the data in which the correct option of every
single-answer item reads "以上都不是" (None of the above); the key letter is unchanged. Comparing a run
on the original with a run on that copy shows how often a model still finds the right answer when it is
no longer written out, or instead settles for a plausible wrong option. Items whose correct option
already was a none-of-the-above option ("以上均不对") are left out: they did not change.
"""

from __future__ import annotations

from typing import Any

from climedbench.analyses.paired import drop_notes, paired_comparison, small_n_note
from climedbench.analyses.readability import mark, unreadable_counts
from climedbench.analyses.record import AnalysisRecord, Table, fmt_p
from climedbench.analyses.runs import Run
from climedbench.errors import ConfigError
from climedbench.perturb.nota_text import NOTA_TEXT, is_nota

__all__ = ["NOTA_TEXT", "TITLE", "analyze_nota", "is_nota"]

TITLE = "None of the above replaces the correct option"


def analyze_nota(original: Run, nota: Run, *, seed: int = 0, replicates: int = 2000) -> tuple[AnalysisRecord, Any]:
    suite = original.suite
    single = [t.code for t in suite.tasks if t.answer == "single"]
    codes = [c for c in single if c in set(original.tasks) & set(nota.tasks)]
    if not codes:
        raise ConfigError(f"{original.path} and {nota.path} share no single-answer task")
    notes: list[str] = []
    items = original.items
    keep: dict[str, list[str]] = {}
    already: dict[str, int] = {}
    for code in codes:
        uids = sorted(set(original.task_samples(code)) & set(nota.task_samples(code)))
        if items is None:
            keep[code] = uids
            continue
        changed = [u for u in uids if u in items and not is_nota(items[u].options.get(items[u].answer or "", ""))]
        already[code] = len(uids) - len(changed)
        keep[code] = changed
    if items is None:
        notes.append("The original data could not be read again, so items whose correct option already said "
                     "'none of the above' could not be left out.")
    rows, _ = paired_comparison(original, nota, codes, seed=seed, replicates=replicates, uids=keep)
    if not rows:
        raise ConfigError(f"{original.path} and {nota.path} share no answered single-answer item whose "
                          "correct option changed")
    wrong: dict[str, dict[str, int]] = {}
    for code in codes:
        s = nota.task_samples(code)
        uids = [u for u in keep.get(code, []) if u in s and not s[u].error]
        wrong[code] = {"n": len(uids), "picked_none_of_the_above": sum(1 for u in uids if s[u].score == 1.0),
                       "picked_another_option": sum(1 for u in uids if s[u].score != 1.0 and s[u].extracted),
                       "no_answer": sum(1 for u in uids if not s[u].extracted)}
    columns = ["task", "n", "original", "none_of_the_above", "difference", "lower", "upper", "p", "p_holm",
               "test", "picked_other_option_pct"]
    body = []
    for r in rows:
        w = wrong.get(r.key)
        other = round(100 * w["picked_another_option"] / w["n"], 1) if w and w["n"] else None
        body.append([r.key, r.n, r.a, r.b, r.difference, r.lower, r.upper, fmt_p(r.p), fmt_p(r.p_holm), r.test,
                     other])
    left_out = {c: n for c, n in already.items() if n}
    if left_out:
        notes.append("Left out because the correct option already said 'none of the above': "
                     + ", ".join(f"{c} {n}" for c, n in left_out.items()) + " item(s).")
    notes += ["Accuracy ×100; none_of_the_above = accuracy when the correct option reads 'None of the above' "
              "(the key letter is unchanged); p_holm adjusts all rows together.",
              "picked_other_option_pct: share of answers that chose one of the remaining (wrong) options."]
    notes += small_n_note(rows) + drop_notes(rows)
    record = AnalysisRecord(
        analysis="nota", title=TITLE, suite=suite.suite, inputs=[str(original.path), str(nota.path)],
        table=Table(columns=columns, rows=body), notes=notes,
        data={"model": nota.model, "answers": wrong, "already_none_of_the_above": already},
    )
    fig = _figure(rows)
    used = {r.key for r in rows if r.level == "task"}
    mark(record, fig, unreadable_counts([original, nota], used, {c: keep[c] for c in used if c in keep}))
    return record, fig


def _figure(rows: list[Any]) -> Any:
    from climedbench.analyses.figures import grouped_bars, pyplot

    plt = pyplot()
    tasks = [r for r in rows if r.level == "task"]
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(tasks) + 2), 4))
    grouped_bars(ax, [f"{r.key}\n(n={r.n})" for r in tasks],
                 {"original": ([r.a for r in tasks], [r.a_ci[0] for r in tasks], [r.a_ci[1] for r in tasks]),
                  "'None of the above' is correct": ([r.b for r in tasks], [r.b_ci[0] for r in tasks],
                                                     [r.b_ci[1] for r in tasks])},
                 "Accuracy when the correct option is replaced (95% intervals)", "accuracy (×100)")
    fig.tight_layout()
    return fig
