"""What a stage's MLflow run records: the leaf parameters its DVC stage lists (``params``, interpolated as
DVC does), the suite it wrote or read (name, version, sha256), the profile and system, and the
environment as one JSON artifact instead of ``env.*`` tags."""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import yaml

from lingtest.errors import ConfigError
from lingtest.tracking import (
    NullTracker,
    flatten,
    interpolate,
    leaf_params,
    release_of,
    stage_spec,
    stage_suites,
    suite_files,
    suite_name,
    suites_tags,
)

ROOT = Path(__file__).resolve().parents[2]

TOY_STAGES = {
    "vars": ["../../params.yaml"],
    "stages": {
        "toy_generate": {
            "wdir": "../..",
            "cmd": "python -m lingtest.pipeline.stage toy_generate",
            "deps": ["${paths.toy.sources}", "src/lingtest/tracking.py"],
            "params": ["toy.seed", "toy.filters", "datasets.${toy.corpus}.record"],
            "outs": ["${paths.toy.suite}"],
        },
        "toy_score": {
            "foreach": "${toy.systems}",
            "do": {
                "wdir": "../..",
                "cmd": "python -m lingtest.pipeline.stage toy_score ${item}",
                "deps": ["${paths.toy.suite}"],
                "params": ["toy.corpus", "systems.toy.${item}", {"params.yaml": ["toy.seed"]},
                           {"other.yaml": ["ignored"]}],
                "outs": [{"data/results/toy/${item}.jsonl": {"cache": False}}],
            },
        },
    },
}
ROOT_STAGES = {
    "stages": {
        "download": {
            "foreach": "${pipeline.inputs}",
            "do": {"cmd": "python -m lingtest.pipeline.stage download ${key}", "deps": ["${item}"],
                   "params": ["datasets.${key}", "profile.network"],
                   "outs": [{"${paths.manifests}/${key}.json": {"cache": False}}]},
        },
    },
}


def _config() -> dict[str, Any]:
    return {
        "dataset": "demo",
        "profile": {"name": "offline", "network": False},
        "toy": {"seed": 13, "corpus": "conll", "systems": ["alpha", "beta"],
                "filters": {"semantic": 0.8, "min_len": 3, "tags": ["NN", "VB"], "nested": {"on": True}}},
        "systems": {"toy": {"alpha": {"model": "a-model", "threshold": 0.5}, "beta": {"model": "b"}}},
        "datasets": {"conll": {"record": "document", "task": "ner"}, "other": {"record": "x"}},
        "pipeline": {"inputs": {"conll": "../shared/data/conll"}},
        "paths": {"manifests": "data/manifests",
                  "toy": {"sources": "data/toy/sources.jsonl", "suite": "data/suites/toy/conll.jsonl"}},
        "release": {"dir": "releases"},
        # what no toy stage reads: never logged
        "unrelated": {f"k{i}": {"a": i, "b": [i]} for i in range(40)},
        "tracking": {"experiment": "t", "uri": None, "enabled": False, "deferred": False},
    }


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump(ROOT_STAGES))
    (tmp_path / "stages" / "toy").mkdir(parents=True)
    (tmp_path / "stages" / "toy" / "dvc.yaml").write_text(yaml.safe_dump(TOY_STAGES))
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(_config()))
    return tmp_path


def test_stage_spec_resolves_params_deps_and_outs_as_dvc_does(project: Path) -> None:
    cfg = _config()
    spec = stage_spec(project, "toy_generate", cfg)
    assert spec is not None and spec.file == project / "stages" / "toy" / "dvc.yaml"
    assert spec.params == ("toy.seed", "toy.filters", "datasets.conll.record")
    assert spec.deps == ("data/toy/sources.jsonl", "src/lingtest/tracking.py")
    assert spec.outs == ("data/suites/toy/conll.jsonl",)
    score = stage_spec(project, "toy_score@beta", cfg)
    assert score is not None
    assert score.params == ("toy.corpus", "systems.toy.beta", "toy.seed")  # other.yaml is not the config
    assert score.outs == ("data/results/toy/beta.jsonl",)
    download = stage_spec(project, "download@conll", cfg)  # foreach over a mapping: ${key} and ${item}
    assert download is not None and download.params == ("datasets.conll", "profile.network")
    assert download.deps == (str((project / ".." / "shared" / "data" / "conll").resolve()),)
    assert download.outs == ("data/manifests/conll.json",)
    assert stage_spec(project, "not_a_stage", cfg) is None


