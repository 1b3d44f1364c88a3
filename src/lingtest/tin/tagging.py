"""Part-of-speech tags for the token-level transformation's "same PTB tag in place" check.

A :class:`Tagger` tags pre-tokenised sentences with PTB tags. :class:`ParserTagger` reads them off
any lingtest parser (:func:`lingtest.parsing.get_parser`; wrap it in
:class:`~lingtest.parsing.cache.CachedParser` so no sentence is parsed twice). The paper uses
NLTK's tagger; lingtest uses the parser the rest of the pipeline uses, so a source and its
mutants are tagged by the same model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Tagger(Protocol):
    def tag(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """PTB tags of each sentence, one per token."""
        ...


class ParserTagger:
    """The ``tag`` of every token of ``parser.parse(sentences)``."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser

    def tag(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        if not sentences:
            return []
        parsed = self.parser.parse([list(s) for s in sentences])
        out = []
        for words, sent in zip(sentences, parsed, strict=True):
            if len(sent.tokens) != len(words):
                raise RuntimeError(f"parser returned {len(sent.tokens)} tokens for {len(words)} words")
            out.append([t.tag or "X" for t in sent.tokens])
        return out
