"""SIT's, CAT's and PatInv's fills computed once (``crest_baseline_fills``): the table holds the union of their
positions, each baseline generates from it exactly what it generates from the proposer itself, and a table that
does not hold a request, or a malformed file, is an error naming it."""

from __future__ import annotations

import json

import pytest
from baseline_fakes import BagEmbedder, TableFill, make_source
from crest_fakes import FakeParser
from test_baseline_generators import CAT, PATINV, SIT, WORDNET

from lingtest.crest.baselines.cat import Cat
from lingtest.crest.baselines.checklist import CheckList
from lingtest.crest.baselines.fills import FillTable, compute_fills, substituting, union_positions
from lingtest.crest.baselines.patinv import Lexicon, PatInv
from lingtest.crest.baselines.sit import Sit
from lingtest.errors import InputError, MissingResourceError
from lingtest.resources.fill import Fill

WORDS = {"big": [("huge", 0.5), ("large", 0.3), ("quickly", 0.1), ("great", 0.08), ("vast", 0.01)],
         "dog": [("hound", 0.6), ("cat", 0.2), ("puppy", 0.1), ("wolf", 0.02)],
         "liked": [("loved", 0.5), ("saw", 0.4), ("barked", 0.3), ("hated", 0.03)], "quickly": [("slowly", 0.7)],
         "told": [("saw", 0.5), ("stated", 0.4), ("asked", 0.3), ("warned", 0.01)], "small": [("tiny", 0.9)],
         "cat": [("dog", 0.8), ("kitten", 0.04)], "the": [("a", 0.6)]}
SIT_2 = SIT.model_copy(update={"top_k": 2})  # fewer than the table holds: the cut matters


def sources():
    return [make_source("John quickly told Mary that he liked the big dog today .", [[(0, 1), (5, 6)]], doc_id="a"),
            make_source("the big dog liked the small cat", [[(0, 3), (4, 7)]], doc_id="b"),
            make_source("Mary saw the dog .", [[(0, 1)]], doc_id="c")]


def generators(fill):
    parser = FakeParser()
    return [Sit(SIT_2, parser, fill), Cat(CAT, parser, fill, BagEmbedder()),
            PatInv(PATINV, parser, fill, Lexicon(WORDNET))]


def test_the_table_holds_the_union_of_positions_and_each_baseline_generates_the_same_from_it():
    srcs = sources()
    direct = TableFill(WORDS)
    gens = generators(direct)
    table = compute_fills(TableFill(WORDS), srcs, gens, batch_sources=2)
    assert table.k == max(SIT_2.top_k, CAT.top_k, PATINV.top_k)
    for s in srcs:
        want = set().union(*(g.fill_positions(s.sentence) for g in gens))
        assert union_positions(gens, s.sentence) == sorted(want)
        assert {p for (w, p) in table.rows if w == tuple(s.sentence.words)} == want
    for direct_gen, table_gen in zip(gens, generators(table), strict=True):
        a = direct_gen.generate(srcs, M=20, seed=0)
        b = table_gen.generate(srcs, M=20, seed=0)
        assert a.followups == b.followups and a.counts() == b.counts()
        assert any(a.followups)  # the check compares something
    # SIT keeps its own two best of a position the table holds five of; CAT drops the fills under its min_score
    sit = generators(table)[0].generate(srcs, M=20, seed=0)
    assert not any(p.edits[0].new[0] in {"quickly", "great", "vast", "puppy", "wolf"} for p in sit.followups[1])
    cat = generators(table)[1].generate(srcs, M=20, seed=0)
    assert not any(p.edits[0].new[0] in {"vast", "wolf", "hated", "warned", "kitten"} for f in cat.followups for p in f)


def test_one_fill_request_per_wave_of_sources_with_the_largest_k():
    calls = []

    class Recording(TableFill):
        def propose_many(self, requests, k):
            calls.append((len(requests), k))
            return super().propose_many(requests, k)

    srcs = sources()
    compute_fills(Recording(WORDS), srcs, generators(TableFill(WORDS)), batch_sources=2)
    assert len(calls) == 2 and {k for _, k in calls} == {CAT.top_k}


def test_only_baselines_that_substitute_words_take_part():
    cl = CheckList.__new__(CheckList)
    gens = generators(TableFill({}))
    assert substituting([cl, *gens]) == gens
    assert not substituting([cl])


def test_a_request_the_table_does_not_hold_names_the_stage_and_k_is_bounded():
    t = FillTable({(("a", "dog"), 1): [Fill("cat", 0.5), Fill("hound", 0.25)]}, k=2, where="fills.jsonl")
    assert t.propose_many([(["a", "dog"], 1)], 1) == [[Fill("cat", 0.5)]]
    with pytest.raises(MissingResourceError, match="fills.jsonl.*position 0 of 'a dog'.*crest_baseline_fills"):
        t.propose_many([(["a", "dog"], 0)], 1)
    with pytest.raises(MissingResourceError, match="holds 2 fills per position; 3.*crest_baseline_fills"):
        t.propose_many([(["a", "dog"], 1)], 3)
    assert t.propose(["a", "dog"], 1, 2) == [Fill("cat", 0.5), Fill("hound", 0.25)]


