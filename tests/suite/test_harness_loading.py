"""``lingtest.load_suite``: suite files and release folders, and how task, groups and labels are derived."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.suite import toys

import lingtest
from lingtest.data.model import Provenance, TestCase
from lingtest.errors import InputError
from lingtest.harness.derive import case_task, group_of
from lingtest.release.provenance import sha256_file


def test_classification_suite_info(tmp_path: Path) -> None:
    path = toys.write_suite(tmp_path / "demo.jsonl", toys.classification_cases(), technique="demo")
    suite = lingtest.load_suite(path)
    info = suite.info
    assert len(suite) == info.cases == 30
    assert (info.name, info.version, info.technique, info.task) == ("demo", None, "demo", "classification")
    assert info.sha256 == sha256_file(path) and info.path == str(path)
    assert info.groups == {"negation": 10, "plain": 20} and list(info.groups) == ["negation", "plain"]
    assert info.group_rule == "provenance.transformation"
    assert info.labels == ("negative", "positive")
    assert info.expectations == {"label": 30}
    assert info.example_input == "not a good film number 0"
    assert "summing to 1" in info.output_form
    assert json.loads(json.dumps(info.to_dict()))["labels"] == ["negative", "positive"]


@pytest.mark.parametrize("cases,task,groups,labels", [
    (toys.ner_cases(), "ner", {"replace": 3, "lowercase": 1}, ("PER",)),
    (toys.coref_cases(), "coref", {"synonym": 1, "typo": 1}, None),
    (toys.contrastive_cases(), "contrastive", {"t1": 1, "t2": 1}, None),
    (toys.s2lct_cases(), "classification", {"LC1": 2, "LC2": 1}, ("negative", "positive")),
])
def test_task_groups_and_labels_of_each_technique(tmp_path, cases, task, groups, labels):
    info = lingtest.load_suite(toys.write_suite(tmp_path / "s.jsonl", cases)).info
    assert (info.task, info.groups, info.labels) == (task, groups, labels)


def test_task_rules_in_order():
    def case(expected, technique="x", source=None):
        return TestCase(technique=technique, relation="r", source=source or {"text": "t"}, followup=None,
                        expected=expected, provenance=Provenance("s", "t"))

    assert case_task(case("same-coreference", "tin")) == "coref"  # the expectation fixes the task first
    assert case_task(case("tin-mr1")) == "ner"  # a technique's own expectation
    assert case_task(case("invariance", "crest")) == "coref"  # a task-agnostic one: the technique's task
    assert case_task(case("invariance", source={"tokens": ["a"]})) == "ner"  # else the payload's shape
    assert case_task(case("invariance", source={"src": "a", "ref": "b", "contrastive": ["c"]})) == "contrastive"
    assert case_task(case("invariance", source={"odd": 1})) is None


def test_group_falls_back_to_the_transformation():
    c = TestCase(technique="s2lct", relation="seed", source={"text": "t"}, followup=None, expected="label",
                 provenance=Provenance("s", "s2lct:LC1:0:seed"))
    assert group_of(c) == "s2lct:LC1:0:seed"
    c.meta["capability"] = "LC1"
    assert group_of(c) == "LC1"


def test_header_task_and_labels_win(tmp_path):
    path = toys.write_suite(tmp_path / "s.jsonl", toys.classification_cases(3), technique="demo",
                            labels=["negative", "neutral", "positive"])
    assert lingtest.load_suite(path).info.labels == ("negative", "neutral", "positive")
    bad = toys.write_suite(tmp_path / "b.jsonl", toys.classification_cases(3), task="parsing")
    with pytest.raises(InputError, match="unknown task 'parsing'"):
        lingtest.load_suite(bad)


def test_mixed_tasks_and_bad_sources_are_input_errors(tmp_path):
    mixed = toys.write_suite(tmp_path / "m.jsonl", toys.classification_cases(2) + toys.ner_cases())
    with pytest.raises(InputError, match="several tasks: ner .4 cases., classification .2 cases."):
        lingtest.load_suite(mixed)
    with pytest.raises(InputError, match="no such suite"):
        lingtest.load_suite(tmp_path / "missing.jsonl")
    empty = toys.write_suite(tmp_path / "e.jsonl", [])
    with pytest.raises(InputError, match="no test cases"):
        lingtest.load_suite(empty)
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"__schema__": 1, "kind": "document"}\n')
    with pytest.raises(InputError, match="kind 'testcase'"):
        lingtest.load_suite(docs)


def test_release_folder_jsonl_then_parquet(tmp_path):
    suite = toys.write_suite(tmp_path / "toy.jsonl", toys.classification_cases(), technique="demo")
    release = toys.write_release(tmp_path / "releases", suite)
    loaded = lingtest.load_suite(release)
    assert (loaded.info.name, loaded.info.version) == ("demo-toy", "1.0.0")
    assert loaded.info.sha256 == sha256_file(suite) and loaded.info.path.endswith(".jsonl")
    want = [c.to_dict() for c in lingtest.load_suite(suite).cases]
    assert [c.to_dict() for c in loaded.cases] == want
    # without its JSONL the release is read from Parquet: the same cases
    next((release / "data").glob("*.jsonl")).unlink()
    from_parquet = lingtest.load_suite(release)
    assert [c.to_dict() for c in from_parquet.cases] == want
    assert from_parquet.info.path.endswith(".parquet") and from_parquet.info.sha256 == sha256_file(suite)
    assert from_parquet.info.groups == loaded.info.groups and from_parquet.info.labels == loaded.info.labels
    # a folder of versions asks for one
    with pytest.raises(InputError, match=r"name a version \(1.0.0\)"):
        lingtest.load_suite(release.parent)


def test_a_tampered_release_is_refused(tmp_path):
    suite = toys.write_suite(tmp_path / "toy.jsonl", toys.classification_cases(4), technique="demo")
    release = toys.write_release(tmp_path / "releases", suite)
    jsonl = next((release / "data").glob("*.jsonl"))
    jsonl.write_text(jsonl.read_text().replace("film", "movie"))
    with pytest.raises(InputError, match="does not match the release"):
        lingtest.load_suite(release)


def test_sample_is_seeded_and_keeps_suite_order(tmp_path):
    suite = lingtest.load_suite(toys.write_suite(tmp_path / "s.jsonl", toys.classification_cases()))
    a, b, c = suite.sample(10, seed=1), suite.sample(10, seed=1), suite.sample(10, seed=2)
    assert [x.id for x in a] == [x.id for x in b] != [x.id for x in c]
    order = {x.id: i for i, x in enumerate(suite.cases)}
    assert [order[x.id] for x in a] == sorted(order[x.id] for x in a)
    assert len(suite.sample(100)) == len(suite.sample(None)) == 30
    with pytest.raises(InputError, match="limit"):
        suite.sample(0)


def test_import_lingtest_stays_light():
    code = ("import sys, lingtest; heavy = [m for m in ('lingtest.harness', 'pandas', 'omegaconf', 'torch') "
            "if m in sys.modules]; print(heavy); print(callable(lingtest.load_suite), 'load_suite' in dir(lingtest))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True True"]
    with pytest.raises(AttributeError):
        lingtest.no_such_name  # noqa: B018


def test_the_api_doctest(tmp_path, monkeypatch):
    import lingtest.harness.loading as loading

    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    result = doctest.testmod(loading, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0
