"""Deferred tracking: stage runs written to the journal and imported into MLflow by a sync."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import textwrap
from pathlib import Path

import pytest
from tests.fakes.stage_process import running, stop
from typer.testing import CliRunner

from lingtest.errors import InputError
from lingtest.journal import JournalRun, journal_dir, pending_records, read_record, sync_journal
from lingtest.processes import ProcessId
from lingtest.tracking import mlflow_client, sync_runs, tracked_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _local_store(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)


def _client(root: Path):
    return mlflow_client(f"sqlite:///{(root / 'mlruns' / 'mlflow.db').resolve()}")


def _runs(root: Path, experiment: str = "t"):
    client = _client(root)
    exp = client.get_experiment_by_name(experiment)
    return client, ([] if exp is None else client.search_runs([exp.experiment_id], order_by=["start_time"]))


def _stage(root: Path, name: str, *, deferred: bool, files: Path) -> None:
    """One stage run that logs what stages log: params, metrics (a history), a file, a folder, a dict."""
    art = files / "metrics.json"
    art.write_text('{"p": 0.5}')
    folder = files / "tables"
    folder.mkdir(exist_ok=True)
    (folder / "a.md").write_text("| a |")
    with tracked_run(name, {"crest": {"M": 20}, "seed": 13}, root=root, experiment="t", technique="crest",
                     tags={"suite": "crest-ontogum"}, deferred=deferred) as t:
        t.log_metrics({"loss": 2.0}, step=0)
        t.log_metrics({"loss": 1.0}, step=1)
        t.log_metrics({"precision": 0.75, "issues": {"span": 3}, "bad": float("nan")})
        t.log_artifact(art)
        t.log_artifact(folder)
        t.log_artifact(files / "absent.json")
    art.write_text('{"p": "changed after logging"}')  # what was logged is the file as it was then


def _artifacts(client, run_id: str, path: str | None = None) -> list[str]:
    out = []
    for a in client.list_artifacts(run_id, path):
        out.extend(_artifacts(client, run_id, a.path) if a.is_dir else [a.path])
    return sorted(out)


def test_a_deferred_run_writes_no_store_until_synced_and_then_equals_a_live_one(tmp_path, monkeypatch):
    import mlflow

    files = tmp_path / "files"
    files.mkdir()
    live, deferred = tmp_path / "live", tmp_path / "deferred"
    _stage(live, "crest_generate", deferred=False, files=files)
    mlflow.set_tracking_uri(None)  # a live run leaves its store as this process's default
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    _stage(deferred, "crest_generate", deferred=True, files=files)
    assert not (deferred / "mlruns" / "mlflow.db").exists()
    (record,) = pending_records(journal_dir(deferred))
    assert read_record(record)["status"] == "FINISHED"

    result = sync_runs(deferred)
    assert len(result.imported) == 1 and not result.running and not result.killed
    assert pending_records(journal_dir(deferred)) == [] and not list(journal_dir(deferred).glob("*/"))
    assert sync_runs(deferred).imported == []  # nothing imported twice

    lc, (lrun,) = _runs(live, "t/crest")
    dc, (drun,) = _runs(deferred, "t/crest")
    assert drun.data.params == lrun.data.params == {"crest.M": "20", "seed": "13"}
    assert drun.data.metrics == lrun.data.metrics == {"loss": 1.0, "precision": 0.75, "issues.span": 3.0}
    assert [(m.value, m.step) for m in dc.get_metric_history(drun.info.run_id, "loss")] == [(2.0, 0), (1.0, 1)]
    volatile = {"lingtest.pid", "lingtest.proc_start", "mlflow.runName"}
    assert {k: v for k, v in drun.data.tags.items() if k not in volatile} == \
        {k: v for k, v in lrun.data.tags.items() if k not in volatile}
    assert drun.data.tags["mlflow.runName"] == "crest_generate" and drun.data.tags["suite"] == "crest-ontogum"
    assert drun.data.tags["lingtest.pid"] == str(os.getpid())
    assert drun.info.status == "FINISHED" and drun.info.end_time >= drun.info.start_time
    assert _artifacts(dc, drun.info.run_id) == _artifacts(lc, lrun.info.run_id) == \
        ["environment.json", "metrics.json", "tables/a.md"]
    logged = Path(drun.info.artifact_uri.removeprefix("file://"))
    assert json.loads((logged / "metrics.json").read_text()) == {"p": 0.5}
    assert logged.is_relative_to((deferred / "mlruns" / "artifacts").resolve())
    env = json.loads((logged / "environment.json").read_text())
    assert env["python"] == sys.version.split()[0]


def test_a_failed_stage_is_imported_failed(tmp_path):
    with pytest.raises(RuntimeError):
        with tracked_run("boom", {}, root=tmp_path, experiment="t", deferred=True):
            raise RuntimeError("x")
    sync_runs(tmp_path)
    _, (run,) = _runs(tmp_path)
    assert run.info.status == "FAILED"
    assert run.data.tags["lingtest.ended_by"] == "the stage raised RuntimeError"


STAGE_THEN_WAIT = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from lingtest.tracking import tracked_run
    with tracked_run("slow_stage", {"seed": 1}, root=Path(sys.argv[1]), experiment="t", deferred=True) as t:
        t.log_metrics({"started": 1})
        print("mlflow" in sys.modules, flush=True)
        time.sleep(120)
''')


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_deferred_stage_is_left_while_it_runs_and_imported_killed(tmp_path, sig):
    with running(STAGE_THEN_WAIT, str(tmp_path)) as proc:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line == "False", proc.stderr.read()  # the stage process never imported MLflow
        waiting = sync_runs(tmp_path)
        assert waiting.imported == [] and len(waiting.running) == 1  # its process still runs
        assert stop(proc, sig) == -sig
    result = sync_runs(tmp_path)
    assert len(result.imported) == 1
    # SIGTERM: the stage ended its own run; SIGKILL: the sync found its process gone
    assert result.killed == ([] if sig == signal.SIGTERM else result.imported)
    _, (run,) = _runs(tmp_path)
    assert run.info.status == "KILLED" and run.info.end_time is not None
    assert run.data.metrics == {"started": 1.0}  # what it logged before it died is kept
    ended_by = run.data.tags["lingtest.ended_by"]
    assert ended_by == "signal SIGTERM" if sig == signal.SIGTERM else ended_by.startswith("stale:")


def _record(tmp_path: Path, **changes) -> Path:
    run = JournalRun(journal_dir(tmp_path), run_name="s", experiment="t",
                     tracking_uri=f"sqlite:///{(tmp_path / 'mlruns' / 'mlflow.db').resolve()}",
                     artifact_location=None, process=ProcessId(socket.gethostname(), 1, ""))
    run.end("FINISHED")
    data = json.loads(run.path.read_text())
    data.update(changes)
    run.path.write_text(json.dumps(data))
    return run.path


@pytest.mark.parametrize(("changes", "field"), [
    ({"version": 2}, "version"),
    ({"status": "DONE"}, "status"),
    ({"start_time": "yesterday"}, "start_time"),
    ({"metrics": [["loss", "high", 0, 0]]}, "metrics"),
    ({"params": {"a": 1}}, "params"),
    ({"process": {"host": "h"}}, "process"),
    ({"id": "another"}, "id"),
])
def test_a_malformed_record_names_its_file_and_field_and_is_left_in_place(tmp_path, changes, field):
    path = _record(tmp_path, **changes)
    with pytest.raises(InputError) as err:
        read_record(path)
    assert err.value.path == str(path) and err.value.field == field
    good = _record(tmp_path)
    result = sync_runs(tmp_path)
    assert list(result.unreadable) == [str(path)] and len(result.imported) == 1
    assert pending_records(journal_dir(tmp_path)) == [path] and not good.exists()

    from lingtest.cli import app

    cli = CliRunner().invoke(app, ["runs", "sync", "--root", str(tmp_path)])
    assert cli.exit_code == 1 and "0 run(s) imported" in cli.output and path.name in cli.output


def test_truncated_json_is_an_input_error(tmp_path):
    path = _record(tmp_path)
    path.write_text(path.read_text()[:40])
    with pytest.raises(InputError, match="not a readable journal record"):
        read_record(path)


def test_an_import_cut_short_is_undone_before_it_is_repeated(tmp_path):
    client = _client(tmp_path)
    exp = client.create_experiment("t")
    partial = client.create_run(exp, run_name="s")
    _record(tmp_path, mlflow_run_id=partial.info.run_id)
    (run_id,) = sync_runs(tmp_path).imported
    assert client.get_run(partial.info.run_id).info.lifecycle_stage == "deleted"
    assert [r.info.run_id for r in client.search_runs([exp])] == [run_id]


def test_records_are_imported_in_start_order_with_one_client_per_store(tmp_path):
    late = _record(tmp_path, start_time=2_000, end_time=3_000)
    early = _record(tmp_path, start_time=1_000, end_time=1_500)
    made = []

    def client_for(uri):
        made.append(uri)
        return _client(tmp_path)

    result = sync_journal(journal_dir(tmp_path), client_for)
    assert len(made) == 1 and len(result.imported) == 2
    client = _client(tmp_path)
    starts = [client.get_run(r).info.start_time for r in result.imported]
    assert starts == [1_000, 2_000] and not late.exists() and not early.exists()


def test_a_running_record_of_another_host_is_left_alone(tmp_path):
    path = _record(tmp_path, status="RUNNING", end_time=None,
                   process={"host": socket.gethostname() + "-elsewhere", "pid": 1, "start": ""})
    result = sync_journal(journal_dir(tmp_path), mlflow_client, alive=lambda pid, start: False)
    assert result.imported == [] and len(result.running) == 1 and path.exists()


def test_a_run_that_ends_while_the_sync_looks_is_imported_as_it_ended(tmp_path):
    path = _record(tmp_path, status="RUNNING", end_time=None)
    finished = json.loads(path.read_text())

    def ends_now(pid, start):  # the process writes its end and exits between the read and the check
        path.write_text(json.dumps({**finished, "status": "FINISHED", "end_time": finished["start_time"] + 5}))
        return False

    result = sync_journal(journal_dir(tmp_path), mlflow_client, alive=ends_now)
    assert len(result.imported) == 1 and result.killed == []
    _, (run,) = _runs(tmp_path)
    assert run.info.status == "FINISHED" and "lingtest.ended_by" not in run.data.tags
