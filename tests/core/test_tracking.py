from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.fakes.stage_process import running, stage_process, stop

from lingtest.processes import process_start
from lingtest.tracking import (
    NullTracker,
    RunGuard,
    end_status,
    flatten,
    numeric_metrics,
    stale_run_ids,
    tracked_run,
)

ROOT = Path(__file__).resolve().parents[2]


def test_flatten_nested_config():
    flat = flatten({"crest": {"M": 20, "thr": {"p": 1.0}}, "datasets": ["a", "b"], "empty": {}, "none": None})
    assert flat == {"crest.M": "20", "crest.thr.p": "1.0", "datasets": '["a", "b"]', "empty": "{}",
                    "none": "None"}
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
        import torch  # a stage that loads torch: its threads are recorded at the end of the run

        threads = torch.get_num_threads()
    uri = f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}"
    assert (tmp_path / "mlruns" / "mlflow.db").exists()
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("t")
    (run,) = client.search_runs([exp.experiment_id])
    assert run.data.params == {"crest.M": "20", "seed": "13"}
    assert run.data.metrics == {"precision": 0.75, "issues.span": 3.0}
    assert run.data.tags["dvc_stage"] == "crest@sieve" and "git_commit" in run.data.tags
    tags = run.data.tags
    assert not [k for k in tags if k.startswith("env.")]  # the environment is an artifact, not ~50 tags
    env = json.loads((Path(run.info.artifact_uri.removeprefix("file://")) / "environment.json").read_text())
    assert env["packages"]["torch"] == metadata.version("torch")
    assert env["packages"]["lingtest"] == metadata.version("lingtest")
    assert env["python"] == sys.version.split()[0] and env["cpu"]["count"] == os.cpu_count()
    assert env["torch"]["loaded"] is True and env["torch"]["num_threads"] == threads
    assert env["torch"]["cuda_available"] in (True, False)
    assert tags["lingtest.pid"] == str(os.getpid()) and tags["lingtest.host"] == socket.gethostname()
    assert sorted(a.path for a in client.list_artifacts(run.info.run_id)) == ["environment.json", "metrics.json"]
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
    assert run.data.tags["lingtest.ended_by"] == "the stage raised RuntimeError"


def test_disabled_tracking_still_records_the_environment(tmp_path):
    with tracked_run("s", {}, root=tmp_path, enabled=False) as t:
        pass
    assert isinstance(t, NullTracker)
    assert t.documents["environment.json"]["packages"]["numpy"] == metadata.version("numpy")
    assert not [k for k in t.tags if k.startswith("env.")]


# --- runs whose process is gone -------------------------------------------------------------------

STAGE_THEN_WAIT = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from lingtest.tracking import tracked_run
    with tracked_run("slow_stage", {"seed": 1}, root=Path(sys.argv[1]), experiment="t") as t:
        t.log_metrics({"started": 1})
        print("ready", flush=True)
        time.sleep(120)
''')

STAGE_LEFT_OPEN = textwrap.dedent('''
    import sys
    from pathlib import Path
    from lingtest.tracking import tracked_run
    run = tracked_run("left_open", {}, root=Path(sys.argv[1]), experiment="t")
    run.__enter__()  # the process ends with the run open
    print("ready", flush=True)
