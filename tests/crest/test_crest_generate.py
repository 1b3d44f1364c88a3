"""Algorithms 1 and 3 with a counting fake parser; sources extraction and sampling."""

from __future__ import annotations

from crest_fakes import TABLE, FakeProposer, FakeScorer, make_source
from tests.fakes.conf_options import score_grid

from lingtest.crest.generate import Generator, MemoParser, Source, constituent_signature, followup_document
from lingtest.crest.sources import sample_sources, sentence_sources
from lingtest.data.model import Tree
from lingtest.resources.candidates.rank import LMRanker

GRID = score_grid()

#: LMRanker options besides the threshold (whole sentences scored, the original word in the softmax)
RANKER = {"include_original": True, "filter_sources": ["vectors"], "window": None, "left_window": None,
          "shared_prefix": True}


def _source(parser, text="John said that the big dog quickly liked him .", clusters=((0, 1), (9, 10))):
    doc = make_source(text, [list(clusters)])
    doc.sentences[0] = parser.parse([doc.sentences[0].words])[0]
    return Source.from_document(doc)


def test_sentence_sources_restrict_clusters(corpus_docs):
    src = sentence_sources(corpus_docs)
    assert [d.id for d in src] == ["doc1:s0", "doc2:s0"]
    assert [[(m.start, m.end) for m in c.mentions] for c in src[0].clusters] == [[(0, 1), (7, 8)]]
    assert src[0].meta == {"doc": "doc1", "sentence": 0}
    assert sentence_sources(corpus_docs, min_mentions=3) == []


def test_sample_sources_seeded_and_ordered(corpus_docs):
    import copy

    pool = []
    for k in range(5):
        for d in sentence_sources(corpus_docs):
            d = copy.deepcopy(d)
            d.id = f"{d.id}-{k}"
            pool.append(d)
    a = sample_sources(pool, 4, seed=1)
    assert a == sample_sources(pool, 4, seed=1)
    assert len(a) == 4
    assert sample_sources(pool, 100, seed=1) == pool
    idx = [[p.id for p in pool].index(x.id) for x in a]
    assert idx == sorted(idx)
    assert sample_sources(pool, 4, seed=2) != a


