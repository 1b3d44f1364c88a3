"""Labels: where they live, a labels file recorded (and refused, naming line and field), the latest row per
case and reviewer."""

from __future__ import annotations

import json
import subprocess

import pytest
from tests.review.review_fixtures import s2lct_cases, text_cases, write
from tests.suite import toys

from lingtest.errors import InputError
from lingtest.review.labels import (
    Judgement,
    default_reviewer,
    latest,
    read_judgements,
    read_labels,
    record,
)
from lingtest.review.session import open_review
from lingtest.review.stats import review_rates


@pytest.fixture
def review(tmp_path):
    return open_review(write(tmp_path / "demo.jsonl", text_cases(), technique="demo"), root=tmp_path)


@pytest.fixture
def s2lct(tmp_path):
    return open_review(write(tmp_path / "s2.jsonl", s2lct_cases(), technique="s2lct"), root=tmp_path)


def labels_file(path, rows, header=None):
    lines = ([json.dumps(header)] if header else []) + [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ids(review):
    return [c.id for c in review.suite.cases]


def test_labels_live_beside_the_suite_keyed_by_sha16(review, tmp_path):
    sha = review.suite.info.sha256
    assert review.path == tmp_path / "reviews" / f"demo@{sha[:16]}" / "labels.jsonl"


def test_labels_of_a_release_live_outside_it_keyed_by_version(tmp_path):
    suite = toys.write_suite(tmp_path / "s.jsonl", toys.classification_cases(), technique="demo")
    folder = toys.write_release(tmp_path / "releases", suite)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    r = open_review(str(folder), root=tmp_path)
    assert r.path == tmp_path / "reviews" / "demo-toy@1.0.0" / "labels.jsonl"
    r.record([Judgement(r.suite.cases[0].id, True, True, None, "", "ann", "2025-01-01T00:00:00Z", "plain")])
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before  # the release is untouched
    assert r.path.is_file()


def test_a_labels_file_is_recorded_with_the_header_and_who_and_when(review, tmp_path):
    a, b = ids(review)[:2]
    path = labels_file(tmp_path / "in.jsonl", [
        {"id": a, "well_formed": True, "label_correct": False, "note": " odd "},
        {"id": b, "well_formed": False, "label_correct": None, "reviewer": "bo", "time": "2025-02-03T04:05:06Z"}],
        header={"__schema__": 1, "kind": "review-judgements", "sha256": review.key.sha256,
                "sample": {"seed": 4, "size": 20, "by_group": False}})
    header, js = read_judgements(path, key=review.key, groups=review.groups, reviewer="ann",
                                 time="2025-01-01T00:00:00Z")
    assert review.record(js, header["sample"]) == 2
    lines = review.path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["kind"] == "review-labels" and head["suite"] == "demo" and head["version"] is None
    assert head["sha256"] == review.key.sha256 and head["sample"] == {"seed": 4, "size": 20, "by_group": False}
    rows = [json.loads(x) for x in lines[1:]]
    assert rows == [
        {"id": a, "group": review.groups[a], "well_formed": True, "label_correct": False, "relevance": None,
         "note": "odd", "reviewer": "ann", "time": "2025-01-01T00:00:00Z"},
        {"id": b, "group": review.groups[b], "well_formed": False, "label_correct": None, "relevance": None,
         "note": "", "reviewer": "bo", "time": "2025-02-03T04:05:06Z"}]


BAD_ROWS = [
    ({"id": "0000000000000000", "well_formed": True}, "id", "unknown case id"),
    ({"id": "@", "well_formed": "yes"}, "well_formed", "true, false or null"),
    ({"id": "@", "label_correct": 1}, "label_correct", "true, false or null"),
    ({"id": "@", "well_formed": True, "relevance": 3}, "relevance", "no capabilities"),
    ({"id": "@", "wellformed": True}, "wellformed", "unknown field"),
    ({"id": "@", "well_formed": None, "label_correct": None}, "well_formed", "judges nothing"),
    ({"id": "@", "well_formed": True, "note": 5}, "note", "must be a string"),
    ({"id": "@", "well_formed": True, "time": "yesterday"}, "time", "ISO 8601"),
    ({"well_formed": True}, "id", "names the case"),
]


@pytest.mark.parametrize(("row", "field", "message"), BAD_ROWS)
def test_a_bad_row_names_its_line_and_field_and_nothing_is_recorded(review, tmp_path, row, field, message):
    good = {"id": ids(review)[0], "well_formed": True}
    row = {k: (ids(review)[1] if v == "@" else v) for k, v in row.items()}
    path = labels_file(tmp_path / "in.jsonl", [good, "", row], header={"__schema__": 1, "kind": "review-judgements"})
    with pytest.raises(InputError, match=message) as info:
        read_judgements(path, key=review.key, groups=review.groups, reviewer="ann")
    assert (info.value.line, info.value.field, info.value.path) == (4, field, str(path))
    assert not review.path.exists()


@pytest.mark.parametrize("relevance", [0, 6, 2.5, True, "4"])
def test_relevance_is_an_integer_from_1_to_5_for_a_suite_with_capabilities(s2lct, tmp_path, relevance):
    case = s2lct.suite.cases[0].id
    ok = labels_file(tmp_path / "ok.jsonl", [{"id": case, "relevance": 5}])
    assert read_judgements(ok, key=s2lct.key, groups=s2lct.groups, reviewer="a")[1][0].relevance == 5
    bad = labels_file(tmp_path / "bad.jsonl", [{"id": case, "well_formed": True, "relevance": relevance}])
    with pytest.raises(InputError, match="1 to 5") as info:
        read_judgements(bad, key=s2lct.key, groups=s2lct.groups, reviewer="a")
    assert (info.value.line, info.value.field) == (1, "relevance")


def test_broken_files_are_named(review, tmp_path):
    path = labels_file(tmp_path / "in.jsonl", [{"id": ids(review)[0], "well_formed": True}, "{not json"])
    with pytest.raises(InputError, match="invalid JSON") as info:
        read_judgements(path, key=review.key, groups=review.groups, reviewer="a")
    assert info.value.line == 2
    other = labels_file(tmp_path / "other.jsonl", [{"id": ids(review)[0], "well_formed": True}],
                        header={"__schema__": 1, "kind": "review-judgements", "sha256": "f" * 64})
    with pytest.raises(InputError, match="another suite") as info:
        read_judgements(other, key=review.key, groups=review.groups, reviewer="a")
    assert (info.value.line, info.value.field) == (1, "sha256")
    empty = labels_file(tmp_path / "empty.jsonl", [], header={"__schema__": 1, "kind": "review-judgements"})
    with pytest.raises(InputError, match="no judgements"):
        read_judgements(empty, key=review.key, groups=review.groups, reviewer="a")
    with pytest.raises(InputError, match="no such labels file"):
        read_judgements(tmp_path / "absent.jsonl", key=review.key, groups=review.groups, reviewer="a")


def test_labels_of_another_suite_are_not_appended_to(review, s2lct):
    j = Judgement(ids(review)[0], True, True, None, "", "ann", "2025-01-01T00:00:00Z", "synonym")
    review.record([j])
    with pytest.raises(InputError, match="another suite") as info:
        record(review.path, s2lct.key, [j])
    assert info.value.field == "sha256"


def test_a_new_sample_is_added_to_the_header_and_rows_are_kept(review):
    a, b = ids(review)[:2]
    review.record([Judgement(a, True, True, None, "", "ann", "2025-01-01T00:00:00Z", "x")], {"seed": 0, "size": 5,
                                                                                             "by_group": False})
    review.record([Judgement(b, False, True, None, "", "ann", "2025-01-02T00:00:00Z", "x")], {"seed": 1, "size": 9,
                                                                                              "by_group": True})
    review.record([Judgement(a, False, False, None, "", "ann", "2025-01-03T00:00:00Z", "x")], {"seed": 0, "size": 5,
                                                                                               "by_group": False})
    header, rows = read_labels(review.path)
    assert header["sample"] == {"seed": 1, "size": 9, "by_group": True}
    assert header["samples"] == [{"seed": 0, "size": 5, "by_group": False}, {"seed": 1, "size": 9, "by_group": True}]
    assert [(r.id, r.time) for r in rows] == [(a, "2025-01-01T00:00:00Z"), (b, "2025-01-02T00:00:00Z"),
                                              (a, "2025-01-03T00:00:00Z")]


def test_the_latest_row_per_case_and_reviewer_counts(review, tmp_path):
    a, b = ids(review)[:2]

    def j(case, ok, who, t):
        return Judgement(case, ok, ok, None, "", who, f"2025-01-0{t}T00:00:00Z", review.groups[case])

    rows = [j(a, False, "ann", 1), j(b, True, "ann", 2), j(a, True, "bo", 3), j(a, True, "ann", 4)]
    kept = latest(rows)
    assert sorted((x.id, x.reviewer, x.well_formed) for x in kept) == sorted(
        [(a, "ann", True), (b, "ann", True), (a, "bo", True)])
    review.record(rows)
    rates = review_rates(review.suite, root=tmp_path)["overall"]
    assert rates["judgements"] == 3 and rates["cases"] == 2
    assert (rates["well_formed"]["k"], rates["well_formed"]["n"]) == (3, 3)
    review.record([j(b, False, "ann", 5)])  # judged again: the newer row counts
    rates = review_rates(review.suite, root=tmp_path)["overall"]
    assert (rates["well_formed"]["k"], rates["well_formed"]["n"]) == (2, 3)


def test_the_default_reviewer_is_git_user_name_else_user(monkeypatch):
    def fake_git(name):
        def run(*args, **kwargs):
            return subprocess.CompletedProcess(args, 0, stdout=name, stderr="")
        return run

    monkeypatch.setattr(subprocess, "run", fake_git("Ada Lovelace\n"))
    assert default_reviewer() == "Ada Lovelace"
    monkeypatch.setattr(subprocess, "run", fake_git(""))
    monkeypatch.setenv("USER", "ada")
    assert default_reviewer() == "ada"
