"""Write the README from ``docs/hooks/readme_template.md``: the template's directives rendered with the
committed figures (:mod:`docs_render`, README mode: plain values, each table captioned with its files and
the command that reproduces them). The file written is ``README.new.md`` while that draft exists, else
``README.md`` (once the draft has replaced it).

    python docs/hooks/readme.py            # (re)write the README
    python docs/hooks/readme.py --check    # exit 1 when the README is not what the template renders
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # run as a script: docs_render is this folder's module
    sys.path.insert(0, str(HERE))

import docs_render  # noqa: E402

TEMPLATE = HERE / "readme_template.md"
DRAFT = docs_render.ROOT / "README.new.md"


def target() -> Path:
    """The README the template renders to: the draft while it exists, else ``README.md``."""
    return DRAFT if DRAFT.is_file() else docs_render.ROOT / "README.md"


def render(template: Path = TEMPLATE) -> str:
    """The README the template renders to."""
    src = str(docs_render.ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    return docs_render.Renderer(target().name, mode="readme").expand(template.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the file is current")
    args = ap.parse_args(argv)
    text, out = render(), target()
    if args.check:
        current = out.read_text(encoding="utf-8") if out.is_file() else ""
        if current != text:
            print(f"{out.name} is stale: run python docs/hooks/readme.py", file=sys.stderr)
            return 1
        print(f"{out.name} is current")
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
