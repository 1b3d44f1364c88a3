"""Fixtures for the CREST tests; the fakes live in ``crest_fakes.py``."""

from __future__ import annotations

import pytest
from crest_fakes import TABLE, FakeParser, FakeProposer, FakeSystem

from lingtest.data.model import Cluster, Document, Mention, Sentence, Token


@pytest.fixture
def fake_parser() -> FakeParser:
    return FakeParser()


@pytest.fixture
def fake_system() -> FakeSystem:
    return FakeSystem()


@pytest.fixture
def fake_proposer() -> FakeProposer:
    return FakeProposer(TABLE)


@pytest.fixture
def corpus_docs() -> list[Document]:
    """Two small documents; sentence breaks and cross-sentence clusters exercise source extraction."""
    s1 = "John said that the big dog liked him ."
    s2 = "The dog barked ."
    s3 = "Mary quickly told John that he ran ."
    d1 = Document("doc1", sentences=[Sentence([Token(w) for w in s1.split()]),
                                     Sentence([Token(w) for w in s2.split()])],
                  clusters=[Cluster([Mention(0, 1), Mention(7, 8)]),      # John ... him (sentence 0)
                            Cluster([Mention(3, 6), Mention(9, 11)])])    # the big dog ... The dog (cross)
    d2 = Document("doc2", sentences=[Sentence([Token(w) for w in s3.split()])],
                  clusters=[Cluster([Mention(3, 4), Mention(5, 6)])])     # John ... he
    return [d1, d2]
