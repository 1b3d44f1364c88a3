"""Errors that tell the user exactly where bad input is."""

from __future__ import annotations

from pathlib import Path


class LingtestError(Exception):
    """Base class of every error lingtest raises on purpose."""


class InputError(LingtestError, ValueError):
    """Malformed input: names the file, the 1-based line and the field at fault."""

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.reason = message
        where = []
        if self.path:
            where.append(self.path)
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class MissingResourceError(LingtestError, RuntimeError):
    """A model, corpus or data directory that is not installed; says how to install it."""


class SystemFailure(LingtestError, RuntimeError):
    """A system under test failed or answered out of protocol (wrong count, bad output). Nothing it
    returned in that batch is cached."""


class ConfigError(LingtestError, ValueError):
    """A configuration that names an unknown key or a value of the wrong kind."""


class RegistryError(LingtestError, KeyError):
    """An unknown registry name; lists the known ones."""

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0])
