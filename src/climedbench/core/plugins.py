"""User plug-ins: Python modules that register loaders, extractors, metrics and aggregations when imported.

Three ways in (docs/SUITES.md, "Plug-ins"):

- an installed package's entry point in the group `climedbench.plugins` (its value names the module to import),
  imported together with the built-ins when a registry is first used — never at `--help` time;
- `plugins:` in a suite YAML: module names, or `.py` files relative to the suite file, imported when the suite
  loads;
- `--include-path DIR` (repeatable) and $CLIMEDBENCH_INCLUDE_PATH (folders separated by os.pathsep): every `*.py`
  in DIR is imported, and `--suite NAME` finds DIR/NAME.yaml (or DIR/NAME/suite.yaml).

Each plug-in is imported once per process. A plug-in that fails to import is a ConfigError naming the plug-in,
the file and line where it failed, and the exception.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

from climedbench.core.origins import FILE_MODULE_PREFIX, DuplicateName
from climedbench.errors import ConfigError

GROUP = "climedbench.plugins"
ENV = "CLIMEDBENCH_INCLUDE_PATH"

_imported: dict[str, ModuleType] = {}  # key ('module:NAME' or 'file:/abs/path') → the imported module
_include: list[Path] = []  # folders given by --include-path, in order
_installed_loaded = False


class PluginError(ConfigError):
    """A plug-in could not be found or imported."""


# -- where a failure happened ----------------------------------------------------------------------------------

def _failure(e: BaseException, home: Path | None) -> str:
    """'FILE, line N: ExcType: message' for an exception raised while importing a plug-in: the deepest frame inside
    the plug-in (`home`, its file or package folder), else the deepest frame outside Python's import machinery."""
    if isinstance(e, SyntaxError) and e.filename:
        return f"{e.filename}, line {e.lineno}: SyntaxError: {e.msg}"
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not _machinery(f.filename)]
    inside = [f for f in frames if home is not None and _under(Path(f.filename), home)]
    what = f"{type(e).__name__}: {e}"
    if not (inside or frames):
        return what
    frame = (inside or frames)[-1]
    return f"{frame.filename}, line {frame.lineno}: {what}"


def _machinery(filename: str) -> bool:
    """Frames of the import machinery and of this module: not where a plug-in failed."""
    return (filename.startswith("<frozen") or filename == __file__
            or Path(filename).parent == Path(importlib.__file__ or "").parent)


def _under(path: Path, home: Path) -> bool:
    try:
        path.resolve().relative_to(home)
    except (ValueError, OSError):
        return False
    return True


def _module_home(name: str) -> Path | None:
    """The file or package folder of an importable module, without importing it (None when not found)."""
    try:
        spec = importlib.util.find_spec(name)
    except Exception:  # a parent package that fails to import: the import itself reports it
        return None
    if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
        return None
    origin = Path(spec.origin).resolve()
    return origin.parent if origin.name == "__init__.py" else origin


def _guarded(label: str, home: Path | None, run: Callable[[], ModuleType]) -> ModuleType:
    """Import by calling `run`; any failure becomes one PluginError line (a name registered twice passes as is)."""
    try:
        return run()
    except (DuplicateName, PluginError):
        raise
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        raise PluginError(f"plug-in {label} failed to import: {_failure(e, home)}") from e


# -- importing ----------------------------------------------------------------------------------------------------

def import_module(name: str, label: str | None = None) -> ModuleType:
    """Import an installed or importable module as a plug-in (once)."""
    key = f"module:{name}"
    if key not in _imported:
        shown = label or f"{name!r}"
        _imported[key] = _guarded(shown, _module_home(name), lambda: importlib.import_module(name))
    return _imported[key]


def import_file(path: Path, label: str | None = None) -> ModuleType:
    """Import a `.py` file as a plug-in (once per file), as a module of its own name in sys.modules."""
    path = path.resolve()
    key = f"file:{path}"
    if key in _imported:
        return _imported[key]
    if not path.is_file():
        raise PluginError(f"plug-in {label or path}: no such file {path}")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    name = f"{FILE_MODULE_PREFIX}{_identifier(path.stem)}_{digest}"

    def run() -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses and pickling look the module up by name
        _imported[key] = module  # a re-entrant request (the registries loading $CLIMEDBENCH_INCLUDE_PATH) is done
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            _imported.pop(key, None)
            raise
        return module

    _imported[key] = _guarded(label or str(path), path, run)
    return _imported[key]


