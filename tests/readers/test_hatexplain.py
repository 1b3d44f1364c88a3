"""HateXplain readers: official JSON and the header-less CSV, majority labels, targets, rationales."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.hatexplain import aggregate_targets, majority_label, majority_rationale
from lingtest.readers.options import configured

read_hatexplain_csv = configured("hatexplain_csv")
read_hatexplain_json = configured("hatexplain_json")


@pytest.fixture()
def fx(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers" / "hatexplain"


def test_aggregation_rules() -> None:
    assert majority_label(["hatespeech", "hatespeech", "offensive"]) == "hatespeech"
    assert majority_label(["hatespeech", "offensive", "normal"]) == "undecided"
    assert majority_label([]) == "undecided"
    assert aggregate_targets([["African"], ["African", "Women"], ["Women", "Women"], ["None"]]) == (
        ["African", "Women"],
        ["African", "Women"],
    )
    assert aggregate_targets([["African"], ["Women"], ["None"]]) == ([], ["African", "Women"])
    assert majority_rationale([[0, 1, 1], [0, 1, 0], [1, 0, 0]], 3) == [0, 1, 0]
    assert majority_rationale([[0, 1], [1, 1]], 2) == [0, 1]  # two masks: both must agree
    assert majority_rationale([], 4) == []


def test_official_json(fx: Path) -> None:
    docs = list(read_hatexplain_json(fx / "dataset.json"))  # divisions found beside it
    assert [d.id for d in docs] == [
        "24198545_gab",
        "1179055004553900032_twitter",
        "13851720_gab",
        "1122_twitter",
    ]
    hate, normal, undecided, offensive = docs
    assert (hate.label, hate.split) == ("hatespeech", "train")
    assert hate.meta["targets"] == ["African", "Women"] and hate.meta["targets_all"] == ["African", "Women"]
    assert hate.meta["rationale"] == [0, 1, 1, 0] and len(hate.meta["rationales"]) == 3
    assert hate.meta["annotators"][2] == {"label": "offensive", "annotator_id": 5, "target": ["Women"]}
    assert hate.words == ["and", "these", "people", "again"] and hate.sentences[0].label == "hatespeech"
    assert (normal.label, normal.split, normal.meta["targets"], normal.meta["rationale"]) == (
        "normal",
        "val",
        [],
        [],
    )
    assert undecided.label == "undecided" and undecided.meta["undecided"] is True
    assert undecided.meta["targets"] == ["Jewish"] and undecided.meta["rationale"] == [1, 0, 0]
    assert offensive.meta["targets"] == [] and offensive.meta["targets_all"] == ["Other"]
    assert [d.id for d in read_hatexplain_json(fx / "dataset.json", split="train")] == [
        "24198545_gab",
        "13851720_gab",
    ]
    assert READERS.get("hatexplain_json") is read_hatexplain_json.func


def test_json_without_divisions(tmp_path: Path, fx: Path) -> None:
    p = tmp_path / "dataset.json"
    p.write_text((fx / "dataset.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert {d.split for d in read_hatexplain_json(p)} == {None}
    with pytest.raises(InputError, match="divisions"):
        list(read_hatexplain_json(p, split="train"))


def _bad_json(tmp_path: Path, fx: Path, mutate) -> Path:
    data = json.loads((fx / "dataset.json").read_text(encoding="utf-8"))
    mutate(data)
    p = tmp_path / "dataset.json"
    p.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d["13851720_gab"]["annotators"][0].update(label="spam"), "annotators.label"),
        (lambda d: d["13851720_gab"].pop("post_tokens"), "post_tokens"),
        (lambda d: d["13851720_gab"].update(post_tokens=[]), "post_tokens"),
        (lambda d: d["13851720_gab"]["rationales"][1].append(1), "rationales"),
        (lambda d: d["13851720_gab"].update(annotators=[]), "annotators"),
    ],
)
def test_json_errors_name_line_and_field(tmp_path: Path, fx: Path, mutate, field: str) -> None:
    p = _bad_json(tmp_path, fx, mutate)
    with pytest.raises(InputError, match="13851720_gab") as err:
        list(read_hatexplain_json(p))
    assert err.value.field == field
    lines = p.read_text(encoding="utf-8").splitlines()
    assert '"13851720_gab"' in lines[err.value.line - 1]


def test_truncated_json(tmp_path: Path, fx: Path) -> None:
    p = tmp_path / "dataset.json"
    p.write_text((fx / "dataset.json").read_text(encoding="utf-8")[:500], encoding="utf-8")
    with pytest.raises(InputError, match="JSON") as err:
        list(read_hatexplain_json(p))
    assert err.value.line is not None and err.value.line > 1


def test_csv_variant(fx: Path) -> None:
    docs = list(read_hatexplain_csv(fx / "sample.csv", divisions=fx / "post_id_divisions.json"))
    assert [d.id for d in docs] == ["1179055004553900032_twitter", "1122_twitter", "24198545_gab"]
    assert [d.label for d in docs] == ["normal", "offensive", "undecided"]
    assert [d.split for d in docs] == ["val", "test", "train"]
    assert docs[1].meta["rationale"] == [0, 1] and docs[1].meta["targets_all"] == ["Other"]
    assert docs[1].meta["annotators"][2]["label"] == "normal"
    assert docs[2].meta["undecided"] is True and docs[2].meta["targets"] == ["African"]
    only_test = list(
        read_hatexplain_csv(fx / "sample.csv", divisions=fx / "post_id_divisions.json", split="test")
    )
    assert [d.id for d in only_test] == ["1122_twitter"]
    assert READERS.get("hatexplain_csv") is read_hatexplain_csv.func


def _row(labels: str = "[1, 1, 1]", rationales: str = "[]", tokens: str = "['a']", extra: bool = True) -> str:
    ann = f"{{'label': {labels}, 'annotator_id': [1, 2, 3], 'target': [[], [], []]}}"
    return f'p1,"{ann}","{rationales}"' + (f',"{tokens}"' if extra else "")


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (_row(labels="[5, 1, 1]"), "annotators.label"),
        (_row(tokens="['a'"), "post_tokens"),
        (_row(labels="[1, 1]"), "annotators"),
        (_row(rationales="[[1, 1]]"), "rationales"),
        (_row(extra=False), "columns"),
        (_row(tokens="[]"), "post_tokens"),
        (_row(tokens="{'a': 1}"), "post_tokens"),
    ],
)
def test_csv_errors(tmp_path: Path, fx: Path, row: str, field: str) -> None:
    good = (fx / "sample.csv").read_text(encoding="utf-8")
    p = tmp_path / "bad.csv"
    p.write_text(good + row + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_hatexplain_csv(p))
    assert err.value.field == field
    assert err.value.line == len(good.splitlines()) + 1  # physical line, multi-line fields counted


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_splits(mirror: Path) -> None:
    root = mirror / "hatexplain"
    divisions = json.loads((root / "post_id_divisions.json").read_text(encoding="utf-8"))
    assert {k: len(v) for k, v in divisions.items()} == {"train": 15383, "val": 1922, "test": 1924}
    for split, name in (("val", "df_val_with_rationales.csv"), ("test", "df_test_with_rationales.csv")):
        docs = list(read_hatexplain_csv(root / name, divisions=root / "post_id_divisions.json"))
        assert len(docs) == len(divisions[split]) and {d.split for d in docs} == {split}
        assert {d.id for d in docs} == set(divisions[split])
        assert {d.label for d in docs} <= {"hatespeech", "offensive", "normal"}
        assert all(len(m) == len(d.words) for d in docs for m in d.meta["rationales"])
