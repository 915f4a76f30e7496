"""The generic core knows no benchmark: outside src/climedbench/suites/ no source file names a task of a bundled
suite or imports a bundled suite's code, and a suite must declare its language (no language is assumed)."""

import re
from pathlib import Path

import pytest
import yaml

from climedbench.core.suite import parse_suite
from climedbench.errors import ConfigError

from .conftest import ROOT

PACKAGE = ROOT / "src" / "climedbench"
SUITES = PACKAGE / "suites"
# The one place that lists what ships: core/suite.py names the bundled suites and finds their folders, and
# core/registry.py lists the built-in modules to import (the bundled suites' loaders among them). Nothing else
# may reach into a suite.
MAY_IMPORT_SUITES = {"core/suite.py", "core/registry.py"}
IMPORT = re.compile(r"climedbench\.suites\b|from \.+suites\b")


def _codes() -> list[str]:
    """Every task code of the bundled suites, read from their suite.yaml files."""
    codes: list[str] = []
    for path in sorted(SUITES.glob("*/suite.yaml")):
        codes += [t["code"] for t in yaml.safe_load(path.read_text(encoding="utf-8"))["tasks"]]
    return codes


def _core_files() -> list[Path]:
    out = []
    for p in sorted(PACKAGE.rglob("*")):
        rel = p.relative_to(PACKAGE)
        if p.is_file() and rel.parts[0] != "suites" and "__pycache__" not in rel.parts:
            out.append(p)
    return out


def _text(p: Path) -> str | None:
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # binary assets (fonts, model weights)


def test_the_bundled_suites_are_found():
    codes = _codes()
    assert len(codes) == 14 + 17 and {"ID#1", "MedQA"} <= set(codes)
    assert len(_core_files()) > 100


def test_no_core_file_names_a_task_of_a_bundled_suite():
    codes = _codes()
    # A code as a whole token: not inside a longer name ('CS' in 'CSV', 'DS' in 'DS-1000', 'ID#1' in 'ID#12').
    token = re.compile(r"(?<![\w#-])(?:" + "|".join(re.escape(c) for c in sorted(codes, key=len, reverse=True))
                       + r")(?![\w#-])")
    found = []
    for p in _core_files():
        text = _text(p)
        for n, line in enumerate((text or "").splitlines(), 1):
            if m := token.search(line):
                found.append(f"{p.relative_to(PACKAGE)}:{n}: {m.group(0)}")
    assert found == []


def test_no_core_file_imports_a_bundled_suite():
    found = []
    for p in _core_files():
        rel = p.relative_to(PACKAGE).as_posix()
        text = _text(p)
        if rel in MAY_IMPORT_SUITES or text is None:
            continue
        found += [f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1) if IMPORT.search(line)]
    assert found == []


def test_a_suite_without_a_language_is_refused_naming_the_field():
    with pytest.raises(ConfigError, match=r"^mine\.yaml: language: Field required"):
        parse_suite('suite: s\nversion: "1"\ntitle: S\ntasks:\n  - {code: q, name: {en: Q}, answer: text, '
                    "metric: rougeL}\n", "mine.yaml")


def test_fits_misleading_reference_is_suite_data_and_scores_as_before():
    """CliMedBench's FIT declares its shown answer in its suite.yaml; an answer repeating it is flagged, the key
    is not (the flag and the sample field keep their names: results stay the same)."""
    from climedbench.core.suite import load_suite
    from climedbench.data.loaders import load_items
    from climedbench.scoring import Scorer, shown_answer_of

    suite = load_suite("climedbench")
    fit = suite.task("FIT")
    assert fit.shown_answer == ("misleading_answer", "repeated_misleading")
    assert [t.code for t in suite.tasks if t.shown_answer] == ["FIT"]
    items = load_items(None, suite, ["FIT"]).tests()
    scorer = Scorer(language=suite.language)
    for item in items:
        shown = item.meta["misleading_answer"]
        assert shown in item.options and shown != item.answer
        assert shown_answer_of(fit, item) == {"misleading_answer": shown}
        assert scorer.score(fit, item, f"答案：{shown}").flags["repeated_misleading"] is True
        assert scorer.score(fit, item, f"答案：{item.answer}").flags["repeated_misleading"] is False
