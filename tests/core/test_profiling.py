"""``lingtest.profiling``: stage tables from MLflow run records (a fake SQLite store and a fake file store), the
category rules on synthetic stacks, py-spy raw output and a synthetic cProfile call graph."""

from __future__ import annotations

import cProfile
import marshal
import pstats
import shutil
import subprocess
import sys
import time

import pytest
from tests.fakes.mlflow_store import fake_sqlite_store

from lingtest.errors import InputError
from lingtest.profiling import (
    CATEGORY_RULES,
    INTERPRETER,
    OTHER,
    Frame,
    Rule,
    RunRecord,
    attribute,
    categorize,
    cpu_simd_flags,
    module_of_path,
    parse_pyspy_line,
    pstats_samples,
    pyspy_samples,
    read_runs,
    read_time_report,
    repro_log_stages,
    rules_table,
    split_sessions,
    stage_table,
    stage_techniques,
    technique_totals,
)

BOOT = 1_000_000.0  # a fake boot time, seconds since the epoch


def proc_tags(stage: str, proc_start_s: float, host: str = "vm") -> dict[str, str]:
    """The tags a stage run carries: its DVC stage and its process (started ``proc_start_s`` after boot)."""
    return {"dvc_stage": stage, "lingtest.host": host, "lingtest.proc_start": str(round(proc_start_s * 100))}


def test_read_runs_from_a_sqlite_store_orders_runs_and_skips_deleted_ones(tmp_path):
    store = fake_sqlite_store(tmp_path / "mlruns", [
        ("b", "FINISHED", BOOT + 20, BOOT + 30, {"dvc_stage": "parse@gum"}),
        ("a", "FINISHED", BOOT + 5, BOOT + 10.5, {}),
        ("c", "RUNNING", BOOT + 40, None, {"dvc_stage": "crest_generate"}),
    ])
    runs = read_runs(store)
    assert [(r.stage, r.status, r.start, r.end) for r in runs] == [
        ("a", "FINISHED", BOOT + 5, BOOT + 10.5), ("parse@gum", "FINISHED", BOOT + 20, BOOT + 30),
        ("crest_generate", "RUNNING", BOOT + 40, None)]
    assert read_runs(store / "mlflow.db") == runs


def test_read_runs_from_a_file_store(tmp_path):
    run = tmp_path / "mlruns" / "3" / "abc"
    (run / "tags").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_name: prepare@sst\nstart_time: 5000\nend_time: 7500\nstatus: 4\n")
    (run / "tags" / "dvc_stage").write_text("prepare@sst")
    (tmp_path / "mlruns" / "3" / "meta.yaml").write_text("name: lingtest/pipeline\n")  # an experiment's meta
    (run / "metrics" / "crest").mkdir(parents=True)
    (run / "metrics" / "crest" / "seconds").write_text("5000 1.5 0\n6000 2.25 0\n")  # the last value counts
    (run / "metrics" / "empty").write_text("")
    (got,) = read_runs(tmp_path / "mlruns")
    assert (got.stage, got.status, got.start, got.end) == ("prepare@sst", "FAILED", 5.0, 7.5)
    assert got.metrics == {"crest/seconds": 2.25}


def test_read_runs_names_what_is_not_a_store(tmp_path):
    with pytest.raises(InputError, match="no MLflow store"):
        read_runs(tmp_path / "nothing")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"")  # SQLite opens an empty file as an empty database: no runs table
    with pytest.raises(InputError, match="not an MLflow store"):
        read_runs(bad)


def run(stage: str, start: float, end: float | None, **tags: str) -> RunRecord:
    return RunRecord(stage, "FINISHED", start, end, {"dvc_stage": stage, **tags})


def test_split_sessions_starts_a_new_repro_where_a_stage_repeats_or_after_a_long_pause():
    runs = [run("prepare@a", 0, 1), run("parse@a", 3, 10), run("prepare@a", 12, 13),  # repeat: new session
            run("parse@a", 15, 20), run("report", 1000, 1001)]  # 980 s pause: new session
    sessions = split_sessions(runs, max_gap_s=300)
    assert [[r.stage for r in s] for s in sessions] == [["prepare@a", "parse@a"], ["prepare@a", "parse@a"],
                                                        ["report"]]
    assert len(split_sessions(runs, max_gap_s=5000)) == 2


