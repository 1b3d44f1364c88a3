"""OntoGUM 3-column coreference files: ``index token coref``, one document per file, empty
document name, no sentence breaks; sentences and gold UD annotations come from GUM's
``dep/<doc>.conllu`` (parsed by :mod:`lingtest.readers.conllu`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import RawDoc, admitted_documents
from lingtest.readers.coref.brackets import decode_coref
from lingtest.readers.coref.conll2012 import check_index, clusters_of
from lingtest.readers.coref.records import DuplicateOrder, Duplicates, Malformed
from lingtest.readers.textio import TextLimits, guarded, read_lines

if TYPE_CHECKING:
    from lingtest.data.model import Document, Sentence

__all__ = ["read_ontogum", "sentences_from_conllu"]


@guarded("documents")
def read_ontogum(path: str | Path, *, conllu_dir: str | Path | None, duplicates: Duplicates, malformed: Malformed,
                 duplicate_documents: Duplicates | None, duplicate_order: DuplicateOrder, max_line_bytes: int,
                 max_file_bytes: int) -> Iterator[Document]:
    """OntoGUM 3-column coreference files (``index token coref``), one document per file.

    The document id is the file name (the files leave the name after ``# begin document`` empty).
    OntoGUM has no sentence breaks: with ``conllu_dir`` (GUM's ``dep`` folder) the sentences and
    gold UD annotations (UPOS, XPOS, lemma, head, deprel, features, SpaceAfter) are taken from
    ``<conllu_dir>/<doc>.conllu`` after checking that both files hold the same tokens (an empty
    token in the coreference file, as in ``GUM_news_iodine``, takes the CoNLL-U form); without it
    each document is one sentence. ``path`` may be a directory of ``*.conll`` files.

    The released OntoGUM has one stray closing bracket (``GENTLE_poetry_road``) and nine mentions
    annotated in two clusters (``GENTLE_poetry_raven``, ``GUM_bio_emperor``, ...): read the whole
    corpus with ``malformed="warn", duplicates="drop"`` (each flaw is reported as a warning).
    ``duplicate_documents`` says what a document read twice does (``None``: as ``duplicates``).
    ``duplicate_order`` says which occurrence of a mention annotated twice is the first (see
    :mod:`lingtest.readers.coref.brackets`; ``"file"`` or ``"reference"``, the reference scorer's).
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read (both files).
    """
    from lingtest.data.model import Document, Sentence, Token

    limits = TextLimits(max_line_bytes, max_file_bytes)
    for f, doc_id, part, raw in admitted_documents(path, min_columns=3, duplicates=duplicates, malformed=malformed,
                                                   duplicate_documents=duplicate_documents,
                                                   duplicate_order=duplicate_order, limits=limits):
        words: list[str] = []
        for a, cols in zip(raw.sent_starts, raw.sents, strict=True):
            if len(cols) != 3:
                raise InputError(f"OntoGUM lines have 3 columns (index, token, coref), found "
                                 f"{len(cols)}", path=f, line=raw.lines[a])
            check_index(cols[0], a, raw, a, f, "index")
            words.extend(cols[1])
        if conllu_dir is not None:
            sentences = sentences_from_conllu(Path(conllu_dir) / f"{doc_id}.conllu", words, f, raw, limits)
        else:
            sentences = [Sentence(tokens=list(map(Token, words)))] if words else []
        ids, spans = decode_coref(raw, f, duplicates, malformed, doc_id, duplicate_order)
        yield Document(id=doc_id, part=part, sentences=sentences, clusters=clusters_of(ids, spans))


def sentences_from_conllu(conllu: Path, words: list[str], coref_path: Path, raw: RawDoc,
                          limits: TextLimits | None = None) -> list[Sentence]:
    """Sentences of a CoNLL-U file whose word sequence must equal ``words`` (gold UD annotations;
    an empty word takes the CoNLL-U form), read within ``limits``. ``Sentence.meta`` stays empty."""
    from lingtest.data.model import Sentence
    from lingtest.readers.conllu import parse_conllu  # imports the data model: not on the scoring path

    if not conllu.is_file():
        raise InputError(f"no CoNLL-U file {conllu} for this document (conllu_dir is set)",
                         path=coref_path, line=raw.begin_line)
    sentences: list[Sentence] = []
    n = 0
    for s in parse_conllu(read_lines(conllu, limits=limits), conllu):
        forms = [t.text for t in s.tokens]
        m = len(forms)
        if forms != words[n: n + m]:
            for j, form in enumerate(forms):
                if n + j >= len(words):
                    raise InputError(f"the CoNLL-U file has more words than the coreference file "
                                     f"({len(words)}); first extra word {form!r}", path=conllu,
                                     line=s.lines[j])
                if words[n + j] and words[n + j] != form:
                    raise InputError(f"token {n + j} is {words[n + j]!r} in the coreference file but "
                                     f"{form!r} in {conllu}: the files do not hold the same text",
                                     path=coref_path, line=raw.lines[n + j], field="token")
        sentences.append(Sentence(tokens=s.tokens, id=s.id))
        n += m
    if n != len(words):
        raise InputError(f"the coreference file has {len(words)} tokens but {conllu} has only {n} words",
                         path=coref_path, line=raw.lines[n] if n < len(raw.lines) else None, field="token")
    return sentences
