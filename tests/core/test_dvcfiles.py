"""Where the DVC files are and how a stage is addressed (the root file: data; stages/<technique>/: the rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.dvcfiles import dvc_files, read_locks, stage_address, stage_files
from lingtest.errors import LingtestError

ROOT = Path(__file__).resolve().parents[2]


def test_the_repository_pipeline_files():
    files = [str(f.relative_to(ROOT)) for f in dvc_files(ROOT)]
    assert files[0] == "dvc.yaml" and {"stages/crest/dvc.yaml", "stages/tin/dvc.yaml"} <= set(files)
    where = stage_files(ROOT)
    assert where["parse"] == ROOT / "dvc.yaml" and where["crest_generate"] == ROOT / "stages/crest/dvc.yaml"
    assert stage_address(ROOT, "parse@ontogum") == "parse@ontogum"
    assert stage_address(ROOT, "crest_evaluate@sieve") == "stages/crest/dvc.yaml:crest_evaluate@sieve"
    with pytest.raises(LingtestError, match="no DVC stage 'nope'"):
        stage_address(ROOT, "nope")
    locks = read_locks(ROOT)  # every file's lock, merged
    assert "crest_generate" in locks and any(k.startswith("parse@") for k in locks)


def test_a_project_with_technique_files(tmp_path):
    (tmp_path / "dvc.yaml").write_text("stages:\n  a:\n    cmd: echo a\n")
    (tmp_path / "stages" / "t").mkdir(parents=True)
    (tmp_path / "stages" / "t" / "dvc.yaml").write_text("stages:\n  b:\n    cmd: echo b\n")
    (tmp_path / "dvc.lock").write_text("schema: '2.0'\nstages:\n  a:\n    cmd: echo a\n")
    (tmp_path / "stages" / "t" / "dvc.lock").write_text("schema: '2.0'\nstages:\n  b:\n    cmd: echo b\n")
    assert stage_address(tmp_path, "b") == "stages/t/dvc.yaml:b"
    assert set(read_locks(tmp_path)) == {"a", "b"}


def test_the_stages_command_prints_a_command_per_stage():
    from typer.testing import CliRunner

    from lingtest.cli import app

    out = CliRunner().invoke(app, ["pipeline", "stages"]).output
    assert "dvc repro stages/crest/dvc.yaml:crest_evaluate@ITEM" in out
    assert "dvc repro parser_agreement" in out
    assert max(map(len, out.splitlines())) <= 100  # fits a screen
    check = CliRunner().invoke(app, ["pipeline", "deps", "--check"])
    assert check.exit_code == 0 and "current" in check.output
