"""The ``s2lct_generate`` stage body end to end on a tiny parsed corpus with the real capability specs of
``conf/``: seeds found by the configured predicates, Algorithm 1 expansions (fake reference grammar,
proposer, tagger, trees and LM, so no parser or LM loads), the suite, baseline and metrics files, and a
suite that is byte-identical across runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document, Sentence, TestCase, Token, Tree
from lingtest.pipeline.runner import run_body
from lingtest.resources.fill import Fill, FillProposerBase
from lingtest.resources.lm import TokenScores
from lingtest.s2lct import components, stages
from lingtest.s2lct.components import FillParts
from lingtest.s2lct.grammar import Node, parse_bracketed
from lingtest.tracking import NullTracker

from .generation_fixtures import SST_POOL, word_sentiment

FINE = {"negative": "0", "neutral": "2", "positive": "4"}  # SST fine labels: <= 0.4 / else / > 0.6
TAGS = {"plain": "JJ", "red": "JJ", "good": "JJ", "quiet": "JJ", "dog": "NN", "film": "NN"}


class Proposer(FillProposerBase):
    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def propose_many(self, requests, k):
        self.calls += 1
        words = ["plain", "good", "quiet", "dog"]  # "dog" has the wrong tag
        return [[Fill(w, -i) for i, w in enumerate(words[:k])] for _ in requests]


#: the insertions the fixture's flat ``S`` trees allow: an adjective after a determiner or an adjective
INSERTIONS = ["s2lct.expansion.insertions=[{lhs:[S],tag:[JJ],after:[DT,JJ],before:[NN,JJ],final:false,"
              "attested:null,collocated:null,main_clause:false,after_words:null,not_after:[],not_before_tags:[],"
              "clause_refuse:[],wh_front:null}]"]

#: every word's tag in the pool and the fills (the fake parser's)
WORD_TAGS = {w: t for text, tags, _ in SST_POOL for w, t in zip(text.split(), tags.split(), strict=True)} | TAGS


def flat_trees(sentences: list[list[str]]) -> list[Node]:
    """The fake parser's trees: ``S`` over the words' tags (the fixture's seeds are such trees)."""
    return [Node("S", tuple(Node(WORD_TAGS.get(w, "X"), (), w) for w in s)) for s in sentences]


class FlatLM:
    """The naturalness check's LM: every text equally natural."""

    def token_logprobs_grouped(self, groups: list[list[str]]) -> list[list[TokenScores]]:
        return [[TokenScores(t, ["x"], [0], [-1.0]) for t in g] for g in groups]


def _doc(i: int, text: str, tags: str, label: str) -> Document:
    toks = [Token(w, tag=t) for w, t in zip(text.split(), tags.split(), strict=True)]
    tree = Tree("S", [Tree(t, token=j) for j, t in enumerate(tags.split())])
    return Document(id=f"sst-{i}", sentences=[Sentence(tokens=toks, tree=tree)], label=FINE[label])


@pytest.fixture()
def cfg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from lingtest.config import compose

    parsed = tmp_path / "parsed" / "sst"
    for split, rows in (("train", SST_POOL[:6]), ("dev", SST_POOL[6:8]), ("test", SST_POOL[8:])):
        write_jsonl(parsed / f"{split}.jsonl", [_doc(i, *r) for i, r in enumerate(rows, start=len(split) * 100)],
                    kind="document")
    over = [f"paths.parsed={tmp_path / 'parsed'}", f"paths.prepared={tmp_path / 'prepared'}",
            f"paths.manifests={tmp_path / 'manifests'}", f"paths.s2lct.suites={tmp_path / 'suites'}",
            f"paths.s2lct.baselines={tmp_path / 'baselines'}", f"paths.s2lct.metrics={tmp_path / 'metrics'}",
            "s2lct.suites.sst.baseline=null", "s2lct.expansion.max_seeds=null", "s2lct.expansion.max_masked=null",
            "s2lct.expansion.fill.top_k=4", "s2lct.expansion.validate.keep=2", *INSERTIONS]
    c = compose(over)
    reference = [parse_bracketed("(S (DT the) (JJ big) (JJ red) (NN dog) (. .))"),
                 parse_bracketed("(S (DT a) (JJ nice) (NN day))")]
    monkeypatch.setattr(components, "word_sentiment", lambda _resources, _adverbs: word_sentiment)
    monkeypatch.setattr(components, "reference_trees", lambda _ctx, _config: reference)
    monkeypatch.setattr(components, "build_parser", lambda _parser: None)
    monkeypatch.setattr(components, "build_proposer", lambda _ctx, _config, _k, _attested: Proposer())
    monkeypatch.setattr(components, "tagger_of", lambda _parser: lambda sents: [[TAGS.get(w, "X") for w in s]
                                                                               for s in sents])
    monkeypatch.setattr(components, "trees_of", lambda _parser: flat_trees)
    monkeypatch.setattr(FillParts, "lm_scorer", lambda self, dtype: FlatLM())
    return c


def test_generate_stage_writes_a_reproducible_suite(cfg, tmp_path: Path) -> None:
    tracker = NullTracker()
    m = run_body(stages.generate_stage, cfg, tracker, "sst")
    suite = tmp_path / "suites" / "sst.jsonl"
    cases = list(read_jsonl(suite, TestCase.from_dict, kind="testcase"))
    kinds = [c.meta["kind"] for c in cases]
    assert m["searchable"] == len(SST_POOL) and m["seed_cases"] == kinds.count("seed") > 0
    assert m["exp_cases"] == kinds.count("exp") > 0
    ex = m["expansion"]  # the production and naturalness checks ran (the fakes accept what they see)
    assert ex["checked"] == ex["production_ok"] == ex["natural_ok"] >= ex["expansions"] > 0
    assert m["naturalness_texts_scored"] > 0
    assert kinds == sorted(kinds, key=lambda k: k != "seed")  # seeds first, then expansions
    # every expansion is a seed's sentence with JJs inserted where the reference grammar allows; "dog" (NN
    # in context) fails the tag check (the SentiWordNet prefilter is part of the configured proposer)
    for c in cases:
        if c.meta["kind"] == "exp":
            assert c.meta["fills"] and set(c.meta["fills"]) <= {"plain", "good", "quiet"}
            assert c.meta["mask_tags"] == ["JJ"] * len(c.meta["fills"]) and "{JJ}" in c.meta["masked"]
    per_cap = m["capabilities"]
    assert sum(v["seeds"] for v in per_cap.values()) == m["seed_cases"]
    assert sum(v["exps"] for v in per_cap.values()) == m["exp_cases"]
    on_disk = json.loads((tmp_path / "metrics" / "generation_sst.json").read_text())
    assert {k: on_disk[k] for k in ("seed_cases", "exp_cases")} == {k: m[k] for k in ("seed_cases", "exp_cases")}
    assert m["baseline_cases"] == 0 and (tmp_path / "baselines" / "sst.jsonl").exists()
    assert tracker.metrics["s2lct.sst.seed_cases"] == m["seed_cases"]

    first = suite.read_bytes()
    run_body(stages.generate_stage, cfg, NullTracker(), "sst")
    assert suite.read_bytes() == first


def test_generate_stage_without_expansion_and_unknown_suites(cfg, tmp_path: Path) -> None:
    from lingtest.errors import ConfigError

    cfg.s2lct.expansion.enabled = False
    m = run_body(stages.generate_stage, cfg, NullTracker(), "sst")
    assert m["exp_cases"] == 0 and m["seed_cases"] > 0
    with pytest.raises(ConfigError, match="unknown S2LCT suite"):
        run_body(stages.generate_stage, cfg, NullTracker(), "imdb")
