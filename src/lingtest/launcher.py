"""The ``lingtest`` console entry point.

``lingtest coref-score`` is dispatched straight to its argparse front end (same options as the
typer command) so that scoring a corpus pays no start-up cost for typer, pydantic and the other
commands; everything else goes to the typer app in :mod:`lingtest.cli`.
"""

from __future__ import annotations

import sys

FAST_COMMANDS = {"coref-score": "lingtest.commands.coref_score"}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in FAST_COMMANDS:
        import importlib

        return int(importlib.import_module(FAST_COMMANDS[args[0]]).main(args[1:]) or 0)
    from lingtest.cli import app

    app(args=args, prog_name="lingtest")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
