"""spaCy NER on pre-tokenised sentences: token-exact spans in the OntoNotes scheme, only the components
NER needs, the same entities as the full pipeline. Needs the packaged spaCy models (marked ``models``);
the component selection is also checked on a stand-in pipeline without them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lingtest.data.model import Entity
from lingtest.systems.ner.spacy_ner import SpacyNERSystem, ner_components

SENTS = [
    ["Angela", "Merkel", "visited", "Paris", "on", "Monday", "with", "3", "French", "ministers", "."],
    ["Apple", "Inc.", "opened", "a", "store", "in", "New", "York", "City", "."],
    ["nothing", "to", "see", "here"],
    ["The", "U.S.-based", "firm", "paid", "$", "5", "million", "."],
]


def test_components_ner_needs():
    class Pipe(SimpleNamespace):
        pass

    def pipeline(names, tok2vec_listeners):
        return SimpleNamespace(pipe_names=names, get_pipe=lambda n: Pipe(
            listening_components=tok2vec_listeners if n == "tok2vec" else []))

    nlp = pipeline(["tok2vec", "tagger", "parser", "ner", "lemmatizer"], ["tagger", "parser"])
    assert ner_components(nlp) == ["ner"]
    shared = pipeline(["tok2vec", "tagger", "ner"], ["tagger", "ner"])
    assert ner_components(shared) == ["tok2vec", "ner"]


@pytest.mark.models
@pytest.mark.parametrize("model", ["en_core_web_sm", "en_core_web_md"])
def test_spacy_ner_spans_match_the_full_pipeline(model):
    from spacy.tokens import Doc

    from lingtest.parsing.spacy_backend import load_spacy_model

    system = SpacyNERSystem(model, device="cpu")
    out = system.predict([list(s) for s in SENTS])
    assert system._load().pipe_names == ["ner"]  # tagger, parser, lemmatizer... switched off
    full = load_spacy_model(model)
    for words, ents in zip(SENTS, out, strict=True):
        doc = full(Doc(full.vocab, words=words, spaces=[True] * len(words)))
        assert ents == [Entity(e.start, e.end, e.label_) for e in doc.ents]
        assert all(0 <= e.start < e.end <= len(words) for e in ents)
    labels = {e.label for ents in out for e in ents}
    assert labels <= set(full.get_pipe("ner").labels)
    # the obvious ones, which both models get
    assert Entity(0, 2, "PERSON") in out[0] and Entity(3, 4, "GPE") in out[0]
    assert out[2] == []
    cfg = system.config()
    assert cfg["model"].startswith("en_core_web") and cfg["model_version"]
    assert system.label_scheme == "ontonotes"
    assert system.predict([[" ", "Paris"]])[0] in ([], [Entity(1, 2, "GPE")])  # a blank word does not crash