def test_stage_table_gives_wall_gap_and_splits_the_gap_at_the_process_start():
    session = [
        run("prepare@gum", BOOT + 100.0, BOOT + 102.0, **proc_tags("prepare@gum", 98.0)),
        run("parse@gum", BOOT + 107.5, BOOT + 130.0, **proc_tags("parse@gum", 105.0)),
        # started "before" the previous stage ended: a record from another boot; its split is left out
        run("crest_generate", BOOT + 134.0, BOOT + 150.0, **proc_tags("crest_generate", 50.0)),
    ]
    rows = stage_table(session, {"prepare": "pipeline", "parse": "pipeline", "crest_generate": "crest"},
                       boot=BOOT, host="vm")
    assert [(r.stage, r.technique) for r in rows] == [("prepare@gum", "pipeline"), ("parse@gum", "pipeline"),
                                                      ("crest_generate", "crest")]
    assert [r.wall_s for r in rows] == [2.0, 22.5, 16.0]
    assert [r.gap_before_s for r in rows] == [None, 5.5, 4.0]
    assert rows[0].dvc_s is None and rows[0].startup_s == pytest.approx(2.0)
    assert rows[1].dvc_s == pytest.approx(3.0) and rows[1].startup_s == pytest.approx(2.5)
    assert rows[2].dvc_s is None and rows[2].startup_s is None
    # another host's records, or no boot time: no split
    assert all(r.dvc_s is None and r.startup_s is None for r in stage_table(session, boot=BOOT, host="other"))
    assert rows[1].as_dict()["start"] == "1970-01-12T13:48:27.500+00:00"


def test_stage_table_falls_back_to_the_technique_tag_and_keeps_a_running_stage():
    rows = stage_table([run("x@1", 0, 4, technique="tin"), run("y", 6, None), run("z", 9, 10)])
    assert [(r.technique, r.wall_s, r.gap_before_s) for r in rows] == [("tin", 4, None), ("unknown", None, 2),
                                                                       ("unknown", 1, 5)]


def test_a_row_gives_the_cores_its_stage_kept_busy_from_the_logged_cpu_seconds():
    from lingtest.profiling import StageRow

    row = StageRow("parse@sst", "pipeline", "FINISHED", 0.0, 10.0, 10.0, None, None, None,
                   {"stage_seconds": 9.5, "stage_cpu_seconds": 14.25})
    assert row.as_dict()["cores_busy"] == 1.5
    assert "cores_busy" not in StageRow("x", "t", "FINISHED", 0.0, 1.0, 1.0, None, None, None,
                                        {"stage_seconds": 1.0}).as_dict()


def test_cpu_use_sums_cpu_and_bands_the_stages_by_cores_kept_busy():
    from lingtest.profiling import StageRow, cpu_use

    def row(stage, body, cpu):
        timed = {"stage_seconds": body} if cpu is None else {"stage_seconds": body, "stage_cpu_seconds": cpu}
        return StageRow(stage, "t", "FINISHED", 0.0, body, body, None, None, None, timed)

    got = cpu_use([row("a", 10.0, 10.0), row("b", 4.0, 6.0), row("c", 6.0, 11.4), row("old", 5.0, None)], 2)
    assert got == {"stages": 3, "cores": 2, "body_s": 20.0, "cpu_s": 27.4, "cores_busy": 1.37,
                   "body_s_by_cores_busy": {"under_1.25": 10.0, "1.25_to_1.75": 4.0, "1.75_and_over": 6.0},
                   "idle_core_s": 12.6, "most_saved_by_overlap_s": 6.3}
    assert cpu_use([row("old", 5.0, None)], 2) is None


def test_technique_totals_sum_stages_and_gaps_per_technique_and_overall():
    rows = stage_table([run("a@1", 0, 10), run("a@2", 12, 15), run("b", 20, 21)], {"a": "crest", "b": "tin"})
    totals = technique_totals(rows)
    assert totals["crest"] == {"stages": 2, "wall_s": 13.0, "gap_s": 2.0, "dvc_s": None, "startup_s": None,
                               "total_s": 15.0}
    assert totals["tin"]["total_s"] == 6.0
    assert totals["all"]["stages"] == 3 and totals["all"]["total_s"] == 21.0