def test_the_file_round_trips_scores_exactly(tmp_path):
    rows = {(("a", "big", "dog"), 1): [Fill("huge", 0.123456789), Fill("large", 1e-7)],
            (("a", "big", "dog"), 2): [], (("the", "cat"), 1): [Fill("dog", 0.5)]}
    path = tmp_path / "fills.jsonl"
    assert FillTable(rows, 5, score_kind="prob").write(path, meta={"corpus": "x"}) == 3
    back = FillTable.read(path)
    assert back.rows == rows and back.k == 5 and back.score_kind == "prob" and back.where == str(path)


@pytest.mark.parametrize("line, field", [
    ({"words": ["a", "dog"], "fills": {"5": [["cat", 0.5]]}}, "fills"),
    ({"words": ["a", "dog"], "fills": {"1": [["cat", "x"]]}}, "fills"),
    ({"words": ["a", "dog"], "fills": {"1": [["a", 1], ["b", 1], ["c", 1]]}}, "fills"),
    ({"words": "a dog", "fills": {}}, "words"),
    ({"fills": {}}, "words"),
    (["a", "dog"], "words"),
    ({"words": ["a", "dog"], "fills": {"01": [["cat", 0.5]]}}, "fills"),
    ({"words": ["a", "dog"], "fills": {"1": [["cat", "0.5"]]}}, "fills"),
    ({"words": ["a", "dog"], "fills": {"1": [[3, 0.5]]}}, "fills"),
    ({"words": ["a", "dog"], "fills": {"1": [["cat", True]]}}, "fills"),
])
def test_a_malformed_table_names_file_line_and_field(tmp_path, line, field):
    path = tmp_path / "fills.jsonl"
    path.write_text(json.dumps({"__schema__": 1, "kind": "crest-baseline-fills", "k": 2}) + "\n"
                    + json.dumps({"words": ["ok"], "fills": {}}) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(InputError) as err:
        FillTable.read(path)
    assert err.value.line == 3 and err.value.field == field and str(path) in str(err.value)


def test_the_fills_stage_feeds_the_generation_stages(tmp_path, monkeypatch):
    from pathlib import Path

    from baseline_fakes import FakeParts
    from test_baseline_pipeline import prepared_split

    from lingtest.config import compose
    from lingtest.crest.baselines import stages
    from lingtest.pipeline.runner import run_body

    root = Path(__file__).resolve().parents[3]
    cfg = compose(["crest.N=3", "crest.systems=[fake]", "crest_baselines.baselines=[sit,checklist]"],
                  conf_dir=root / "conf")
    used = []

    def parts(c, b, fill_table=None):
        used.append(fill_table)
        return FakeParts(fill=FillTable.read(fill_table) if fill_table else TableFill(WORDS), wordnet=WORDNET,
                         embedder=BagEmbedder())

    monkeypatch.setattr("lingtest.crest.baselines.parts.StageParts", parts)
    prepared_split(tmp_path, str(cfg.crest.corpus))
    with pytest.raises(MissingResourceError, match="crest_baseline_fills"):
        run_body(stages.generate_stage, cfg, item="sit", root=tmp_path)
    got = run_body(stages.fills_stage, cfg, root=tmp_path)
    assert got["baselines"] == ["sit"] and got["sources"] == 3 and got["positions"] > 0 and got["k"] == 10
    table = FillTable.read(tmp_path / "data" / "crest" / str(cfg.crest.corpus) / "baselines" / "fills.jsonl")
    assert len(table) == got["positions"]
    gen = run_body(stages.generate_stage, cfg, item="sit", root=tmp_path)
    assert gen["generated"] > 0 and used[-1] is not None  # read from the table
    run_body(stages.generate_stage, cfg, item="checklist", root=tmp_path)
    assert used[-1] is None  # CheckList substitutes no words: no table needed


@pytest.mark.parametrize("header, field", [({"kind": "document", "k": 2}, "kind"),
                                           ({"kind": "crest-baseline-fills"}, "k"),
                                           ({"kind": "crest-baseline-fills", "k": "many"}, "k")])
def test_a_table_with_a_bad_header_names_it(tmp_path, header, field):
    path = tmp_path / "fills.jsonl"
    path.write_text(json.dumps({"__schema__": 1, **header}) + "\n")
    with pytest.raises(InputError) as err:
        FillTable.read(path)
    assert err.value.line == 1 and err.value.field == field


def test_the_dvc_stages_wire_the_table_and_list_what_the_table_depends_on():
    from pathlib import Path

    from omegaconf import OmegaConf

    from lingtest.config import compose
    from lingtest.tracking import stage_spec

    root = Path(__file__).resolve().parents[3]
    config = OmegaConf.to_container(compose(conf_dir=root / "conf"), resolve=True)
    fills = stage_spec(root, "crest_baseline_fills", config)
    assert fills is not None and any(o.endswith("baselines/fills.jsonl") for o in fills.outs)
    table = next(o for o in fills.outs if o.endswith("fills.jsonl"))
    # what decides the positions, the waves and k; not the baselines' own checks
    assert {"crest_baselines.batch_sources", "crest_baselines.fill", "crest_baselines.sit.tags",
            "crest_baselines.patinv.skip_edges", "crest_baselines.cat.top_k"} <= set(fills.params)
    assert "crest_baselines.cat.min_similarity" not in fills.params and "resources.embedder" not in fills.params
    for b in ("sit", "cat", "patinv"):
        gen = stage_spec(root, f"crest_baseline_generate@{b}", config)
        assert gen is not None and table in gen.deps
