"""`lingtest report`: the word diff, markdown tables, gathering a technique's outputs by
`cfg.paths`, and the page itself rendered in headless Chromium (Selenium): no console errors,
tables present, the filters work, a failing case opens; a small screenshot is kept under
test-artifacts/ (git-ignored)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from tests.fakes.dvc_project import release_conf

from lingtest.data.io import write_json, write_jsonl
from lingtest.data.model import Provenance, TestCase
from lingtest.report_html.diff import Piece, changed_words, word_diff
from lingtest.report_html.gather import gather
from lingtest.report_html.render import markdown_tables, render
from lingtest.suite.run import CaseResult, write_results

ROOT = Path(__file__).resolve().parents[2]


def test_word_diff_marks_changed_runs() -> None:
    left, right = word_diff("The cat sat on\nthe mat .", "The dog sat on\nthe big mat .")
    assert left == [Piece("The", "same"), Piece("cat", "del"), Piece("sat on\nthe", "same"), Piece("mat .", "same")]
    assert [p for p in right if p.kind == "ins"] == [Piece("dog", "ins"), Piece("big", "ins")]
    assert changed_words(right) == 2 and word_diff("a b", "a b") == ([Piece("a b", "same")], [Piece("a b", "same")])


def test_markdown_tables_escape_and_convert() -> None:
    html = markdown_tables("# Table 3\n\n| system | F1 <b> |\n|---|---:|\n| sieve | 52.3 |\n")
    assert "<th>F1 &lt;b&gt;</th>" in html and "<td>sieve</td><td>52.3</td>" in html and "---" not in html
    assert html.startswith('<p class="muted">Table 3</p>')


def make_outputs(root: Path) -> object:
    """A technique's outputs as the pipeline writes them: suite, result records, metrics, table, plot."""
    cases = []
    for i, tr in enumerate(["swap", "synonym", "typo", "swap"]):
        src = f"Mary met John in Paris and she greeted him case{i} ."
        cases.append(TestCase(technique="toy", relation="INV", source={"text": src},
                              followup={"text": src.replace("Paris", "Rome" if tr != "typo" else "Pari s")},
                              expected="invariance", provenance=Provenance(f"s{i}", tr),
                              meta={"capability": "NER" if i % 2 else "Coref"}))
    write_jsonl(root / "data/suites/toy/demo.jsonl", cases, kind="testcase")
    for system, fail in (("alpha", {0, 2}), ("beta", {1})):
        results = [CaseResult(c.id, system, "invariance", i not in fail,
                              {"source": [[0, 0], [5, 5]], "followup": [[0, 0]] if i in fail else [[0, 0], [5, 5]]},
                              {"changed": "Paris"}) for i, c in enumerate(cases)]
        write_results(root / f"data/results/toy/demo/{system}.jsonl", results, meta={"system": system})
        write_json(root / f"metrics/toy/demo/systems/{system}.json", {"failures": len(fail), "sets": {"f1": 50.5}})
    (root / "metrics/toy/demo/table1.md").write_text("| system | failures |\n|---|---:|\n| alpha | 2 |\n| beta | 1 |\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.bar(["alpha", "beta"], [2, 1])
    fig.savefig(root / "metrics/toy/demo/failures.png", dpi=50)
    plt.close(fig)
    return OmegaConf.create({"paths": {"toy": {"suite": "data/suites/toy/demo.jsonl", "metrics": "metrics/toy/demo",
                                               "results": "data/results/toy/demo"}, "manifests": "data/manifests"},
                             **release_conf()})


def test_gather_joins_results_with_the_suite(tmp_path: Path) -> None:
    cfg = make_outputs(tmp_path)
    (sec,) = gather(cfg, tmp_path)
    assert (sec.technique, sec.corpus) == ("toy", "demo")
    assert list(sec.tables) == ["table1.md"] and sec.plots["failures.png"].startswith("data:image/png;base64,")
    assert sec.cases == {"alpha": 4, "beta": 4}
    assert sorted((c.system, c.transformation) for c in sec.failures) == [
        ("alpha", "swap"), ("alpha", "typo"), ("beta", "synonym")]
    typo = next(c for c in sec.failures if c.transformation == "typo")
    assert "Pari s" in typo.followup_text and "Paris" in typo.source_text and typo.capability == "Coref"
    cfg.report.max_cases = 1
    (sec,) = gather(cfg, tmp_path)
    assert len(sec.failures) == 2 and sec.shown_cut == {"alpha": 1}


def _chrome() -> object:
    webdriver = pytest.importorskip("selenium.webdriver")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip("Debian chromium and chromium-driver are not installed")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,700",
                "--disable-extensions", "--no-first-run"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=driver_path))


def test_report_in_headless_chromium(tmp_path: Path) -> None:
    cfg = make_outputs(tmp_path)
    html = render(gather(cfg, tmp_path), title="toy report", subtitle="fixture",
                  comparison_md="| metric | a | b |\n|---|---|---|\n| f1 | 1 | 2 |\n")
    assert "http://" not in html and "https://" not in html  # self-contained: nothing to fetch
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = _chrome()
    try:
        driver.get(page.as_uri())  # type: ignore[attr-defined]
        tables = driver.find_elements(By.CSS_SELECTOR, "table")  # type: ignore[attr-defined]
        assert len(tables) >= 4  # comparison, table1.md, systems, all metrics
        assert driver.find_element(By.CSS_SELECTOR, "#comparison table td").text == "f1"  # type: ignore[attr-defined]
        count = driver.find_element(By.CSS_SELECTOR, ".filters .count")  # type: ignore[attr-defined]
        assert count.text == "3 of 3 failing cases shown"  # the script ran
        Select(driver.find_element(By.CSS_SELECTOR, "select[name=system]")).select_by_value("alpha")  # type: ignore[attr-defined]
        assert count.text == "2 of 3 failing cases shown"
        Select(driver.find_element(By.CSS_SELECTOR, "select[name=transformation]")).select_by_value("typo")  # type: ignore[attr-defined]
        assert count.text == "1 of 3 failing cases shown"
        case = next(c for c in driver.find_elements(By.CSS_SELECTOR, "details.case") if c.is_displayed())  # type: ignore[attr-defined]
        assert case.get_attribute("open") is None
        case.find_element(By.TAG_NAME, "summary").click()
        assert case.get_attribute("open") is not None
        assert case.find_element(By.TAG_NAME, "ins").text == "Pari s"
        assert case.find_element(By.TAG_NAME, "del").text == "Paris"
        assert "prediction on the follow-up" in case.text
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]  # type: ignore[attr-defined]
        assert errors == []
        shot = ROOT / "test-artifacts" / "report.png"
        shot.parent.mkdir(exist_ok=True)
        assert driver.save_screenshot(str(shot))  # type: ignore[attr-defined]
        assert 0 < shot.stat().st_size < 200_000
    finally:
        driver.quit()  # type: ignore[attr-defined]


def test_report_command_on_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    from lingtest.commands.report import report_command

    cfg = make_outputs(tmp_path)
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(OmegaConf.to_container(cfg)))
    monkeypatch.chdir(tmp_path)
    assert report_command(Path("out/r.html")) == 0
    text = (tmp_path / "out/r.html").read_text()
    assert text.count('<details class="case"') == 3 and "toy — demo" in text
