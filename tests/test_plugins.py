"""User plug-ins (docs/SUITES.md, "Plug-ins"): an installed package's entry point, a suite's `plugins:` list and
`--include-path DIR` register a hospital's own metric, extractor, loader and aggregation, which a real run (the
instant OpenAI-compatible server) then uses; a plug-in that fails, a name registered twice and an unknown name
each end in one clear line."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from tests.support.cli import run_cli as cli
from tests.support.instant_server import instant_server

from .conftest import ROOT

EXAMPLE = ROOT / "docs" / "examples" / "hospital_metric"
SUITE = EXAMPLE / "suite.yaml"
DATA = EXAMPLE / "data"
MODULE = EXAMPLE / "src" / "hospital_dose" / "__init__.py"
TASK = "paeds-dose"
# What the instant server answers to every prompt, and the dose it states in milligrams.
REPLY = "Each dose is 0.25 g."
REPLY_MG = 0.25 * 1000
MG_PER = {"g": 1000.0, "mg": 1.0, "micrograms": 0.001}


# -- expectations, computed here from the data and the suite (not by the plug-in) --------------------------------

def tolerance() -> float:
    task = yaml.safe_load(SUITE.read_text("utf-8"))["tasks"][0]
    return float(task["metric_options"]["tolerance"])


def gold_mg(reference: str) -> float:
    number, unit = reference.split()
    return float(number) * MG_PER[unit]


def expected(golds: list[float], given: float = REPLY_MG) -> tuple[list[float], dict[str, int]]:
    """Per item 1/0 (within the tolerance or not) and the over/underdose counts."""
    tol = tolerance()
    scores = [1.0 if abs(given - g) <= tol * g else 0.0 for g in golds]
    counts = {"overdose": sum(given > g * (1 + tol) for g in golds),
              "underdose": sum(given < g * (1 - tol) for g in golds)}
    return scores, {k: v for k, v in counts.items() if v}


def example_golds() -> list[float]:
    rows = [json.loads(x) for x in (DATA / "paeds-dose.jsonl").read_text("utf-8").splitlines() if x.strip()]
    return [gold_mg(r["reference"]) for r in rows]


def check_results(out: Path) -> None:
    """results.json holds the plug-in metric's figure and counts; samples.jsonl the plug-in extractor's answers."""
    scores, counts = expected(example_golds())
    fig = json.loads((out / "results.json").read_text("utf-8"))["tasks"][TASK]
    assert fig["metric"] == "dose_within_tolerance" and fig["n"] == len(scores)
    assert fig["score"] == round(100 * sum(scores) / len(scores), 2)
    assert fig["counts"] == counts
    samples = [json.loads(x) for x in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    assert {s["extracted"] for s in samples} == {f"{REPLY_MG:g} mg"}
    assert sorted(s["score"] for s in samples) == sorted(scores)


# -- a real virtual environment with a real pip install -----------------------------------------------------------

def make_venv(where: Path, *packages: Path) -> Path:
    """A new venv whose interpreter sees this checkout's climedbench and the current environment's libraries
    (through a .pth file), with `packages` pip-installed into it offline; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    shared = sysconfig.get_paths()["purelib"]
    Path(purelib, "_climedbench_test.pth").write_text(f"{ROOT / 'src'}\n{shared}\n", "utf-8")
    for pkg in packages:
        copy = where.parent / f"src-{pkg.name}"
        shutil.copytree(pkg, copy)  # the build writes into the source folder: never into docs/
        subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                        "--quiet", str(copy)], check=True, capture_output=True, env=_env())
    return python


