"""Wall-clock figures stay out of the pipeline's outputs: split from the metrics a stage writes, kept in its
run, and absent from every committed metrics file and table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from tests.fakes.mlflow_store import fake_sqlite_store

from lingtest.execution.context import StageContext
from lingtest.metrics.wall_clock import is_wall_clock, split_wall_clock, wall_clock_paths
from lingtest.profiling import read_runs, stage_table, timed_metrics
from lingtest.tracking import NullTracker

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("key", "clock"), [
    ("seconds", True), ("predict_seconds", True), ("seconds_per_selected", True), ("seconds_by_step", True),
    ("followup_parse_seconds", True), ("Seconds", True), ("secondsish", False), ("max_s", False),
    ("timeout_s", False), ("second_order", False), ("selected", False), ("parse_seconds_x", True)])
def test_a_field_is_wall_clock_when_seconds_is_one_of_its_words(key, clock):
    assert is_wall_clock(key) is clock


def test_split_takes_wall_clock_fields_out_at_any_depth_and_keeps_the_rest_in_order():
    metrics = {"selected": 3, "seconds": 1.5, "stats": {"calls": 2, "seconds": 0.4, "inner": {"x": 1}},
               "seconds_by_step": {"token": 0.1}, "rows": [{"predict_seconds": 1.0}], "z": None}
    kept, clock = split_wall_clock(metrics)
    assert kept == {"selected": 3, "stats": {"calls": 2, "inner": {"x": 1}}, "rows": [{"predict_seconds": 1.0}],
                    "z": None}
    assert list(kept) == ["selected", "stats", "rows", "z"]
    assert clock == {"seconds": 1.5, "stats": {"seconds": 0.4}, "seconds_by_step": {"token": 0.1}}
    assert metrics["stats"]["seconds"] == 0.4  # the input is left as it was
    # what lists hold is found by the check over stored files
    assert wall_clock_paths(kept) == ["rows[0].predict_seconds"]
    assert wall_clock_paths({"a": {"b": [{}, {"encode_seconds": 2}]}}) == ["a.b[1].encode_seconds"]


def test_the_stage_context_writes_the_file_without_wall_clock_and_logs_it_to_the_run(tmp_path):
    tracker = NullTracker()
    ctx = StageContext("s", OmegaConf.create({"paths": {}}), tracker, root=tmp_path)
    path = ctx.write_metrics(tmp_path / "m.json", {"selected": 3, "seconds": 1.5, "stats": {"seconds": 0.25}},
                             "crest.")
    assert json.loads(path.read_text()) == {"selected": 3, "stats": {}}
    assert tracker.metrics == {"crest.selected": 3.0, "crest.seconds": 1.5, "crest.stats.seconds": 0.25}
    assert tracker.artifacts == [str(path)]


def test_the_profile_reads_the_timed_figures_from_the_runs(tmp_path):
    store = fake_sqlite_store(tmp_path / "mlruns", [("crest_generate", "FINISHED", 100.0, 160.0,
                                                     {"dvc_stage": "crest_generate"})],
                              metrics={0: {"crest.seconds": 58.5, "crest.selected": 120.0,
                                           "tin.x.generation.seconds_by_step.token": 2.0}})
    runs = read_runs(store)
    assert runs[0].metrics["crest.seconds"] == 58.5
    assert timed_metrics(runs[0].metrics) == {"crest.seconds": 58.5, "tin.x.generation.seconds_by_step.token": 2.0}
    row = stage_table(runs)[0].as_dict()
    assert row["timed"] == {"crest.seconds": 58.5, "tin.x.generation.seconds_by_step.token": 2.0}


def _committed_outputs() -> list[Path]:
    """The pipeline's committed metrics (JSON) and tables (Markdown) under metrics/, but the benchmark-made
    scores of whole test sets under metrics/systems/ (``bench/eval_ner_system.py``, not a stage)."""
    out = []
    for f in sorted((ROOT / "metrics").rglob("*")):
        rel = f.relative_to(ROOT / "metrics")
        if f.suffix in (".json", ".md") and rel.parts[0] != "systems":
            out.append(f)
    return out


def test_no_committed_pipeline_output_holds_a_wall_clock_figure():
    files = _committed_outputs()
    assert len(files) > 50
    found = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        if f.suffix == ".json":
            paths = wall_clock_paths(json.loads(text))
        else:
            paths = [line for line in text.splitlines() if "Time (s" in line or "train s |" in line]
        if paths:
            found[str(f.relative_to(ROOT))] = paths[:3]
    assert not found, found
