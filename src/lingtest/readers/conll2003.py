"""CoNLL-2003 NER reader (file format and the Hugging Face ``conll2003`` records).

The file format has one token per line with four space-separated columns ``word POS chunk NER``;
blank lines separate sentences and ``-DOCSTART- -X- -X- O`` lines start documents. The NER
column is written either in IOB1 (the original 2003 release: an entity starts with ``I-`` and
``B-`` only separates two adjacent entities of the same type) or IOB2 (every entity starts with
``B-``; the form most copies, including Hugging Face's, use). Both are read and converted to
IOB2 in :attr:`Token.ent`; entity spans also go to :attr:`Document.entities` (document-level,
exclusive end). The POS column goes to :attr:`Token.tag` (PTB tags) and the chunk column to
``Sentence.meta["chunk"]``.

One :class:`Document` is yielded per ``-DOCSTART-`` document (sentences before the first
``-DOCSTART-``, or a whole file without any, form one document). Ids are positional and so
stable for a given file: ``<prefix>-<doc index:04d>``, sentences ``<doc id>-s<index>``.

Entity types are checked against ``entity_types`` (CoNLL-2003's ``PER``, ``LOC``, ``ORG``,
``MISC`` by default): a file without its NER column, whose last column is then the chunk column
(``B-NP``, ``I-VP``), or a tag such as ``B-BOGUS`` or ``B-O`` is an error, never read as entities.
So is a token line whose POS tag is ``-X-``, the tag of ``-DOCSTART-`` lines only: a damaged
``-DOCSTART-`` would otherwise become a token and merge two documents.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import Document, Entity, Sentence, Token
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, control_character, guarded, is_int, read_lines, shorten, split_fields

_TAG_RE = re.compile(r"^(?:O|[BI]-[^\s-][^\s]*)$")


SCHEMES = ("auto", "iob1", "iob2")


# --------------------------------------------------------------------------------------------
# IOB handling (pure functions)
# --------------------------------------------------------------------------------------------
def _split_tag(tag: str) -> tuple[str, str | None]:
    return ("O", None) if tag == "O" else (tag[0], tag[2:])


def starts_with_inside(tags: Sequence[str]) -> int | None:
    """Index of the first ``I-X`` tag that opens an entity (previous tag neither ``B-X`` nor
    ``I-X``), or ``None``. Such a tag is legal IOB1 but illegal IOB2."""
    prev_type: str | None = None
    for i, tag in enumerate(tags):
        prefix, typ = _split_tag(tag)
        if prefix == "I" and typ != prev_type:
            return i
        prev_type = typ
    return None


def detect_scheme(sentences: Iterable[Sequence[str]]) -> str:
    """``"iob1"`` when some entity starts with ``I-`` in any sentence, else ``"iob2"``."""
    for tags in sentences:
        if starts_with_inside(tags) is not None:
            return "iob1"
    return "iob2"


def iob1_to_iob2(tags: Sequence[str]) -> list[str]:
    """Convert IOB1 tags to IOB2: an ``I-X`` that opens an entity becomes ``B-X``.

    ``B-X`` keeps its meaning (start of an entity right after another ``X``). IOB2 input is
    returned unchanged, so the function is idempotent.
    """
    out: list[str] = []
    prev_type: str | None = None
    for tag in tags:
        prefix, typ = _split_tag(tag)
        if prefix == "I" and typ != prev_type:
            out.append(f"B-{typ}")
        else:
            out.append(tag)
        prev_type = typ
    return out


def iob2_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entity spans ``(start, end, type)`` (exclusive end) from IOB2 tags."""
    spans: list[tuple[int, int, str]] = []
    start: int | None = None
    cur: str | None = None
    for i, tag in enumerate([*tags, "O"]):
        prefix, typ = _split_tag(tag)
        if cur is not None and (prefix != "I" or typ != cur):
            spans.append((start, i, cur))  # type: ignore[arg-type]
            start, cur = None, None
        if prefix == "B" or (prefix == "I" and cur is None):
            start, cur = i, typ
    return spans


# --------------------------------------------------------------------------------------------
# file reader
# --------------------------------------------------------------------------------------------
class _RawSentence:
    __slots__ = ("rows", "linenos")

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.linenos: list[int] = []


