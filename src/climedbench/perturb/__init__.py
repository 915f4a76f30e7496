"""Perturbed and none-of-the-above copies of an item set, in the format it came in.

`perturb_data` (climedbench perturb) changes a share of the Han characters of every record's input
(climedbench.perturb.text); `nota_data` (climedbench nota) replaces the text of the correct option of every
single-answer item by "None of the above" (climedbench.perturb.nota). Both write a manifest beside the
data (a hidden file, so loaders skip it) and check that the copy loads to the same items, ids, answers
and references.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from climedbench.core.suite import Suite
from climedbench.data.loaders import DEMO_NAME, LoadReport, demo_dir, load_items
from climedbench.errors import ConfigError, DataError

PERTURB_MANIFEST = ".perturbation.json"
NOTA_MANIFEST = ".nota.json"


def source_folder(data: str | None, suite: Suite) -> Path:
    """The data to copy: a file or folder, or the suite's bundled demo set when None."""
    return demo_dir(suite) if data is None else Path(data).expanduser()


def perturb_data(data: str | None, out: Path, suite: Suite, *, kind: str, rate: float, seed: int) -> dict[str, Any]:
    """Write a perturbed copy of `data` into `out`; returns the manifest."""
    from climedbench.perturb.files import RecordRef, rewrite_tree
    from climedbench.perturb.tables import versions
    from climedbench.perturb.text import KINDS, perturb_record

    if kind not in KINDS:
        raise ConfigError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not 0 < rate <= 1:
        raise ConfigError(f"--rate must be in (0, 1], not {rate}")
    src = source_folder(data, suite)
    before = _load(src, data, suite)
    totals = {"records": 0, "eligible": 0, "target": 0, "changed": 0}
    by_kind: dict[str, int] = {}

    def edit(record: dict[str, Any], ref: RecordRef) -> dict[str, Any]:
        new, outcome = perturb_record(record, kind, rate, seed, ref.key, suite.sections.keep)
        totals["records"] += 1
        totals["eligible"] += outcome.eligible
        totals["target"] += outcome.target
        totals["changed"] += outcome.changed
        for k, v in outcome.by_kind.items():
            by_kind[k] = by_kind.get(k, 0) + v
        return new

    files = rewrite_tree(src, out, edit)
    if totals["eligible"] == 0:
        raise ConfigError(f"{data or DEMO_NAME}: no Han characters to perturb in the inputs (the perturbations are "
                          "for Chinese text)")
    after = _load(out, str(out), suite)
    verify_same_items(before, after, out, shown_fields(suite))
    kept = "".join(f"the {name} section, " for name in suite.sections.keep)
    manifest = {
        "kind": kind, "rate": rate, "seed": seed, "source": data or DEMO_NAME,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "records": totals["records"], "eligible_han_chars": totals["eligible"], "target_changes": totals["target"],
        "changed": totals["changed"], "by_kind": by_kind,
        "achieved_rate": round(totals["changed"] / totals["eligible"], 4),
        "files": files, "tables": versions(),
        "never_changed": f"section headers, {kept}non-Han characters (option letters, digits, Latin "
                         "units), Han numerals and the word after a number; ids, answers, references",
    }
    (out / PERTURB_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return manifest


def _load(path: Path, shown: str | None, suite: Suite) -> LoadReport:
    report = load_items(path, suite)
    if report.problems:
        first = report.problems[0]
        raise DataError(f"{first} ({len(report.problems)} invalid record(s) in {shown or DEMO_NAME}; "
                        "`climedbench validate` lists them)")
    return report


def shown_fields(suite: Suite) -> tuple[str, ...]:
    """The item fields holding an answer a prompt shows (the tasks' `shown_answer`): a copy must keep them."""
    return tuple(sorted({t.shown_answer[0] for t in suite.tasks if t.shown_answer}))


def verify_same_items(before: LoadReport, after: LoadReport, out: Path, fields: tuple[str, ...] = ()) -> None:
    """The copy must load to the same items with the same ids, splits, answers, references, option letters and
    shown answers (`fields` of the items' meta)."""
    a = {i.uid: i for i in before.items}
    b = {i.uid: i for i in after.items}
    if set(a) != set(b):
        missing = sorted(set(a) - set(b))[:3]
        raise DataError(f"{out}: the copy does not load to the same items (missing: {', '.join(missing)}); "
                        "please report this with the input file")
    for uid, item in a.items():
        other = b[uid]
        pairs = [(name, getattr(item, name), getattr(other, name)) for name in ("answer", "targets", "reference")]
        pairs += [(name, item.meta.get(name), other.meta.get(name)) for name in fields]
        for name, was, now in pairs:
            if was != now:
                raise DataError(f"{other.file}:{other.line}: field '{name}': changed by the copy "
                                f"({was!r} → {now!r}); please report this")
        if item.letters != other.letters:
            raise DataError(f"{other.file}:{other.line}: field 'options': letters {item.letters} became "
                            f"{other.letters} in the copy; please report this")
