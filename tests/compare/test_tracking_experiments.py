"""MLflow as users compare in it: one experiment per technique, runs tagged with the commit, DVC
experiment, system and suite (sha256 and release), the store of the main workspace also from a DVC
experiment's temporary copy, and a store that still works after it was copied elsewhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.pipeline.runner import run_tags, stage_technique
from lingtest.tracking import experiment_name, relocate_store, store_root, suite_tags, tracked_run


def test_store_root_is_the_main_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DVC_ROOT", raising=False)
    assert store_root(tmp_path) == tmp_path
    copy = tmp_path / "main" / ".dvc" / "tmp" / "exps" / "tmpab12"
    copy.mkdir(parents=True)
    assert store_root(copy) == tmp_path / "main"
    monkeypatch.setenv("DVC_ROOT", str(tmp_path / "main"))  # what `dvc exp run --queue` sets
    assert store_root(tmp_path / "elsewhere") == tmp_path / "main"


def test_names_and_tags() -> None:
    assert experiment_name("lingtest", "crest") == "lingtest/crest" and experiment_name("lingtest", None) == "lingtest"
    from lingtest.adversarial.stages import score_stage
    from lingtest.pipeline.data import prepare_stage

    assert stage_technique(score_stage) == "adversarial" and stage_technique(prepare_stage) == "pipeline"
    cfg = OmegaConf.create({"dataset": "ontogum", "adversarial": {"systems": ["sieve", "xrenner"]}})
    assert run_tags(cfg, "adversarial", "sieve") == {"technique": "adversarial", "dataset": "ontogum",
                                                     "dvc_item": "sieve", "system": "sieve"}
    assert "system" not in run_tags(cfg, "pipeline", "ontogum")


def test_suite_tags_name_the_release(tmp_path: Path) -> None:
    import hashlib
    import json

    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"__schema__": 1}\n')
    sha = hashlib.sha256(suite.read_bytes()).hexdigest()
    assert suite_tags(suite, tmp_path / "releases") == {"suite.sha256": sha, "suite.path": str(suite)}
    prov = tmp_path / "releases" / "toy-demo" / "1.2.0" / "provenance.json"
    prov.parent.mkdir(parents=True)
    prov.write_text(json.dumps({"suite": {"sha256": sha}, "release": {"tag": "toy-demo@v1.2.0"}}))
    assert suite_tags(suite, tmp_path / "releases")["suite.release"] == "toy-demo@v1.2.0"
    assert suite_tags(tmp_path / "missing.jsonl", None) == {}


def _runs(root: Path, experiment: str) -> list:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{root / 'mlruns' / 'mlflow.db'}")
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None, experiment
    return list(client.search_runs([exp.experiment_id]))


def test_queued_experiment_logs_into_the_main_store_and_a_copied_store_writes_where_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlflow
    from mlflow.tracking import MlflowClient

    main = tmp_path / "main"
    copy = main / ".dvc" / "tmp" / "exps" / "tmpx"  # where `dvc exp run --queue` runs a stage
    copy.mkdir(parents=True)
    art = tmp_path / "table.md"
    art.write_text("| x |\n")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("DVC_ROOT", str(main))
    monkeypatch.setenv("DVC_EXP_NAME", "crest-m30")
    monkeypatch.setenv("DVC_EXP_BASELINE_REV", "abc123")
    with tracked_run("crest_evaluate@sieve", {"crest": {"M": 30}}, root=copy, experiment="t", technique="crest",
                     tags={"system": "sieve"}) as t:
        t.log_artifact(art)
    mlflow.set_tracking_uri(None)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)  # MLflow exports the URI it was given
    assert not (copy / "mlruns").exists()
    (run,) = _runs(main, "t/crest")
    tags = run.data.tags
    assert tags["dvc_exp_name"] == "crest-m30" and tags["dvc_exp_baseline"] == "abc123"
    assert tags["system"] == "sieve" and tags["dvc_stage"] == "crest_evaluate@sieve" and "git_commit" in tags
    assert run.info.artifact_uri.startswith((main / "mlruns" / "artifacts").resolve().as_uri())

    # the store copied elsewhere, the original gone: old and new runs live in the copy
    for var in ("DVC_ROOT", "DVC_EXP_NAME", "DVC_EXP_BASELINE_REV"):
        monkeypatch.delenv(var)
    b = tmp_path / "b"
    shutil.copytree(main / "mlruns", b / "mlruns")
    shutil.rmtree(main)
    with tracked_run("crest_evaluate@sieve", {}, root=b, experiment="t", technique="crest") as t:
        t.log_artifact(art)
    mlflow.set_tracking_uri(None)
    assert not main.exists()
    client = MlflowClient(tracking_uri=f"sqlite:///{b / 'mlruns' / 'mlflow.db'}")
    runs = _runs(b, "t/crest")
    assert len(runs) == 2
    for run in runs:
        assert run.info.artifact_uri.startswith((b / "mlruns" / "artifacts").resolve().as_uri())
        assert [f.path for f in client.list_artifacts(run.info.run_id)] == ["environment.json", "table.md"]
    assert relocate_store(b / "mlruns" / "mlflow.db") == 0  # idempotent


def test_run_stage_tags_the_suite_it_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    import yaml

    from lingtest.pipeline.runner import run_stage

    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "dataset": "demo", "toy": {"systems": ["alpha"]}, "release": {"dir": "releases"},
        "paths": {"toy": {"suite": "data/suites/toy/demo.jsonl"}},
        "tracking": {"experiment": "lingtest", "uri": None, "enabled": False, "deferred": False}}))
    monkeypatch.chdir(tmp_path)
    seen = {}

    def body(ctx, item):  # type: ignore[no-untyped-def]
        out = Path("data/suites/toy/demo.jsonl")
        out.parent.mkdir(parents=True)
        out.write_text('{"__schema__": 1}\n')
        seen["tracker"] = ctx.tracker

    body.__module__ = "lingtest.toy.stages"
    run_stage("toy_score", body, ["alpha"])
    tags = seen["tracker"].tags
    assert tags["technique"] == "toy" and tags["system"] == "alpha" and tags["dvc_item"] == "alpha"
    assert tags["suite.sha256"] == hashlib.sha256(b'{"__schema__": 1}\n').hexdigest()


def test_inputs_outside_the_repository_are_linked_for_experiment_copies(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from lingtest.paths import expose_to_experiment_copies

    monkeypatch.delenv("DVC_ROOT", raising=False)
    main = tmp_path / "proj"
    (main / ".dvc").mkdir(parents=True)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "shared" / "data" / "x.txt").write_text("x")
    (main / "local").mkdir()
    made = expose_to_experiment_copies(main, ["../shared/data", "../shared/data", "local", "/abs/where",
                                              "../missing/data"])
    link = main / ".dvc" / "tmp" / "exps" / "shared"
    assert made == [link, link.parent / "standalone" / "shared"] and all(m.is_symlink() for m in made)
    # from a copy, the relative path reaches the real file
    for copy in (main / ".dvc/tmp/exps/tmpq1", main / ".dvc/tmp/exps/standalone/tmpt1"):
        copy.mkdir()
        assert (copy / "../shared/data/x.txt").read_text() == "x"
    # called again (from the copy itself, too) it changes nothing; no link for the missing target
    assert expose_to_experiment_copies(main, ["../shared/data"]) == []
    assert expose_to_experiment_copies(copy, ["../shared/data", "../missing/data"]) == []
    assert not (main / ".dvc" / "tmp" / "exps" / "missing").exists()
    # not a DVC repository: nothing is made
    assert expose_to_experiment_copies(tmp_path / "plain", ["../shared/data"]) == []
