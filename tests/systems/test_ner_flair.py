"""flair adapter: output conversion on stand-in flair objects built from span shapes of both large models
(tests/fixtures/ner_systems/flair_spans.json), and the predict flow with a stand-in ``flair`` package
(flair is not installed)."""

from __future__ import annotations

import json
import sys
import types
from types import SimpleNamespace

import pytest

from lingtest.data.model import Entity
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.ner.flair_adapter import FlairNERSystem, entities_from_flair


class FakeLabel(SimpleNamespace):
    pass


class FakeSpan:
    """flair >= 0.10: ``tokens`` with 1-based ``idx``, ``get_label(type).value``."""

    def __init__(self, idx, value, score):
        self.tokens = [SimpleNamespace(idx=i) for i in idx]
        self._label = FakeLabel(value=value, score=score)

    def get_label(self, label_type):
        return self._label


class OldSpan:
    """flair < 0.10: the label is ``span.tag``."""

    def __init__(self, idx, tag):
        self.tokens = [SimpleNamespace(idx=i) for i in idx]
        self.tag = tag


class FakeSentence:
    def __init__(self, words, spans=()):
        self.words = list(words)
        self.spans = list(spans)

    def get_spans(self, label_type):
        assert label_type == "ner"
        return self.spans


@pytest.fixture(scope="module")
def recorded(fixtures_dir):
    return json.loads((fixtures_dir / "ner_systems" / "flair_spans.json").read_text(encoding="utf-8"))


def sentence_from(rec):
    return FakeSentence(rec["tokens"], [FakeSpan(s["idx"], s["value"], s["score"]) for s in rec["spans"]])


def test_conversion_of_both_models(recorded):
    conll = recorded["conll"]
    assert entities_from_flair(sentence_from(conll), "ner", len(conll["tokens"])) == \
        [Entity(0, 2, "PER"), Entity(3, 5, "PER"), Entity(6, 7, "LOC")]
    onto = recorded["ontonotes"]
    assert entities_from_flair(sentence_from(onto), "ner", len(onto["tokens"])) == \
        [Entity(0, 1, "ORG"), Entity(5, 8, "FAC"), Entity(9, 10, "GPE"), Entity(12, 13, "DATE")]
    old = FakeSentence(["a", "b"], [OldSpan([2], "LOC")])
    assert entities_from_flair(old, "ner", 2) == [Entity(1, 2, "LOC")]


def test_bad_spans_are_errors():
    with pytest.raises(InputError, match="non-consecutive"):
        entities_from_flair(FakeSentence(["a", "b", "c"], [FakeSpan([1, 3], "PER", 0.9)]), "ner", 3)
    with pytest.raises(InputError, match="outside"):
        entities_from_flair(FakeSentence(["a"], [FakeSpan([2], "PER", 0.9)]), "ner", 1)
    with pytest.raises(InputError, match="outside"):
        entities_from_flair(FakeSentence(["a"], [FakeSpan([0], "PER", 0.9)]), "ner", 1)  # idx is 1-based


def test_predict_flow_with_a_stand_in_flair(monkeypatch, recorded):
    """The adapter builds one pre-tokenised flair Sentence per input, calls predict with the configured
    mini-batch size, and converts every sentence."""
    conll = recorded["conll"]
    seen = {}

    class Tagger:
        tag_type = "ner"

        @classmethod
        def load(cls, model):
            seen["model"] = model
            return cls()

        def predict(self, sentences, mini_batch_size):
            seen["batch"] = mini_batch_size
            seen["words"] = [s.words for s in sentences]
            sentences[0].spans = sentence_from(conll).spans

    flair = types.ModuleType("flair")
    flair.device = None
    models = types.ModuleType("flair.models")
    models.SequenceTagger = Tagger
    data = types.ModuleType("flair.data")
    data.Sentence = FakeSentence
    for name, mod in {"flair": flair, "flair.models": models, "flair.data": data}.items():
        monkeypatch.setitem(sys.modules, name, mod)

    system = FlairNERSystem("flair/ner-english-large", label_scheme="conll", mini_batch_size=4, device="cpu")
    out = system.predict([conll["tokens"], ["Nothing", "here"]])
    assert out == [[Entity(0, 2, "PER"), Entity(3, 5, "PER"), Entity(6, 7, "LOC")], []]
    assert seen == {"model": "flair/ner-english-large", "batch": 4,
                    "words": [conll["tokens"], ["Nothing", "here"]]}
    assert str(flair.device) == "cpu" and system.config() == {"model": "flair/ner-english-large"}


def test_scheme_must_match_the_known_models_and_flair_is_optional(monkeypatch):
    with pytest.raises(ValueError, match="ontonotes"):
        FlairNERSystem("flair/ner-english-ontonotes-large", label_scheme="conll", mini_batch_size=4)
    monkeypatch.setitem(sys.modules, "flair", None)  # import flair -> ImportError
    with pytest.raises(MissingResourceError, match="pip install flair"):
        FlairNERSystem("flair/ner-english-large", label_scheme="conll", mini_batch_size=4).predict([["a"]])
