"""The TIN stages end to end on a few CoNLL-2003 sentences with the real offline stack: spaCy sm
parses and NER (the system under test), the shared fill-in proposer (WordNet + vectors ranked by
Gemma-3-270M), a phrase index built by its stage from parsed CoNLL-2003 train sentences, MiniLM
span embeddings and Gemma SynEval; graded against gold."""

from __future__ import annotations

import json
from itertools import islice

import pytest

from lingtest.data import TestCase, read_jsonl, write_jsonl
from lingtest.metrics.wall_clock import wall_clock_paths
from lingtest.pipeline.runner import run_body
from tests.fakes.lm import NullTracker

pytestmark = [pytest.mark.e2e, pytest.mark.mirror]


def test_tin_stages_on_conll2003(mirror, tmp_path):
    from lingtest.config import compose
    from lingtest.parsing.cache import build_parser
    from lingtest.readers.options import configured
    from lingtest.tin import stages

    try:
        cfg = compose(["tin.N=4", "tin.systems=[spacy_sm]", "tin.baseline.systems=[spacy_sm]",
                       "tin.phrase_index.corpora=[{dataset: conll2003, split: train}]",
                       "tin.phrase_index.max_sentences=150", "systems.cache=false", "parser.workers=0",
                       f"parser.cache_dir={tmp_path / 'parses'}", f"paths.prepared={tmp_path / 'prepared'}",
                       f"paths.parsed={tmp_path / 'parsed'}",
                       *[f"paths.tin.{k}={tmp_path / 'out' / k}" for k in
                         ("phrase_index", "sources", "generated", "issues", "suite", "results", "metrics")]])
        parser = build_parser(dict(cfg.parser))
    except Exception as exc:  # pragma: no cover - models not installed
        pytest.skip(f"offline models unavailable: {exc}")
    read_conll2003 = configured("conll2003")
    test = list(islice(read_conll2003(mirror / "conll2003" / "test.txt"), 3))
    write_jsonl(tmp_path / "prepared" / "conll2003" / "test.jsonl", test, kind="document")
    train = [s for d in islice(read_conll2003(mirror / "conll2003" / "train.txt"), 8) for s in d.sentences][:150]
    from lingtest.data import Document
    from lingtest.parsing.base import merge_parse

    parsed = [merge_parse(s, p) for s, p in zip(train, parser.parse([s.words for s in train]), strict=True)]
    write_jsonl(tmp_path / "parsed" / "conll2003" / "train.jsonl", [Document("train", parsed)], kind="document")

    tracker = NullTracker()
    assert run_body(stages.phrase_index_stage, cfg, tracker)["phrases"] > 20
    assert run_body(stages.sources_stage, cfg, tracker)["sources"] == 4
    gen = run_body(stages.generate_stage, cfg, tracker, "spacy_sm")
    m = gen["mutants"]
    assert m["overall"]["generated"] > 0 and m["overall"]["kept"] <= m["overall"]["generated"]
    run_body(stages.suite_stage, cfg, tracker)
    suite = list(read_jsonl(tmp_path / "out" / "suite", TestCase.from_dict, kind="testcase"))
    assert len(suite) == m["overall"]["kept"]
    for c in suite:  # gold maps onto every mutant of a source with gold
        assert c.meta["gold"] is not None and c.meta["system"] == "spacy_sm"
    ev = run_body(stages.evaluate_stage, cfg, tracker, "spacy_sm")
    o = ev["issues"]["overall"]
    assert ev["checked_mutants"] == len(suite) and o["issues"] <= len(suite)
    assert 0 <= o["hits"] <= ev["wrong_sources"] <= 4
    rep = run_body(stages.repair_stage, cfg, tracker, "spacy_sm")
    assert rep["issues"] == o["issues"] and set(rep["f1"]) == {"before", "after"}
    saved = json.loads((tmp_path / "out" / "metrics" / "spacy_sm.json").read_text())
    assert not wall_clock_paths(saved) and saved["checked_mutants"] == ev["checked_mutants"]
    assert ev["seconds_per_checked_mutant"] is None or ev["seconds_per_checked_mutant"] > 0  # the run has it
