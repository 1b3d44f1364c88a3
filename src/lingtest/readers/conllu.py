"""The one CoNLL-U parser (UD treebanks; GUM's ``dep/*.conllu`` under OntoGUM).

:func:`parse_conllu` turns the lines of a CoNLL-U file into :class:`ConlluSentence` records:
syntactic words (multiword token ranges ``1-2`` skipped, their ``SpaceAfter`` passed to their
last word, whose inner words get no space; empty nodes ``1.1`` skipped), UPOS, XPOS, lemma, head
(0-based, ``-1`` root), deprel, feats; ``# sent_id`` and the other ``key = value`` comments;
``# newdoc id`` marks the sentence that starts a new document (``meta::``/``global.`` comments
between it and its first word go to the document). :func:`read_conllu` groups them into
Documents; :mod:`lingtest.readers.coref.ontogum` aligns them with a coreference file.

Checked: 10 tab-separated columns, none empty (``_`` stands for a missing value), word ids
counting up from 1 within a sentence, token ranges that start at the next word, integer heads
inside the sentence, UPOS one of the 17 universal tags, DEPREL a universal relation with an optional
lower-case subtype (``nsubj:pass``), FEATS ``Feature=Value`` pairs and DEPS ``head:relation`` pairs,
no comment between the words of a sentence, and a blank line after every sentence, the last one
too (a file that stops inside a sentence is truncated). ``_`` is accepted for an unannotated UPOS
or DEPREL. Errors are :class:`~lingtest.errors.InputError` with file, line and column name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, guarded, read_lines, shorten

__all__ = ["ConlluSentence", "parse_conllu", "read_conllu"]

_DOC_META_PREFIXES = ("meta::", "global.")
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
#: the universal part-of-speech tags of UD v2
UPOS_TAGS = frozenset({"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
                       "PUNCT", "SCONJ", "SYM", "VERB", "X"})
#: the universal dependency relations of UD v2 (a language may add a ``:subtype``)
DEPRELS = frozenset({
    "acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound", "conj", "cop",
    "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat", "goeswith", "iobj", "list", "mark",
    "nmod", "nsubj", "nummod", "obj", "obl", "orphan", "parataxis", "punct", "reparandum", "root", "vocative",
    "xcomp"})
_SUBTYPE = re.compile(r"[a-z]+")
_FEATS = re.compile(r"[A-Z][A-Za-z0-9]*(?:\[[a-z0-9]+\])?=[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*"
                    r"(?:\|[A-Z][A-Za-z0-9]*(?:\[[a-z0-9]+\])?=[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*)*")
_DEPS = re.compile(r"(?:\d+(?:\.\d+)?:[^\s|:]+(?::[^\s|]+)*)(?:\|\d+(?:\.\d+)?:[^\s|:]+(?::[^\s|]+)*)*")


def valid_deprel(value: str) -> bool:
    """A universal relation with an optional lower-case subtype (``nsubj:pass``)."""
    base, sep, sub = value.partition(":")
    return base in DEPRELS and (not sep or _SUBTYPE.fullmatch(sub) is not None)


def _check_columns(cols: list[str], path: str | Path, lineno: int) -> None:
    """Column values a CoNLL-U word line may hold (see the module docstring)."""
    for name, value in zip(COLUMNS, cols, strict=True):
        if not value:
            raise InputError("empty column (write _ for a missing value)", path=path, line=lineno, field=name)
    _, _, _, upos, _, feats, _, deprel, deps, _ = cols
    if upos != "_" and upos not in UPOS_TAGS:
        raise InputError(f"unknown UPOS {shorten(upos)} (expected one of {', '.join(sorted(UPOS_TAGS))})",
                         path=path, line=lineno, field="UPOS")
    if deprel != "_" and not valid_deprel(deprel):
        raise InputError(f"unknown DEPREL {shorten(deprel)} (a universal relation, optionally with a "
                         "lower-case :subtype)", path=path, line=lineno, field="DEPREL")
    if feats != "_" and _FEATS.fullmatch(feats) is None:
        raise InputError(f"malformed FEATS {shorten(feats)} (Feature=Value pairs separated by |)", path=path,
                         line=lineno, field="FEATS")
    if deps != "_" and _DEPS.fullmatch(deps) is None:
        raise InputError(f"malformed DEPS {shorten(deps)} (head:relation pairs separated by |)", path=path,
                         line=lineno, field="DEPS")


@dataclass(slots=True)
class ConlluSentence:
    """One sentence of a CoNLL-U file: its syntactic words as Tokens and where they came from."""

    tokens: list[Token]
    id: str | None
    meta: dict[str, str]
    lines: list[int]  # 1-based file line of every word
    newdoc: str | None = None  # the ``# newdoc id`` value when this sentence starts a document
    doc_meta: dict[str, str] = field(default_factory=dict)


def _none(v: str) -> str | None:
    return None if v == "_" else v


def parse_conllu(lines: Sequence[str], path: str | Path) -> Iterator[ConlluSentence]:
    """Sentences of the lines of a CoNLL-U file (see the module docstring); pure."""
    tokens: list[Token] = []
    word_lines: list[int] = []
    heads: list[int] = []
    sent_meta: dict[str, str] = {}
    sent_id: str | None = None
    newdoc: str | None = None  # pending until the next sentence with words
    doc_meta: dict[str, str] = {}
    mwt_end: int | None = None
    mwt_space = " "

    def finish() -> ConlluSentence | None:
        nonlocal tokens, word_lines, heads, sent_meta, sent_id, newdoc, doc_meta, mwt_end
        if not tokens:
            sent_meta, sent_id = {}, None
            return None
        n = len(tokens)
        for h, ln in zip(heads, word_lines, strict=True):
            if h > n:
                raise InputError(f"head {h} outside the sentence of {n} words", path=path, line=ln,
                                 field="HEAD")
        if mwt_end is not None:
            raise InputError(f"multiword token ends at word {mwt_end}, after the sentence's last word",
                             path=path, line=word_lines[-1], field="ID")
        s = ConlluSentence(tokens, sent_id, sent_meta, word_lines, newdoc, doc_meta)
        tokens, word_lines, heads, sent_meta, sent_id = [], [], [], {}, None
        newdoc, doc_meta, mwt_end = None, {}, None
        return s

    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\n").rstrip("\r")
        if not line.strip():
            s = finish()
            if s is not None:
                yield s
            continue
        if line.startswith("#"):
            key, sep, value = line[1:].strip().partition("=")
            key, value = key.strip(), value.strip()
            if key in ("newdoc id", "newdoc"):
                if tokens:
                    raise InputError("'# newdoc' inside a sentence", path=path, line=lineno)
                newdoc, doc_meta = value, {}
            elif key == "sent_id":
                sent_id = value
            elif sep:
                if tokens:
                    raise InputError("comment inside a sentence", path=path, line=lineno)
                if newdoc is not None and key.startswith(_DOC_META_PREFIXES):
                    doc_meta[key] = value
                else:
                    sent_meta[key] = value
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise InputError(f"expected 10 tab-separated columns, found {len(cols)}", path=path, line=lineno)
        _check_columns(cols, path, lineno)
        wid, form, lemma, upos, xpos, feats, head, deprel, _deps, misc = cols
        if "." in wid:  # empty node of enhanced UD
            a, _, b = wid.partition(".")
            if not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit()):
                raise InputError(f"bad empty-node ID {shorten(wid)}", path=path, line=lineno, field="ID")
            continue
        if "-" in wid:  # multiword token range: remember its SpaceAfter
            a, _, b = wid.partition("-")
            if not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit()):
                raise InputError(f"bad token range {shorten(wid)}", path=path, line=lineno, field="ID")
            if int(a) != len(tokens) + 1 or int(b) < int(a) or mwt_end is not None:
                raise InputError(f"token range {shorten(wid)} does not start at the next word "
                                 f"({len(tokens) + 1})", path=path, line=lineno, field="ID")
            mwt_end = int(b)
            mwt_space = "" if "SpaceAfter=No" in misc.split("|") else " "
            continue
        if not (wid.isascii() and wid.isdigit()):
            raise InputError(f"non-integer ID {shorten(wid)}", path=path, line=lineno, field="ID")
        i = int(wid)
        if i != len(tokens) + 1:
            raise InputError(f"word ID {i} out of sequence (expected {len(tokens) + 1})", path=path,
                             line=lineno, field="ID")
        h_text = head.lstrip("-")
        if not (h_text.isascii() and h_text.isdigit()):
            raise InputError(f"non-integer head {shorten(head)}", path=path, line=lineno, field="HEAD")
        h = int(head)
        if h < 0:
            raise InputError(f"negative head {h}", path=path, line=lineno, field="HEAD")
        ws = "" if "SpaceAfter=No" in misc.split("|") else " "
        if mwt_end is not None and i < mwt_end:
            ws = ""  # words inside a multiword token are written together
        elif mwt_end is not None and i == mwt_end:
            ws, mwt_end = mwt_space, None
        tokens.append(Token(text=form, ws=ws, pos=_none(upos), tag=_none(xpos), lemma=_none(lemma),
                            head=h - 1, dep=_none(deprel), morph=_none(feats)))
        word_lines.append(lineno)
        heads.append(h)
    if tokens or mwt_end is not None:
        raise InputError("the file ends inside a sentence: no blank line after its last word (a truncated "
                         "file?)", path=path, line=lineno)
    s = finish()
    if s is not None:
        yield s


@guarded("CoNLL-U sentences")
def read_conllu(path: str | Path, *, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """Read a UD CoNLL-U file into Documents: ``# newdoc id`` starts a Document (otherwise one
    per file, named after it); ``Sentence.id`` from ``# sent_id``, ``# text`` and the other
    ``key = value`` comments go to ``Sentence.meta``. Two documents with the same id are an error.
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read."""
    path = Path(path)
    doc: Document | None = None
    seen: dict[str, int] = {}
    for s in parse_conllu(read_lines(path, limits=TextLimits(max_line_bytes, max_file_bytes)), path):
        if s.newdoc is not None or doc is None:
            if doc is not None:
                yield doc
            doc_id = s.newdoc or path.stem
            if doc_id in seen:
                raise InputError(f"document {doc_id!r} occurs twice (first at line {seen[doc_id]})",
                                 path=path, line=s.lines[0], field="newdoc id")
            seen[doc_id] = s.lines[0]
            doc = Document(id=doc_id, meta=dict(s.doc_meta))
        doc.sentences.append(Sentence(tokens=s.tokens, id=s.id, meta=s.meta))
    if doc is not None:
        yield doc
