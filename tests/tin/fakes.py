"""Deterministic stand-ins for TIN's models: fill-in proposer, span embedder, tagger, language
model, text embedder and a rule-based NER system; hand-parsed sources (:func:`parsed`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lingtest.data.model import Entity, Tree
from lingtest.resources.fill import Fill, FillProposerBase, SubwordFill
from lingtest.systems.ner.base import NERSystem
from lingtest.tin.mutant import TinSource


class FakeProposer(FillProposerBase):
    """Fills by original word: ``table[word]`` = [(fill, score), ...] (best first)."""

    name = "fake"
    score_kind = "score"

    def __init__(self, table: Mapping[str, Sequence[tuple[str, float]]],
                 subwords: Mapping[str, Sequence[tuple[str, int, float]]] | None = None) -> None:
        self.table = dict(table)
        self.sub = dict(subwords or {})
        self.requests: list[tuple[tuple[str, ...], int]] = []

    def propose_many(self, requests, k):
        self.requests.extend((tuple(t), p) for t, p in requests)
        return [[Fill(w, s) for w, s in self.table.get(t[p], [])][:k] for t, p in requests]


class FakeSubwordProposer(FakeProposer):
    def propose_subwords(self, requests, k):
        return [[SubwordFill(w, j, s) for w, j, s in self.sub.get(t[p], [])] for t, p in requests]


class FakeSpanEmbedder:
    """The embedding of a span is a fixed vector per (lower-cased) span text, ``vectors[text]``;
    unknown texts get a vector from their length. Context is ignored."""

    def __init__(self, vectors: Mapping[str, Sequence[float]] | None = None) -> None:
        self.vectors = {k: np.asarray(v, dtype=np.float32) for k, v in (vectors or {}).items()}
        self.calls = 0

    def embed_spans(self, requests):
        self.calls += 1
        out = []
        for tokens, (a, b) in requests:
            text = " ".join(tokens[a:b]).lower()
            v = self.vectors.get(text)
            out.append(v if v is not None else np.array([1.0, float(len(text)), 0.0], dtype=np.float32))
        return np.stack(out) if out else np.zeros((0, 3), dtype=np.float32)


class FakeTagger:
    """PTB tags from a word -> tag table (default ``NN``)."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self.table = dict(table)
        self.calls = 0

    def tag(self, sentences):
        self.calls += 1
        return [[self.table.get(w, "NN") for w in s] for s in sentences]


@dataclass
class Scored:
    logprobs: list[float]


class FakeLM:
    """Token log-probabilities: every word (split on spaces) has log p = -len(word) / 10, except
    ``penalties[word]``."""

    def __init__(self, penalties: Mapping[str, float] | None = None) -> None:
        self.penalties = dict(penalties or {})
        self.texts: list[str] = []

    def token_logprobs(self, texts):
        self.texts.extend(texts)
        return [Scored([self.penalties.get(w, -len(w) / 10) for w in t.split()]) for t in texts]


class FakeTextEmbedder:
    """Phrase vectors from a table; unknown phrases get a one-hot on a hash-free fallback axis."""

    def __init__(self, table: Mapping[str, Sequence[float]]) -> None:
        self.table = {k: np.asarray(v, dtype=np.float32) for k, v in table.items()}
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        dim = len(next(iter(self.table.values())))
        out = []
        for t in texts:
            v = self.table.get(t)
            if v is None:
                v = np.zeros(dim, dtype=np.float32)
                v[-1] = 1.0
            out.append(v)
        return np.stack(out).astype(np.float32)


class RuleNER(NERSystem):
    """Entities from a function of the token list (counts its calls and inputs)."""

    name = "rule_ner"

    def __init__(self, rule: Callable[[list[str]], list[Entity]]) -> None:
        self.rule = rule
        self.inputs: list[list[str]] = []

    def predict(self, inputs):
        self.inputs.extend(list(x) for x in inputs)
        return [sorted(self.rule(list(x))) for x in inputs]


def lexicon_ner(lexicon: Mapping[str, str]) -> RuleNER:
    """Greedy longest match of space-joined phrases in ``lexicon`` (text -> label)."""
    phrases = sorted(lexicon, key=lambda p: -len(p.split()))

    def rule(tokens: list[str]) -> list[Entity]:
        out, i = [], 0
        while i < len(tokens):
            for p in phrases:
                words = p.split()
                if tokens[i:i + len(words)] == words:
                    out.append(Entity(i, i + len(words), lexicon[p]))
                    i += len(words)
                    break
            else:
                i += 1
        return out

    return RuleNER(rule)


def parsed(rows: str, entities: Sequence[Entity] = (), tree: str | None = None, id: str = "s") -> TinSource:
    """A source from ``word/TAG/head/dep`` tokens (head -1: the root); lemmas are the lower-cased words unless
    given as ``word/TAG/head/dep/lemma``."""
    words, tags, heads, deps, lemmas = [], [], [], [], []
    for tok in rows.split():
        w, t, h, d, *lem = tok.split("/")
        words.append(w)
        tags.append(t)
        heads.append(int(h))
        deps.append(d)
        lemmas.append(lem[0] if lem else w.lower())
    parse = None if tree is None else Tree.from_bracketed(tree)[0]
    return TinSource(id, words, list(entities), tags=tags, lemmas=lemmas, tree=parse, heads=heads, deps=deps)