def test_logged_params_are_exactly_the_leaves_of_the_stage_params(project: Path) -> None:
    cfg = _config()
    spec = stage_spec(project, "toy_generate", cfg)
    assert spec is not None
    assert leaf_params(cfg, spec.params) == {
        "toy.seed": "13",
        "toy.filters.semantic": "0.8",
        "toy.filters.min_len": "3",
        "toy.filters.tags": '["NN", "VB"]',
        "toy.filters.nested.on": "True",
        "datasets.conll.record": "document",
    }
    score = stage_spec(project, "toy_score@alpha", cfg)
    assert score is not None
    assert leaf_params(cfg, score.params) == {"toy.corpus": "conll", "systems.toy.alpha.model": "a-model",
                                              "systems.toy.alpha.threshold": "0.5", "toy.seed": "13"}
    assert len(flatten(cfg)) > 100  # what a run logged before: every leaf of the config


def test_bad_stage_definitions_are_config_errors_naming_the_file(project: Path) -> None:
    cfg = _config()
    gamma = stage_spec(project, "toy_score@gamma", cfg)  # a system the foreach does not list, run by hand
    assert gamma is not None and gamma.params == ("toy.corpus", "systems.toy.gamma", "toy.seed")
    with pytest.raises(ConfigError, match=r"stages/toy/dvc.yaml: stage toy_score@gamma: params key "
                                          r"'systems.toy.gamma' is not in the config"):
        leaf_params(cfg, gamma.params, where=f"{gamma.file.relative_to(project)}: stage {gamma.name}")
    with pytest.raises(ConfigError, match="a foreach stage runs for one item"):
        stage_spec(project, "toy_score", cfg)
    with pytest.raises(ConfigError, match=r"where: \$\{toy.nope\} names no config key"):
        interpolate("data/${toy.nope}.jsonl", cfg, where="where")
    with pytest.raises(ConfigError, match="params key 'toy.missing' is not in the config"):
        leaf_params(cfg, ["toy.missing"])
    assert interpolate("${toy.systems}", cfg, where="w") == ["alpha", "beta"]  # a value alone keeps its type
    assert interpolate("x/${toy.systems[1]}/${profile.network}", cfg, where="w") == "x/beta/false"


