"""CREST on real components: spaCy parse + dep2const trees, WordNet, the sieve resolver, BLANC,
on OntoGUM test sentences from the mirror."""

from __future__ import annotations

import pytest

from lingtest.crest.evaluate import evaluate_system, summarize
from lingtest.crest.generate import Generator, MemoParser, Source
from lingtest.crest.indices import cr_related_indices
from lingtest.crest.select import depths_preserved
from lingtest.crest.sources import sample_sources, sentence_sources
from lingtest.data.model import Cluster, Document, Mention

pytestmark = [pytest.mark.e2e, pytest.mark.models]


@pytest.fixture(scope="session")
def spacy_memo():
    from lingtest.parsing import get_parser

    return MemoParser(get_parser("spacy"))


def test_paper_example_with_spacy(spacy_memo):
    words = "The fish in the lake ate the worm because it was tasty .".split()
    sent = spacy_memo.parse([words])[0]
    assert cr_related_indices(sent, [Cluster([Mention(6, 8), Mention(9, 10)])]) == {6, 7, 9, 10, 11}
    assert sent.tree.lowest_covering(0, 2)[1] == 3  # "The fish": S-NP-NP, as in the paper


@pytest.mark.mirror
def test_ontogum_sources_generate_and_evaluate(mirror, spacy_memo):
    from tests.fakes.conf_options import proposer_options, score_grid
    from tests.fakes.configured import configured_system

    from lingtest.readers.options import configured
    from lingtest.resources.candidates import get_proposer

    path = mirror / "ontogum" / "coref" / "ontogum" / "conll" / "GUM_bio_dvorak.conll"
    if not path.exists():
        pytest.skip("OntoGUM test document not in the mirror")
    docs = list(configured("ontogum", conllu_dir=mirror / "gum" / "dep")(path))
    pool = sentence_sources(docs)
    assert pool and all(len(d.sentences) == 1 for d in pool)
    picked = sample_sources(pool, 4, seed=13)
    parsed = spacy_memo.parse([d.sentences[0].words for d in picked])
    sources = []
    for d, p in zip(picked, parsed, strict=True):
        sources.append(Source.from_document(Document(d.id, sentences=[p], clusters=d.clusters)))
    gen = Generator(spacy_memo, [get_proposer("wordnet", score_grid(), **proposer_options("wordnet"))], M=5,
                    parse_chunk=16)
    followups = {}
    for s in sources:
        fus, _ = gen.generate(s)
        followups[s.id] = fus
        for f in fus:
            assert f.words[f.position:f.position + f.alignment.n_new] == f.new.split()
            assert depths_preserved(s.sentence.tree, f.sentence.tree, s.gold, f.alignment) == f.selected
    assert sum(len(v) for v in followups.values()) > 0
    from lingtest.crest.suite import make_case

    cases = [make_case(s, f, full=True) for s in sources for f in followups[s.id] if f.selected]
    oracle = {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0}  # crest.oracle in conf/crest/default.yaml
    res = evaluate_system(configured_system("coref", "sieve"), sources, cases, oracle)
    row = summarize(res, 5, True)
    assert row["sources"] == 4 and row["tests"] == row["selected"]
    assert row["true_positives"] + row["false_positives"] == row["issues"]
    assert 0 <= row["hits"] <= row["sources_wrong"]
