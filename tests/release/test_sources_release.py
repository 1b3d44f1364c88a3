"""A release of sources (TIN): `run` generates the cases from the user's system's own predictions with the
configuration the release recorded, runs them through the one runner, and grades against gold with the
user's label mapping; a predictions file is refused up front; the committed TIN release materialises
its withheld text from the CoNLL-2003 mirror."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.tin.api_fakes import ontonotes_tagger, silent_tagger
from tests.tin.test_api import GOLD, IDS, OVERRIDES, SENTENCES

from lingtest.errors import InputError
from lingtest.harness.loading import Suite, _sources_suite

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def suite() -> Suite:
    from lingtest.config import compose, to_plain

    recorded = to_plain(compose(OVERRIDES))
    sources = [{"id": i, "tokens": s.split(), "gold": g} for i, s, g in zip(IDS, SENTENCES, GOLD, strict=True)]
    ident = {"name": "tin-toy", "version": "1.0.0", "sha256": "0" * 64, "technique": "tin", "kind": "sources",
             "text": "included", "materialized": True, "sources": sources, "generator": "tin", "config": recorded,
             "path": "toy"}
    return _sources_suite(ident, {}, Path("toy"))


def test_info_of_a_sources_release(suite: Suite) -> None:
    info = suite.info
    assert info.kind == "sources" and info.system_dependent and info.task == "ner" and info.cases == 4
    assert info.labels == ("LOC", "ORG", "PER") and info.generator == "tin" and info.groups == {}


def test_run_generates_for_the_system_and_grades_against_gold(suite: Suite, tmp_path: Path) -> None:
    results = suite.run(ontonotes_tagger, labels="ontonotes", config=OVERRIDES, progress=False)
    assert len(results) > 0 and results.run["sources"] == 4
    assert {c.meta.get("system") for c in results.cases} == {results.system["name"]}
    # the cases come from this system's predictions: a tagger that finds nothing gets no shuffle cases
    silent = suite.run(silent_tagger, labels="ontonotes", config=OVERRIDES, progress=False)
    shuffles = {c.provenance.transformation for c in results.cases} - {c.provenance.transformation
                                                                       for c in silent.cases}
    assert shuffles, "the transformations that depend on predicted entities made no case for the silent tagger"
    assert results.gold is not None and results.gold["graded"]
    summary = results.gold["summary"]
    assert summary["cases"] == len(results) and "precision" in summary and "source_f1" in summary
    saved = json.loads((results.save(tmp_path / "run") / "summary.json").read_text())
    assert saved["gold"]["graded"] and saved["suite"]["task"] == "ner"
    assert saved["suite"]["cases"] == len(results)


def test_without_labels_the_run_says_how_to_grade(suite: Suite) -> None:
    results = suite.run(ontonotes_tagger, config=OVERRIDES, progress=False)
    assert results.gold == {"graded": False, "reason": results.gold["reason"]}
    assert "--labels" in results.gold["reason"]


def test_a_predictions_file_is_refused_up_front(suite: Suite, tmp_path: Path) -> None:
    path = tmp_path / "preds.jsonl"
    path.write_text('{"__schema__": 1, "kind": "predictions", "task": "ner"}\n')
    with pytest.raises(InputError, match="generates its cases per system"):
        suite.run(str(path), config=["systems.cache=false"], progress=False)


@pytest.mark.e2e
def test_the_tin_release_materialises_from_the_conll2003_mirror(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed TIN release withholds the Reuters text; the user's CoNLL-2003 copy (the mirror, read
    with lingtest's reader) fills it in, row by row."""
    from lingtest.data.io import write_jsonl
    from lingtest.readers import READERS
    from lingtest.release.materialize import materialize

    mirror = REPO.parent / "shared" / "data" / "conll2003" / "test.txt"
    if not mirror.is_file():
        pytest.skip("the CoNLL-2003 mirror is not here")
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    docs = list(READERS.get("conll2003")(mirror, split="test", id_prefix=None, scheme="auto", encoding="utf-8",
                                         entity_types=["PER", "LOC", "ORG", "MISC"]))
    prepared = tmp_path / "test.jsonl"
    write_jsonl(prepared, docs, kind="conll2003:conll2003", meta={"dataset": "conll2003", "split": "test"})
    release = REPO / "releases" / "tin-conll2003" / "1.0.0"
    got = materialize(release, candidates=prepared)
    assert got.ok and got.matched == got.total == 20, got.missing[:3]
    import lingtest

    suite = lingtest.load_suite(release)
    assert suite.info.materialized and suite.sources is not None and len(suite.sources) == 20
    assert all(s["tokens"] for s in suite.sources)


def test_a_key_the_release_did_not_record_takes_the_current_value_with_a_warning() -> None:
    """A release records its whole configuration; a key lingtest gained since takes today's value (said
    in a warning), and every recorded value wins."""
    from omegaconf import OmegaConf

    from lingtest.harness.running import generation_config

    current = OmegaConf.create({"tin": {"seed": 1, "shuffle": {"samples": 8, "whole_phrases": True}}})
    recorded = {"tin": {"seed": 13, "shuffle": {"samples": 4}}}
    with pytest.warns(UserWarning, match=r"records no value for tin\.shuffle\.whole_phrases"):
        merged = generation_config(recorded, current, "tin-toy")
    assert merged.tin.seed == 13 and merged.tin.shuffle.samples == 4 and merged.tin.shuffle.whole_phrases is True
    assert generation_config(None, current, "x") is current