def test_stage_techniques_come_from_the_dvc_files(tmp_path):
    (tmp_path / "dvc.yaml").write_text("stages:\n  parse:\n    cmd: x\n")
    (tmp_path / "stages" / "crest").mkdir(parents=True)
    (tmp_path / "stages" / "crest" / "dvc.yaml").write_text("stages:\n  crest_generate:\n    cmd: x\n")
    assert stage_techniques(tmp_path) == {"parse": "pipeline", "crest_generate": "crest"}


LOG = """Stage 'download@gum' didn't change, skipping
Running stage 'prepare@gum':
> python -m lingtest.pipeline.stage prepare gum
Running stage 'parse@gum':
> python -m lingtest.pipeline.stage parse gum
	Command being timed: "dvc repro"
	Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.50
	Exit status: 0
"""


def test_repro_log_and_time_report():
    assert repro_log_stages(LOG) == {"ran": ["prepare@gum", "parse@gum"], "skipped": ["download@gum"]}
    assert read_time_report(LOG) == {"wall_s": 3723.5, "exit_status": 0}
    assert read_time_report("Elapsed (wall clock) time (h:mm:ss or m:ss): 44:12.25\n") == {"wall_s": 2652.25}
    assert read_time_report("Running stage 'x':\n") is None


def test_cpu_simd_flags_keeps_the_vector_flags():
    info = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse sse2 ssse3 sse4_2 avx avx2 fma avx512f lm\n"
    assert cpu_simd_flags(info) == ["avx", "avx2", "avx512f", "fma", "sse", "sse2", "sse4_2", "ssse3"]
    assert cpu_simd_flags("model name : x\n") == []


# ---------------------------------------------------------------- categories


def F(module: str, function: str) -> Frame:
    return Frame(module, function)


RUNNER = F("lingtest.pipeline.runner", "run_stage")
PARSE = F("lingtest.parsing.spacy_backend", "SpacyParser.parse")
SPACY_LOAD = F("spacy", "load")
LM = F("lingtest.resources.lm", "CausalLMScorer.score_grouped")
PREDICT = F("lingtest.systems.contrastive.causal_lm", "CausalLMSystem.predict")
READ = F("lingtest.data.io", "read_jsonl")


def test_the_outermost_category_decides_except_that_model_loading_wins_from_inside():
    assert categorize([RUNNER, PREDICT, LM, READ]) == ("inference", PREDICT)
    assert categorize([RUNNER, READ, PARSE]) == ("io", READ)
    assert categorize([RUNNER, PARSE, SPACY_LOAD, READ]) == ("model_load", SPACY_LOAD)  # lazy load inside a parser
    assert categorize([RUNNER, F("lingtest.crest.generate", "generate")]) == (OTHER, None)
    assert categorize([F("threading", "_shutdown"), F("concurrent.futures.process", "_python_exit")])[0] == "shutdown"
    # cProfile's bare function names match a rule's last part
    assert categorize([F("spacy.language", "__call__")])[0] == "parsing"
    assert categorize([F("importlib._bootstrap", "_find_and_load"), F("transformers.modeling_utils",
                                                                        "PreTrainedModel.from_pretrained")]) == (
        "model_load", F("transformers.modeling_utils", "PreTrainedModel.from_pretrained"))


def test_a_custom_rule_table_and_precedence():
    rules = (Rule("a", "m", "f"), Rule("b", "m", "g"))
    stack = [F("m", "f"), F("m", "g")]
    assert categorize(stack, rules, {}) == ("a", F("m", "f"))
    assert categorize(stack, rules, {"b": 2}) == ("b", F("m", "g"))


def test_attribute_sums_seconds_top_frames_and_nested_categories():
    samples = [([RUNNER, PREDICT, LM], 3.0), ([RUNNER, PREDICT], 1.0), ([RUNNER, PARSE, SPACY_LOAD], 2.0),
               ([RUNNER, PARSE], 0.5), ([RUNNER, F("lingtest.crest.generate", "generate")], 0.25),
               ([RUNNER], 0.125), ([], 0.5), ([RUNNER, READ], 0.0)]
    got = attribute(samples)
    assert got.seconds == {"inference": 4.0, "model_load": 2.0, "parsing": 0.5, OTHER: 0.375, INTERPRETER: 0.5}
    assert got.total == 7.375
    assert got.top["inference"] == {PREDICT.key: 4.0}
    assert got.top[OTHER] == {"lingtest.crest.generate:generate": 0.25, RUNNER.key: 0.125}
    assert got.nested["inference"] == {"lm_scoring": 3.0, "inference": 1.0}
    table = got.as_dict()
    assert table["categories"]["inference"]["share"] == pytest.approx(4.0 / 7.375, abs=1e-4)
    assert table["categories"]["inference"]["nested"] == {"lm_scoring": 3.0}
    assert table["categories"][OTHER]["top"] == [["lingtest.crest.generate:generate", 0.25], [RUNNER.key, 0.125]]


