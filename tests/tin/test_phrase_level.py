"""Phrase-level mutants and the offline phrase index (with a fake embedder)."""

from __future__ import annotations

import numpy as np
import pytest

from lingtest.data.model import Entity, Sentence, Token, Tree
from lingtest.tin.mutant import MR1, TinSource
from lingtest.tin.phrases import EmbeddingPhraseIndex, collect_phrases, np_core, sentence_phrases
from lingtest.tin.transformations.phrase_level import PhraseLevel
from tests.fakes.conf_options import score_grid
from tests.tin.fakes import FakeTextEmbedder

GRID = score_grid()

# the paper's Fig. 2 sentence, simplified
PTB = ("(S (NP (DT The) (NN patient)) (VP (VBD needed) (NP (NP (JJ emergency) (NN care)) (PP (IN at) "
       "(NP (NNP St) (NNP Mary))))) (. .))")


class TableIndex:
    def __init__(self, table):
        self.table = table
        self.queries = []

    def neighbours(self, queries, topn):
        self.queries.extend(queries)
        return [self.table.get(q.lower(), [])[:topn] for q in queries]


ST_MARY = (Entity(6, 8, "LOC"),)


def src(ptb=PTB, entities=ST_MARY):
    tree, words = Tree.from_bracketed(ptb)
    return TinSource(id="s", tokens=words, entities=list(entities), tree=tree)


def test_minimal_nps_outside_entities_are_replaced_determiner_kept():
    index = TableIndex({"patient": [("the sick person", 0.8), ("patients", 0.7), ("doctor", 0.5)],
                        "emergency care": [("medical care", 0.9), ("emergency care", 0.95), ("ER #1", 0.9)]})
    muts = PhraseLevel(index, topn=10, min_score=0.65, max_words=3).generate([src()])
    assert index.queries == ["patient", "emergency care"]  # "St Mary" is an entity; NP(NP PP) is not minimal
    assert [" ".join(m.tokens) for m in muts] == [
        "The sick person needed emergency care at St Mary .",
        "The patients needed emergency care at St Mary .",
        "The patient needed medical care at St Mary .",
    ]
    m = muts[0]
    assert m.relation == MR1 and m.changed == (1, 2) and m.changed_followup == (1, 3)
    assert m.alignment.map_entities([Entity(6, 8, "LOC")]) == [Entity(7, 9, "LOC")]
    assert m.params["old"] == "patient" and m.params["new"] == "sick person" and m.params["np"] == [0, 2]


def test_article_agreement_plural_after_a_and_capitals():
    ptb = "(S (NP (DT A) (NN car)) (VP (VBD hit) (NP (DT a) (NN tree))) (. .))"
    index = TableIndex({"car": [("apple", 0.9), ("trucks", 0.9), ("van", 0.9)], "tree": [("owl", 0.7)]})
    muts = PhraseLevel(index, topn=10, min_score=0.65, max_words=3).generate([src(ptb, ())])
    assert [" ".join(m.tokens) for m in muts] == [
        "An apple hit a tree .", "A van hit a tree .", "A car hit an owl ."]
    assert muts[0].params["article"] == "An" and "article" not in muts[1].params
    head = "(S (NP (NNS SHARES)) (VP (VBD FELL)))"
    muts = PhraseLevel(TableIndex({"shares": [("stocks", 0.9)]}), topn=5, min_score=0.5,
                       max_words=2).generate([src(head, ())])
    assert muts[0].tokens == ["STOCKS", "FELL"]


def test_pronoun_and_determiner_only_nps_are_skipped():
    ptb = "(S (NP (PRP He)) (VP (VBD saw) (NP (DT that))) (. .))"
    index = TableIndex({})
    assert PhraseLevel(index, topn=5, min_score=0.5, max_words=2).generate([src(ptb, ())]) == []
    assert index.queries == []
    assert np_core(["DT", "PRP$", "NN"], (0, 3)) == (2, 3) and np_core(["DT"], (0, 1)) is None


def _parsed(ptb: str, ents: dict[int, str] | None = None) -> Sentence:
    tree, words = Tree.from_bracketed(ptb)
    tags = {n.token: n.label for n in tree.subtrees() if n.token is not None}
    toks = [Token(w, tag=tags[i], ent=(ents or {}).get(i, "O")) for i, w in enumerate(words)]
    return Sentence(toks, tree=tree)


