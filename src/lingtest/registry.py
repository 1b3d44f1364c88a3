"""One registry per kind of component (datasets, readers, parsers, perturbations, systems,
oracles, metrics, resources).

A new component is one small module that registers itself, plus a config entry. Entries can be
registered lazily by import path (``"package.module:attr"``) so that listing or choosing a
component never imports heavy dependencies (spaCy, torch) it does not need.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from lingtest.errors import RegistryError

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T | str] = {}

    def register(self, name: str, obj: T | None = None) -> Callable[[T], T] | T:
        """Register ``obj`` under ``name``; usable as a decorator when ``obj`` is omitted."""

        def deco(o: T) -> T:
            self._add(name, o)
            return o

        if obj is None:
            return deco
        return deco(obj)

    def register_lazy(self, name: str, target: str) -> None:
        """Register ``"module:attr"``, imported on first :meth:`get`."""
        if ":" not in target:
            raise ValueError(f"lazy target must be 'module:attr', got {target!r}")
        self._add(name, target)

    def _add(self, name: str, obj: T | str) -> None:
        existing = self._entries.get(name)
        if existing is not None and existing is not obj and not isinstance(existing, str):
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = obj

    def get(self, name: str) -> T:
        try:
            obj = self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "(none)"
            raise RegistryError(f"unknown {self.kind} {name!r}; known: {known}") from None
        if isinstance(obj, str):
            mod, _, attr = obj.partition(":")
            obj = getattr(importlib.import_module(mod), attr)
            self._entries[name] = obj
        return obj  # type: ignore[return-value]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"
