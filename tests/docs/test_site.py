"""The documentation site builds with ``mkdocs build --strict`` (no warning), and neither the built pages
nor README.new.md speak of how the code was written. Skipped where MkDocs is not installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: words a user-facing page has no business with: development history and its actors
FORBIDDEN = re.compile(r"\bissues?\s+#?\d+|\bhelpers?\b|\bsessions?\b", re.IGNORECASE)


class _Text(HTMLParser):
    """The text of an HTML page, scripts and styles left out."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return re.sub(r"\s+", " ", "".join(parser.parts))


def forbidden_words(text: str) -> list[str]:
    return sorted({m.group(0) for m in FORBIDDEN.finditer(text)})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason=f"{module} is not installed "
                                           "(pip install mkdocs-material 'mkdocstrings[python]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    for page in ("index.html", "guide/your-model/index.html", "techniques/crest/index.html",
                 "reference/cli/index.html", "reference/api/suites/index.html", "changelog/index.html"):
        assert (site / page).is_file(), page
    crest = page_text((site / "techniques/crest/index.html").read_text(encoding="utf-8"))
    assert "reproduce: dvc repro" in crest  # figures come with their commands
    cli = page_text((site / "reference/cli/index.html").read_text(encoding="utf-8"))
    assert "lingtest run" in cli and "--system" in cli  # generated from the typer app
    assert "crest.ranker.window" in crest  # the configuration table, generated from CrestConfig
    assert list((site / "assets" / "figures").rglob("*.png"))  # the committed plots are published


def test_built_pages_do_not_speak_of_how_the_code_was_written(site: Path) -> None:
    found = {}
    for page in sorted(site.rglob("*.html")):
        words = forbidden_words(page_text(page.read_text(encoding="utf-8")))
        if words:
            found[str(page.relative_to(site))] = words
    assert not found, f"development history in built pages: {found}"


def test_the_readme_does_not_either() -> None:
    from docs.hooks import readme

    assert forbidden_words(readme.target().read_text(encoding="utf-8")) == []


def test_the_filter_catches_what_it_should() -> None:
    assert forbidden_words("fixed in issue 14 by a helper during a session") == ["helper", "issue 14", "session"]
    assert forbidden_words("the issues a system shows; 3 issues") == []
