"""Small fakes for the baseline tests (imported by name): sources parsed by CREST's fake parser, a table-driven
fill proposer, a tiny WordNet, a bag-of-words embedder and the parts holder."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
from crest_fakes import FakeParser

from lingtest.crest.generate import MemoParser, Source
from lingtest.data.model import Cluster, Document, Mention, Sentence, Token
from lingtest.resources.fill import Fill


def make_source(text: str, clusters: Sequence[Sequence[tuple[int, int]]], doc_id: str = "d:s0",
                ents: dict[int, str] | None = None, ws: dict[int, str] | None = None) -> Source:
    """A source parsed by the fake parser, with IOB ``ents`` and whitespace ``ws`` by token."""
    words = text.split()
    parsed = FakeParser().parse([words])[0]
    tokens = [Token.from_dict(t.to_dict()) for t in parsed.tokens]
    for i, t in enumerate(tokens):
        t.ent = (ents or {}).get(i, "O")
        t.ws = (ws or {}).get(i, " ")
    doc = Document(doc_id, sentences=[Sentence(tokens, tree=parsed.tree)],
                   clusters=[Cluster([Mention(s, e) for s, e in c]) for c in clusters])
    return Source.from_document(doc)


class TableFill:
    """Fills from a table ``word -> [(fill, score), ...]`` (best first), at most ``k``."""

    name = "table"
    score_kind = "prob"

    def __init__(self, table: dict[str, list[tuple[str, float]]]) -> None:
        self.table = table
        self.requests: list[tuple[tuple[str, ...], int]] = []

    def propose_many(self, requests, k):
        out = []
        for tokens, position in requests:
            self.requests.append((tuple(tokens), position))
            got = self.table.get(tokens[position].lower(), [])
            out.append([Fill(w, s) for w, s in got][:k])
        return out


class TinyWordNet:
    """``synsets(word)`` from a table of synonym sets; ``morphy`` strips a final *ed*, *d* or *s* when the rest
    is a known word."""

    def __init__(self, synsets: Sequence[Sequence[str]]) -> None:
        self.sets = [list(s) for s in synsets]

    def synsets(self, word, pos=None):
        return [SimpleNamespace(lemmas=lambda s=s: [SimpleNamespace(name=lambda n=n: n) for n in s])
                for s in self.sets if word.lower() in s]

    def morphy(self, word, pos=None):
        known = {w for s in self.sets for w in s}
        for suffix in ("ed", "d", "s"):
            if word.endswith(suffix) and word[: -len(suffix)] in known:
                return word[: -len(suffix)]
        return word if word in known else None


class BagEmbedder:
    """Unit vectors of hashed word counts: sentences sharing more words are more similar."""

    def encode(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float64)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, int(hashlib.sha256(w.encode()).hexdigest(), 16) % 64] += 1.0
            out[i] /= max(np.linalg.norm(out[i]), 1e-9)
        return out


class FakeParts:
    def __init__(self, fill=None, wordnet=None, embedder=None) -> None:
        self.parser = MemoParser(FakeParser())
        self.fill = fill
        self.wordnet = wordnet
        self.embedder = embedder

    def close(self) -> None:
        self.parser.close()