def test_rules_table_lists_every_rule_with_its_precedence():
    table = rules_table()
    assert len(table) == len(CATEGORY_RULES)
    assert {r["category"] for r in table} >= {"model_load", "parsing", "lm_scoring", "inference", "io"}
    assert all(r["precedence"] == (1 if r["category"] == "model_load" else 0) for r in table)


@pytest.mark.parametrize(("path", "module"), [
    ("<frozen importlib._bootstrap>", "importlib._bootstrap"),
    ("/v/lib/python3.11/site-packages/spacy/language.py", "spacy.language"),
    ("/tmp/x/ws/src/lingtest/parsing/__init__.py", "lingtest.parsing"),
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/json/__init__.py", "json"),
    ("lingtest/resources/lm.py", "lingtest.resources.lm"),
    ("thinc/backends/numpy_ops.pyx", "thinc.backends.numpy_ops"),
    ("<string>", "<string>"),
])
def test_module_of_path(path, module):
    assert module_of_path(path) == module


# ---------------------------------------------------------------- py-spy


PYSPY = """thread (200): MainThread;_run_module_as_main (<frozen runpy>:198);load (spacy/__init__.py:51) 30
thread (200): MainThread;_run_module_as_main (<frozen runpy>:198);SpacyParser.parse (lingtest/parsing/spacy_backend.py:183) 50
thread (200) 5
thread (201): Thread-1 (bg);Thread.run (threading.py:982);bg (x.py:8) 85
"""  # noqa: E501


def test_pyspy_raw_lines_and_the_main_thread():
    tid, name, frames, count = parse_pyspy_line(PYSPY.splitlines()[0])  # type: ignore[misc]
    assert (tid, name, count) == ("200", "MainThread", 30)
    assert frames == [F("runpy", "_run_module_as_main"), F("spacy", "load")]
    assert parse_pyspy_line("") is None
    with pytest.raises(InputError, match="no sample count"):
        parse_pyspy_line("thread (1);f (x.py:1)")
    samples = pyspy_samples(PYSPY, interval_s=0.01)
    assert sum(s for _, s in samples) == pytest.approx(0.85)  # the background thread's samples left out
    got = attribute(samples)
    assert got.seconds == pytest.approx({"model_load": 0.3, "parsing": 0.5, INTERPRETER: 0.05})
    assert sum(s for _, s in pyspy_samples(PYSPY, interval_s=0.01, thread="201")) == pytest.approx(0.85)


@pytest.mark.skipif(shutil.which("py-spy") is None, reason="py-spy is not installed")
def test_pyspy_on_a_real_process(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import time\ndef load():\n    time.sleep(0.4)\ndef work():\n    time.sleep(0.2)\n"
                      "load()\nwork()\n")
    out = tmp_path / "raw.txt"
    subprocess.run(["py-spy", "record", "--format", "raw", "--rate", "100", "--idle", "--threads", "-o", str(out),
                    "--", sys.executable, str(script)], check=True, capture_output=True)
    got = attribute(pyspy_samples(out.read_text(), interval_s=0.01),
                    (Rule("model_load", "slow", "load"), Rule("inference", "slow", "work")))
    # py-spy falls behind on a busy machine (fewer samples), evenly: compare the shares of the two sleeps
    load, work = got.seconds["model_load"], got.seconds["inference"]
    assert load / (load + work) == pytest.approx(2 / 3, abs=0.12)


# ---------------------------------------------------------------- cProfile


def K(path: str, name: str) -> tuple[str, int, str]:
    return (path, 1, name)


