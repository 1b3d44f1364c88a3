"""Expectations as data, one runner: every built-in expectation on a fake system of its task."""

from __future__ import annotations

import pytest
from tests.fakes import FakeClassifier, FakeCoref, FakeNER, FakeScorer

from lingtest.data.model import Provenance, TestCase
from lingtest.errors import ConfigError, InputError
from lingtest.suite.expectations import EXPECTATIONS, parse_expectation
from lingtest.suite.run import run_suite, write_results
from lingtest.systems.cache import CachedSystem


def case(source, followup=None, expected="invariance", **meta):
    return TestCase(technique="t", relation="r", source=source, followup=followup, expected=expected,
                    provenance=Provenance(seed_id="s", transformation="x"), meta=meta)


def sent(words):
    return {"id": "d", "sentences": [{"tokens": [{"text": w} for w in words]}]}


def test_label_direction_and_invariance_for_a_classifier():
    clf = FakeClassifier()
    cases = [
        case({"text": "a good film"}, expected={"name": "label", "labels": ["positive"]}),
        case({"text": "a bad film"}, expected={"name": "label", "label": "positive"}),
        case({"text": "good"}, {"text": "good , good and bad"}, {"name": "direction", "label": "positive",
                                                               "increasing": True, "tolerance": 0.1}),
        case({"text": "good"}, {"text": "good , good and bad"}, {"name": "direction", "label": "positive",
                                                               "increasing": True, "tolerance": 0.5}),
        case({"text": "good film"}, {"text": "good movie"}),
        case({"text": "good film"}, {"text": "bad movie"}),
    ]
    run = run_suite(CachedSystem(clf, None), cases)
    assert [r.passed for r in run.results] == [True, False, False, True, True, False]
    assert clf.calls == 1  # everything predicted in one batched call
    assert run.results[0].predictions["source"]["label"] == "positive"
    assert run.failures == 3


def test_invariance_for_ner_and_coref_with_an_alignment():
    ner = run_suite(FakeNER(), [case({"tokens": ["John", "runs"]}, {"tokens": ["John", "walks"]}),
                                case({"tokens": ["John", "runs"]}, {"tokens": ["he", "runs"]})])
    assert [r.passed for r in ner.results] == [True, False]
    # FakeCoref links the first and last token: replacing word 1 by two words shifts the last one
    src, fu = sent(["John", "said", "it"]), sent(["John", "really", "said", "it"])
    aligned = {"name": "invariance", "alignment": {"replacements": [[1, 2]]}}
    run = run_suite(FakeCoref(), [case(src, fu, aligned), case(src, fu)])
    assert [r.passed for r in run.results] == [True, False]


def test_oracle_consistency_takes_thresholds_from_the_run_options():
    src = sent(["John", "said", "he", "came"])
    fu = sent(["John", "said", "he", "came", "late"])  # the fake links a different last token
    c = case(src, fu, "same-coreference", position=3, n_new_tokens=2)
    assert run_suite(FakeCoref(), [c], {"oracle": {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0}}).results[0].passed
    with pytest.raises(ConfigError, match="thr_p, thr_r not given"):  # no defaults in code: conf gives them
        run_suite(FakeCoref(), [c], {"oracle": {"name": "blanc"}})
    c2 = case(src, sent(["Mary", "said", "he", "came"]), "same-coreference", position=0, n_new_tokens=1)
    strict = run_suite(FakeCoref(), [c2], {"oracle": {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0}})
    assert strict.results[0].passed  # same spans: consistent
    assert "precision" in strict.results[0].details


def test_contrastive_reference_must_win_strictly():
    ex = {"id": "e", "src": "It is red .", "ref": "Es ist rot .", "contrastive": ["Er ist rot .", "Sie ist rot ."]}
    run = run_suite(FakeScorer(), [case(ex, expected="contrastive"),
                                   case(ex, expected={"name": "contrastive", "reference": 2})])
    assert [r.passed for r in run.results] == [False, False]  # "Es"/"Er" tie: not strictly better
    ex2 = dict(ex, contrastive=["Er ist sehr rot .", "Sie ist rot ."])
    assert run_suite(FakeScorer(), [case(ex2, expected="contrastive")]).results[0].passed


def test_bad_expectations_are_input_errors():
    assert set(EXPECTATIONS.names()) >= {"invariance", "label", "direction", "oracle", "contrastive",
                                         "same-coreference"}
    with pytest.raises(InputError, match="unknown expectation"):
        parse_expectation("nope")
    with pytest.raises(InputError, match="bad parameters"):
        parse_expectation({"name": "label", "labels": ["x"], "bogus": 1})
    with pytest.raises(InputError, match="needs a followup"):
        run_suite(FakeClassifier(), [case({"text": "x"}, None, "invariance")])


def test_results_are_written_as_records(tmp_path):
    run = run_suite(FakeClassifier(), [case({"text": "good"}, expected={"name": "label", "label": "positive"})])
    n = write_results(tmp_path / "r.jsonl", run.results, meta={"system": "fake"})
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert n == 1 and '"passed":true' in lines[1] and '"kind": "result"' in lines[0]
