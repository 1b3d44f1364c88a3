"""Bad input from a user's model: bad outputs are an :class:`OutputError` naming case, side and field and
are never cached; predictions files are checked against the inputs a run needs before any is used;
:func:`export_inputs` writes the inputs of a fixed suite to fill in."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omegaconf import open_dict
from tests.fakes import FakeClassifier
from tests.suite import toys

import lingtest
from lingtest.config import compose
from lingtest.errors import InputError, SystemFailure
from lingtest.harness.export import (
    Cover,
    PredictionsWarning,
    UncoveredInputs,
    check_predictions_cover,
    export_inputs,
    is_fixed,
    needed_inputs,
)
from lingtest.harness.outputs import OutputError
from lingtest.store import JSONStore
from lingtest.systems.cache import CachedSystem
from lingtest.systems.classification.base import SUM_TOLERANCE, ClassificationTask
from lingtest.systems.predictions import PredictionsFile, read_predictions, write_predictions
from lingtest.systems.spec import predictions_path
from lingtest.systems.tasks import get_task

CFG = compose()
MODELS = {"classification": toys.sentiment, "ner": toys.capitals, "coref": toys.first_last,
          "contrastive": toys.shortest}
CASES = {"classification": toys.classification_cases, "ner": toys.ner_cases, "coref": toys.coref_cases,
         "contrastive": toys.contrastive_cases}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LINGTEST_NO_PROGRESS", "1")


def store(tmp_path: Path, task: str = "classification") -> JSONStore:
    return JSONStore(tmp_path / "cache" / "predictions" / f"{task}.sqlite", table="predictions")


def load(tmp_path: Path, cases: list, name: str = "s.jsonl") -> Any:
    return lingtest.load_suite(toys.write_suite(tmp_path / name, cases))


@pytest.fixture
def suite(tmp_path):
    return load(tmp_path, toys.classification_cases(), "demo.jsonl")


def verdicts(results) -> dict[str, bool]:
    return {r.case_id: r.passed for r in results.results}


# ---- 1. classification outputs: never cached, earlier batches kept --------------------------------------
BAD_CLASSIFICATION = [
    ({"negative": 0.5, "POSITIVE": 0.5}, "output.POSITIVE", "label 'POSITIVE' is not one of the suite's labels"),
    ({"negative": math.nan, "positive": 0.5}, "output.negative", "expected a probability in [0, 1], got nan"),
    ({"negative": math.inf, "positive": 0.5}, "output.negative", "expected a probability in [0, 1], got inf"),
    ({"negative": 0.5, "positive": 0.6}, "output", "the probabilities sum to 1.1, not 1"),
    ({"negative": 0.3, "positive": 0.3}, "output", "the probabilities sum to 0.6, not 1"),
    ({"negative": -0.2, "positive": 1.0}, "output.negative", "expected a probability in [0, 1], got -0.2"),
    ([0.1, 0.9], "output", "expected a non-empty {label: probability} object"),
    ("positive", "output", "expected a non-empty {label: probability} object"),
    ({}, "output", "expected a non-empty {label: probability} object"),
]


@pytest.mark.parametrize("bad,field,reason", BAD_CLASSIFICATION)
def test_a_bad_classification_output_names_case_side_field_and_its_batch_is_not_cached(suite, tmp_path, bad, field,
                                                                                        reason):
    target = next(c for c in suite.cases if "number 17" in c.source["text"])
    fixed = {"on": False}
    batches: list[list[str]] = []

    def model(texts):
        batches.append(list(texts))
        return [bad if t == target.source["text"] and not fixed["on"] else o
                for t, o in zip(texts, toys.sentiment(texts), strict=True)]

    with pytest.raises(OutputError) as info:
        suite.run(model, batch_size=4, config=CFG)
    err = info.value
    assert (err.case_id, err.side, err.field) == (target.id, "source", field)
    assert f"case {target.id} (source" in str(err) and f"field {field!r}: {reason}" in str(err)
    assert target.source["text"] in batches[-1]  # the run stopped at the bad batch
    before = {t for b in batches[:-1] for t in b}
    assert len(before) >= 4 and len(store(tmp_path)) == len(before)  # the good batches before it are cached

    fixed["on"] = True
    batches.clear()
    results = suite.run(model, batch_size=4, config=CFG)
    asked = {t for b in batches for t in b}
    assert asked == {c.source["text"] for c in suite.cases} - before  # the bad batch is predicted again
    assert target.source["text"] in asked and len(results) == 30 and len(store(tmp_path)) == 30


def test_a_system_object_with_bad_outputs_caches_nothing_of_the_batch(tmp_path):
    class Summing(FakeClassifier):
        def predict(self, inputs):
            return [{"negative": 0.7, "positive": 0.7} if "number 2" in t else o
                    for t, o in zip(inputs, super().predict(inputs), strict=True)]

    clf = load(tmp_path, toys.classification_cases(3), "c.jsonl")
    with pytest.raises(OutputError, match="field 'output': the probabilities sum to 1.4, not 1") as info:
        clf.run(Summing(), batch_size=3, config=CFG)
    assert info.value.case_id == clf.cases[2].id and len(store(tmp_path)) == 0


def test_the_codec_checks_the_sum_so_every_stage_gets_it(tmp_path):
    codec = ClassificationTask()
    assert SUM_TOLERANCE == 0.01
    assert codec.decode_output({"a": 0.333, "b": 0.333, "c": 0.333}) == {"a": 0.333, "b": 0.333, "c": 0.333}
    assert codec.decode_output({"a": 1.0, "b": 0.005}) == {"a": 1.0, "b": 0.005}  # within the tolerance
    with pytest.raises(InputError) as e:
        codec.decode_output({"a": 0.5, "b": 0.48}, "out")
    assert e.value.field == "out" and e.value.reason == "the probabilities sum to 0.98, not 1"

    class Halves(FakeClassifier):
        def predict(self, inputs):
            return [{"negative": 0.5, "positive": 0.4} for _ in inputs]

    cache = JSONStore(tmp_path / "p.sqlite")
    with pytest.raises(SystemFailure, match="sum to 0.9"):  # a pipeline stage's cached system, no harness
        CachedSystem(Halves(), cache).predict(["a text"])
    assert len(cache) == 0
    path = tmp_path / "p.jsonl"
    path.write_text('{"input": "a text", "output": {"negative": 0.5, "positive": 0.4}}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_predictions(path, codec)
    assert e.value.line == 1 and e.value.field == "output" and "sum to 0.9" in str(e.value)


# ---- 2. wrong length and wrong shape ----------------------------------------------------------------------
def _too_few(texts):
    return toys.sentiment(texts)[:-1]


def _too_many(texts):
    return toys.sentiment(texts) + toys.sentiment(texts[:1])


@pytest.mark.parametrize("model,got", [(_too_few, "returned 29 outputs for a batch of 30"),
                                       (_too_many, "returned 31 outputs for a batch of 30")])
def test_a_wrong_number_of_outputs_names_the_batch(suite, tmp_path, model, got):
    with pytest.raises(OutputError) as info:
        suite.run(model, batch_size=30, config=CFG)
    err = info.value
    assert got in str(err) and err.field == "output" and err.side == "source"
    assert err.case_id in {c.id for c in suite.cases} and f"case {err.case_id} (source" in str(err)
    assert len(store(tmp_path)) == 0


@pytest.mark.parametrize("task,answer,field,reason", [
    ("ner", [[0, 1]], "output[0]", "expected [start, end, label] with 0 <= start < end, got [0, 1]"),
    ("ner", [[2, 1, "PER"]], "output[0]", "0 <= start < end, got [2, 1, 'PER']"),
    ("ner", [[1, 1, "PER"]], "output[0]", "0 <= start < end, got [1, 1, 'PER']"),
    ("ner", [[-1, 1, "PER"]], "output[0]", "0 <= start < end, got [-1, 1, 'PER']"),
    ("ner", [[0, 1, ""]], "output[0]", "got [0, 1, '']"),
    ("ner", [[0, 1.5, "PER"]], "output[0]", "got [0, 1.5, 'PER']"),
    ("ner", [[0, 9, "PER"]], "output[0]", "entity [0, 9, 'PER'] ends after the input's"),
    ("ner", {"spans": []}, "output", "expected a list of [start, end, label] entities"),
    ("coref", [[[0, 1], [2, 40]]], "output[0][1]", "mention [2, 40] ends after the input's"),
    ("coref", [[[0, 1], [-1, 2]]], "output[0][1]", "0 <= start < end, got [-1, 2]"),
    ("coref", [[[3, 2]]], "output[0][0]", "0 <= start < end, got [3, 2]"),
    ("coref", [[0, 1]], "output[0][0]", "expected [start, end] with 0 <= start < end, got 0"),
    ("coref", [0, 1], "output[0]", "expected a list of [start, end] mentions"),
    ("contrastive", [-1.0, -2.0], "output", "2 scores for 3 candidates"),
    ("contrastive", [-1.0, -2.0, -3.0, -4.0], "output", "4 scores for 3 candidates"),
    ("contrastive", [0.5, -1.0, -2.0], "output[0]", "expected a log-probability (<= 0), got 0.5"),
    ("contrastive", [-1.0, math.nan, -2.0], "output[1]", "expected a log-probability (<= 0), got nan"),
    ("contrastive", [], "output", "expected a list of log-probabilities"),
])
def test_a_bad_output_of_every_task_names_case_and_field(tmp_path, task, answer, field, reason):
    s = load(tmp_path, CASES[task]())
    with pytest.raises(OutputError) as info:
        s.run(lambda batch: [answer for _ in batch], config=CFG)
    err = info.value
    assert err.field == field and reason in str(err) and f"field {field!r}" in str(err)
    assert err.case_id in {c.id for c in s.cases} and err.side == "source"
    assert str(err).startswith(f"case {err.case_id} (source")
    assert len(store(tmp_path, task)) == 0


# ---- 3. predictions files against the suite's inputs -----------------------------------------------------
def texts_of(suite) -> list[str]:
    return [c.source["text"] for c in suite.cases]


def test_a_predictions_file_that_answers_every_input_passes(suite, tmp_path):
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", texts_of(suite), toys.sentiment(texts_of(suite)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_predictions_cover(suite, str(path)) == Cover(path, 30, 30, 0)
    assert check_predictions_cover(suite, toys.sentiment) is None
    assert check_predictions_cover(suite, "http://127.0.0.1:9/x") is None
    assert check_predictions_cover(suite, f"{toys.HERE}:sentiment") is None


def test_inputs_without_an_entry_are_one_error_naming_the_first_cases_and_the_count(suite, tmp_path):
    texts = texts_of(suite)
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", texts[7:], toys.sentiment(texts[7:]))
    with pytest.raises(UncoveredInputs) as info:
        check_predictions_cover(suite, path)
    err = info.value
    ids = [c.id for c in suite.cases[:7]]
    assert err.problems == {"missing": [(i, "source") for i in ids], "mismatched": [], "unfilled": []}
    msg = str(err)
    assert msg.startswith(f"{path}: the predictions file does not answer 7 of the 30 inputs suite 'demo' needs")
    assert "7 have no entry: case " + ", ".join(f"{i} (source)" for i in ids[:5]) + ", and 2 more" in msg
    assert ids[5] not in msg and "export_inputs" in msg
    # the file as a system names what it lacks too, all at once
    with pytest.raises(InputError, match=r"no prediction for inputs .*\(7 of 30 missing\)"):
        PredictionsFile("classification", path).predict(texts)


def test_an_entry_whose_input_was_edited_is_refused_with_its_case_and_line(suite, tmp_path):
    texts = texts_of(suite)
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", texts, toys.sentiment(texts))
    lines = path.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[4])
    rec["input"] = rec["input"].upper()  # the key is kept: it no longer is the input's
    lines[4] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(UncoveredInputs) as info:
        check_predictions_cover(suite, path)
    assert info.value.problems["mismatched"] == [(suite.cases[3].id, "source")]
    assert f"1 have an entry whose recorded input is not the suite's input (edited after export?): case " \
           f"{suite.cases[3].id} (source, line 5)" in str(info.value)
    with pytest.raises(InputError) as e:  # the file as a system refuses it too
        read_predictions(path, ClassificationTask())
    assert e.value.line == 5 and e.value.field == "input"
    with pytest.raises(InputError, match="recorded input is not the suite's input"):  # no run uses it silently
        suite.run(str(path), config=CFG)


def test_a_predictions_file_judges_the_entries_it_is_asked_for(tmp_path):
    path = tmp_path / "half.jsonl"
    write_predictions(path, "classification", ["a good film", "a bad film"], [{"positive": 1.0}, None])
    saved = PredictionsFile("classification", path)
    assert saved.predict(["a good film"]) == [{"positive": 1.0}]
    with pytest.raises(InputError) as e:
        saved.predict(["a good film", "a bad film"])
    assert (e.value.line, e.value.field, e.value.reason) == (3, "output", "no output filled in (null)")
    with pytest.raises(InputError, match="line 3, field 'output': no output filled in"):
        read_predictions(path, ClassificationTask())  # the whole file, every record


def test_entries_of_no_input_of_the_suite_are_a_warning_and_a_file_of_another_suite_an_error(suite, tmp_path):
    texts = texts_of(suite)
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", [*texts, "a film of another suite"], toys.sentiment([*texts, "x"]))
    with pytest.warns(PredictionsWarning, match=r"1 of its 31 entries answer no input of suite 'demo' \(lines 32\)"):
        assert check_predictions_cover(suite, path).foreign == 1
    sample = suite.sample(10, 1)
    with warnings.catch_warnings():  # the other 20 inputs are the suite's: no warning
        warnings.simplefilter("error", PredictionsWarning)
        with pytest.raises(PredictionsWarning):
            check_predictions_cover(suite, path, cases=sample)
        write_predictions(path, "classification", texts, toys.sentiment(texts))
        assert check_predictions_cover(suite, path, cases=sample) == Cover(path, 10, 30, 0)
    other = tmp_path / "other.jsonl"
    write_predictions(other, "classification", ["one film", "two films"], toys.sentiment(["a", "b"]))
    with pytest.raises(UncoveredInputs, match="none of its 2 entries answers an input of this suite"):
        check_predictions_cover(suite, other)


def test_a_configured_predictions_system_is_checked_too(suite, tmp_path):
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", ["x"], toys.sentiment(["x"]))
    cfg = compose()
    with open_dict(cfg):
        cfg.systems.classification.saved = {"kind": "predictions", "path": str(path)}
    assert predictions_path("saved", "classification", cfg) == path
    assert predictions_path("saved") is None and predictions_path(toys.sentiment) is None
    assert predictions_path(PredictionsFile("classification", path)) == path
    with pytest.raises(UncoveredInputs, match="30 have no entry"):
        check_predictions_cover(suite, "saved", config=cfg)


# ---- 4. exporting a fixed suite's inputs ------------------------------------------------------------------
def fill(path: Path, model) -> Path:
    """What a user does with an exported file: their model's output for every input."""
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in lines[1:]]
    outputs = model([r["input"] for r in records])
    filled = path.with_name("filled.jsonl")
    filled.write_text("\n".join([lines[0], *(json.dumps({**r, "output": o}) for r, o in zip(records, outputs,
                                                                                            strict=True))]) + "\n",
                      encoding="utf-8")
    return filled