def imported() -> tuple[str, ...]:
    """The plug-ins this process has imported, in order ('module:NAME' or 'file:/abs/path'): what a worker process
    (Ray) imports again with `reimport` so that it scores with the same metrics and extractors."""
    return tuple(_imported)


def reimport(keys: Iterable[str]) -> None:
    """Import the plug-ins named by `imported()` of another process (files by their absolute path)."""
    for key in keys:
        kind, _, what = key.partition(":")
        if kind == "module":
            import_module(what)
        elif kind == "file":
            import_file(Path(what))
        else:
            raise PluginError(f"plug-in {key!r}: not a module or file key")


def _identifier(stem: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in stem)


def load_installed() -> None:
    """Import every installed package's `climedbench.plugins` entry point and the $CLIMEDBENCH_INCLUDE_PATH folders
    (once per process; the registries call this on first use)."""
    global _installed_loaded
    if _installed_loaded:
        return
    _installed_loaded = True
    if _declared():
        _load_entry_points()
    include(env_dirs(), "$" + ENV)


def _declared() -> bool:
    """Whether any distribution on sys.path declares an entry point of the group: a scan of the entry_points.txt
    files (~15 ms for 171 distributions) spares importlib.metadata's (~200 ms) when none does (both measured on a
    loaded 2-core machine with the project's venv)."""
    marker = f"[{GROUP}]".encode()
    for folder in sys.path:
        try:
            entries = os.scandir(folder or ".")
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name.endswith((".dist-info", ".egg-info")):
                    try:
                        with open(os.path.join(entry.path, "entry_points.txt"), "rb") as fh:
                            if marker in fh.read():
                                return True
                    except OSError:
                        continue
    return False


def _load_entry_points() -> None:
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        dist = f" of {ep.dist.name} {ep.dist.version}" if ep.dist is not None else ""
        module = ep.value.split(":", 1)[0].strip()
        import_module(module, f"{ep.name!r} (entry point {ep.value!r}{dist})")


# -- include folders ------------------------------------------------------------------------------------------------

def env_dirs() -> list[Path]:
    """The folders of $CLIMEDBENCH_INCLUDE_PATH (separated by os.pathsep)."""
    raw = os.environ.get(ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def include(dirs: Iterable[str | Path], where: str = "--include-path") -> None:
    """Import every `*.py` of each folder (in name order) and remember the folders for suites named by --suite."""
    for d in dirs:
        folder = Path(d).expanduser()
        if not folder.is_dir():
            raise PluginError(f"{where} {d}: no such folder")
        folder = folder.resolve()
        if folder not in _include:
            _include.append(folder)
        for f in sorted(folder.glob("*.py")):
            if not f.name.startswith("."):
                import_file(f, f"{f} (from {where} {d})")


def include_dirs() -> list[Path]:
    """Folders searched for suites named by --suite: --include-path folders, then $CLIMEDBENCH_INCLUDE_PATH's."""
    out = list(_include)
    for d in env_dirs():
        if d.is_dir() and d.resolve() not in out:
            out.append(d.resolve())
    return out


def find_suite(name: str) -> Path | None:
    """DIR/NAME.yaml, DIR/NAME.yml or DIR/NAME/suite.yaml in the first include folder that has one."""
    if not name or any(sep in name for sep in ("/", "\\")) or name.startswith("."):
        return None
    for folder in include_dirs():
        for candidate in (folder / f"{name}.yaml", folder / f"{name}.yml", folder / name / "suite.yaml"):
            if candidate.is_file():
                return candidate
    return None


# -- a suite's own plug-ins ----------------------------------------------------------------------------------------

def load_suite_plugins(specs: Iterable[str], root: str | None, where: str) -> None:
    """Import a suite's `plugins:` — `.py` paths relative to the suite's folder, or module names."""
    for i, spec in enumerate(specs):
        label = f"{spec!r} ({where}: plugins[{i}])"
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = Path(spec).expanduser()
            if not path.is_absolute() and root is not None:
                path = Path(root) / path
            if not path.is_file():
                raise PluginError(f"{where}: plugins[{i}]: no such file {path}")
            import_file(path, label)
        else:
            import_module(spec, label)
