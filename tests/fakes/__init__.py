"""One fake system per task (deterministic, counting what they were asked), for tests of the cache,
the factory, the suite runner and the stages. Import: ``from tests.fakes import FakeCoref, ...``."""

from __future__ import annotations

from typing import Any

from lingtest.data.model import Cluster, Document, Entity, Mention
from lingtest.systems.classification.base import Classifier
from lingtest.systems.contrastive.base import ContrastiveQuery, ContrastiveScorer
from lingtest.systems.coref.base import CorefSystem
from lingtest.systems.ner.base import NERSystem


class FakeCoref(CorefSystem):
    """Links the first and last token of every document (``tag`` only changes the cache key)."""

    name = "fake_coref"

    def __init__(self, tag: str = "a") -> None:
        self.tag = tag
        self.seen: list[str] = []

    def config(self) -> dict[str, Any]:
        return {"tag": self.tag}

    def predict(self, inputs: list[Document]) -> list[list[Cluster]]:
        self.seen.extend(d.id for d in inputs)
        return [[Cluster([Mention(0, 1), Mention(len(d.words) - 1, len(d.words))])] for d in inputs]


class FakeNER(NERSystem):
    """Every capitalised token is a one-token PER entity."""

    name = "fake_ner"

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, inputs: list[list[str]]) -> list[list[Entity]]:
        self.calls += 1
        return [[Entity(i, i + 1, "PER") for i, w in enumerate(toks) if w[:1].isupper()] for toks in inputs]


class FakeClassifier(Classifier):
    """p(positive) = share of the words "good"/"great" among good/great/bad/awful (0.5 when none)."""

    name = "fake_classifier"

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, inputs: list[str]) -> list[dict[str, float]]:
        self.calls += 1
        out = []
        for t in inputs:
            w = t.lower().split()
            pos, neg = sum(x in ("good", "great") for x in w), sum(x in ("bad", "awful") for x in w)
            p = 0.5 if pos + neg == 0 else pos / (pos + neg)
            out.append({"negative": 1 - p, "positive": p})
        return out


class FakeScorer(ContrastiveScorer):
    """log-probability = -(number of characters) / 10: shorter candidates win."""

    name = "fake_scorer"

    def predict(self, inputs: list[ContrastiveQuery]) -> list[list[float]]:
        return [[-len(c) / 10 for c in q.candidates] for q in inputs]