def test_suites_of_a_stage_and_their_release(project: Path) -> None:
    cfg = _config()
    suite = project / "data" / "suites" / "toy" / "conll.jsonl"
    suite.parent.mkdir(parents=True)
    suite.write_text('{"__schema__": 1}\n')
    sha = hashlib.sha256(suite.read_bytes()).hexdigest()
    assert suite_files(cfg, project) == {"data/suites/toy/conll.jsonl": "toy-conll"}
    spec = stage_spec(project, "toy_generate", cfg)
    score = stage_spec(project, "toy_score@alpha", cfg)
    download = stage_spec(project, "download@conll", cfg)
    assert spec is not None and score is not None and download is not None
    assert stage_suites(spec, cfg, project) == {suite: "toy-conll"}  # written
    assert stage_suites(score, cfg, project) == {suite: "toy-conll"}  # read
    assert stage_suites(download, cfg, project) == {}
    releases = project / "releases"
    assert suites_tags({suite: "toy-conll"}, releases) == {"suite.sha256": sha, "suite.path": str(suite),
                                                           "suite.name": "toy-conll"}
    prov = releases / "toy-conll" / "2.0.1" / "provenance.json"
    prov.parent.mkdir(parents=True)
    prov.write_text(json.dumps({"suite": {"name": "toy-conll", "sha256": "rows", "file_sha256": sha},
                                "release": {"version": "2.0.1", "tag": "toy-conll@v2.0.1"}}))
    assert release_of(sha, releases) == {"name": "toy-conll", "version": "2.0.1", "tag": "toy-conll@v2.0.1"}
    tags = suites_tags({suite: "toy-conll"}, releases)
    assert (tags["suite.name"], tags["suite.version"], tags["suite.release"]) == ("toy-conll", "2.0.1",
                                                                                  "toy-conll@v2.0.1")
    other = project / "b.jsonl"
    other.write_text("{}\n")
    two = suites_tags({suite: "toy-conll", other: "toy-b"}, releases)
    assert two["suites"] == "toy-conll, toy-b" and two["suite.toy-conll.version"] == "2.0.1"
    assert two["suite.toy-b.sha256"] == hashlib.sha256(b"{}\n").hexdigest() and "suite.name" not in two


