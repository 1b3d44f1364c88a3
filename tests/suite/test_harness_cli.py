"""``lingtest suite info`` and ``lingtest run`` through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
from tests.suite import toys
from typer.testing import CliRunner

from lingtest.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LINGTEST_NO_PROGRESS", "1")


@pytest.fixture
def suite_file(tmp_path):
    return toys.write_suite(tmp_path / "demo.jsonl", toys.classification_cases(), technique="demo")


def test_suite_info_json(suite_file):
    out = runner.invoke(app, ["suite", "info", str(suite_file), "--json"])
    assert out.exit_code == 0, out.output
    info = json.loads(out.stdout)
    assert info["name"] == "demo" and info["task"] == "classification" and info["cases"] == 30
    assert info["groups"] == {"negation": 10, "plain": 20} and info["labels"] == ["negative", "positive"]
    assert info["example_input"] == "not a good film number 0" and len(info["sha256"]) == 64
    assert set(info) >= {"version", "technique", "group_rule", "input_form", "output_form", "expectations"}


def test_suite_info_text_of_a_release(suite_file, tmp_path):
    release = toys.write_release(tmp_path / "releases", suite_file)
    out = runner.invoke(app, ["suite", "info", str(release)])
    assert out.exit_code == 0, out.output
    assert "demo-toy" in out.stdout and "1.0.0" in out.stdout and "negation" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) <= 100
    assert "[0, 1]" in out.stdout  # the JSON forms are printed as text, not read as rich markup


def test_run_prints_a_table_and_writes_the_files(suite_file, tmp_path):
    target = tmp_path / "out"
    out = runner.invoke(app, ["run", str(suite_file), "--system", f"{toys.HERE}:sentiment", "--out", str(target)])
    assert out.exit_code == 0, out.output  # failing cases are results, not an error
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines if not line.startswith("wrote ")) <= 100
    assert lines[-1] == f"wrote {target}/results.jsonl and summary.json"
    assert any("negation" in ln and "90.0%" in ln for ln in lines)
    assert any("overall" in ln and "30" in ln and "9" in ln for ln in lines)
    assert (target / "results.jsonl").is_file()
    summary = json.loads((target / "summary.json").read_text())
    assert summary["overall"] == {"cases": 30, "failed": 9}


def test_run_a_seeded_sample_of_a_configured_system(suite_file, tmp_path):
    outs = []
    for name in ("a", "b"):
        out = runner.invoke(app, ["run", str(suite_file), "-s", f"{toys.HERE}:sentiment", "--limit", "7",
                                  "--seed", "5", "-o", str(tmp_path / name)])
        assert out.exit_code == 0, out.output
        assert "a sample of 7 of 30, seed 5" in " ".join(out.stdout.split())
        outs.append([json.loads(x)["id"] for x in (tmp_path / name / "results.jsonl").read_text().splitlines()[1:]])
    assert outs[0] == outs[1] and len(outs[0]) == 7
    s2lct = toys.write_suite(tmp_path / "s2lct.jsonl", toys.s2lct_cases())
    out = runner.invoke(app, ["run", str(s2lct), "--system", "vader", "-o", str(tmp_path / "v")])
    assert out.exit_code == 0, out.output
    assert json.loads((tmp_path / "v" / "summary.json").read_text())["system"]["name"] == "vader"


def test_default_folder_is_runs_suite_system(suite_file, tmp_path, monkeypatch):
    import lingtest.config
    import lingtest.paths

    root = lingtest.paths.project_root()
    monkeypatch.chdir(tmp_path)
    # outside the checkout there is no conf/ to compose: a one-line error, exit 2
    out = runner.invoke(app, ["run", str(suite_file), "--system", f"{toys.HERE}:sentiment", "--limit", "3"])
    assert out.exit_code == 2 and "conf/" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    for module in (lingtest.config, lingtest.paths):
        monkeypatch.setattr(module, "project_root", lambda: root)
    out = runner.invoke(app, ["run", str(suite_file), "--system", f"{toys.HERE}:sentiment", "--limit", "3"])
    assert out.exit_code == 0, out.output
    assert (tmp_path / "runs" / "demo" / "tests.suite.toys_sentiment" / "summary.json").is_file()


@pytest.mark.parametrize("args,code,message", [
    (["run", "MISSING.jsonl", "--system", "vader"], 2, "no such suite file"),
    (["run", "SUITE", "--system", "nosuch"], 2, "configured classification systems"),
    (["run", "SUITE", "--system", f"{toys.HERE}:nan_probs"], 1, "field 'output.negative'"),
    (["suite", "info", "MISSING.jsonl"], 2, "no such suite file"),
])
def test_errors_are_one_line_with_an_exit_code(suite_file, args, code, message):
    args = [str(suite_file) if a == "SUITE" else a for a in args]
    out = runner.invoke(app, args)
    assert out.exit_code == code, out.output
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_suite_info_prints_json_forms_as_text(tmp_path):
    """Brackets in the forms ("[[start, end], ...]") are data, not rich markup."""
    path = toys.write_suite(tmp_path / "coref.jsonl", toys.coref_cases(), technique="demo")
    out = runner.invoke(app, ["suite", "info", str(path)])
    assert out.exit_code == 0, out.output
    assert "[[[start, end], ...], ...]" in out.stdout and '[["token", ...], ...]' in out.stdout
