"""CoNLL-2012 ``*_conll`` files: doc id, part, word index, word, POS, parse bit, predicate lemma,
frameset, sense, speaker, named entity, predicate arguments..., coreference last.

The document id and part columns must repeat the ``#begin document (id); part NNN`` line (a
corrupt line would otherwise go unnoticed: no other column says which document a token is in).
Every column is kept: POS -> ``Token.tag``, lemma -> ``Token.lemma``, the parse bits ->
``Sentence.tree``, NE bits -> ``Document.entities`` (and IOB2 ``Token.ent``), speaker, frameset,
sense and argument columns -> ``Sentence.meta``. The number of argument columns differs from
sentence to sentence (one per predicate), so the column count is checked per sentence. Named
entity labels are checked against the configured tag set (``ne_labels``: OntoNotes 5.0's 18 types), parse trees against
``max_depth``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import LazyLines, RawDoc, admitted_documents
from lingtest.readers.coref.brackets import decode_coref
from lingtest.readers.coref.records import DuplicateOrder, Duplicates, Malformed, Span
from lingtest.readers.textio import TextLimits, guarded, shorten

if TYPE_CHECKING:
    from lingtest.data.model import Cluster, Document, Entity, Tree

__all__ = ["read_conll2012", "clusters_of", "check_index"]

_WORD_ESCAPES = {"/.": ".", "/?": "?"}
_NUMS: list[str] = []


def clusters_of(ids: list[str], spans: list[list[Span]]) -> list[Cluster]:
    from lingtest.data.model import Cluster, Mention

    return [Cluster(mentions=[Mention(s, e) for s, e in ss], id=cid)
            for cid, ss in zip(ids, spans, strict=True)]


def _numbers(n: int) -> list[str]:
    """``["0", "1", ..., str(n - 1)]`` (cached), to check index columns with one comparison."""
    if len(_NUMS) < n:
        _NUMS.extend(str(i) for i in range(len(_NUMS), n))
    return _NUMS[:n]


def check_index(col: list[str], start: int, raw: RawDoc, a: int, path: Path, field: str) -> None:
    """The index column must count up from ``start``; else name the first wrong line."""
    n = len(col)
    if col == _numbers(start + n)[start:]:
        return
    for j, v in enumerate(col):
        if v.strip() != str(start + j):
            raise InputError(f"{field} {v!r} where {start + j} was expected", path=path,
                             line=raw.lines[a + j], field=field)


def check_document_columns(ids: list[str], parts: list[str], doc_id: str, part: int | None, raw: RawDoc, a: int,
                           path: Path) -> None:
    """The document id and part columns of a sentence must repeat its ``#begin document`` line
    (the id with whitespace written ``_``; the part when the line gives one); else name the first
    wrong line. A block without a name is not checked."""
    if not raw.name:
        return
    expected = "_".join(doc_id.split())
    for j, (d, p) in enumerate(zip(ids, parts, strict=True)):
        if d != expected:
            raise InputError(f"document id {shorten(d)} where the '#begin document' line says {raw.name!r}",
                             path=path, line=raw.lines[a + j], field="document")
        if part is not None and (not (p.isascii() and p.isdigit()) or int(p) != part):
            raise InputError(f"part {shorten(p)} where the '#begin document' line says {part}", path=path,
                             line=raw.lines[a + j], field="part")


def _dash_none(v: str) -> str | None:
    return None if v in ("-", "_", "") else v


@guarded("documents")
def read_conll2012(path: str | Path, *, unescape: bool, duplicates: Duplicates, malformed: Malformed,
                   duplicate_documents: Duplicates | None, ne_labels: Collection[str] | None, max_depth: int,
                   duplicate_order: DuplicateOrder, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """CoNLL-2012 ``*_conll`` documents (several documents and parts per file), every column kept.

    ``Document.id``/``part`` come from ``#begin document (id); part NNN``; ``Sentence.meta`` holds
    ``speaker`` (or ``speakers`` when it changes inside the sentence), ``frameset``, ``sense`` and
    ``args`` (one list of bits per predicate column). With ``unescape`` the OntoNotes escapes
    ``/.`` and ``/?`` of conversational data become ``.`` and ``?`` (as e2e-coref's jsonlines).
    ``duplicates`` says what a mention annotated twice does (``error``, ``drop`` the repeat with
    a warning, ``keep``), ``duplicate_documents`` the same for a document key read twice
    (``None``: as ``duplicates``). ``ne_labels`` is the named-entity tag set (``None``: any
    label); ``max_depth`` bounds the parse-tree nesting.
    ``duplicate_order`` says which occurrence of a mention annotated twice is the first (see
    :mod:`lingtest.readers.coref.brackets`; ``"file"`` or ``"reference"``, the
    reference scorer's). ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    """
    from lingtest.data.model import Document, Sentence, Token

    limits = TextLimits(max_line_bytes, max_file_bytes)
    labels = frozenset(ne_labels) if ne_labels is not None else None
    for f, doc_id, part, raw in admitted_documents(path, min_columns=12, duplicates=duplicates, malformed=malformed,
                                                   duplicate_documents=duplicate_documents,
                                                   duplicate_order=duplicate_order, limits=limits):
        sentences: list[Sentence] = []
        entities: list[Entity] = []
        for a, cols in zip(raw.sent_starts, raw.sents, strict=True):
            n = len(cols[0])
            check_document_columns(cols[0], cols[1], doc_id, part, raw, a, f)
            check_index(cols[2], 0, raw, a, f, "word index")
            lines = LazyLines(raw, a)
            words = cols[3]
            if unescape and ("/." in words or "/?" in words):
                words = [_WORD_ESCAPES.get(w, w) for w in words]
            tokens = list(map(Token, words, [" "] * n, [None] * n, map(_dash_none, cols[4]),
                              map(_dash_none, cols[6])))
            sent_entities, iob = ne_spans(cols[10], lines, f, offset=a, labels=labels)
            if sent_entities or any(t is not None for t in iob):
                for t, tag in zip(tokens, iob, strict=True):
                    t.ent = tag
            entities.extend(sent_entities)
            tree = tree_from_bits(cols[5], cols[4], lines, f, max_depth)
            meta: dict[str, Any] = {}
            speakers = cols[9]
            if len(set(speakers)) == 1:
                if speakers[0] not in ("-", "_"):
                    meta["speaker"] = speakers[0]
            else:
                meta["speakers"] = list(speakers)
            for key, c in (("frameset", 7), ("sense", 8)):
                if any(v not in ("-", "_") for v in cols[c]):
                    meta[key] = cols[c]
            if len(cols) > 12:
                meta["args"] = cols[11:-1]
            sentences.append(Sentence(tokens=tokens, tree=tree, meta=meta))
        ids, spans = decode_coref(raw, f, duplicates, malformed, doc_id, duplicate_order)
        yield Document(id=doc_id, part=part, sentences=sentences, clusters=clusters_of(ids, spans),
                       entities=entities)


# --------------------------------------------------------------------------------------------
# Named entities and parse bits
# --------------------------------------------------------------------------------------------
_NE_OPEN = re.compile(r"\(([^()*\s]+)(\)|\*\)|\*)")


def ne_spans(bits: Sequence[str], lines: Sequence[int] | LazyLines, path: Path, offset: int,
             labels: frozenset[str] | None = None) -> tuple[list[Entity], list[str | None]]:
    """Named entities of one sentence from ``(GPE)``, ``(ORG*``, ``*``, ``*)`` bits, plus IOB2 tags;
    a label outside ``labels`` (when given) is an error."""
    from lingtest.data.model import Entity

    entities: list[Entity] = []
    iob: list[str | None] = []
    label: str | None = None
    start = 0
    if all(b in ("-", "_") for b in bits):
        return entities, [None] * len(bits)
    for i, b in enumerate(bits):
        if b == "*":
            iob.append(f"I-{label}" if label else "O")
            continue
        if b.startswith("("):
            if label is not None:
                raise InputError(f"named entity {shorten(b)} opens inside the open entity {label!r}",
                                 path=path, line=lines[i], field="ne")
            m = _NE_OPEN.fullmatch(b)
            if m is None:
                raise InputError(f"malformed named-entity bit {shorten(b)} (expected (LABEL), (LABEL* or "
                                 "(LABEL*))", path=path, line=lines[i], field="ne")
            inner, closed = m.group(1), m.group(2) != "*"
            if labels is not None and inner not in labels:
                raise InputError(f"unknown named-entity label {shorten(inner)} (expected one of "
                                 f"{', '.join(sorted(labels))}; ne_labels=None accepts any)",
                                 path=path, line=lines[i], field="ne")
            iob.append(f"B-{inner}")
            if closed:
                entities.append(Entity(offset + i, offset + i + 1, inner))
            else:
                label, start = inner, i
            continue
        if b in ("*)", ")"):
            if label is None:
                raise InputError(f"named entity closes ({shorten(b)}) but none is open", path=path,
                                 line=lines[i], field="ne")
            iob.append(f"I-{label}")
            entities.append(Entity(offset + start, offset + i + 1, label))
            label = None
            continue
        raise InputError(f"malformed named-entity bit {shorten(b)}", path=path, line=lines[i], field="ne")
    if label is not None:
        raise InputError(f"named entity {label!r} is not closed at the end of the sentence",
                         path=path, line=lines[start], field="ne")
    return entities, iob


_PARSE_PIECE = re.compile(r"\(([^()*\s_]+)|\*|\)|[_\s]+")


def tree_from_bits(bits: Sequence[str], pos: Sequence[str], lines: Sequence[int] | LazyLines, path: Path,
                   max_depth: int) -> Tree | None:
    """Rebuild a sentence's constituency tree from its CoNLL parse bits (``(TOP(S(NP*``, ``*)``).

    Each ``*`` is the token's preterminal, labelled with its POS tag. Underscores, used by some
    conversions as spaces (``(TOP_(S_(NP_*``), are ignored. ``-`` everywhere means no tree.
    """
    from lingtest.data.model import Tree

    if all(b in ("-", "") for b in bits) or not any("(" in b for b in bits):
        return None  # no parse in this file (system output often leaves '-' or '*')
    root: Tree | None = None
    stack: list[Tree] = []
    for i, b in enumerate(bits):
        stars = 0
        pos_ = 0
        for m in _PARSE_PIECE.finditer(b):
            if m.start() != pos_:
                break
            pos_ = m.end()
            tok = m.group(0)
            if m.group(1) is not None:
                node = Tree(label=m.group(1))
                if stack:
                    stack[-1].children.append(node)
                elif root is None:
                    root = node
                else:
                    raise InputError("a second tree starts in the same sentence", path=path,
                                     line=lines[i], field="parse")
                stack.append(node)
                if len(stack) >= max_depth:  # the preterminal below adds one more level
                    raise InputError(f"parse brackets nested deeper than {max_depth} (max_depth)",
                                     path=path, line=lines[i], field="parse")
            elif tok == "*":
                if stars or not stack:
                    raise InputError(f"malformed parse bit {shorten(b)}", path=path, line=lines[i],
                                     field="parse")
                stars = 1
                stack[-1].children.append(Tree(label=pos[i], token=i))
            elif tok == ")":
                if not stack:
                    raise InputError(f"parse bit {shorten(b)} closes more brackets than are open",
                                     path=path, line=lines[i], field="parse")
                if not stack[-1].children:
                    raise InputError(f"parse bit {shorten(b)} closes a constituent without words",
                                     path=path, line=lines[i], field="parse")
                stack.pop()
        if pos_ != len(b) or not stars:
            raise InputError(f"malformed parse bit {shorten(b)}", path=path, line=lines[i], field="parse")
    if stack or root is None:
        raise InputError("parse bits of the sentence leave brackets open", path=path,
                         line=lines[len(bits) - 1], field="parse")
    return root
