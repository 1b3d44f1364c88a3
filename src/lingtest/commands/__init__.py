"""Command-line subcommands.

Each module defines a typer command function and ``register(app: typer.Typer) -> None`` that adds
it to the ``lingtest`` application (``lingtest.cli`` calls every module's ``register``). Modules
keep their imports light, so a command starts in tens of milliseconds; heavy dependencies are
imported inside the command body only when it needs them.
"""

from typing import Any


def bind_typer(namespace: dict[str, Any]) -> Any:
    """Import typer on first use and bind it in a command module's ``namespace`` (its ``globals()``),
    so the module's string annotations (``typer.Option``) resolve without importing typer at start."""
    import typer

    namespace["typer"] = typer
    return typer