def _parse_file(path: Path, encoding: str, types: frozenset[str] | None,
                limits: TextLimits) -> list[list[_RawSentence]]:
    """Group lines into documents of sentences of rows; checks column counts, tags and types."""
    docs: list[list[_RawSentence]] = [[]]
    cur = _RawSentence()
    ncols: int | None = None
    first_row_line = 0

    def close_sentence() -> None:
        nonlocal cur
        if cur.rows:
            docs[-1].append(cur)
        cur = _RawSentence()

    for lineno, line in enumerate(read_lines(path, encoding, limits), start=1):
        cols = split_fields(line)
        if not cols:
            close_sentence()
            continue
        if cols[0] == "-DOCSTART-":
            close_sentence()
            if docs[-1]:
                docs.append([])
            continue
        if len(cols) >= 3 and cols[1] == "-X-":
            raise InputError(f"a token with the POS tag -X- of -DOCSTART- lines: a damaged -DOCSTART- line "
                             f"({shorten(cols[0])})?", path=path, line=lineno, field="word")
        if ncols is None:
            if len(cols) < 2:
                raise InputError("expected at least 2 columns (word ... NER tag), found 1", path=path,
                                 line=lineno)
            ncols, first_row_line = len(cols), lineno
        elif len(cols) != ncols:
            raise InputError(f"expected {ncols} columns (as on line {first_row_line}), found {len(cols)}",
                             path=path, line=lineno)
        tag = cols[-1]
        if not _TAG_RE.match(tag):
            raise InputError(f"invalid NER tag {shorten(tag)} (expected O, B-TYPE or I-TYPE)", path=path,
                             line=lineno, field="ner")
        if types is not None and tag != "O" and tag[2:] not in types:
            raise InputError(f"unknown entity type {shorten(tag[2:])} in {shorten(tag)} (expected one of "
                             f"{', '.join(sorted(types))}; is the NER column missing?)", path=path,
                             line=lineno, field="ner")
        cur.rows.append(cols)
        cur.linenos.append(lineno)
    close_sentence()
    return [d for d in docs if d]


