"""The MkDocs hook of lingtest's site (``hooks:`` in ``mkdocs.yml``).

* ``on_config``: the repository's ``src/`` on ``sys.path`` (the generated references import lingtest), and
  pages that ``extra.optional_pages`` names and that are not written yet left out of the navigation;
* ``on_files``: the committed plots under ``metrics/`` published as ``assets/figures/<path>``;
* ``on_page_markdown``: every directive of a page expanded (:mod:`docs_render`): committed figures with the
  command that reproduces them, generated tables of configuration keys, the CLI reference, the pipeline;
* ``on_page_content``: Sphinx roles left in docstrings (``:class:`X```) shown as code, linked where the API
  reference has the object.

A figure whose file or key is missing fails the build with the page, file and key named.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import docs_render  # the hook's folder is on sys.path while MkDocs loads it
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = docs_render.ROOT
FIGURE_SUFFIXES = (".png", ".svg")
ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|exc|obj):<code>~?\.?([\w.]+)</code>")
log = logging.getLogger("mkdocs.hooks.lingtest_docs")


ABSENT: set[str] = set()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    src = str(ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    optional = set(config.extra.get("optional_pages") or [])
    docs_dir = Path(config.docs_dir)
    absent = {p for p in optional if not (docs_dir / p).is_file()}
    ABSENT.clear()
    ABSENT.update(absent)
    if absent and config.nav:
        config.nav = _without(config.nav, absent)
        for p in sorted(absent):
            log.info("optional page %s is not written yet: left out of the navigation", p)
    return config


def _without(nav: Any, absent: set[str]) -> Any:
    """``nav`` without the entries that point at one of ``absent``."""
    if isinstance(nav, list):
        kept = [_without(item, absent) for item in nav]
        return [item for item in kept if item is not None]
    if isinstance(nav, dict):
        out = {}
        for title, value in nav.items():
            v = _without(value, absent)
            if v is not None and v != []:
                out[title] = v
        return out or None
    return None if nav in absent else nav


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in sorted((ROOT / "metrics").rglob("*")):
        if path.suffix in FIGURE_SUFFIXES and path.is_file():
            rel = path.relative_to(ROOT).as_posix()
            files.append(File.generated(config, f"assets/figures/{rel}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    renderer = docs_render.Renderer(page.file.src_uri)
    try:
        markdown = renderer.expand(markdown)
    except docs_render.FigureError as exc:
        raise PluginError(f"lingtest docs: {exc}") from exc
    return unlink(markdown, ABSENT)


def unlink(markdown: str, absent: set[str]) -> str:
    """``markdown`` with its links to the ``absent`` pages reduced to their text."""
    if not absent:
        return markdown
    names = "|".join(re.escape(Path(p).name) for p in sorted(absent))
    return re.sub(rf"\[([^\]]+)\]\((?:[^)\s]*/)?(?:{names})(?:#[^)]*)?\)", r"\1", markdown)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return ROLE.sub(_role, html)


def _role(m: re.Match[str]) -> str:
    target = m[1]
    short = target.rsplit(".", 1)[-1]
    if target.startswith("lingtest."):
        return f'<autoref identifier="{target}" optional><code>{short}</code></autoref>'
    return f"<code>{target}</code>"
