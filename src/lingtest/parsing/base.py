"""The parser interface every backend implements, and the shared merge of parses into documents.

A parser takes **pre-tokenised** sentences (``list[list[str]]``) and returns one
:class:`~lingtest.data.Sentence` per input with POS (UPOS), tag (PTB), lemma, head
(sentence-relative, ``-1`` root), dep, ent (IOB2), morph and a constituency ``tree``. It never
re-tokenises: output sentence ``i`` has exactly the words of input ``i``.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from lingtest.data.model import Document, Sentence, Token

__all__ = ["Parser", "BaseParser", "merge_parse", "parse_documents_with"]


@runtime_checkable
class Parser(Protocol):
    """Structural type of a parser (backends and :class:`~lingtest.parsing.cache.CachedParser`)."""

    name: str

    def parse(self, sentences: list[list[str]]) -> list[Sentence]: ...

    def parse_documents(self, docs: list[Document]) -> list[Document]: ...


class BaseParser(ABC):
    """Base class of the backends: subclasses implement :meth:`parse` and :meth:`fingerprint`."""

    name: str = "parser"

    @abstractmethod
    def parse(self, sentences: list[list[str]]) -> list[Sentence]:
        """Parse pre-tokenised sentences (batched); one output sentence per input, same words."""

    def fingerprint(self) -> dict[str, Any]:
        """What determines the output (backend, model, version, options): used as cache key."""
        return {"name": self.name}

    def parse_documents(self, docs: list[Document]) -> list[Document]:
        """Copies of ``docs`` whose sentences carry the parse; clusters, gold entities, ids and meta
        are untouched and token ``text``/``ws`` are kept as given."""
        return parse_documents_with(self, docs)


def parse_documents_with(parser: Any, docs: Sequence[Document]) -> list[Document]:
    """Parse every sentence of ``docs`` in one batched ``parser.parse`` call and merge the result
    into deep copies of the documents (see :func:`merge_parse`)."""
    words = [s.words for d in docs for s in d.sentences]
    parsed = parser.parse(words) if words else []
    if len(parsed) != len(words):
        raise RuntimeError(f"parser returned {len(parsed)} sentences for {len(words)} inputs")
    out: list[Document] = []
    it = iter(parsed)
    for d in docs:
        nd = copy.deepcopy(d)
        nd.sentences = [merge_parse(s, next(it)) for s in nd.sentences]
        out.append(nd)
    return out


def merge_parse(original: Sentence, parsed: Sentence) -> Sentence:
    """``original`` with the annotation of ``parsed`` (same words) copied onto its tokens.

    Keeps the original token text and whitespace, sentence id, label and meta.
    """
    if len(original.tokens) != len(parsed.tokens):
        raise ValueError(f"parse has {len(parsed.tokens)} tokens, sentence has {len(original.tokens)}")
    tokens = []
    for o, p in zip(original.tokens, parsed.tokens, strict=True):
        tokens.append(Token(text=o.text, ws=o.ws, pos=p.pos, tag=p.tag, lemma=p.lemma, head=p.head, dep=p.dep,
                            ent=p.ent, morph=p.morph))
    return Sentence(tokens=tokens, tree=parsed.tree, id=original.id, label=original.label,
                    meta=dict(original.meta))
