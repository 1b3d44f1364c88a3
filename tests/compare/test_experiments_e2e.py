"""Experiments as users run them, end to end in a temporary repository laid out as lingtest is (an empty
root dvc.yaml, the stage in stages/toy/dvc.yaml with ``wdir: ../..`` and ``vars: [../../params.yaml]``)
that composes lingtest's real conf/ through DVC's Hydra integration: `dvc exp run -P -S crest.M=30 -S
dataset=...`, and an experiment
run in DVC's temporary copy (`--temp`: the executor `--queue` + `dvc queue start` use, in the
foreground), whose stage must log into the main workspace's MLflow store, tagged with the
experiment's name; `lingtest compare --exp` reads both experiments' metrics."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from tests.fakes.dvc_project import dvc, git, make_project, metrics

from lingtest.config import write_params
from lingtest.tracking import sync_runs

ROOT = Path(__file__).resolve().parents[2]

STAGE = '''
import json
from pathlib import Path
from lingtest.pipeline.runner import main


def m_stage(ctx):
    cfg = ctx.cfg
    out = Path("metrics/toy") / str(cfg.dataset) / "systems" / "m.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"M": int(cfg.crest.M), "N": int(cfg.crest.N)}))
    ctx.tracker.log_metrics({"M": float(cfg.crest.M)})


main("toy_m", m_stage)
'''

DVC_YAML = '''
vars:
  - ../../params.yaml
stages:
  toy_m:
    wdir: ../..
    cmd: {py} toy_stage.py
    deps: [toy_stage.py]
    params: [crest.M, crest.N, dataset]
    metrics:
      - metrics/toy/${{dataset}}/systems/m.json:
          cache: false
'''


@pytest.mark.e2e
def test_exp_run_and_queue_with_the_hydra_composition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlflow.tracking import MlflowClient

    from lingtest.commands.compare import compare_command

    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(ROOT / "conf", root / "conf")
    shutil.copytree(ROOT / "hydra_plugins", root / "hydra_plugins", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text('[project]\nname = "exp"\n')
    (root / "toy_stage.py").write_text(STAGE)
    (root / "dvc.yaml").write_text("stages: {}\n")  # the data stages' file; the technique's is stages/toy/
    (root / "stages" / "toy").mkdir(parents=True)
    (root / "stages" / "toy" / "dvc.yaml").write_text(DVC_YAML.format(py=sys.executable))
    (root / ".gitignore").write_text("/mlruns/\n")
    git(["init", "-q", "-b", "main"], root)
    dvc(["init", "-q"], root)
    with open(root / ".dvc" / "config", "a") as fh:
        fh.write("[hydra]\n    enabled = true\n    config_dir = conf\n    config_name = config\n"
                 "[core]\n    analytics = false\n")
    write_params(root / "params.yaml", conf_dir=root / "conf")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    dvc(["repro", "-q", "-P"], root)
    assert (root / "stages" / "toy" / "dvc.lock").is_file() and not (root / "dvc.lock").exists()
    git(["add", "-A"], root)
    git(["commit", "-q", "-m", "baseline"], root)
    assert "up to date" in dvc(["status"], root).stdout
    assert "didn't change" in dvc(["repro", "stages/toy/dvc.yaml:toy_m"], root).stdout  # a stage by its address

    # an experiment in the workspace, with Hydra overrides (the lingtest resolvers load in DVC's process)
    dvc(["exp", "run", "-q", "-P", "-S", "crest.M=30", "-S", "dataset=conll2012_sample", "--name", "m30"], root)
    # an experiment in DVC's temporary copy under .dvc/tmp/exps (what `--queue` + `dvc queue start` run in;
    # `--temp` runs the same executor in the foreground, without a background worker)
    dvc(["exp", "run", "-q", "-P", "--temp", "-S", "crest.M=40", "--name", "m40"], root)

    out = io.StringIO()
    assert compare_command([], exps=["m30", "m40"], fmt="json", root=root, out=out) == 0
    rows = {(r["corpus"], r["metric"]): r["values"] for r in json.loads(out.getvalue())["rows"]}
    assert rows[("conll2012_sample", "M")]["m30"] == 30
    assert rows[("ontogum", "M")] == {"HEAD": 20, "m30": None, "m40": 40}

    # every run, the queued one included, is in the main workspace's store (its journal, imported by a
    # sync), tagged with its experiment
    assert not list((root / ".dvc" / "tmp").glob("exps/**/mlruns"))
    assert len(sync_runs(root).imported) >= 3
    client = MlflowClient(tracking_uri=f"sqlite:///{root / 'mlruns' / 'mlflow.db'}")
    exp = client.get_experiment_by_name("lingtest/pipeline")
    runs = client.search_runs([exp.experiment_id])
    by_name = {r.data.tags.get("dvc_exp_name", "-"): r for r in runs}
    assert set(by_name) == {"-", "m30", "m40"}
    assert by_name["m40"].data.metrics["M"] == 40 and by_name["m40"].info.status == "FINISHED"
    assert by_name["m40"].info.artifact_uri.startswith((root / "mlruns").resolve().as_uri())
    assert not list((root / ".dvc" / "tmp").glob("exps/**/mlruns"))


@pytest.mark.e2e
def test_temporary_copy_experiments_reach_inputs_outside_the_repository(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A queued or ``--temp`` experiment runs in ``.dvc/tmp/exps/<name>/``, where ``../inputs/words.txt``
    (like lingtest's mirror ``../shared/data``) does not exist: it fails until lingtest links the folder
    there, which every composition and every stage run in the workspace does."""
    from lingtest.commands.compare import compare_command
    from lingtest.paths import expose_to_experiment_copies

    monkeypatch.delenv("DVC_ROOT", raising=False)
    root = make_project(tmp_path)
    # toy.n changes the suite stage, which reads ../inputs/words.txt in the copy
    failed = dvc(["exp", "run", "--temp", "-S", "toy.n=12", "--name", "before"], root, check=False)
    assert failed.returncode != 0 and "inputs/words.txt" in failed.stdout + failed.stderr
    assert root / ".dvc/tmp/exps/standalone/inputs" in expose_to_experiment_copies(root, ["../inputs/words.txt"])
    dvc(["exp", "run", "-q", "--temp", "-S", "toy.n=12", "--name", "after"], root)
    out = io.StringIO()
    assert compare_command([], exps=["after"], fmt="json", root=root, out=out, metrics=["*:cases"]) == 0
    rows = {(r["system"], r["metric"]): r["values"] for r in json.loads(out.getvalue())["rows"]}
    assert rows[("alpha", "cases")] == {"HEAD": metrics(root, "alpha")["cases"], "after": 12}
