from __future__ import annotations

import json
import subprocess
import sys

import pytest
from omegaconf import OmegaConf
from typer.testing import CliRunner

from lingtest.cli import app
from lingtest.errors import LingtestError
from lingtest.launcher import main as launcher_main
from lingtest.pipeline.runner import run_stage

runner = CliRunner()


def test_registry_lists_every_kind():
    out = runner.invoke(app, ["registry"])
    assert out.exit_code == 0, out.output
    for kind in ("reader:", "parser:", "system under test:", "metric:", "perturbation:", "oracle:",
                 "dataset source:", "candidate proposer:"):
        assert kind in out.output
    assert "sieve" in out.output and "ontogum" in out.output


def test_config_show_applies_overrides():
    out = runner.invoke(app, ["config", "show", "seed=7"])
    assert out.exit_code == 0, out.output
    assert "seed: 7" in out.output


def test_launcher_dispatches_coref_score_without_typer(fixtures_dir, capsys):
    key = next(p for p in sorted((fixtures_dir / "coref").iterdir()) if p.suffix in (".conll", ".v4_gold_conll"))
    assert launcher_main(["coref-score", str(key), str(key), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["conll_f1"] == pytest.approx(1.0)


def test_console_script_starts_without_heavy_imports():
    code = ("import sys; from lingtest.launcher import main; import lingtest.commands.coref_score;"
            "print(sorted(m for m in ('torch','spacy','mlflow','omegaconf','pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "params.yaml").write_text(OmegaConf.to_yaml(
        {"seed": 1, "tracking": {"enabled": False, "experiment": "t", "uri": None, "deferred": False}}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_stage_passes_item_and_overrides(project):
    seen = {}

    def body(ctx, item):
        seen.update(item=item, seed=ctx.cfg.seed)
        ctx.tracker.log_metrics({"n": 3})
        return "done"

    assert run_stage("demo", body, ["thing", "seed=5"]) == "done"
    assert seen == {"item": "thing", "seed": 5}


def test_run_stage_rejects_an_item_the_stage_does_not_take(project):
    with pytest.raises(LingtestError, match="takes no item"):
        run_stage("demo", lambda ctx: None, ["thing"])
