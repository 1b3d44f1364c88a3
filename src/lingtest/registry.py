"""One registry per kind of component (datasets, readers, parsers, perturbations, systems,
oracles, metrics, resources).

A new component is one small module that registers itself, plus a config entry. Entries can be
registered lazily by import path (``"package.module:attr"``) so that listing or choosing a
component never imports heavy dependencies (spaCy, torch) it does not need.

Every registry of the package is indexed in :data:`REGISTRIES` (module and attribute names, imported
only when asked for): ``lingtest registry`` lists from there and ``tests/core/test_registries.py``
checks every entry (it imports, implements its protocol, builds from its config).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from lingtest.errors import RegistryError

T = TypeVar("T")
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class Registry(Generic[T]):
    """``entry_points``: a Python entry-point group (``[project.entry-points."<group>"]`` in a package's
    ``pyproject.toml``, ``name = "module:attr"``) whose entries are registered lazily the first time a
    name is missing or the names are listed: how a technique, or a package outside lingtest, adds to a
    shared registry without the shared layer importing it."""

    def __init__(self, kind: str, *, entry_points: str | None = None) -> None:
        self.kind = kind
        self.entry_points = entry_points
        self._entries: dict[str, T | str] = {}
        self._discovered = entry_points is None

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=str(self.entry_points)):
            self._entries.setdefault(ep.name, ep.value)

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
        """The entry ``name``; a name of the form ``"package.module:attr"`` that is not registered is
        imported as it stands, so a component outside lingtest is one module plus its config entry."""
        if name not in self._entries:
            self._discover()
        if name not in self._entries and _IMPORT_PATH.match(name):
            try:
                return self._import(name)
            except (ImportError, AttributeError) as exc:
                raise RegistryError(f"{self.kind} {name!r} cannot be imported: {exc}") from None
        try:
            obj = self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "(none)"
            raise RegistryError(f"unknown {self.kind} {name!r}; known: {known} "
                                f"(or a 'package.module:attr' import path)") from None
        if isinstance(obj, str):
            obj = self._import(obj)
            self._entries[name] = obj
        return obj  # type: ignore[return-value]

    @staticmethod
    def _import(target: str) -> T:
        mod, _, attr = target.partition(":")
        return getattr(importlib.import_module(mod), attr)  # type: ignore[no-any-return]

    def build(self, name: str, options: Mapping[str, Any] | None = None, *, where: str = "",
              args: Sequence[Any] = ()) -> Any:
        """The entry ``name`` built from its config ``options`` (a mapping from conf/), spaCy-style:

        - an entry that declares a typed ``Config`` (a :class:`lingtest.config.Block`) and a
          ``from_config`` classmethod gets ``from_config(Config(**options), *args)``;
        - any other entry is called with ``*args`` and the options as keywords, checked against its
          signature first.

        Either way a missing, unknown or mistyped option is a :class:`~lingtest.errors.ConfigError`
        naming it and ``where`` (the config key the options came from)."""
        factory: Any = self.get(name)
        opts = dict(options or {})
        where = where or f"{self.kind} {name!r}"
        config_cls = getattr(factory, "Config", None)
        if config_cls is not None and callable(getattr(factory, "from_config", None)):
            from lingtest.config import validate

            return factory.from_config(validate(config_cls, opts, where), *args)
        check_options(factory, opts, where, skip=len(args))
        return factory(*args, **opts)

    def names(self) -> list[str]:
        self._discover()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        if name not in self._entries:
            self._discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"


def check_options(factory: Callable[..., Any], options: Mapping[str, Any], where: str, *, skip: int = 0) -> None:
    """Raise a :class:`~lingtest.errors.ConfigError` naming every option of ``options`` that ``factory``
    does not take and every required one it lacks (``skip``: leading positional parameters given
    otherwise). A factory taking ``**kwargs`` accepts any option."""
    import inspect

    from lingtest.errors import ConfigError

    params = list(inspect.signature(factory).parameters.values())[skip:]
    named = {p.name: p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
    unknown = [] if takes_any else [k for k in options if k not in named]
    missing = [n for n, p in named.items() if p.default is p.empty and n not in options]
    problems = []
    if unknown:
        problems.append(f"unknown option(s) {', '.join(map(str, unknown))}")
    if missing:
        problems.append(f"missing option(s) {', '.join(missing)}")
    if problems:
        raise ConfigError(f"{where}: {'; '.join(problems)}; it takes: {', '.join(named) or '(none)'}")
