"""Generic CoNLL coreference files: any whitespace- or tab-separated file with
``#begin document`` / ``#end document`` lines whose *last* column holds the coreference
brackets: exactly what the reference scorer accepts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import doc_name_parts, input_files, iter_raw, stem
from lingtest.readers.coref.brackets import decode_coref
from lingtest.readers.coref.conll2012 import clusters_of
from lingtest.readers.coref.records import DocumentIds, DuplicateOrder, Duplicates, Malformed, check_options
from lingtest.readers.textio import guarded

if TYPE_CHECKING:
    from lingtest.data.model import Document

__all__ = ["read_conll_coref"]


@guarded("documents")
def read_conll_coref(path: str | Path, *, word_column: int | None = None,
                     duplicates: Duplicates = "error", malformed: Malformed = "error",
                     duplicate_documents: Duplicates | None = None,
                 duplicate_order: DuplicateOrder = "file") -> Iterator[Document]:
    """Any CoNLL-style file whose last column holds the coreference brackets.

    The word is column ``word_column`` when given, else column 3 for 12+ columns (CoNLL-2012),
    column 1 for 3+ columns and column 0 otherwise. Blank lines are sentence breaks.
    ``duplicate_documents`` (default: as ``duplicates``) says what a document read twice does.
    ``duplicate_order`` says which occurrence of a mention annotated twice is the first (see
    :mod:`lingtest.readers.coref.brackets`; ``"file"``, the default here, or ``"reference"``, the
    reference scorer's).
    """
    from lingtest.data.model import Document, Sentence, Token

    check_options(duplicates, malformed, duplicate_order)
    seen = DocumentIds(duplicate_documents or duplicates)
    for f in input_files(path):
        for index, raw in enumerate(iter_raw(f, min_columns=1)):
            doc_id, part = doc_name_parts(raw.name, stem(f), index)
            if not seen.admit(doc_id if part is None else f"{doc_id}#{part}", f, raw.begin_line):
                continue
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
