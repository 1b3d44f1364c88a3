"""The ``coref-score`` command: JSON and table output, options, errors, start-up weight."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lingtest.commands.coref_score import register
from lingtest.metrics.coref import METRIC_NAMES, conll_f1_from_scores, score_documents
from lingtest.readers.conll_coref import read_coref_records

RESPONSE = """#begin document (test/doc_a); part 000
x\t(0)
x\t-
x\t(0)|(1
x\t1)
x\t-

x\t(1)
x\t-
x\t-
x\t(2
x\t2)
x\t(2)

#end document
#begin document (test/doc_a); part 001
x\t(3)
x\t-
x\t-
#end document
#begin document (test/doc_b); part 000
x\t(7
x\t7)
x\t-
x\t(5)
x\t-
x\t-
x\t-
#end document
"""


@pytest.fixture()
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)

    @a.callback()
    def _root() -> None:  # keep 'coref-score' a named subcommand
        pass

    return a


@pytest.fixture()
def files(fixtures_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    resp = tmp_path / "response.conll"
    resp.write_text(RESPONSE)
    return fixtures_dir / "coref" / "sample.v4_gold_conll", resp


def test_json_output_matches_library(app: typer.Typer, files: tuple[Path, Path]) -> None:
    key, resp = files
    result = CliRunner().invoke(app, ["coref-score", str(key), str(resp), "--json"])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert list(obj) == [*METRIC_NAMES, "conll_f1"]
    expected = score_documents(read_coref_records(key), read_coref_records(resp), METRIC_NAMES)
    for m in METRIC_NAMES:
        for field in ("recall", "precision", "f1", "recall_num", "recall_den", "precision_num",
                      "precision_den"):
            assert obj[m][field] == pytest.approx(getattr(expected[m], field)), (m, field)
            if field in ("recall", "precision", "f1"):
                assert 0.0 <= obj[m][field] <= 1.0
    assert obj["conll_f1"] == pytest.approx(conll_f1_from_scores(expected))
    assert 0 < obj["conll_f1"] < 1
    assert obj["blanc"]["coref"]["recall_den"] == expected["blanc"].coref.recall_den


def test_single_metric_and_table(app: typer.Typer, files: tuple[Path, Path]) -> None:
    key, resp = files
    result = CliRunner().invoke(app, ["coref-score", str(key), str(resp), "--metric", "muc", "--json"])
    assert result.exit_code == 0
    assert list(json.loads(result.stdout)) == ["muc"]
    table = CliRunner().invoke(app, ["coref-score", str(key), str(resp)])
    assert table.exit_code == 0
    out = table.stdout
    assert "METRIC muc:" in out and "METRIC blanc:" in out and "METRIC lea:" in out
    assert "Identification of Mentions: Recall: (" in out
    assert "Coreference: Recall: (" in out and "Non-coreference links:" in out
    assert "CoNLL F1" in out


def test_self_score_is_perfect(app: typer.Typer, files: tuple[Path, Path]) -> None:
    key, _ = files
    obj = json.loads(CliRunner().invoke(app, ["coref-score", str(key), str(key), "--json"]).stdout)
    assert obj["conll_f1"] == 1.0 and all(obj[m]["f1"] == 1.0 for m in METRIC_NAMES)


def test_bad_metric_and_bad_input(app: typer.Typer, files: tuple[Path, Path], tmp_path: Path) -> None:
    key, resp = files
    bad = CliRunner().invoke(app, ["coref-score", str(key), str(resp), "--metric", "f1"])
    assert bad.exit_code != 0
    other = tmp_path / "other.conll"
    other.write_text("#begin document (elsewhere)\nx\t(1)\n#end document\n")
    missing = CliRunner().invoke(app, ["coref-score", str(key), str(other)])
    assert missing.exit_code == 2
    assert "test/doc_a#0" in missing.output and "not in the response" in missing.output
    broken = tmp_path / "broken.conll"
    broken.write_text("#begin document (d)\nx\t(1\n")
    result = CliRunner().invoke(app, ["coref-score", str(broken), str(broken)])
    assert result.exit_code == 2 and "line 2" in result.output


def test_module_runs_alone_and_imports_little(files: tuple[Path, Path]) -> None:
    key, resp = files
    code = ("import sys, runpy; sys.argv = ['coref_score', *sys.argv[1:]];\n"
            "try:\n    runpy.run_module('lingtest.commands.coref_score', run_name='__main__')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "heavy = [m for m in ('spacy', 'torch', 'pandas', 'mlflow', 'omegaconf', 'scipy', 'numpy', "
            "'transformers', 'lingtest.data', 'pydantic', 'typer') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    proc = subprocess.run([sys.executable, "-c", code, str(key), str(resp), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["muc"]["recall_den"] > 0


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_ontogum_directory(app: typer.Typer, mirror: Path) -> None:
    conll = mirror / "ontogum" / "coref" / "ontogum" / "conll"
    strict = CliRunner().invoke(app, ["coref-score", str(conll), str(conll), "--json"])
    assert strict.exit_code == 2 and "GENTLE_poetry_road" in strict.output
    lenient = CliRunner().invoke(app, ["coref-score", str(conll), str(conll), "--json", "--lenient"])
    assert lenient.exit_code == 0
    obj = json.loads(lenient.stdout)
    assert obj["conll_f1"] == 1.0 and obj["muc"]["recall_den"] > 20000


def test_argparse_main_matches_typer_command(app: typer.Typer, files: tuple[Path, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from lingtest.commands.coref_score import main

    key, resp = files
    assert main([str(key), str(resp), "--json", "-m", "ALL"]) == 0
    via_main = json.loads(capsys.readouterr().out)
    via_typer = json.loads(CliRunner().invoke(app, ["coref-score", str(key), str(resp), "--json"]).stdout)
    assert via_main == via_typer
    assert main([str(key), str(tmp := resp.with_name("missing.conll"))]) == 2
    assert "file not found" in capsys.readouterr().err and not tmp.exists()
