"""The coreference task: its protocol (documents -> clusters) and how its inputs and outputs travel.

A system takes tokenised (maybe parsed) :class:`~lingtest.data.model.Document` objects and returns,
per document, its predicted :class:`~lingtest.data.model.Cluster` list in the input's
document-level token offsets (exclusive end). Systems never read the gold ``clusters`` of their
input.
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lingtest.data.model import Cluster, Document, Mention, Sentence, Token
from lingtest.systems.base import System
from lingtest.systems.tasks import Task, bad


class CorefSystem(System[Document, list[Cluster]]):
    """A coreference system: ``predict(docs) -> clusters per doc``."""

    task: ClassVar[str] = "coref"
    name: str = "coref"

    @abstractmethod
    def predict(self, inputs: list[Document]) -> list[list[Cluster]]:
        """Clusters for each document, in input order, with document-level token offsets."""


class CorefTask(Task):
    """Inputs are documents (only their tokens and sentence breaks count), outputs cluster lists."""

    name: ClassVar[str] = "coref"

    def key(self, item: Document) -> str:
        return item.content_hash()

    def encode_input(self, item: Document) -> dict[str, Any]:
        return {"id": item.key, "sentences": [s.words for s in item.sentences]}

    def decode_input(self, data: Any, where: str = "input") -> Document:
        if not isinstance(data, dict) or not isinstance(data.get("sentences"), list):
            raise bad(where, "expected {'id': str, 'sentences': [[token, ...], ...]}")
        sents = []
        for i, words in enumerate(data["sentences"]):
            if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
                raise bad(f"{where}.sentences[{i}]", "expected a non-empty list of non-empty strings")
            sents.append(Sentence(tokens=[Token(w) for w in words]))
        return Document(id=str(data.get("id", "")), sentences=sents)

    def encode_output(self, output: Sequence[Cluster]) -> list[list[list[int]]]:
        return [[[m.start, m.end] for m in c.mentions] for c in output]

    def decode_output(self, data: Any, where: str = "output") -> list[Cluster]:
        if not isinstance(data, list):
            raise bad(where, "expected a list of clusters")
        out = []
        for i, c in enumerate(data):
            if not isinstance(c, list):
                raise bad(f"{where}[{i}]", "expected a list of [start, end] mentions")
            ms = []
            for j, m in enumerate(c):
                if (not isinstance(m, list) or len(m) != 2
                        or not all(isinstance(v, int) and not isinstance(v, bool) for v in m) or not 0 <= m[0] < m[1]):
                    raise bad(f"{where}[{i}][{j}]", f"expected [start, end] with 0 <= start < end, got {m!r}")
                ms.append(Mention(m[0], m[1]))
            out.append(Cluster(mentions=ms))
        return out

    def from_payload(self, payload: dict[str, Any]) -> Document:
        doc = Document.from_dict(payload)
        doc.clusters = []  # systems never see gold
        return doc


def is_parsed(doc: Document) -> bool:
    """Every token has a head (a dependency parse is present)."""
    return all(t.head is not None for s in doc.sentences for t in s.tokens)


def ensure_parsed(docs: Sequence[Document], parser: str = "spacy",
                  parser_options: Mapping[str, Any] | None = None, _cache: dict | None = None) -> list[Document]:
    """The documents with a dependency parse: parsed ones are returned as they are, the others are
    parsed (through the parser registry) on copies without their gold clusters. Sentences go through
    the persistent parse cache (:class:`~lingtest.parsing.cache.CachedParser`), so the systems that
    read the same documents (the coreference systems of one suite, in their own stages) parse each
    sentence once between them."""
    todo = [i for i, d in enumerate(docs) if not is_parsed(d)]
    out = list(docs)
    if not todo:
        return out
    from lingtest.parsing import get_parser
    from lingtest.parsing.cache import CachedParser

    key = (parser, tuple(sorted((parser_options or {}).items())))
    if _cache is not None and key in _cache:
        p = _cache[key]
    else:
        p = CachedParser(get_parser(parser, **dict(parser_options or {})))
        if _cache is not None:
            _cache[key] = p
    stripped = []
    for i in todo:
        d = copy.copy(docs[i])
        d.clusters = []
        stripped.append(d)
    parsed = p.parse_documents(stripped)
    for i, d in zip(todo, parsed, strict=True):
        out[i] = d
    return out


def iterate(items: Sequence[Any], progress: bool, description: str):
    """``items``, with a rich progress bar when ``progress`` (stages set it for long runs)."""
    if not progress or len(items) < 2:
        return items
    from rich.progress import track

    return track(items, description=description, total=len(items))


def normalise_clusters(clusters: Sequence[Sequence[tuple[int, int]]], *, keep_singletons: bool = False,
                       n_tokens: int | None = None) -> list[Cluster]:
    """Spans to sorted, de-duplicated :class:`Cluster` objects (a span is kept in its first cluster);
    out-of-range spans are dropped, singletons unless asked for."""
    seen: set[tuple[int, int]] = set()
    out: list[Cluster] = []
    for spans in clusters:
        ms = []
        for s, e in sorted(set((int(s), int(e)) for s, e in spans)):
            if e <= s or s < 0 or (n_tokens is not None and e > n_tokens) or (s, e) in seen:
                continue
            seen.add((s, e))
            ms.append(Mention(s, e))
        if ms and (keep_singletons or len(ms) > 1):
            out.append(Cluster(mentions=ms))
    out.sort(key=lambda c: (c.mentions[0].start, c.mentions[0].end))
    return out
