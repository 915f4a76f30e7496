"""Where a registered implementation came from, and the error when two share a name: what the registry and the
plug-in loader both need (a module of its own, so neither imports the other)."""

from __future__ import annotations

import inspect
from typing import Any

from climedbench.errors import ConfigError


class DuplicateName(ConfigError):
    """Two implementations registered under one name."""


# The module name a plug-in file (not an installed module) is imported under: its file says more than the name.
FILE_MODULE_PREFIX = "climedbench_plugin_"


def origin(obj: object) -> str:
    """Where an implementation was defined: 'module (file:line)' of its function or class ('file:line' for a
    plug-in file)."""
    target: Any = inspect.unwrap(obj)  # type: ignore[arg-type]  # a plug-in's adapter keeps the user's code in __wrapped__
    if not (inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target)):
        target = type(target)
    module = getattr(target, "__module__", "?")
    try:
        file = inspect.getsourcefile(target)
        line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return str(module)
    return f"{file}:{line}" if str(module).startswith(FILE_MODULE_PREFIX) else f"{module} ({file}:{line})"
