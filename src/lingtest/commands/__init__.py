"""Command-line subcommands.

Each module defines a typer command function and ``register(app: typer.Typer) -> None`` that adds
it to the ``lingtest`` application (``lingtest.cli`` calls every module's ``register``). Modules
keep their imports light, so a command starts in tens of milliseconds; heavy dependencies are
imported inside the command body only when it needs them.
"""

from collections.abc import Callable
from typing import Any


def bind_typer(namespace: dict[str, Any]) -> Any:
    """Import typer on first use and bind it in a command module's ``namespace`` (its ``globals()``),
    so the module's string annotations (``typer.Option``) resolve without importing typer at start."""
    import typer

    namespace["typer"] = typer
    return typer


def exit_with(code: int) -> None:
    """End a typer command with exit status ``code`` (returns for 0)."""
    if code:
        import typer

        raise typer.Exit(code)


def command_registrar(namespace: dict[str, Any], name: str, function: str) -> Callable[[Any], None]:
    """The ``register(app)`` of a command module: binds typer in ``namespace`` (the module's
    ``globals()``, see :func:`bind_typer`) and adds ``namespace[function]`` as the command ``name``."""

    def register(app: Any) -> None:
        bind_typer(namespace)
        app.command(name)(namespace[function])

    register.__doc__ = f"Add ``{name}`` to the ``lingtest`` application."
    return register