def test_run_stage_logs_the_stage_leaves_and_tags_and_the_environment_as_an_artifact(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lingtest.pipeline.runner import run_stage

    monkeypatch.chdir(project)
    monkeypatch.delenv("DVC_EXP_NAME", raising=False)
    seen: dict[str, Any] = {}

    def body(ctx, item):  # type: ignore[no-untyped-def]
        seen["tracker"] = ctx.tracker

    body.__module__ = "lingtest.toy.stages"
    suite = project / "data" / "suites" / "toy" / "conll.jsonl"
    suite.parent.mkdir(parents=True)
    suite.write_text('{"__schema__": 1}\n')
    run_stage("toy_score", body, ["alpha", "toy.seed=7"])
    tracker = seen["tracker"]
    assert isinstance(tracker, NullTracker)
    assert tracker.params == {"toy.corpus": "conll", "systems.toy.alpha.model": "a-model",
                              "systems.toy.alpha.threshold": "0.5", "toy.seed": "7"}  # the override is what ran
    tags = tracker.tags
    assert not [k for k in tags if k.startswith("env.")]
    assert tags["dvc_stage"] == "toy_score@alpha" and tags["system"] == "alpha" and tags["profile"] == "offline"
    assert tags["suite.name"] == "toy-conll" and tags["suite.sha256"] == hashlib.sha256(suite.read_bytes()).hexdigest()
    assert {"git_commit", "git_dirty", "technique"} <= set(tags)
    env = tracker.documents["environment.json"]
    assert env["packages"]["numpy"] == metadata.version("numpy") and "cpu" in env


@pytest.mark.parametrize("deferred", [False, True])
def test_an_mlflow_run_has_the_leaves_few_tags_and_an_environment_artifact(
        project: Path, monkeypatch: pytest.MonkeyPatch, deferred: bool) -> None:
    import mlflow
    from mlflow.tracking import MlflowClient

    from lingtest.pipeline.runner import run_stage

    monkeypatch.chdir(project)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{project / 'store' / 'mlflow.db'}"

    def body(ctx):  # type: ignore[no-untyped-def]
        ctx.tracker.log_metrics({"cases": 4})

    body.__module__ = "lingtest.toy.stages"
    try:
        run_stage("toy_generate", body, ["tracking.enabled=true", f"tracking.uri={uri}",
                                         f"tracking.deferred={str(deferred).lower()}"])
    finally:
        mlflow.set_tracking_uri(None)  # type: ignore[arg-type]
    if deferred:  # the run waits in the journal beside the project's store until a sync imports it
        from lingtest.tracking import sync_runs

        assert not (project / "store").exists()
        assert len(sync_runs(project).imported) == 1
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("t/toy")
    assert experiment is not None
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.data.params == {"toy.seed": "13", "toy.filters.semantic": "0.8", "toy.filters.min_len": "3",
                               "toy.filters.tags": '["NN", "VB"]', "toy.filters.nested.on": "True",
                               "datasets.conll.record": "document"}
    assert run.data.metrics["cases"] == 4.0 and "stage_seconds" in run.data.metrics
    assert run.data.metrics["stage_cpu_seconds"] >= 0.0
    tags = run.data.tags
    assert not [k for k in tags if k.startswith("env.")] and len(tags) < 25
    assert tags["dvc_stage"] == "toy_generate" and tags["profile"] == "offline" and tags["technique"] == "toy"
    assert [a.path for a in client.list_artifacts(run.info.run_id)] == ["environment.json"]
    env = json.loads((Path(run.info.artifact_uri.removeprefix("file://")) / "environment.json").read_text())
    assert env["packages"]["mlflow"] == metadata.version("mlflow") and env["git"]["commit"] == tags["git_commit"]


# ---------------------------------------------------------------------------------------------------
# this repository's own stages


def _repo_config() -> dict[str, Any]:
    from omegaconf import OmegaConf

    from lingtest.config import load_params

    return OmegaConf.to_container(load_params(ROOT / "params.yaml"), resolve=True)  # type: ignore[return-value]


def test_a_real_stage_logs_tens_of_params_the_keys_dvc_locked() -> None:
    from lingtest.dvcfiles import read_locks

    cfg = _repo_config()
    system = str(cfg["tin"]["systems"][0])
    spec = stage_spec(ROOT, f"tin_generate@{system}", cfg)
    assert spec is not None
    logged = leaf_params(cfg, spec.params)
    assert 10 <= len(logged) <= 150 and len(logged) * 5 < len(flatten(cfg))
    assert "tin.filters.weight_min" in logged and f"systems.ner.{system}.model" in logged
    assert not [k for k in logged if k.startswith(("crest.", "adversarial.", "s2lct.", "paths."))]
    locked = read_locks(ROOT).get(f"tin_generate@{system}")
    if locked is not None and set((locked.get("params") or {}).get("params.yaml", {})) == set(spec.params):
        # the lock names the same keys: the leaves logged are those of the values DVC recorded for them
        expected: dict[str, str] = {}
        for key, value in locked["params"]["params.yaml"].items():
            expected.update(flatten(value, key + ".") if isinstance(value, dict) and value else flatten({key: value}))
        assert set(logged) == set(expected)


def test_suite_files_name_suites_as_the_release_code_does() -> None:
    from omegaconf import OmegaConf

    from lingtest.release.suites import configured_suites
    from lingtest.release.suites import suite_name as release_suite_name

    cfg = _repo_config()
    ours = {ROOT / rel: name for rel, name in suite_files(cfg, ROOT).items()}
    theirs = configured_suites(OmegaConf.create(cfg), ROOT)
    assert theirs and {p: n for n, (_t, p) in theirs.items()}.items() <= ours.items()
    for technique, path in (("crest", "data/suites/crest/ontogum.jsonl"), ("contrapro", "x/contrapro.jsonl")):
        assert suite_name(technique, path) == release_suite_name(technique, Path(path))


def test_suite_folders_outside_the_project_keep_their_own_paths(project: Path, tmp_path_factory) -> None:
    """A ``paths.<technique>.suites`` folder outside the project (an override pointing at another workspace)
    names its suites by their absolute paths instead of failing."""
    elsewhere = tmp_path_factory.mktemp("other-workspace") / "suites"
    elsewhere.mkdir()
    (elsewhere / "sst.jsonl").write_text('{"__schema__": 1}\n')
    cfg = _config()
    cfg["paths"]["s2lct"] = {"suites": str(elsewhere)}
    named = suite_files(cfg, project)
    assert named[(elsewhere / "sst.jsonl").as_posix()] == "s2lct-sst"