''')


def _stage_process(script: str, tmp_path: Path) -> subprocess.Popen[str]:
    return stage_process(script, str(tmp_path))


def _only_run(tmp_path: Path):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}")
    (run,) = client.search_runs([client.get_experiment_by_name("t").experiment_id])
    return run


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_killed_stage_ends_its_run_killed(tmp_path, sig):
    with running(STAGE_THEN_WAIT, str(tmp_path)) as proc:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.stderr.read()
        assert _only_run(tmp_path).info.status == "RUNNING"
        # the signal takes its usual course: death by SIGTERM; KeyboardInterrupt, of which Python dies by SIGINT
        assert stop(proc, sig) == -sig
    run = _only_run(tmp_path)
    assert run.info.status == "KILLED" and run.info.end_time is not None
    assert run.data.tags["lingtest.ended_by"] == f"signal {sig.name}"
    assert run.data.metrics == {"started": 1.0}


def test_a_process_that_exits_with_the_run_open_ends_it_failed(tmp_path):
    proc = _stage_process(STAGE_LEFT_OPEN, tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    run = _only_run(tmp_path)
    assert run.info.status == "FAILED"  # not MLflow's own atexit FINISHED
    assert run.data.tags["lingtest.ended_by"] == "the process exited with the run open"


def test_stale_running_runs_are_marked_killed_at_the_next_start(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with tracked_run("first", {}, root=tmp_path, experiment="t"):
        pass
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}")
    exp = client.get_experiment_by_name("t").experiment_id
    other_exp = client.create_experiment("other", artifact_location=(tmp_path / "a2").as_uri())
    gone = subprocess.Popen(["true"])
    gone.wait()
    host = socket.gethostname()
    dead = {"lingtest.host": host, "lingtest.pid": str(gone.pid)}
    me = {"lingtest.host": host, "lingtest.pid": str(os.getpid()),
          "lingtest.proc_start": process_start(os.getpid())}
    runs = {
        "dead": client.create_run(exp, tags=dead),
        "dead_other_exp": client.create_run(other_exp, tags=dead),
        "alive": client.create_run(exp, tags=me),
        "pid_reused": client.create_run(exp, tags={**me, "lingtest.proc_start": "1"}),
        "other_host": client.create_run(exp, tags={**dead, "lingtest.host": host + "-elsewhere"}),
        "no_process": client.create_run(exp),
    }
    with tracked_run("second", {}, root=tmp_path, experiment="t"):
        pass
    status = {k: client.get_run(r.info.run_id).info.status for k, r in runs.items()}
    assert status == {"dead": "KILLED", "dead_other_exp": "KILLED", "alive": "RUNNING",
                      "pid_reused": "KILLED", "other_host": "RUNNING", "no_process": "RUNNING"}
    assert client.get_run(runs["dead"].info.run_id).data.tags["lingtest.ended_by"].startswith("stale:")
    assert {r.data.tags["mlflow.runName"]: r.info.status for r in client.search_runs([exp])
            if r.data.tags.get("mlflow.runName") in ("first", "second")} == {"first": "FINISHED",
                                                                              "second": "FINISHED"}


def test_stale_run_ids_pure():
    def run(run_id, status="RUNNING", **tags):
        return SimpleNamespace(info=SimpleNamespace(run_id=run_id, status=status),
                               data=SimpleNamespace(tags=tags))

    runs = [run("a", **{"lingtest.host": "h", "lingtest.pid": "10"}),
            run("b", **{"lingtest.host": "h", "lingtest.pid": "11", "lingtest.proc_start": "5"}),
            run("c", "FINISHED", **{"lingtest.host": "h", "lingtest.pid": "10"}),
            run("d", **{"lingtest.host": "x", "lingtest.pid": "10"}),
            run("e", **{"lingtest.host": "h", "lingtest.pid": "garbage"}),
            run("f")]
    seen = []

    def alive(pid, start):
        seen.append((pid, start))
        return pid == 11

    assert stale_run_ids(runs, "h", alive) == ["a"]
    assert seen == [(10, ""), (11, "5")]


def test_end_status():
    assert end_status(None) == "FINISHED"
    assert end_status(RuntimeError()) == "FAILED"
    assert end_status(KeyboardInterrupt()) == "KILLED"
    assert end_status(SystemExit(0)) == "FINISHED" and end_status(SystemExit(2)) == "FAILED"


def test_run_guard_ends_once_and_restores_handlers():
    ended = []
    before = signal.getsignal(signal.SIGTERM)
    guard = RunGuard(lambda status, reason: ended.append((status, reason)))
    guard.install()
    assert signal.getsignal(signal.SIGTERM) == guard._on_signal
    guard.uninstall()
    assert signal.getsignal(signal.SIGTERM) == before
    guard.end("FAILED", "x")
    guard.end("KILLED", "y")
    assert ended == [("FAILED", "x")] and guard.ended == "FAILED"

    def boom(status, reason):
        raise OSError("store down")

    with pytest.raises(OSError):
        RunGuard(boom).end("FINISHED", "", quiet=False)
    RunGuard(boom).end("KILLED", "signal")  # quiet: logged, the signal goes on