@pytest.mark.parametrize("task,inputs", [("classification", 30), ("ner", 7), ("coref", 4), ("contrastive", 2)])
def test_exported_inputs_filled_by_a_model_give_the_same_results_as_the_model(tmp_path, task, inputs):
    s = load(tmp_path, CASES[task]())
    path = tmp_path / "inputs.jsonl"
    assert export_inputs(s, path) == inputs
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    header, records = lines[0], lines[1:]
    assert header["kind"] == "predictions" and header["task"] == task and header["suite_sha256"] == s.info.sha256
    assert len(records) == inputs and all(r["output"] is None for r in records)
    t = get_task(task)
    assert [r["key"] for r in records] == list(needed_inputs(s.cases, t))  # each distinct input once, in case order
    with pytest.raises(UncoveredInputs, match=f"{inputs} have no output filled in"):
        check_predictions_cover(s, path)

    filled = fill(path, MODELS[task])
    assert check_predictions_cover(s, filled) == Cover(filled, inputs, inputs, 0)
    by_file = s.run(str(filled), config=CFG)
    direct = s.run(MODELS[task], config=CFG)
    assert verdicts(by_file) == verdicts(direct) and by_file.system["kind"] == "predictions"
    assert [r.predictions for r in by_file.results] == [r.predictions for r in direct.results]