@guarded("sentences")
def read_conll2003(path: str | Path, *, scheme: str, split: str | None, id_prefix: str | None, encoding: str,
                   entity_types: Collection[str] | None, max_line_bytes: int,
                   max_file_bytes: int) -> Iterator[Document]:
    """Read a CoNLL-2003 NER file; yield one :class:`Document` per ``-DOCSTART-`` document.

    ``scheme`` is the tagging scheme of the NER column: ``"iob1"``, ``"iob2"`` (an entity that
    starts with ``I-`` is then an error) or ``"auto"`` (IOB1 when any entity in the file starts
    with ``I-``, else IOB2). Tags are stored as IOB2 either way. ``split`` is copied onto
    every document; ``id_prefix`` defaults to the file stem (``train``, ``valid``...).
    Columns: ``word POS chunk NER`` (4), ``word POS NER`` (3) or ``word NER`` (2).
    ``entity_types`` is the tag set of the NER column (``None`` accepts any type).
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read (:class:`TextLimits`).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    path = Path(path)
    docs = _parse_file(path, encoding, frozenset(entity_types) if entity_types is not None else None,
                      TextLimits(max_line_bytes, max_file_bytes))
    if scheme == "auto":
        scheme = detect_scheme([row[-1] for row in s.rows] for d in docs for s in d)
    prefix = id_prefix if id_prefix is not None else path.stem
    for di, raw_doc in enumerate(docs):
        doc_id = f"{prefix}-{di:04d}"
        sentences: list[Sentence] = []
        entities: list[Entity] = []
        offset = 0
        for si, raw in enumerate(raw_doc):
            tags = [row[-1] for row in raw.rows]
            if scheme == "iob2":
                bad = starts_with_inside(tags)
                if bad is not None:
                    raise InputError(f"tag {shorten(tags[bad])} opens an entity, which IOB2 does not allow "
                                     "(read with scheme='iob1' or 'auto')", path=path, line=raw.linenos[bad],
                                     field="ner")
            else:
                tags = iob1_to_iob2(tags)
            ncols = len(raw.rows[0])
            tokens = [Token(text=row[0], tag=row[1] if ncols >= 3 else None, ent=tag)
                      for row, tag in zip(raw.rows, tags, strict=True)]
            meta: dict[str, Any] = {}
            if ncols >= 4:
                meta["chunk"] = [row[2] for row in raw.rows]
            sentences.append(Sentence(tokens=tokens, id=f"{doc_id}-s{si}", meta=meta))
            entities.extend(Entity(offset + s, offset + e, t) for s, e, t in iob2_spans(tags))
            offset += len(tokens)
        yield Document(id=doc_id, sentences=sentences, entities=entities, split=split,
                       meta={"source": str(path.name), "scheme_in": scheme})


# --------------------------------------------------------------------------------------------
# Hugging Face ``conll2003`` records
# --------------------------------------------------------------------------------------------
HF_NER_NAMES = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")


def from_hf_conll2003(records: Iterable[Mapping[str, Any]], label_names: Sequence[str] = HF_NER_NAMES, *,
                      pos_names: Sequence[str] | None = None, split: str | None = None,
                      id_prefix: str = "hf", source: str = "<hf records>") -> Iterator[Document]:
    """Convert Hugging Face ``conll2003`` rows (``id``, ``tokens``, ``ner_tags`` as ints, optional
    ``pos_tags``) to one single-sentence :class:`Document` each.

    ``label_names`` maps NER ints to tags (``dataset.features["ner_tags"].feature.names``; the
    default is the published order). ``pos_names`` does the same for ``pos_tags``; without it
    POS ints are kept as strings. HF tags are IOB2; IOB1 input is converted all the same.
    Errors name ``source`` as the file, the record index as ``line`` (1-based) and the field.
    """
    seen: dict[str, int] = {}
    for i, rec in enumerate(records, start=1):
        where: dict[str, Any] = {"path": source, "line": i}
        if not isinstance(rec, Mapping):
            raise InputError(f"expected a record (mapping), found {type(rec).__name__}", **where)
        for key in ("tokens", "ner_tags"):
            if key not in rec:
                raise InputError("missing field", field=key, **where)
        words, ner = rec["tokens"], rec["ner_tags"]
        if not isinstance(words, Sequence) or isinstance(words, str) or \
                not all(isinstance(w, str) for w in words):
            raise InputError("tokens must be a list of strings", field="tokens", **where)
        if not isinstance(ner, Sequence) or isinstance(ner, str):
            raise InputError("ner_tags must be a list of label ids", field="ner_tags", **where)
        words, ner = list(words), list(ner)
        if not words:
            raise InputError("empty sentence", field="tokens", **where)
        if any(control_character(w) or not w for w in words):
            raise InputError("a token is empty or holds a control character", field="tokens", **where)
        if len(ner) != len(words):
            raise InputError(f"{len(ner)} tags for {len(words)} tokens", field="ner_tags", **where)
        if not all(is_int(t) and 0 <= t < len(label_names) for t in ner):
            raise InputError(f"NER ids {ner} are not integers in label_names (size {len(label_names)})",
                             field="ner_tags", **where)
        tags = [label_names[t] for t in ner]
        pos_raw = rec.get("pos_tags")
        pos: list[str | None] = [None] * len(words)
        if pos_raw is not None:
            if not isinstance(pos_raw, Sequence) or isinstance(pos_raw, str) or len(pos_raw) != len(words):
                raise InputError(f"expected {len(words)} POS tags, one per token", field="pos_tags", **where)
            if pos_names is not None:
                if not all(is_int(p) and 0 <= p < len(pos_names) for p in pos_raw):
                    raise InputError("POS ids are not integers in pos_names", field="pos_tags", **where)
                pos = [pos_names[p] for p in pos_raw]
            else:
                if not all(is_int(p) or isinstance(p, str) for p in pos_raw):
                    raise InputError("POS tags must be integers or strings", field="pos_tags", **where)
                pos = [str(p) for p in pos_raw]
        tags = iob1_to_iob2(tags)
        raw_id = rec.get("id", i - 1)
        if not (is_int(raw_id) or isinstance(raw_id, str)):
            raise InputError(f"id must be a string or an integer, found {type(raw_id).__name__}", field="id",
                             **where)
        rid = str(raw_id)
        if rid in seen:
            raise InputError(f"record id {rid!r} occurs twice (first at record {seen[rid]})", field="id",
                             **where)
        seen[rid] = i
        doc_id = f"{id_prefix}-{rid}"
        tokens = [Token(text=w, tag=p, ent=t) for w, p, t in zip(words, pos, tags, strict=True)]
        yield Document(id=doc_id, sentences=[Sentence(tokens=tokens, id=f"{doc_id}-s0")],
                       entities=[Entity(s, e, t) for s, e, t in iob2_spans(tags)], split=split)
