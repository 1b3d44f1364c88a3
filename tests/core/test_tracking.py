from __future__ import annotations

import math

from lingtest.tracking import NullTracker, flatten, numeric_metrics, tracked_run


def test_flatten_nested_config():
    flat = flatten({"crest": {"M": 20, "thr": {"p": 1.0}}, "datasets": ["a", "b"], "empty": {}, "none": None})
    assert flat == {"crest.M": "20", "crest.thr.p": "1.0", "datasets": '["a", "b"]', "empty": "{}", "none": "None"}
    assert len(flatten({"x": "y" * 10000})["x"]) == 6000


def test_numeric_metrics_keeps_finite_numbers():
    got = numeric_metrics({"p": 0.5, "n": 3, "ok": True, "nan": math.nan, "name": "x", "per": {"a": 1}})
    assert got == {"p": 0.5, "n": 3.0, "ok": 1.0, "per.a": 1.0}


def test_null_tracker_when_disabled(tmp_path):
    with tracked_run("s", {"a": {"b": 1}}, root=tmp_path, enabled=False) as t:
        t.log_metrics({"m": 2})
    assert isinstance(t, NullTracker) and t.params == {"a.b": "1"} and t.metrics == {"m": 2.0}


def test_mlflow_run_logs_config_metrics_tags_and_artifacts(tmp_path, monkeypatch):
    import mlflow
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    art = tmp_path / "metrics.json"
    art.write_text("{}")
    with tracked_run("crest@sieve", {"crest": {"M": 20}, "seed": 13}, root=tmp_path, experiment="t") as t:
        t.log_metrics({"precision": 0.75, "issues": {"span": 3}})
        t.log_artifact(art)
    uri = f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}"
    assert (tmp_path / "mlruns" / "mlflow.db").exists()
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("t")
    (run,) = client.search_runs([exp.experiment_id])
    assert run.data.params == {"crest.M": "20", "seed": "13"}
    assert run.data.metrics == {"precision": 0.75, "issues.span": 3.0}
    assert run.data.tags["dvc_stage"] == "crest@sieve" and "git_commit" in run.data.tags
    assert [a.path for a in client.list_artifacts(run.info.run_id)] == ["metrics.json"]
    assert run.info.status == "FINISHED"
    mlflow.set_tracking_uri(None)


def test_failed_stage_marks_run_failed(tmp_path, monkeypatch):
    import pytest
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(RuntimeError):
        with tracked_run("boom", {}, root=tmp_path, experiment="t"):
            raise RuntimeError("x")
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}")
    (run,) = client.search_runs([client.get_experiment_by_name("t").experiment_id])
    assert run.info.status == "FAILED"
