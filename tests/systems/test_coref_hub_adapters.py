"""fastcoref and Maverick adapters: conversion of recorded outputs and the predict flow with a
stand-in model (no network, no model download)."""

from __future__ import annotations

import sys

import pytest
from coref_handparse import JOHN_SAID, MARY_MET, doc
from tests.fakes.configured import system_options

from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.coref.fastcoref_adapter import FastCorefSystem, clusters_from_fastcoref
from lingtest.systems.coref.maverick_adapter import MaverickSystem, clusters_from_maverick

# "John said he would come . Mary met him there ." as FCoref().predict(texts=[words],
# is_split_into_words=True)[0].get_clusters(as_strings=False) returns it: token spans, exclusive end
FASTCOREF_RECORDED = [[(0, 1), (2, 3), (8, 9)], [(6, 7)]]
# Maverick().predict([[...], [...]]) on the same two sentences: inclusive token ends
MAVERICK_RECORDED = {
    "tokens": "John said he would come . Mary met him there .".split(),
    "clusters_token_offsets": [((0, 0), (2, 2), (8, 8)), ((6, 6), (6, 6))],
    "clusters_char_offsets": None,
    "clusters_token_text": [["John", "he", "him"], ["Mary", "Mary"]],
    "clusters_char_text": None,
}


def spans(clusters):
    return [[(m.start, m.end) for m in c.mentions] for c in clusters]


def test_fastcoref_conversion():
    assert spans(clusters_from_fastcoref(FASTCOREF_RECORDED, 11)) == [[(0, 1), (2, 3), (8, 9)]]
    assert spans(clusters_from_fastcoref(FASTCOREF_RECORDED, 11, keep_singletons=True))[1] == [(6, 7)]
    assert spans(clusters_from_fastcoref([[(0, 1), (None, None)], [(1, 3), (4, 5)]], 11)) == [[(1, 3), (4, 5)]]
    with pytest.raises(InputError, match="outside"):
        clusters_from_fastcoref([[(0, 1), (10, 12)]], 11)


def test_maverick_conversion():
    out = clusters_from_maverick(MAVERICK_RECORDED, 11)
    assert spans(out) == [[(0, 1), (2, 3), (8, 9)]]  # duplicate (6, 6) collapses to a singleton, dropped
    assert spans(clusters_from_maverick([[(0, 1), (3, 5)]], 11)) == [[(0, 2), (3, 6)]]
    with pytest.raises(InputError, match="tokens"):
        clusters_from_maverick(MAVERICK_RECORDED, 12)
    with pytest.raises(InputError, match="outside"):
        clusters_from_maverick([[(0, 0), (9, 11)]], 11)


class _FakeResult:
    def __init__(self, clusters):
        self.clusters = clusters

    def get_clusters(self, as_strings=True):
        assert not as_strings
        return self.clusters


class _FakeFCoref:
    def __init__(self):
        self.calls = []

    def predict(self, texts, is_split_into_words=False, max_tokens_in_batch=10000):
        self.calls.append((texts, is_split_into_words))
        return [_FakeResult(FASTCOREF_RECORDED) for _ in texts]


def test_fastcoref_predict_flow():
    system = FastCorefSystem(**system_options("coref", "fastcoref", model="FCoref"))
    system._model = _FakeFCoref()
    d = doc(JOHN_SAID, MARY_MET)
    out = system.predict([d, doc(id="empty")])
    assert spans(out[0]) == [[(0, 1), (2, 3), (8, 9)]] and out[1] == []
    texts, split = system._model.calls[0]
    assert split is True and texts == [d.words]
    assert system.config()["model_path"] == "biu-nlp/f-coref"
    with pytest.raises(ValueError):
        FastCorefSystem(**system_options("coref", "fastcoref", model="Nope"))


class _FakeMaverick:
    def predict(self, sample, singletons=False):
        assert isinstance(sample[0], list)  # sentence-tokenised input keeps our sentence breaks
        return MAVERICK_RECORDED


def test_maverick_predict_flow():
    system = MaverickSystem(**system_options("coref", "maverick"))
    system._model = _FakeMaverick()
    assert spans(system.predict([doc(JOHN_SAID, MARY_MET)])[0]) == [[(0, 1), (2, 3), (8, 9)]]


def test_missing_packages_are_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "fastcoref", None)
    monkeypatch.setitem(sys.modules, "maverick", None)
    with pytest.raises(MissingResourceError, match="pip install fastcoref"):
        FastCorefSystem(**system_options("coref", "fastcoref")).predict([doc(JOHN_SAID)])
    with pytest.raises(MissingResourceError, match="maverick-coref"):
        MaverickSystem(**system_options("coref", "maverick")).predict([doc(JOHN_SAID)])
