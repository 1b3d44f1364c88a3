"""TIN's tree-based steps on real parses (spaCy en_core_web_sm + lingtest's dependency-to-constituency
conversion), not only on hand-made trees."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity
from lingtest.tin.mutant import TinSource
from lingtest.tin.phrases import sentence_phrases
from lingtest.tin.tagging import ParserTagger
from lingtest.tin.transformations.structural import interrogative

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def parser():
    pytest.importorskip("spacy")
    from lingtest.parsing import get_parser

    try:
        return get_parser("spacy")
    except Exception as exc:  # pragma: no cover - model not installed
        pytest.skip(f"spaCy model unavailable: {exc}")


def test_structural_on_spacy_trees(parser):
    sents = [s.split() for s in ("Twitter was the obvious solution .", "He has faced floods .", "He cried .",
                                 "The company will announce results on Monday .")]
    parsed = parser.parse(sents)
    got = []
    for i, p in enumerate(parsed):
        ents = [Entity(0, 1, "ORG")] if i == 0 else []
        m = interrogative(TinSource.from_sentence(f"s{i}", p, ents))
        got.append(" ".join(m.tokens) if m else None)
    assert got == ["Was Twitter the obvious solution ?", "Has he faced floods ?", "Did he cry ?",
                   "Will the company announce results on Monday ?"]


def test_tagger_and_phrases_on_spacy_parses(parser):
    toks = "The patient needed emergency care at the hospital .".split()
    assert ParserTagger(parser).tag([toks])[0][:3] == ["DT", "NN", "VBD"]
    [p] = parser.parse([toks])
    assert "emergency care" in sentence_phrases(p, max_words=3)
