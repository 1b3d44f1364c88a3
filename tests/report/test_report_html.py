"""`lingtest report`: the word diff, markdown tables (a `<br>` in a cell is a line break, all else
escaped), gathering a technique's pipeline outputs by `cfg.paths` (counts over all results, cases joined
with the suite, systems with metrics but no per-case results), run folders of `lingtest run` (sections,
the comparison of two runs of one suite) and the command (working tree, RUN folders, errors). The page in
a real browser is tests/report/test_report_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from omegaconf import DictConfig, OmegaConf
from tests.fakes.dvc_project import release_conf
from tests.report.run_folders import SCRIPT_TEXT, make_runs
from typer.testing import CliRunner

from lingtest.data.io import write_json, write_jsonl
from lingtest.data.model import Provenance, TestCase
from lingtest.report_html.diff import Piece, changed_words, word_diff
from lingtest.report_html.gather import gather
from lingtest.report_html.render import markdown_tables, render
from lingtest.report_html.runs import FAIL_TO_PASS, PASS_TO_FAIL, compare_runs, read_run, run_pages
from lingtest.suite.run import CaseResult, write_results


def test_word_diff_marks_changed_runs() -> None:
    left, right = word_diff("The cat sat on\nthe mat .", "The dog sat on\nthe big mat .")
    assert left == [Piece("The", "same"), Piece("cat", "del"), Piece("sat on\nthe", "same"), Piece("mat .", "same")]
    assert [p for p in right if p.kind == "ins"] == [Piece("dog", "ins"), Piece("big", "ins")]
    assert changed_words(right) == 2 and word_diff("a b", "a b") == ([Piece("a b", "same")], [Piece("a b", "same")])


def test_markdown_tables_escape_and_convert() -> None:
    html = markdown_tables("# Table 3\n\n| system | F1 <b> |\n|---|---:|\n| sieve | 52.3 |\n"
                           "| a<br>b | vader: 3/0<br/>textblob: <i>4</i> |\n")
    assert "<th>F1 &lt;b&gt;</th>" in html and "<td>sieve</td><td>52.3</td>" in html and "---" not in html
    assert html.startswith('<p class="muted">Table 3</p>')
    assert "<td>a<br>b</td><td>vader: 3/0<br>textblob: &lt;i&gt;4&lt;/i&gt;</td>" in html
    assert "&lt;br" not in html


# ---- the working tree's pipeline outputs -----------------------------------------------------------------
def make_outputs(root: Path) -> DictConfig:
    """A technique's outputs as the pipeline writes them: suite, result records, metrics, table, plot; a
    third system has metrics but no per-case results."""
    cases = []
    for i, tr in enumerate(["swap", "synonym", "typo", "swap"]):
        src = f"Mary met John in Paris and she greeted him case{i} ."
        cases.append(TestCase(technique="toy", relation="INV", source={"text": src},
                              followup={"text": src.replace("Paris", "Rome" if tr != "typo" else "Pari s")},
                              expected="invariance", provenance=Provenance(f"s{i}", tr),
                              meta={"capability": "NER" if i % 2 else "Coref"}))
    write_jsonl(root / "data/suites/toy/demo.jsonl", cases, kind="testcase")
    pos, neg = {"label": "positive", "probs": {"negative": 0.1, "positive": 0.9}}, \
        {"label": "negative", "probs": {"negative": 0.7, "positive": 0.3}}
    for system, fail in (("alpha", {0, 2}), ("beta", {1})):
        results = [CaseResult(c.id, system, "invariance", i not in fail,
                              {"source": pos, "followup": neg if i in fail else pos}, {"changed": "Paris"})
                   for i, c in enumerate(cases)]
        write_results(root / f"data/results/toy/demo/{system}.jsonl", results, meta={"system": system})
        write_json(root / f"metrics/toy/demo/systems/{system}.json", {"failures": len(fail), "sets": {"f1": 50.5}})
    write_json(root / "metrics/toy/demo/systems/gamma.json", {"issues": 145})
    (root / "metrics/toy/demo/table1.md").write_text("| system | failures |\n|---|---:|\n| alpha | 2 |\n| beta | 1 |\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.bar(["alpha", "beta"], [2, 1])
    fig.savefig(root / "metrics/toy/demo/failures.png", dpi=50)
    plt.close(fig)
    cfg = OmegaConf.create({"paths": {"toy": {"suite": "data/suites/toy/demo.jsonl", "metrics": "metrics/toy/demo",
                                            "results": "data/results/toy/demo"}, "manifests": "data/manifests"},
                            **release_conf()})
    assert isinstance(cfg, DictConfig)
    return cfg


def test_gather_joins_results_with_the_suite(tmp_path: Path) -> None:
    cfg = make_outputs(tmp_path)
    (sec,) = gather(cfg, tmp_path)
    assert (sec.technique, sec.corpus, sec.task) == ("toy", "demo", "classification")
    assert list(sec.tables) == ["table1.md"] and sec.plots["failures.png"].startswith("data:image/png;base64,")
    assert {s: (c.cases, c.failed) for s, c in sec.counts.items()} == {"alpha": (4, 2), "beta": (4, 1)}
    assert {g: {s: c.failed for s, c in v.items()} for g, v in sec.groups.items()} == {
        "swap": {"alpha": 1, "beta": 0}, "synonym": {"alpha": 0, "beta": 1}, "typo": {"alpha": 1, "beta": 0}}
    assert sorted((c.system, c.group) for c in sec.cases if not c.passed) == [
        ("alpha", "swap"), ("alpha", "typo"), ("beta", "synonym")]
    typo = next(c for c in sec.cases if c.group == "typo" and c.system == "alpha")
    assert "Pari s" in typo.inputs["followup"] and "Paris" in typo.inputs["source"] and typo.note == ""
    assert "data/results/toy/demo/gamma.jsonl is absent" in sec.no_results["gamma"]
    cfg.report.max_cases = 1
    (sec,) = gather(cfg, tmp_path)
    assert sum(not c.passed for c in sec.cases) == 2 and sec.not_shown == {"alpha": (1, 1), "beta": (0, 2)}
    assert sec.counts["alpha"].cases == 4  # the counts are over every result, not the cases shown


def test_the_page_of_a_pipeline_section(tmp_path: Path) -> None:
    cfg = make_outputs(tmp_path)
    html = render(gather(cfg, tmp_path), title="toy report", subtitle="fixture")
    assert "http://" not in html and "https://" not in html  # self-contained: nothing to fetch
    assert html.count('<details class="case"') == 8 and html.count('data-outcome="fail"') == 3
    systems = html[html.index('<table class="systems">'):]
    systems = systems[:systems.index("</table>")]
    assert re.search(r"<td>gamma</td><td class=\"num\">—</td>", systems)  # never "0 cases" beside metrics
    assert re.search(r"<td>alpha</td><td class=\"num\">4</td><td class=\"num\">2</td>", systems)
    group_filter = re.search(r'<select name="group">(.*?)</select>', html)
    assert group_filter and re.findall(r'value="([^"]*)"', group_filter.group(1)) == ["", "swap", "synonym", "typo"]
    assert '<option value="fail" selected>' in html
    assert "<mark>Pari s</mark>" in html and "<mark>Paris</mark>" in html


def test_a_section_without_per_case_results_or_suite_says_so(tmp_path: Path) -> None:
    cfg = make_outputs(tmp_path)
    (tmp_path / "data/suites/toy/demo.jsonl").unlink()
    (sec,) = gather(cfg, tmp_path)
    assert any("data/suites/toy/demo.jsonl) is not in this working tree" in n for n in sec.notes)
    assert all(c.note == "the suite is not in this working tree" for c in sec.cases)
    html = render([sec], title="t", subtitle="s")
    assert "the suite is not in this working tree" in html and '<p class="why">' in html
    for p in (tmp_path / "data/results/toy/demo").glob("*.jsonl"):
        p.unlink()
    (sec,) = gather(cfg, tmp_path)
    assert sec.counts == {} and set(sec.no_results) == {"alpha", "beta", "gamma"}
    html = render([sec], title="t", subtitle="s")
    assert "no per-case results in this working tree (data/results/toy/demo is absent or empty)" in html
    assert "Test cases" not in html and ">0<" not in html


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
    assert text.count('<details class="case"') == 8 and "toy — demo" in text
    assert report_command(Path("out/r2.html"), max_cases=1) == 0
    assert (tmp_path / "out/r2.html").read_text().count('data-outcome="fail"') == 2


# ---- folders of `lingtest run` -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    mp = pytest.MonkeyPatch()
    mp.setenv("LINGTEST_NO_PROGRESS", "1")
    root = tmp_path_factory.mktemp("report-runs")
    try:
        return make_runs(root, ["classification", "classification-b", "ner"])
    finally:
        mp.undo()


def test_a_run_becomes_a_section(runs: dict[str, Path]) -> None:
    sections, comparisons, notes = run_pages([runs["classification"], runs["ner"]], max_cases=5, max_chars=100)
    clf, ner = sections
    assert comparisons == [] and "no two runs are of the same suite" in notes[0]
    assert clf.task == "classification" and clf.counts[clf.title.split(" — ")[1]].cases == 31
    assert {g: sum(c.failed for c in v.values()) for g, v in clf.groups.items()} == {
        "negation": 9, "plain": 0, "markup": 1}
    assert sum(not c.passed for c in clf.cases) == 5 and sum(c.passed for c in clf.cases) == 1
    (label,) = clf.not_shown
    assert clf.not_shown[label] == (5, 20)
    assert ner.technique == "tin" and [c.inputs["followup"] for c in ner.cases if not c.passed] == [
        ["anna", "met", "Bo", "."]]


def test_two_runs_of_one_suite_list_the_flipped_cases(runs: dict[str, Path]) -> None:
    a, b = read_run(runs["classification"]), read_run(runs["classification-b"])
    cmp = compare_runs(a, b, 0, max_cases=50, max_chars=0)
    assert cmp.counts == {PASS_TO_FAIL: 1, FAIL_TO_PASS: 10, "both fail": 0, "both pass": 20, "only in A": 0,
                          "only in B": 0}
    (down,) = [f for f in cmp.flips if f.direction == PASS_TO_FAIL]
    assert down.a.passed and not down.b.passed and down.a.inputs["source"] == "not a good film number 0"
    assert any(f.a.inputs["source"] == SCRIPT_TEXT for f in cmp.flips)
    with pytest.raises(Exception, match="different suites"):
        compare_runs(a, read_run(runs["ner"]), 0, max_cases=5, max_chars=0)


def test_the_command_on_run_folders(runs: dict[str, Path], tmp_path: Path) -> None:
    from lingtest.cli import app

    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", str(runs["classification"]), str(runs["classification-b"]),
                                   str(runs["ner"]), "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert html.count("<section id=\"run-") == 3 and '<section id="compare-1">' in html
    flips = html[html.index('<section id="compare-1">'):html.index('<section id="run-1">')]
    assert flips.count('data-flip="fail-&gt;pass"') == 10 and flips.count('data-flip="pass-&gt;fail"') == 1
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in html and "<script>document" not in html
    assert "<script" not in html.replace("<script>\n(function", "")  # the page's own script only
    assert re.search(r"<p class=\"text\">not a good film number 0</p>", flips)


def test_the_command_rejects_what_is_not_a_run(runs: dict[str, Path], tmp_path: Path) -> None:
    from lingtest.commands.report import report_command

    (tmp_path / "empty").mkdir()
    assert report_command(tmp_path / "x.html", runs=[tmp_path / "empty"]) == 2
    assert report_command(tmp_path / "x.html", runs=[runs["ner"]], compare_revs=["HEAD"]) == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text("{}")
    (bad / "results.jsonl").write_text(json.dumps({"__schema__": 1, "kind": "suite-results"}) + "\n{\"id\": 1}\n")
    with pytest.raises(Exception, match="line 2, field 'id'"):
        read_run(bad)
    assert not (tmp_path / "x.html").exists()


def test_validity_is_shown_beside_precision(tmp_path: Path) -> None:
    from lingtest.report_html.render import validity_rows

    metrics = {"precision": 1.0, "validity_valid": 9, "validity_total": 10, "precision_validity_adjusted": 0.8,
               "sets": {"swap": {"validity_valid": 1, "validity_total": 4}, "none": {"validity_total": 0}}}
    assert validity_rows(metrics) == [("overall", 9, 10, 1.0, 0.8), ("sets.swap", 1, 4, None, None)]
    cfg = make_outputs(tmp_path)
    # a technique that keeps a system's metrics beside its tables (not under systems/)
    (tmp_path / "metrics/toy/demo/systems/alpha.json").unlink()
    write_json(tmp_path / "metrics/toy/demo/alpha.json", {"issues": {"overall": {
        "precision": 1.0, "validity_valid": 3, "validity_total": 4, "precision_validity_adjusted": 0.5}}})
    html = render(gather(cfg, tmp_path), title="toy report", subtitle="fixture")
    table = html[html.index("Validity of the generated tests"):]
    table = table[:table.index("</table>")]
    assert re.search(r"<td>alpha</td><td>issues.overall</td><td class=\"num\">3 / 4</td><td class=\"num\">75.0%</td>"
                     r"<td class=\"num\">1.00</td><td class=\"num\">0.50</td>", table)
    assert "<td>beta</td>" not in table  # no validity in its metrics
