"""Generic CoNLL coreference files: any whitespace- or tab-separated file with
``#begin document`` / ``#end document`` lines whose *last* column holds the coreference
brackets: exactly what the reference scorer accepts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import admitted_documents
from lingtest.readers.coref.brackets import decode_coref
from lingtest.readers.coref.conll2012 import clusters_of
from lingtest.readers.coref.records import DuplicateOrder, Duplicates, Malformed
from lingtest.readers.textio import TextLimits, guarded

if TYPE_CHECKING:
    from lingtest.data.model import Document

__all__ = ["read_conll_coref"]


@guarded("documents")
def read_conll_coref(path: str | Path, *, word_column: int | None, duplicates: Duplicates, malformed: Malformed,
                     duplicate_documents: Duplicates | None, duplicate_order: DuplicateOrder, max_line_bytes: int,
                     max_file_bytes: int) -> Iterator[Document]:
    """Any CoNLL-style file whose last column holds the coreference brackets.

    The word is column ``word_column`` when given, else column 3 for 12+ columns (CoNLL-2012),
    column 1 for 3+ columns and column 0 otherwise. Blank lines are sentence breaks.
    ``duplicate_documents`` (``None``: as ``duplicates``) says what a document read twice does.
    ``duplicate_order`` says which occurrence of a mention annotated twice is the first (see
    :mod:`lingtest.readers.coref.brackets`; ``"file"`` or ``"reference"``, the reference scorer's).
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    """
    from lingtest.data.model import Document, Sentence, Token

    limits = TextLimits(max_line_bytes, max_file_bytes)
    for f, doc_id, part, raw in admitted_documents(path, min_columns=1, duplicates=duplicates, malformed=malformed,
                                                   duplicate_documents=duplicate_documents,
                                                   duplicate_order=duplicate_order, limits=limits):
        sentences = []
        for a, cols in zip(raw.sent_starts, raw.sents, strict=True):
            ncol = len(cols)
            wc = word_column if word_column is not None else (3 if ncol >= 12 else 1 if ncol >= 3 else 0)
            if wc >= max(ncol - 1, 1):
                raise InputError(f"word column {wc} does not exist before the coreference column "
                                 f"({ncol} columns)", path=f, line=raw.lines[a], field="word")
            sentences.append(Sentence(tokens=list(map(Token, cols[wc]))))
        ids, spans = decode_coref(raw, f, duplicates, malformed, doc_id, duplicate_order)
        yield Document(id=doc_id, part=part, sentences=sentences, clusters=clusters_of(ids, spans))