def test_collect_phrases_keeps_common_noun_phrases():
    a = _parsed("(S (NP (DT The) (JJ new) (NN policy)) (VP (VBD hit) (NP (NNP Acme) (NNS shares))) (. .))")
    b = _parsed("(S (NP (PRP$ Their) (JJ new) (NN policy)) (VP (VBD cost) (NP (CD 3) (NNS dollars))))")
    c = _parsed("(S (NP (DT the) (NN market)) (VP (VBD fell)))", ents={1: "B-ORG"})
    assert sentence_phrases(a, max_words=3) == ["new policy"]  # "Acme shares" holds a proper noun
    assert collect_phrases([a, b, c], max_words=3, min_count=1) == ["new policy"]  # digits, entities out
    assert collect_phrases([a, b], max_words=3, min_count=3) == []
    assert collect_phrases([a], max_words=1, min_count=1) == []


@pytest.fixture
def embedder():
    return FakeTextEmbedder({"care": [1, 0, 0, 0], "medical care": [0.9, 0.1, 0, 0],
                             "health care": [0.9, 0.1, 0, 0], "treatment": [0.7, 0.7, 0, 0],
                             "car": [0, 1, 0, 0], "emergency care": [0.95, 0.05, 0, 0]})


def test_index_neighbours_are_cosine_ranked_with_alphabetical_ties(embedder, tmp_path):
    phrases = ["treatment", "medical care", "care", "health care", "car", "care"]
    idx = EmbeddingPhraseIndex.build(phrases, embedder, grid=GRID)
    assert idx.phrases == ["car", "care", "health care", "medical care", "treatment"]
    got = idx.neighbours(["Care", "emergency care"], topn=3)
    # the query itself is left out; equal scores break alphabetically
    assert [p for p, _ in got[0]] == ["health care", "medical care", "treatment"]
    assert got[0][0][1] == GRID.round("similarity", 0.9 / np.linalg.norm([0.9, 0.1]))
    assert [p for p, _ in got[1]][:3] == ["care", "health care", "medical care"]
    # saved and loaded: the same answers
    path = tmp_path / "idx" / "phrases.npz"
    idx.save(path)
    loaded = EmbeddingPhraseIndex.load(path, embedder, grid=GRID)
    assert loaded.phrases == idx.phrases and loaded.neighbours(["care"], 3) == idx.neighbours(["care"], 3)
    assert path.read_bytes() == (idx.save(tmp_path / "again.npz") or (tmp_path / "again.npz").read_bytes())


def test_index_errors(embedder, tmp_path):
    with pytest.raises(ValueError):
        EmbeddingPhraseIndex(["b", "a"], np.zeros((2, 2)))
    idx = EmbeddingPhraseIndex(["a"], np.ones((1, 2)), grid=GRID)
    with pytest.raises(ValueError):
        idx.neighbours(["a"], 1)  # no embedder
    with pytest.raises(ValueError):
        EmbeddingPhraseIndex(["a"], np.ones((1, 2)), embedder).neighbours(["a"], 1)  # no score grid
    assert EmbeddingPhraseIndex.build([], embedder, grid=GRID).neighbours(["x"], 2) == [[]]
    np.savez(tmp_path / "bad.npz", phrases=np.array(["a"]), vectors=np.ones((1, 2)))
    with pytest.raises(ValueError):
        EmbeddingPhraseIndex.load(tmp_path / "bad.npz")


class FakeS2V:
    def get_best_sense(self, word, senses):
        return {"emergency_care": "emergency_care|NOUN"}.get(word)

    def most_similar(self, key, n):
        return [("medical_care|NOUN", 0.8), ("care|VERB", 0.9), ("urgent_care|NOUN", 0.7),
                ("acute_care|NOUN", 0.700000004)][:n]


def test_sense2vec_adapter_keeps_the_noun_sense():
    from lingtest.tin.phrases import Sense2VecPhraseIndex

    idx = Sense2VecPhraseIndex(FakeS2V(), grid=GRID)
    got = idx.neighbours(["emergency care", "unknown"], 4)
    # scores on the grid; "acute care" ties with "urgent care" there and comes first alphabetically
    assert got == [[("medical care", 0.8), ("acute care", 0.7), ("urgent care", 0.7)], []]
    with pytest.raises(ValueError):
        Sense2VecPhraseIndex(grid=GRID)