def _env(**extra: str) -> dict[str, str]:
    """The environment without PYTHONPATH: the venv finds climedbench through its own .pth file."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **extra}


def venv_cli(python: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(python), "-m", "climedbench.cli", *args], capture_output=True, text=True,
                          env=_env(), timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def test_an_installed_plugin_package_registers_the_metric_a_suite_uses(tmp_path):
    python = make_venv(tmp_path / "venv", EXAMPLE)
    report = json.loads(venv_cli(python, "validate", "--suite", str(SUITE), str(DATA), "--json").stdout)
    assert report["valid"] == {TASK: len(example_golds())} and report["invalid"] == []
    regs = json.loads(venv_cli(python, "list", "--registries", "--json").stdout)
    assert "dose_within_tolerance" in regs["metrics"] and "dose_mg" in regs["extractors"]
    out = tmp_path / "run"
    with instant_server(model="dose", reply=REPLY) as url:
        venv_cli(python, "run", "--suite", str(SUITE), "--data", str(DATA), "--model", "openai:dose",
                 "--base-url", url, "--out", str(out), "--quiet", "--no-cache")
    check_results(out)
    # Installed plug-ins are imported on first use of a registry, not to show --help.
    assert imports_plugin(python, "run", "--help") is False
    assert imports_plugin(python, "validate", "--suite", str(SUITE), str(DATA)) is True


def imports_plugin(python: Path, *args: str) -> bool:
    """Whether the command line `args` imports the plug-in module (run in the venv's interpreter)."""
    code = ("import sys\nfrom climedbench.cli import load_commands\ntry:\n"
            f"    load_commands({list(args)!r})(args={list(args)!r}, prog_name='climedbench')\n"
            "except SystemExit:\n    pass\nprint('hospital_dose' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=_env(), check=True)
    return {"True": True, "False": False}[proc.stderr.strip().splitlines()[-1]]


def test_a_plugin_package_that_fails_to_import_is_named_with_its_file_and_line(tmp_path):
    pkg = tmp_path / "broken"
    (pkg / "src" / "broken_plugin").mkdir(parents=True)
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=70.1"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "broken-plugin"\nversion = "1.0"\n\n'
        '[project.entry-points."climedbench.plugins"]\nbroken = "broken_plugin"\n', "utf-8")
    module = pkg / "src" / "broken_plugin" / "__init__.py"
    module.write_text("from climedbench.plugin import metric\n\nRATE = 1 / 0\n", "utf-8")
    python = make_venv(tmp_path / "venv", pkg)
    venv_cli(python, "run", "--help")  # lazily: a broken plug-in does not break --help
    proc = venv_cli(python, "validate", "--suite", str(SUITE), str(DATA), check=False)
    installed = next(Path(p) for p in (tmp_path / "venv").rglob("broken_plugin/__init__.py"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"error: plug-in 'broken' (entry point 'broken_plugin' of broken-plugin 1.0) "
                                   f"failed to import: {installed}, line 3: ZeroDivisionError: division by zero")


# -- a suite's plugins: list ---------------------------------------------------------------------------------------

def suite_with(tmp_path: Path, **changes: object) -> Path:
    """The example suite with some top-level keys added or changed, written into tmp_path."""
    raw = yaml.safe_load(SUITE.read_text("utf-8"))
    raw.update(changes)
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), "utf-8")
    return path


def test_a_suite_imports_the_plugin_files_it_lists(tmp_path):
    (tmp_path / "plugins").mkdir()
    shutil.copy(MODULE, tmp_path / "plugins" / "dose.py")
    suite = suite_with(tmp_path, plugins=["plugins/dose.py"])  # relative to the suite file, not to the cwd
    out = tmp_path / "run"
    with instant_server(model="dose", reply=REPLY) as url:
        cli("run", "--suite", str(suite), "--data", str(DATA), "--model", "openai:dose", "--base-url", url,
            "--out", str(out), "--quiet", "--no-cache")
    check_results(out)
    # Commands that read the run directory load the suite, and so its plug-ins, again.
    rescored = json.loads(cli("score", str(out), "--json").stdout)
    assert rescored["tasks"][TASK]["score"] == json.loads((out / "results.json").read_text())["tasks"][TASK]["score"]


def test_a_suite_imports_the_plugin_modules_it_names(tmp_path):
    suite = suite_with(tmp_path, plugins=["hospital_dose"])
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(EXAMPLE / "src")])}
    report = json.loads(cli("validate", "--suite", str(suite), str(DATA), "--json", env=env).stdout)
    assert report["valid"] == {TASK: len(example_golds())}


