"""The report in a real browser: headless Chromium (Debian's ``chromium``) from the command line,
``--dump-dom`` after the page's script ran (``--virtual-time-budget``) and ``--screenshot``. The page is
made from ``lingtest run`` folders of every task (tests/report/run_folders.py); the DOM must show a
failing case's text for every run, the filters must work (preset from the address), a case whose text is
markup must stay text, and the console must stay quiet. Screenshots are kept under
``test-artifacts/report/`` (git-ignored). Skips only when no Chromium binary is installed (CI must
install the ``chromium`` package)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from tests.report.run_folders import RUNS, SCRIPT_TEXT, make_runs

#: making the run folders (the committed releases included) and three browser runs take ~20 s
pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "report"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with its own profile under ``tmp``; stderr carries the console."""
    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install chromium)")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--hide-scrollbars", f"--user-data-dir={tmp / 'chromium-profile'}", "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=5000", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def console(stderr: str) -> list[str]:
    """What the page wrote to the console (errors included)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


class Dom(HTMLParser):
    """The parts of a dumped page the tests read: every case block (its section, attributes and text),
    every filter count, the scripts and the title."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.cases: list[dict[str, Any]] = []
        self.counts: dict[str, str] = {}
        self.scripts = 0
        self.title = ""
        self.body: dict[str, str] = {}
        self._case: dict[str, Any] | None = None
        self._count: str | None = None
        self._bar: str | None = None
        self.feed(html)

    def section(self) -> str:
        return next((a.get("id", "") for t, a in reversed(self.stack) if t == "section"), "")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "script":
            self.scripts += 1
        if tag == "body":
            self.body = a
        if tag == "div" and "filters" in a.get("class", "").split():
            self._bar = a.get("data-target", "")
        if tag == "span" and a.get("class") == "count" and self._bar is not None:
            self._count = self._bar
            self.counts[self._count] = ""
        if tag == "details" and "case" in a.get("class", "").split():
            self._case = {"section": self.section(), "attrs": a, "text": [], "depth": len(self.stack)}
            self.cases.append(self._case)
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            t, _ = self.stack.pop()
            if self._case is not None and len(self.stack) == self._case["depth"] and t == "details":
                self._case["text"] = "".join(self._case["text"])
                self._case = None
            if t == "span":
                self._count = None
            if t == "div" and self._bar is not None and not any(
                    "filters" in x.get("class", "") for _, x in self.stack):
                self._bar = None
            if t == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][0] == "title":
            self.title += data
        if self._case is not None:
            self._case["text"].append(data)
        if self._count is not None:
            self.counts[self._count] += data


def in_order(words: list[str], text: str) -> bool:
    """Every word occurs in ``text``, each after the one before."""
    at = 0
    for w in words:
        at = text.find(w, at)
        if at < 0:
            return False
        at += len(w)
    return True


def failing_words(folder: Path) -> list[str]:
    """The words of the first failing case of a run, as its task shows them (the first sentence of a
    document; a contrastive query's source and reference)."""
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    task = json.loads((folder / "summary.json").read_text())["suite"]["task"]
    rec = next(r for r in map(json.loads, lines) if not r["passed"])
    src = rec["inputs"]["source"]
    if task == "classification":
        return str(src).split()
    if task == "ner":
        return [str(t) for t in src]
    if task == "coref":
        return [str(t) for t in src["sentences"][0]][:40]
    assert task == "contrastive"
    return [*src["source"].split(), *src["candidates"][rec["expected"].get("reference", 0)].split()]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    from lingtest.commands.report import report_command

    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install chromium)")
    mp = pytest.MonkeyPatch()
    mp.setenv("LINGTEST_NO_PROGRESS", "1")
    root = tmp_path_factory.mktemp("report-browser")
    try:
        runs = make_runs(root)
    finally:
        mp.undo()
    out = root / "report.html"
    assert report_command(out, runs=list(runs.values())) == 0
    return out, runs