def test_an_exported_sample_is_the_sample_a_run_takes(suite, tmp_path):
    path = tmp_path / "inputs.jsonl"
    assert export_inputs(suite, path, limit=5, seed=2) == 5
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [r["input"] for r in records] == [c.source["text"] for c in suite.sample(5, 2)]
    filled = fill(path, toys.sentiment)
    results = suite.run(str(filled), limit=5, seed=2, config=CFG)
    assert verdicts(results) == verdicts(suite.run(toys.sentiment, limit=5, seed=2, config=CFG))
    with pytest.raises(UncoveredInputs, match="25 have no entry"):
        check_predictions_cover(suite, filled)  # the whole suite needs more


def test_a_release_that_withholds_its_text_is_not_exported(suite, tmp_path):
    withheld = SimpleNamespace(info=SimpleNamespace(**{**vars(suite.info), "materialized": False}),
                               sample=suite.sample)
    with pytest.raises(InputError, match="withholds its text"):
        export_inputs(withheld, tmp_path / "inputs.jsonl")


def test_export_names_a_case_whose_inputs_cannot_be_built(tmp_path):
    cases = toys.classification_cases(3)
    cases[1].source = {"txt": "typo"}
    s = load(tmp_path, cases)
    with pytest.raises(InputError, match=f"test case {cases[1].id}: a classification test payload holds"):
        export_inputs(s, tmp_path / "inputs.jsonl")
    assert not (tmp_path / "inputs.jsonl").exists()


# ---- 5. suites generated per system ------------------------------------------------------------------------
def test_a_predictions_file_is_refused_for_a_suite_generated_per_system(suite, tmp_path):
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", texts_of(suite), toys.sentiment(texts_of(suite)))
    assert is_fixed(suite.info)
    with pytest.raises(InputError) as info:
        check_predictions_cover(suite, str(path), system_dependent=True)
    msg = str(info.value)
    assert info.value.field == "system" and str(path) in msg
    assert "generates its cases per system" in msg
    assert all(w in msg for w in ("Python function", "package.module:function", "HTTP endpoint", "configured system"))
    assert check_predictions_cover(suite, toys.sentiment, system_dependent=True) is None  # a function is fine
    with pytest.raises(InputError, match="no fixed inputs to export"):
        export_inputs(suite, tmp_path / "inputs.jsonl", system_dependent=True)
    # without the argument, the suite's info says it
    marked = SimpleNamespace(info=SimpleNamespace(name="gen", task="classification", system_dependent=True),
                             cases=suite.cases)
    assert not is_fixed(marked.info)
    with pytest.raises(InputError, match="suite 'gen' generates its cases per system"):
        check_predictions_cover(marked, path)