MAIN = K("/w/src/lingtest/crest/stages.py", "generate_stage")
PARSE_FN = K("/w/src/lingtest/parsing/base.py", "parse_documents_with")
LOAD_FN = K("/w/src/lingtest/parsing/spacy_backend.py", "load_spacy_model")
READER = K("/w/src/lingtest/readers/conllu.py", "read")
JSON_LOAD = K("/usr/lib/python3.11/json/__init__.py", "load")


def synthetic_stats() -> dict:
    """A call graph (function -> (calls, primitive calls, own s, inclusive s, callers -> same per caller)):
    the stage body (10 s: 1 own) calls a parser (6 s: 3 own, 2 loading its model, 1 reading) and json.load (2 s),
    and reads directly (1 s); the reader is shared by the body and the parser."""
    return {
        MAIN: (1, 1, 1.0, 10.0, {}),
        PARSE_FN: (1, 1, 3.0, 6.0, {MAIN: (1, 1, 3.0, 6.0)}),
        LOAD_FN: (1, 1, 2.0, 2.0, {PARSE_FN: (1, 1, 2.0, 2.0)}),
        READER: (2, 2, 2.0, 2.0, {MAIN: (1, 1, 1.0, 1.0), PARSE_FN: (1, 1, 1.0, 1.0)}),
        JSON_LOAD: (1, 1, 2.0, 2.0, {MAIN: (1, 1, 2.0, 2.0)}),
    }


def test_pstats_call_graph_spread_over_paths(tmp_path):
    path = tmp_path / "synthetic.pstats"
    path.write_bytes(marshal.dumps(synthetic_stats()))  # what cProfile's dump_stats writes
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    samples = list(pstats_samples(stats))
    assert sum(s for _, s in samples) == pytest.approx(10.0)
    got = attribute(samples)
    # the reader under the parser is parsing (outermost), the model load inside it model loading (precedence)
    assert got.seconds == pytest.approx({OTHER: 1.0, "parsing": 4.0, "model_load": 2.0, "io": 3.0})
    assert got.top["io"] == pytest.approx({"lingtest.readers.conllu:read": 1.0, "json:load": 2.0})


def test_pstats_recursion_and_small_paths_keep_every_second():
    f = K("/w/src/lingtest/x.py", "f")
    g = K("/w/src/lingtest/resources/lm.py", "score")
    stats = {f: (3, 1, 1.0, 4.0, {f: (2, 0, 0.5, 2.5)}), g: (1, 1, 3.0, 3.0, {f: (1, 1, 3.0, 3.0)})}
    samples = list(pstats_samples(stats))
    assert sum(s for _, s in samples) == pytest.approx(4.0)
    assert attribute(samples).seconds == pytest.approx({OTHER: 1.0, "lm_scoring": 3.0})
    coarse = list(pstats_samples(stats, min_seconds=5.0))  # too small to follow: all at the root
    assert coarse == [((F("lingtest.x", "f"),), 4.0)]
    # recursive inclusive times can make a function's callees add up to more than itself: scaled to fit
    h = K("/w/src/lingtest/data/io.py", "read_jsonl")
    over = {f: (1, 1, 0.0, 4.0, {}), g: (1, 1, 3.0, 3.0, {f: (1, 1, 3.0, 3.0)}),
            h: (1, 1, 3.0, 3.0, {f: (1, 1, 3.0, 3.0)})}
    assert attribute(pstats_samples(over)).seconds == pytest.approx({"lm_scoring": 2.0, "io": 2.0})


def _load() -> None:
    time.sleep(0.15)


def _stage() -> None:
    _load()
    time.sleep(0.1)


def test_pstats_of_a_real_cprofile_run(tmp_path):
    prof = cProfile.Profile()
    prof.runcall(_stage)
    prof.dump_stats(tmp_path / "real.pstats")
    stats = pstats.Stats(str(tmp_path / "real.pstats")).stats  # type: ignore[attr-defined]
    rules = (Rule("model_load", "*test_profiling", "_load"), Rule("body", "*test_profiling", "_stage"))
    got = attribute(pstats_samples(stats, min_seconds=1e-4), rules, {"model_load": 1})
    # a sleep lasts at least as asked (longer on a busy machine); the load is not counted in the body
    assert got.seconds["model_load"] >= 0.149 and got.seconds["body"] >= 0.099
    assert got.seconds["body"] < got.seconds["model_load"] + 0.1
    assert got.total == pytest.approx(sum(entry[3] for entry in stats.values() if not entry[4]), rel=1e-9)
