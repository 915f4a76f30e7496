"""Registries by name: loaders, extractors, metrics and aggregations.

A suite YAML names what it uses (`loader: medqa`, `extractor: choice`, `metric: rougeL`,
`aggregation: micro_f1`); the registry turns the name into the implementation, and an unknown name is
a configuration error that lists the known ones. Built-in implementations register themselves when
their module is imported; `get` imports them on first use, so start-up stays fast, and with them the installed
plug-ins (entry points of the group `climedbench.plugins`, see climedbench.core.plugins). Users register with the
decorators of `climedbench.plugin`. A name registered twice is an error naming where both were defined.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Generic, TypeVar

from climedbench.core.origins import DuplicateName, origin
from climedbench.errors import ConfigError

T = TypeVar("T")

# Modules that register the built-in implementations of each kind.
_BUILTINS: dict[str, tuple[str, ...]] = {
    "loader": ("climedbench.data.loaders", "climedbench.suites.climedbench.loader",
               "climedbench.suites.clinicbench.loaders"),
    "extractor": ("climedbench.extractors",),
    "metric": ("climedbench.metrics.item",),
    "aggregation": ("climedbench.metrics.aggregations",),
}


class Registry(Generic[T]):
    """Named implementations of one kind."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._loaded = False

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register `obj` under `name` (a second registration of a name is an error)."""
        def deco(obj: T) -> T:
            old = self._items.get(name)
            if old is not None and old is not obj:
                raise DuplicateName(f"{self.kind} {name!r} is registered twice: by {origin(old)} and by {origin(obj)}")
            self._items[name] = obj
            return obj

        return deco

    def add(self, name: str, obj: T) -> T:
        """Register `obj` under `name`."""
        return self.register(name)(obj)

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            for module in _BUILTINS.get(self.kind, ()):
                importlib.import_module(module)
            from climedbench.core.plugins import load_installed

            load_installed()

    def ensure_builtins(self) -> None:
        """Load the built-ins (and installed plug-ins) now: a plug-in registering a name a built-in has is then
        reported when the plug-in registers it."""
        self._load()

    def get(self, name: str) -> T:
        """The implementation registered as `name`."""
        self._load()
        try:
            return self._items[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._items))}") from None

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self._load()
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._items


LOADERS: Registry[object] = Registry("loader")
EXTRACTORS: Registry[object] = Registry("extractor")
METRICS: Registry[object] = Registry("metric")
AGGREGATIONS: Registry[object] = Registry("aggregation")
