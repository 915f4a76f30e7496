"""The shape of the source tree, checked from the source itself (issue 23 part 3).

The import graph of climedbench's own modules is built with `ast` from every file under src/climedbench: imports
at module level *and* inside functions count (a lazy import is still a dependency). Not counted: imports under
`if TYPE_CHECKING:` (they never run), the implicit import of a package's `__init__` when one of its submodules is
imported, and names resolved at run time (`importlib.import_module` in core/registry.py, which is how the
registries find their built-in and plug-in implementations by name).

Checked: (a) no import cycle between modules, (b) no module imports a module of a higher layer (LAYERS, the same
table as docs/DESIGN.md), (c) no source file over 500 lines and no function over 80 lines, except the entries of
the allow-lists below, each with its reason (a CLI command's parameter list, one `Annotated` option per parameter,
is a declarative table: only its body is held to the limit). An allow-list entry that is no longer needed fails
the test too, so the lists only shrink.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "climedbench"
PACKAGE = "climedbench"

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80

# Layers, lowest first: a module may import modules of its own layer or of lower ones, never of a higher one.
# A module belongs to the layer of the longest prefix naming it ("run.driver" before "run"); module names are
# relative to the package ("climedbench" itself is the package's __init__).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("climedbench", "errors", "secrets", "preflight")),
    ("core", ("core",)),
    ("stages", ("data", "prompts", "extract", "extractors", "metrics", "embeddings", "scoring", "aggregate",
                "limits", "rundir", "epochs", "gold", "results")),
    ("models", ("models", "cache", "judge")),
    ("suites", ("suites", "plugin")),
    ("run: plan and engine", ("run", "run.plan", "run.spool", "run.engine", "run.accounting", "run.check")),
    ("executors", ("executors",)),
    ("run: driver and run-directory tools", ("run.driver", "rescore", "reaggregate", "merge", "runcheck",
                                             "outputs")),
    ("data copies", ("perturb",)),
    ("analyses and tools", ("analyses", "irt", "cat", "mps", "audit", "deid")),
    ("reports and apps", ("report", "apps")),
    ("benchmark construction", ("build",)),
    ("cli", ("cli",)),
]

# Imports that go up a layer today, each removed by named work in progress; the entry goes when that work lands.
UPWARD_ALLOWED: dict[tuple[str, str], str] = {
}

# Files not held to the size limits, with why.
FILES_ALLOWED: dict[str, str] = {
}

# Functions (path:qualified name) allowed over MAX_FUNCTION_LINES, with why.
FUNCTIONS_ALLOWED: dict[str, str] = {
}

# CLI commands whose parameter list is a declarative table (every parameter an `Annotated[..., typer.Option]`):
# the table is not counted, their body (from the first statement after the docstring) is held to the limit.
OPTION_TABLES: dict[str, str] = {
    "cli/evaluate.py:run": "the options of `climedbench run`",
    "cli/irt.py:fit_cmd": "the options of `climedbench irt fit`",
    "cli/deid.py:deid": "the options of `climedbench deid`",
    "cli/rate.py:create_cmd": "the options of `climedbench rate create`",
}


@dataclass(frozen=True)
class Module:
    name: str  # relative to the package: 'core.types', 'climedbench' for the package's __init__
    path: Path
    is_package: bool


@cache
def modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(parts) or PACKAGE
        found[name] = Module(name, path, is_package)
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported_names(tree: ast.AST, module: Module, known: set[str]) -> list[str]:
    """Absolute dotted names of the modules imported anywhere in `tree` (functions included, TYPE_CHECKING
    blocks not); `known` holds the package's own modules (absolute names), so that `from pkg import name` counts
    as importing pkg.name when that is a module and pkg otherwise."""
    names: list[str] = []
    own = f"{PACKAGE}.{module.name}" if module.name != PACKAGE else PACKAGE
    package = own if module.is_package else own.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names.extend(f"{stem}.{a.name}" if f"{stem}.{a.name}" in known else stem for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


@cache
def import_graph() -> nx.DiGraph:
    mods = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(mods)
    for mod in mods.values():
        tree = ast.parse(mod.path.read_text(encoding="utf-8"), str(mod.path))
        for full in _imported_names(tree, mod, _absolute(mods)):
            rel = _relative(full)
            if rel is None or rel == mod.name:
                continue
            if rel not in mods:
                raise AssertionError(f"{mod.path}: imports {full}, which is no module of {PACKAGE}")
            graph.add_edge(mod.name, rel)
    return graph


def _absolute(mods: dict[str, Module]) -> set[str]:
    return {PACKAGE if name == PACKAGE else f"{PACKAGE}.{name}" for name in mods}


def _relative(full: str) -> str | None:
    """'climedbench.core.types' → 'core.types'; None for another package's module."""
    if full == PACKAGE:
        return PACKAGE
    return full.removeprefix(PACKAGE + ".") if full.startswith(PACKAGE + ".") else None