def test_every_task_shows_a_failing_case_in_the_browser(page: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    path, runs = page
    done = chromium(tmp_path, "--dump-dom", path.as_uri())
    assert console(done.stderr) == []
    dom = Dom(done.stdout)
    assert dom.body.get("data-ready") == "1"  # the page's script ran to its end
    assert dom.scripts == 1 and dom.title == "lingtest report"  # the markup case ran nothing
    tasks_seen = set()
    for i, (name, folder) in enumerate(runs.items()):
        section = f"run-{i + 1}"
        cases = [c for c in dom.cases if c["section"] == section]
        failing = [c for c in cases if c["attrs"].get("data-outcome") == "fail"]
        assert failing, name
        assert all("hidden" not in c["attrs"] for c in failing), name  # failing cases show first
        words = failing_words(folder)
        assert any(in_order(words, c["text"]) for c in failing), (name, words)
        assert "open" in failing[0]["attrs"]  # the first failing case opens by itself
        shown = sum("hidden" not in c["attrs"] for c in cases)
        assert dom.counts[f"cases-{section}"] == f"{shown} of {len(cases)} cases shown"
        tasks_seen.add(RUNS[name][0])
    assert tasks_seen == {"classification", "ner", "coref", "contrastive"}
    markup = [c for c in dom.cases if SCRIPT_TEXT in c["text"]]
    assert markup and markup[0]["attrs"]["data-group"] == "markup"
    flips = [c for c in dom.cases if c["section"] == "compare-1"]
    assert len(flips) == 11 and {c["attrs"]["data-flip"] for c in flips} == {"pass->fail", "fail->pass"}
    assert dom.counts["flips-compare-1"] == "11 of 11 flipped cases shown"


def test_the_filters_work_in_the_browser(page: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    path, runs = page
    done = chromium(tmp_path, "--dump-dom", path.as_uri() + "#outcome=pass&group=plain")
    assert console(done.stderr) == []
    dom = Dom(done.stdout)
    names = list(runs)
    clf = [c for c in dom.cases if c["section"] == f"run-{names.index('classification') + 1}"]
    visible = [c for c in clf if "hidden" not in c["attrs"]]
    assert visible and all(c["attrs"]["data-outcome"] == "pass" and c["attrs"]["data-group"] == "plain"
                           for c in visible)
    assert len(visible) == sum(c["attrs"]["data-outcome"] == "pass" and c["attrs"]["data-group"] == "plain"
                               for c in clf)
    # the NER run has no group "plain": its group filter stays at "all", the outcome filter applies
    ner_key = f"run-{names.index('ner') + 1}"
    ner = [c for c in dom.cases if c["section"] == ner_key]
    assert {c["attrs"]["data-outcome"] for c in ner if "hidden" not in c["attrs"]} == {"pass"}
    assert dom.counts[f"cases-{ner_key}"] == f"3 of {len(ner)} cases shown"
    done = chromium(tmp_path, "--dump-dom", path.as_uri() + "#flip=pass-%3Efail")
    flips = [c for c in Dom(done.stdout).cases if c["section"] == "compare-1" and "hidden" not in c["attrs"]]
    assert [c["attrs"]["data-flip"] for c in flips] == ["pass->fail"]


def test_screenshots(page: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    """The whole page and one page per task, kept as test artefacts."""
    from lingtest.commands.report import report_command

    path, runs = page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = {"report": path}
    for name in ("ner", "coref", "crest", "adversarial", "contrastive", "hatexplain"):
        one = tmp_path / f"{name}.html"
        assert report_command(one, runs=[runs[name]]) == 0
        shots[f"report-{name}"] = one
    for name, html in shots.items():
        shot = ARTIFACTS / f"{name}.png"
        shot.unlink(missing_ok=True)
        chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", html.as_uri())
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000, name
    assert re.search(r"<section id=\"compare-1\">", path.read_text(encoding="utf-8"))
