"""``lingtest review`` through typer's CliRunner: the HTML page, a labels file recorded, the summary (text
and JSON), and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.review import review_fixtures as fx
from typer.testing import CliRunner

from lingtest.review.session import open_review

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def app():
    return fx.review_app()


@pytest.fixture
def suite(tmp_path):
    return fx.write(tmp_path / "demo.jsonl", fx.text_cases(), technique="demo")


def labels_of(tmp_path, suite, rows):
    review = open_review(str(suite), root=tmp_path)
    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps({**r, "id": review.suite.cases[r["id"]].id}) + "\n" for r in rows),
                    encoding="utf-8")
    return path, review


def test_html_writes_the_sampled_cases(app, suite, tmp_path):
    out = runner.invoke(app, ["review", str(suite), "--sample", "4", "--seed", "1", "--html", "page.html",
                              "--reviewer", "ann"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    review = open_review(str(suite), root=tmp_path)
    assert all(c.id in page for c in review.sample(4, 1)) and page.count('<section class="case"') == 4
    assert f"--labels demo@{review.key.sha256[:16]}-labels.jsonl" in out.stdout
    assert not (tmp_path / "reviews").exists()  # nothing judged yet


def test_labels_are_recorded_and_summarised(app, suite, tmp_path):
    rows = [{"id": k, "well_formed": k % 5 != 0, "label_correct": k % 4 != 0} for k in range(0, 40, 2)]
    path, review = labels_of(tmp_path, suite, rows)
    out = runner.invoke(app, ["review", str(suite), "--labels", str(path), "--reviewer", "ann"])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("recorded 20 judgements of 20 cases by ann in ")
    out = runner.invoke(app, ["review", str(suite), "--summary", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)
    overall = summary["overall"]
    assert (overall["well_formed"]["k"], overall["well_formed"]["n"]) == (16, 20)
    assert (overall["label_correct"]["k"], overall["label_correct"]["n"]) == (10, 20)
    assert (overall["both"]["k"], overall["both"]["n"]) == (8, 20)
    assert round(overall["well_formed"]["low"], 4) == 0.5840 and round(overall["well_formed"]["high"], 4) == 0.9193
    assert list(summary["groups"]) == ["synonym", "typo"]  # 10 judged cases each
    out = runner.invoke(app, ["review", str(suite), "--summary"])
    assert out.exit_code == 0, out.output
    text = out.stdout
    assert "20 cases judged (20 judgements by ann)" in text and "80.0% [58.4, 91.9]" in text and "16/20" in text
    assert "relation correct" not in text and "label correct" in text
    assert max(len(line) for line in text.splitlines()[1:]) <= 100
    everything = runner.invoke(app, ["review", "--summary", "--json"])
    assert everything.exit_code == 0 and json.loads(everything.stdout) == [summary]


def test_a_bad_labels_file_is_refused_naming_line_and_field(app, suite, tmp_path):
    path, review = labels_of(tmp_path, suite, [{"id": 0, "well_formed": True}, {"id": 1, "well_formed": "y"}])
    out = runner.invoke(app, ["review", str(suite), "--labels", str(path)])
    assert out.exit_code == 2
    assert f"error: {path}, line 2, field 'well_formed': must be true, false or null" in out.stderr
    assert not review.path.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--json"], "--json prints the --summary"),
    ([], "give the SUITE"),
    (["{suite}", "--labels", "a.jsonl", "--html", "b.html"], "give one"),
    (["{suite}", "--sample", "0"], "--sample"),
])
def test_wrong_uses_are_refused(app, suite, args, message):
    out = runner.invoke(app, ["review", *[a.format(suite=suite) for a in args]])
    assert out.exit_code == 2 and message in out.output


def test_a_release_whose_text_is_withheld_is_refused_with_the_materialise_hint(app):
    release = ROOT / "releases" / "s2lct-sst" / "1.0.0"
    if not (release / "provenance.json").is_file():
        pytest.skip("the committed s2lct-sst release is not checked out")
    out = runner.invoke(app, ["review", str(release), "--sample", "5"])
    assert out.exit_code == 2
    assert "withholds its text" in out.stderr and f"lingtest release materialize {release}" in out.stderr
    out = runner.invoke(app, ["review", str(release), "--summary", "--json"])  # the rates need no text
    assert out.exit_code == 0 and json.loads(out.stdout)["suite"] == "s2lct-sst"


def test_a_release_of_sources_is_refused(app):
    release = ROOT / "releases" / "tin-conll2003" / "1.0.0"
    if not (release / "provenance.json").is_file():
        pytest.skip("the committed tin-conll2003 release is not checked out")
    out = runner.invoke(app, ["review", str(release)])
    assert out.exit_code == 2 and "a release of sources" in out.stderr