def test_generation_respects_cr_indices_and_constituents(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    gen = Generator(memo, [fake_proposer], M=20)
    fus, stats = gen.generate(src)
    changed = {(f.position, f.new) for f in fus}
    # "him" (mention), "John" (mention) and "said" (John is its nsubj) are CR-related: untouched
    assert all(f.position not in (0, 1, 9) for f in fus)
    # FW-tagged "zzbig" fails the constituent check; "deeply" passes it (ADVP/RB) but changes depth
    assert (4, "zzbig") not in changed
    assert (4, "large") in changed and (4, "small") in changed and (4, "huge") in changed
    deep = next(f for f in fus if f.new == "deeply")
    assert deep.selected is False
    assert all(f.selected for f in fus if f.new != "deeply")
    # multi-word replacement: "dog" -> "hot dog_": alignment shifts "him" by one
    hot = next(f for f in fus if f.new == "hot dog_")
    assert hot.alignment.n_new == 2 and hot.words[5:7] == ["hot", "dog_"]
    assert followup_document(src, hot).clusters[0].mentions[1].start == 10
    assert [f.order for f in fus] == list(range(len(fus)))
    assert stats.proposed["vectors"] == 5 and stats.constituent_ok["vectors"] == 4


def test_m_caps_followups_per_source(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    fus, _ = Generator(memo, [fake_proposer], M=2).generate(src)
    assert len(fus) == 2
    assert [f.new for f in fus] == ["large", "small"]  # position order, proposal order
    rr, _ = Generator(memo, [fake_proposer], M=3, order="round_robin").generate(src)
    assert [f.position for f in rr] == [4, 5, 6]


def test_never_parses_a_sentence_twice(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    gen = Generator(memo, [fake_proposer], M=20)
    fus1, _ = gen.generate(src)
    calls = fake_parser.calls
    batches = fake_parser.batches
    assert calls == len(set(fake_parser.seen))  # every parsed sentence was distinct
    assert batches == 2  # the source, then all its candidates in one batch
    fus2, _ = gen.generate(src)  # again: everything from the memo
    assert fake_parser.calls == calls
    assert [f.words for f in fus1] == [f.words for f in fus2]


def test_parse_chunk_parses_lazily(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    before, batches = fake_parser.calls, fake_parser.batches
    fus, st = Generator(memo, [fake_proposer], M=1, parse_chunk=2).generate(src)
    # positions big (4 candidates), dog (3), quickly (3): only the first group is parsed, in one batch
    assert fake_parser.calls - before == 4 and fake_parser.batches - batches == 1
    assert len(fus) == 1 and st.parsed == 4
    fus, st = Generator(memo, [fake_proposer], M=6, parse_chunk=2).generate(src)
    assert len(fus) == 6 and st.parsed == 7  # two groups


def test_ranker_orders_candidates(fake_parser):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    scorer = FakeScorer()
    prop = FakeProposer({"big": TABLE["big"]})
    gen = Generator(memo, [prop], ranker=LMRanker(scorer, grid=GRID, threshold=0.3, **RANKER), M=20)
    fus, stats = gen.generate(src)
    assert scorer.calls == 1
    # WordNet candidates first (unscored), then vector ones by LM probability; zzbig is dropped
    assert [f.new for f in fus] == ["large", "small", "huge"]
    assert stats.proposed["vectors"] == 2 and stats.ranked["vectors"] == 1
    assert [f.prob is not None for f in fus] == [False, False, True]


def test_article_agreement(fake_parser):
    from lingtest.crest.generate import article_agrees

    assert article_agrees("a", "dog") and article_agrees("an", "apple") and article_agrees("an", "hour")
    assert not article_agrees("a", "acetate") and not article_agrees("an", "dog")
    assert article_agrees("a", "university")
    memo = MemoParser(fake_parser)
    src = _source(memo, "John saw a dog and him .", ((0, 1), (5, 6)))
    prop = FakeProposer({"dog": [("eel", "vectors"), ("cat", "vectors")]})
    cands = Generator(memo, [prop]).candidates(src)
    assert [c.text for c in cands[3]] == ["cat"]


def test_constituent_signature_multiword_head():
    t, _ = Tree.from_bracketed("(S (NP (DT the) (NN hot) (NN dog)) (VP (VBD ran)))")
    assert constituent_signature(t, (1, 3)) == ("NN", "NP")
    assert constituent_signature(t, (3, 4)) == ("VBD", "VP")


def test_generate_many_batches_across_sources_with_the_same_results(fake_parser):
    """Lockstep generation gives each source exactly what it gets alone, with one LM call and one
    parser call per round for all sources instead of one each."""
    texts = ["John said that the big dog quickly liked him .",
             "Mary thinks the big house quickly pleased her .",
             "John said that the small dog liked him ."]
    clusters = [((0, 1), (9, 10)), ((0, 1), (8, 9)), ((0, 1), (8, 9))]

    def run(many: bool):
        parser = type(fake_parser)()
        memo = MemoParser(parser)
        srcs = [_source(memo, t, c) for t, c in zip(texts, clusters, strict=True)]
        scorer = FakeScorer()
        gen = Generator(memo, [FakeProposer(TABLE)], ranker=LMRanker(scorer, grid=GRID, threshold=0.0, **RANKER), M=4,
                        parse_chunk=2)
        batches0 = parser.batches
        if many:
            fus, stats = gen.generate_many(srcs)
        else:
            fus, stats = [], None
            for s in srcs:
                f, st = gen.generate(s)
                fus.append(f)
                stats = st if stats is None else (stats.merge(st) or stats)
        return fus, stats, scorer.calls, parser.batches - batches0

    one, st1, lm1, parse1 = run(False)
    many, st2, lm2, parse2 = run(True)

    def key(fs):
        return [[(f.position, f.new, f.candidate_source, f.prob, f.selected, f.words) for f in x] for x in fs]

    assert key(many) == key(one)
    assert any(len(x) == 4 for x in many) and any(len(x) < 4 for x in many)  # some stop at M, some run out
    assert st2.to_dict() | {"seconds": 0} == st1.to_dict() | {"seconds": 0}
    assert lm2 < lm1 and parse2 < parse1  # rounds shared by all sources