def layer_of(name: str) -> int:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    if best is None:
        raise AssertionError(f"module {name} is in no layer: add it to LAYERS in {__file__} and docs/DESIGN.md")
    return best[1]


def test_no_import_cycles():
    graph = import_graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, "import cycles (each line: the modules of one cycle):\n" + "\n".join(
        " ↔ ".join(c) for c in sorted(cycles))


def test_every_module_has_a_layer():
    missing = [name for name in modules() if not any(name == p or name.startswith(p + ".")
                                                     for _, prefixes in LAYERS for p in prefixes)]
    assert not missing, f"modules in no layer of LAYERS: {', '.join(sorted(missing))}"


def test_no_module_imports_a_higher_layer():
    graph = import_graph()
    upward = sorted((a, b) for a, b in graph.edges if layer_of(b) > layer_of(a))
    unexpected = [f"{a} ({LAYERS[layer_of(a)][0]}) → {b} ({LAYERS[layer_of(b)][0]})"
                  for a, b in upward if (a, b) not in UPWARD_ALLOWED]
    assert not unexpected, "imports of a higher layer:\n" + "\n".join(unexpected)
    stale = [f"{a} → {b}" for a, b in UPWARD_ALLOWED if (a, b) not in upward]
    assert not stale, "UPWARD_ALLOWED entries no longer needed (remove them): " + ", ".join(stale)


def _functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _rel(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


def test_no_file_over_the_limit():
    too_long = []
    for path in sorted(SRC.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_FILE_LINES and _rel(path) not in FILES_ALLOWED:
            too_long.append(f"{_rel(path)}: {lines} lines")
    assert not too_long, f"source files over {MAX_FILE_LINES} lines:\n" + "\n".join(too_long)
    stale = [f for f in FILES_ALLOWED if not (SRC / f).exists()
             or len((SRC / f).read_text(encoding="utf-8").splitlines()) <= MAX_FILE_LINES]
    assert not stale, "FILES_ALLOWED entries no longer needed (remove them): " + ", ".join(stale)


def _body_start(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(node.body) > 1
    return node.body[1].lineno if docstring else first.lineno


# Option types declared once in cli/common.py as `Name = Annotated[...]` (e.g. IncludePath).
_ANNOTATED_ALIASES = {t.id for n in ast.parse((SRC / "cli" / "common.py").read_text(encoding="utf-8")).body
                      if isinstance(n, ast.Assign) and ast.unparse(n.value).startswith("Annotated[")
                      for t in n.targets if isinstance(t, ast.Name)}


def _option_table(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    return bool(params) and all(p.annotation is not None and (ast.unparse(p.annotation).startswith("Annotated[")
                                                              or ast.unparse(p.annotation) in _ANNOTATED_ALIASES)
                                for p in params)


def test_no_function_over_the_limit():
    too_long, seen = [], set()
    for path in sorted(SRC.rglob("*.py")):
        if _rel(path) in FILES_ALLOWED:
            continue
        for qualname, node in _functions(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            key = f"{_rel(path)}:{qualname}"
            end = node.end_lineno or node.lineno
            length = end - node.lineno + 1  # from `def` (decorators not counted)
            if length <= MAX_FUNCTION_LINES:
                continue
            seen.add(key)
            if key in OPTION_TABLES:
                assert _option_table(node), f"{key}: in OPTION_TABLES but not every parameter is Annotated[...]"
                body = end - _body_start(node) + 1
                if body > MAX_FUNCTION_LINES:
                    too_long.append(f"{key}: body of {body} lines (after its option table)")
            elif key not in FUNCTIONS_ALLOWED:
                too_long.append(f"{key}: {length} lines")
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(too_long)
    stale = sorted((set(FUNCTIONS_ALLOWED) | set(OPTION_TABLES)) - seen)
    assert not stale, "allow-list entries no longer needed (remove them): " + ", ".join(stale)


@pytest.mark.parametrize("source, expected", [
    ("import climedbench.core.types\n", {"core.types"}),
    ("from climedbench.core import types\n", {"core.types"}),
    ("from climedbench.core import registry, types\n", {"core.registry", "core.types"}),
    ("from climedbench.core.registry import METRICS\n", {"core.registry"}),
    ("from climedbench.core.types import Item\n", {"core.types"}),
    ("def f():\n    from climedbench import errors\n", {"errors"}),
    ("from climedbench import __version__\n", {"climedbench"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from climedbench.errors import E\n", set()),
    ("from .types import Item\n", {"core.types"}),
    ("from . import types\n", {"core.types"}),
])
def test_the_graph_reads_every_form_of_import(source, expected):
    # The parser above is what the three checks rest on: each form of import gives the modules it names.
    mod = Module("core.suite", SRC / "core" / "suite.py", False)
    names = {_relative(n) for n in _imported_names(ast.parse(source), mod, _absolute(modules()))}
    assert names - {None} == expected
