"""The data stages end to end on the mirror (download → prepare → parse), outside DVC, with
tracking off, in a throw-away project folder."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf
from tests.conftest import ROOT

from lingtest.config import compose
from lingtest.data import Document, read_jsonl
from lingtest.pipeline.data import download_stage, parse_stage, prepare_stage
from lingtest.pipeline.runner import run_body
from lingtest.tracking import NullTracker

pytestmark = [pytest.mark.e2e, pytest.mark.mirror, pytest.mark.models]


@pytest.fixture()
def project(tmp_path, monkeypatch, mirror):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "pyproject.toml").write_text("")
    cfg = compose([f"profile.mirror={mirror}", "tracking.enabled=false", f"parser.cache_dir={tmp_path / 'parses'}",
                   "dataset=conll2012_sample"], conf_dir=ROOT / "conf")
    monkeypatch.chdir(tmp_path)
    return tmp_path, cfg


def test_conll2012_sample_download_prepare_parse(project):
    root, cfg = project
    tracker = NullTracker()
    manifest = run_body(download_stage, cfg, tracker, "conll2012_sample")
    assert manifest.origin == "mirror" and tracker.tags["origin"] == "mirror"
    assert (root / "data" / "manifests" / "conll2012_sample.json").exists()
    counts = run_body(prepare_stage, cfg, tracker, "conll2012_sample")
    assert counts == {"train": 1, "dev": 1, "test": 2}
    gold = list(read_jsonl(root / "data" / "prepared" / "conll2012_sample" / "test.jsonl", Document.from_dict))
    assert all(d.clusters for d in gold)
    run_body(parse_stage, cfg, tracker, "conll2012_sample")
    parsed = list(read_jsonl(root / "data" / "parsed" / "conll2012_sample" / "test.jsonl", Document.from_dict))
    assert [d.key for d in parsed] == [d.key for d in gold]
    assert [d.clusters for d in parsed] == [d.clusters for d in gold]  # gold annotations untouched
    tok = parsed[0].sentences[0].tokens[0]
    assert tok.pos and tok.dep and tok.head is not None
    assert all(s.tree is not None and sorted(s.tree.leaves()) == list(range(len(s))) for d in parsed
               for s in d.sentences)
    all_parsed = [d for split in ("train", "dev", "test") for d in
                  read_jsonl(root / "data" / "parsed" / "conll2012_sample" / f"{split}.jsonl", Document.from_dict)]
    assert tracker.metrics["sentences"] == sum(len(d.sentences) for d in all_parsed)
    # the manifest is portable: its root is relative to the project
    assert not OmegaConf.load(root / "data" / "manifests" / "conll2012_sample.json").root.startswith("/")


def test_parse_writes_only_the_splits_stages_read(project):
    """``parse@<dataset>`` parses ``pipeline.parse.<dataset>`` (derived from the splits the stages read), drops
    a split no stage reads any more, and names a split its prepare stage did not write."""
    from lingtest.errors import ConfigError

    root, cfg = project
    tracker = NullTracker()
    run_body(download_stage, cfg, tracker, "conll2012_sample")
    run_body(prepare_stage, cfg, tracker, "conll2012_sample")
    assert list(cfg.pipeline.parse.conll2012_sample) == ["train", "dev", "test"]
    run_body(parse_stage, cfg, tracker, "conll2012_sample")
    out = root / "data" / "parsed" / "conll2012_sample"
    assert sorted(p.stem for p in out.glob("*.jsonl")) == ["dev", "test", "train"]
    only_test = compose([f"profile.mirror={cfg.profile.mirror}", "tracking.enabled=false",
                         f"parser.cache_dir={cfg.parser.cache_dir}", "dataset=conll2012_sample",
                         "adversarial.splits=[test]", "coref_training.train_split=test",
                         "coref_training.dev_split=test"], conf_dir=ROOT / "conf")
    assert list(only_test.pipeline.parse.conll2012_sample) == ["test"]
    assert run_body(parse_stage, only_test, NullTracker(), "conll2012_sample") == {"test": 2}
    assert sorted(p.stem for p in out.glob("*.jsonl")) == ["test"]
    bad = compose([f"profile.mirror={cfg.profile.mirror}", "tracking.enabled=false", "dataset=conll2012_sample",
                   "adversarial.splits=[test,validation]"], conf_dir=ROOT / "conf")
    with pytest.raises(ConfigError, match=r"pipeline.parse.conll2012_sample reads split\(s\) \['validation'\]"):
        run_body(parse_stage, bad, NullTracker(), "conll2012_sample")
    assert sorted(p.stem for p in out.glob("*.jsonl")) == ["test"]  # nothing lost before the error


def test_a_corpus_with_no_split_read_gets_an_empty_folder_and_no_parser(project, monkeypatch):
    import lingtest.parsing.cache as parsing_cache

    root, cfg = project
    run_body(download_stage, cfg, NullTracker(), "conll2012_sample")
    run_body(prepare_stage, cfg, NullTracker(), "conll2012_sample")
    run_body(parse_stage, cfg, NullTracker(), "conll2012_sample")
    cfg.pipeline.parse.conll2012_sample = []  # a corpus a DVC file names but no stage reads (`splits: []`)
    monkeypatch.setattr(parsing_cache, "build_parser", lambda *a, **k: pytest.fail("no split to parse"))
    assert run_body(parse_stage, cfg, NullTracker(), "conll2012_sample") == {}
    out = root / "data" / "parsed" / "conll2012_sample"
    assert out.is_dir() and not list(out.iterdir())