def test_a_missing_plugin_file_is_named_with_the_suite_and_field(tmp_path):
    suite = suite_with(tmp_path, plugins=["plugins/dose.py"])
    proc = cli("validate", "--suite", str(suite), str(DATA), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {suite}: plugins[0]: no such file {tmp_path / 'plugins' / 'dose.py'}"


# -- --include-path ------------------------------------------------------------------------------------------------

def include_dir(tmp_path: Path) -> Path:
    """A folder with the plug-in as a file and the example suite as dosing.yaml (usable as --suite dosing)."""
    folder = tmp_path / "hospital"
    folder.mkdir()
    shutil.copy(MODULE, folder / "dose.py")
    shutil.copy(SUITE, folder / "dosing.yaml")
    return folder


def test_include_path_imports_the_folders_plugins_and_finds_its_suites(tmp_path):
    folder = include_dir(tmp_path)
    out = tmp_path / "run"
    with instant_server(model="dose", reply=REPLY) as url:
        cli("run", "--include-path", str(folder), "--suite", "dosing", "--data", str(DATA), "--model",
            "openai:dose", "--base-url", url, "--out", str(out), "--quiet", "--no-cache")
    check_results(out)
    before = json.loads((out / "results.json").read_text())["tasks"][TASK]["score"]
    assert json.loads(cli("score", str(out), "--include-path", str(folder), "--json").stdout)[
        "tasks"][TASK]["score"] == before
    # The same through the environment variable (several folders, separated by os.pathsep).
    other = tmp_path / "empty"
    other.mkdir()
    env = {"CLIMEDBENCH_INCLUDE_PATH": os.pathsep.join([str(other), str(folder)])}
    report = json.loads(cli("validate", "--suite", "dosing", str(DATA), "--json", env=env).stdout)
    assert report["valid"] == {TASK: len(example_golds())}


CHART_PLUGIN = '''\
from climedbench.core.types import Item
from climedbench.data.loaders import RecordError
from climedbench.plugin import aggregation, loader


@loader("drug_chart")
def chart_row(record, task, ctx):
    if "weight_kg" not in record:
        raise RecordError("weight_kg", "missing")
    dose = float(record["weight_kg"]) * float(record["mg_per_kg"])
    return Item(id=str(record["id"]), task=task.code, input=f"{record['drug']} {record['mg_per_kg']} mg/kg, "
                f"{record['weight_kg']} kg: single dose?", reference=f"{dose:g} mg", file=ctx.file, line=ctx.line)


@aggregation("laplace_mean", label="Laplace mean")
def laplace_mean(sums, n, task):
    return (sums[..., 0] + 1) / (n + 2)
'''
CHART = [("paracetamol", 16, 15), ("ibuprofen", 25, 10), ("cefalexin", 20, 12.5), ("gentamicin", 12, 7),
         ("amoxicillin", 20, 25)]


def test_include_path_registers_a_loader_and_an_aggregation(tmp_path):
    folder = include_dir(tmp_path)
    (folder / "chart.py").write_text(CHART_PLUGIN, "utf-8")
    raw = yaml.safe_load(SUITE.read_text("utf-8"))
    raw["tasks"][0].update(code="chart", loader="drug_chart", aggregation="laplace_mean")
    (folder / "charts.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), "utf-8")
    data = tmp_path / "data"
    data.mkdir()
    rows = [{"id": f"c{i}", "drug": d, "weight_kg": w, "mg_per_kg": r} for i, (d, w, r) in enumerate(CHART)]
    lines = [json.dumps(r) for r in rows] + [json.dumps({"id": "bad", "drug": "x", "mg_per_kg": 1})]
    (data / "chart.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", "charts", str(data), "--json", check=False)
    report = json.loads(proc.stdout)
    assert report["valid"] == {"chart": len(rows)}
    assert [(p["line"], p["field"]) for p in report["invalid"]] == [(len(rows) + 1, "weight_kg")]
    out = tmp_path / "run"
    with instant_server(model="dose", reply=REPLY) as url:
        cli("run", "--include-path", str(folder), "--suite", "charts", "--data", str(data), "--model", "openai:dose",
            "--base-url", url, "--out", str(out), "--quiet", "--no-cache", "--skip-invalid")
    scores, counts = expected([w * r for _, w, r in CHART])
    fig = json.loads((out / "results.json").read_text("utf-8"))["tasks"]["chart"]
    assert fig["aggregation"] == "laplace_mean" and fig["counts"] == counts
    assert fig["score"] == round(100 * (sum(scores) + 1) / (len(scores) + 2), 2)


# -- errors ----------------------------------------------------------------------------------------------------

def test_a_plugin_file_that_fails_is_named_with_its_line_and_exception(tmp_path):
    folder = include_dir(tmp_path)
    bad = folder / "bad_units.py"
    bad.write_text("from climedbench.plugin import metric\n\nMG_PER_G = {'g': 1000}['kg']\n", "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", "dosing", str(DATA), check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"error: plug-in {bad} (from --include-path {folder}) failed to import: "
                                   f"{bad}, line 3: KeyError: 'kg'")
    bad.write_text("from climedbench.plugin import metric\n\ndef score(item, extracted, task, ctx)\n", "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", "dosing", str(DATA), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"error: plug-in {bad} (from --include-path {folder}) failed to import: "
                                   f"{bad}, line 3: SyntaxError: expected ':'")


def test_a_name_registered_twice_names_both_definitions(tmp_path):
    from climedbench.metrics.item import Accuracy

    builtin = f"climedbench.metrics.item ({inspect.getsourcefile(Accuracy)}:{inspect.getsourcelines(Accuracy)[1]})"
    folder = tmp_path / "plugins"
    folder.mkdir()
    shutil.copy(MODULE, folder / "a_dose.py")
    clash = folder / "b_clash.py"
    clash.write_text("from climedbench.plugin import metric\n\n\n@metric('accuracy')\ndef mine(item, extracted, "
                     "task, ctx):\n    return 1.0\n", "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", str(SUITE), str(DATA), check=False)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert line.startswith(f"error: metric 'accuracy' is registered twice: by {builtin} and by ")
    assert line.endswith(f" and by {clash}:4") and "\n" not in line  # the decorated definition starts on line 4
    # Two plug-ins, one name: both files named.
    clash.write_text("from climedbench.plugin import extractor\n\n\n@extractor('dose_mg')\ndef mine(response, item, "
                     "task):\n    return None\n", "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", str(SUITE), str(DATA), check=False)
    line = proc.stderr.strip()
    def_line = MODULE.read_text("utf-8").splitlines().index('@extractor("dose_mg")') + 1
    assert proc.returncode == 2
    assert line == f"error: extractor 'dose_mg' is registered twice: by {folder / 'a_dose.py'}:{def_line} and by {clash}:4"


def test_an_unknown_name_lists_the_plugins_names_too(tmp_path):
    (tmp_path / "dose.py").write_text(MODULE.read_text("utf-8"), "utf-8")
    raw = yaml.safe_load(SUITE.read_text("utf-8"))
    raw["tasks"][0]["metric"] = "dose_within_tolerence"
    raw["plugins"] = ["dose.py"]
    suite = tmp_path / "typo.yaml"
    suite.write_text(yaml.safe_dump(raw, sort_keys=False), "utf-8")
    proc = cli("validate", "--suite", str(suite), str(DATA), check=False)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert line.startswith(f"error: {suite}: task {TASK}: metric: unknown metric 'dose_within_tolerence'; known: ")
    known = line.split("known: ", 1)[1].split(", ")
    assert "dose_within_tolerance" in known and "accuracy" in known


@pytest.mark.parametrize("command", ["run", "score", "validate", "list", "report", "audit-items", "leaderboard",
                                     "aggregate", "perturb", "nota", "mps", "analyze compare", "analyze all",
                                     "irt matrix", "cat", "cat compare", "rate create"])
def test_commands_that_load_suites_take_include_path(command):
    assert "--include-path DIR" in cli(*command.split(), "--help").stdout


def test_a_pickled_suite_imports_its_plugins_where_it_is_unpickled(tmp_path):
    """What a Ray worker receives: the suite object, not its file; unpickling it imports the suite's plug-ins."""
    import pickle

    (tmp_path / "dose.py").write_text(MODULE.read_text("utf-8"), "utf-8")
    suite = suite_with(tmp_path, plugins=["dose.py"])
    code = ("import pickle, sys\nfrom climedbench.core.suite import load_suite\n"
            f"sys.stdout.buffer.write(pickle.dumps(load_suite({str(suite)!r})))")
    blob = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    read = ("import pickle, sys\nsuite = pickle.loads(sys.stdin.buffer.read())\n"
            "from climedbench.core.registry import METRICS\nprint(suite.tasks[0].metric in METRICS.names())")
    out = subprocess.run([sys.executable, "-c", read], input=blob, capture_output=True, check=True).stdout
    assert out.strip() == b"True"
    assert pickle.loads(blob).plugins == ["dose.py"]


CLASS_PLUGIN = '''\
from climedbench.data.loaders import RecordsLoader
from climedbench.metrics.aggregations import Mean
from climedbench.metrics.item import ItemScore, Metric
from climedbench.plugin import aggregation, loader, metric


@metric("letter_match")
class LetterMatch(Metric):
    label, binary = "Letter", True
    answers = frozenset({"single"})

    def score(self, item, extracted, task, ctx):
        return ItemScore(float(extracted == item.answer))


@loader("records_again")
class RecordsAgain(RecordsLoader):
    pass


@aggregation("mean_again")
class MeanAgain(Mean):
    pass
'''


def test_plugin_classes_register_with_their_own_attributes(tmp_path):
    folder = tmp_path / "classes"
    folder.mkdir()
    (folder / "classes.py").write_text(CLASS_PLUGIN, "utf-8")
    regs = json.loads(cli("list", "--registries", "--json", "--include-path", str(folder)).stdout)
    assert ("letter_match" in regs["metrics"] and "records_again" in regs["loaders"]
            and "mean_again" in regs["aggregations"])
    # The class's `answers` is what the suite check reads: a text task cannot use this metric.
    raw = yaml.safe_load(SUITE.read_text("utf-8"))
    raw["tasks"][0].update(metric="letter_match", loader="records_again", aggregation="mean_again")
    raw["tasks"][0].pop("metric_options")
    (folder / "letters.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), "utf-8")
    proc = cli("validate", "--include-path", str(folder), "--suite", "letters", str(DATA), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"error: {folder / 'letters.yaml'}: task {TASK}: metric 'letter_match' cannot "
                                   "score answer kind 'text' (it scores single answers)")
