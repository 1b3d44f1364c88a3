"""``lingtest.harness.build.suite_from_cases``: a suite from cases in memory is the suite its file would load
as (same task, groups, labels, sha256), and bad input names the field."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.suite import toys

import lingtest
from lingtest.errors import InputError
from lingtest.harness.build import suite_from_cases


@pytest.mark.parametrize("cases,header", [
    (toys.classification_cases(), {"technique": "demo"}),
    (toys.ner_cases(), {}),
    (toys.s2lct_cases(), {"technique": "s2lct", "suite": "sst", "labels": ["negative", "neutral", "positive"]}),
])
def test_the_suite_of_cases_is_the_suite_of_their_file(tmp_path: Path, cases, header) -> None:
    loaded = lingtest.load_suite(toys.write_suite(tmp_path / "s.jsonl", cases, **header))
    built = suite_from_cases(cases, name=loaded.info.name, header=header)
    assert built.cases == loaded.cases
    assert built.info.path == "" and built.info.sha256 == loaded.info.sha256  # the sha256 of the file it would be
    assert built.info == dataclasses.replace(loaded.info, path="")


def test_the_header_gives_the_label_set() -> None:
    cases = toys.s2lct_cases()
    assert suite_from_cases(cases, name="x").info.labels == ("negative", "positive")  # those the cases expect
    three = suite_from_cases(cases, name="x", header={"labels": ["negative", "neutral", "positive"]})
    assert three.info.labels == ("negative", "neutral", "positive")
    assert three.info.name == "x" and three.info.groups == {"LC1": 2, "LC2": 1}


@pytest.mark.parametrize("cases,name,header,field", [
    ([], "x", None, "cases"),
    (["not a case"], "x", None, "cases[0]"),
    (toys.s2lct_cases(), " ", None, "name"),
    (toys.s2lct_cases(), "x", {"kind": "document"}, "header.kind"),
    (toys.s2lct_cases(), "x", {"__schema__": 1}, "header.__schema__"),
])
def test_bad_input_names_the_field(cases, name, header, field) -> None:
    with pytest.raises(InputError) as err:
        suite_from_cases(cases, name=name, header=header)
    assert err.value.field == field
