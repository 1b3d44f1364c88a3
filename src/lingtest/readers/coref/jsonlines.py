"""e2e-coref jsonlines: one JSON object per line with ``doc_key``, ``sentences`` (lists of words),
``clusters`` (lists of inclusive ``[start, end]`` document word offsets), ``speakers`` (one per
word, optional) and ``ner`` (inclusive ``[start, end, label]``, optional); other keys are ignored.

Every field is type-checked: ``doc_key`` a non-empty string, words and speakers strings, offsets
JSON integers (a float, a boolean or a string is an error, never truncated), NE labels in the
OntoNotes tag set (``ne_labels``). Objects nested deeper than JSON can be parsed, keys given
twice, documents read twice and a key one letter away from a key read here (``cluster``,
``clustErs``: a corrupt key, which would otherwise drop its annotation) are errors too.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import input_files
from lingtest.readers.coref.records import (
    CorefWarning,
    DocumentIds,
    DuplicateOrder,
    Duplicates,
    Malformed,
    Span,
    check_options,
)
from lingtest.readers.textio import TextLimits, guarded, is_int, is_str_list, loads_json, read_text, shorten

if TYPE_CHECKING:
    from lingtest.data.model import Document

__all__ = ["read_jsonlines", "iter_jsonlines"]

_PART = re.compile(r"^(.*)_(\d+)$")
KEYS = ("doc_key", "sentences", "speakers", "clusters", "ner")  # the keys read; others are ignored


def near_miss(key: str, known: tuple[str, ...] = KEYS) -> str | None:
    """The key of ``known`` that ``key`` (not itself known) is one edit (a letter changed, added or
    dropped) away from, or ``None``."""
    if key in known:
        return None
    for k in known:
        if len(k) == len(key) and sum(a != b for a, b in zip(k, key, strict=True)) == 1:
            return k
        short, long_ = sorted((k, key), key=len)
        if len(long_) - len(short) == 1 and any(long_[:i] + long_[i + 1:] == short for i in range(len(long_))):
            return k
    return None


@guarded("documents")
def read_jsonlines(path: str | Path, *, part_suffix: bool, duplicates: Duplicates, malformed: Malformed,
                   duplicate_documents: Duplicates | None, ne_labels: Collection[str] | None,
                   duplicate_order: DuplicateOrder, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """e2e-coref jsonlines documents (see the module docstring).

    ``Document.id`` is the ``doc_key``; with ``part_suffix`` a trailing ``_<n>`` (as in
    ``bc/cnn/00/cnn_0004_0``) becomes the part number. ``duplicates``/``malformed`` as for the
    CoNLL readers (``malformed="warn"`` skips a mention outside the document or not
    ``[start, end]`` with a warning); ``duplicate_documents`` (``None``: as ``duplicates``) for a
    ``doc_key`` read twice; ``ne_labels=None`` accepts any NE label. A mention given twice keeps
    its first occurrence in the object (clusters in order, then mentions in order), which is both
    the reference scorer's and the file's order, so ``duplicate_order`` changes nothing here.
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    """
    check_options(duplicates, malformed, duplicate_order)
    seen = DocumentIds(duplicate_documents or duplicates)
    limits = TextLimits(max_line_bytes, max_file_bytes)
    for f in input_files(path):
        for _line, doc in iter_jsonlines(f, part_suffix, duplicates, malformed, seen, ne_labels, limits):
            yield doc


def iter_jsonlines(f: Path, part_suffix: bool, duplicates: Duplicates, malformed: Malformed,
                   seen: DocumentIds | None, ne_labels: Collection[str] | None,
                   limits: TextLimits | None = None) -> Iterator[tuple[int, Document]]:
    """``(line, Document)`` for every object of one jsonlines file (read within ``limits``); a
    file without any is an error."""
    from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token

    labels = frozenset(ne_labels) if ne_labels is not None else None
    n = 0
    for lineno, line in enumerate(read_text(f, limits=limits).split("\n"), start=1):
        if not line.strip():
            continue

        def err(message: str, field: str | None = None, _line: int = lineno) -> NoReturn:
            raise InputError(message, path=f, line=_line, field=field)

        d = loads_json(line, f, lineno)
        if not isinstance(d, dict):
            err(f"expected a JSON object, found {_kind(d)}")
        n += 1
        for key in d:
            if (meant := near_miss(key)) is not None:
                err(f"unknown key {shorten(key)}: a misspelt {meant!r}?", key)
        for key in ("doc_key", "sentences"):
            if key not in d:
                err("missing required field", key)
        doc_id = d["doc_key"]
        if not isinstance(doc_id, str) or not doc_id:
            err(f"must be a non-empty string, found {_kind(doc_id)}", "doc_key")
        part = None
        if part_suffix:
            m = _PART.match(doc_id)
            if m:
                doc_id, part = m.group(1), int(m.group(2))
        if seen is not None and not seen.admit(doc_id if part is None else f"{doc_id}#{part}", f, lineno):
            continue
        sents = d["sentences"]
        if not isinstance(sents, list) or not all(is_str_list(s) for s in sents):
            err("must be a list of lists of words (strings)", "sentences")
        if any(not s for s in sents):
            err(f"sentence {next(k for k, s in enumerate(sents) if not s)} is empty", "sentences")
        speakers = d.get("speakers")
        if speakers is None:
            speakers = []
        if not isinstance(speakers, list) or not all(is_str_list(s) for s in speakers):
            err("must be a list of lists of strings", "speakers")
        if speakers and [len(s) for s in speakers] != [len(s) for s in sents]:
            err("speakers do not have one entry per word", "speakers")
        sentences = []
        for si, words in enumerate(sents):
            meta: dict[str, Any] = {}
            if speakers:
                sp = speakers[si]
                if len(set(sp)) == 1:
                    if sp and sp[0] not in ("-", "_"):
                        meta["speaker"] = sp[0]
                else:
                    meta["speakers"] = list(sp)
            sentences.append(Sentence(tokens=[Token(text=w) for w in words], meta=meta))
        n_tokens = sum(len(s) for s in sents)
        raw_clusters = d.get("clusters")
        if raw_clusters is None:
            raw_clusters = []
        if not isinstance(raw_clusters, list) or not all(isinstance(c, list) for c in raw_clusters):
            err("must be a list of clusters, each a list of [start, end] mentions", "clusters")
        clusters: list[Cluster] = []
        where: dict[Span, int] = {}
        for ci, cl in enumerate(raw_clusters):
            mentions = []
            for m in cl:
                if not (isinstance(m, list) and len(m) == 2 and is_int(m[0]) and is_int(m[1])):
                    problem = f"cluster {ci}: mention {shorten(m)} is not [start, end] with integer offsets"
                elif not 0 <= m[0] <= m[1] < n_tokens:
                    problem = f"cluster {ci}: mention {shorten(m)} is outside the {n_tokens} words"
                else:
                    problem = None
                if problem is not None:
                    if malformed == "error":
                        err(problem, "clusters")
                    warnings.warn(f"{f}, line {lineno}: {problem}; skipped", CorefWarning, stacklevel=2)
                    continue
                s, e = m
                span = (s, e + 1)
                if span in where:
                    at = "the same cluster" if where[span] == ci else f"clusters {where[span]} and {ci}"
                    msg = f"duplicate mention [{s}, {e}] of document {doc_id!r}, in {at}"
                    if duplicates == "error":
                        err(msg, "clusters")
                    if duplicates == "drop":
                        warnings.warn(f"{f}, line {lineno}: {msg}; the repeat is dropped",
                                      CorefWarning, stacklevel=2)
                        continue
                where.setdefault(span, ci)
                mentions.append(Mention(s, e + 1))
            if mentions:
                clusters.append(Cluster(mentions=sorted(mentions), id=str(ci)))
        raw_ner = d.get("ner")
        if raw_ner is None:
            raw_ner = []
        if not isinstance(raw_ner, list):
            err("must be a list of [start, end, label] entities", "ner")
        entities = []
        for ne in raw_ner:
            if not (isinstance(ne, list) and len(ne) == 3 and is_int(ne[0]) and is_int(ne[1])
                    and isinstance(ne[2], str)):
                err(f"entity {shorten(ne)} is not [start, end, label] with integer offsets", "ner")
            if not 0 <= ne[0] <= ne[1] < n_tokens:
                err(f"entity {shorten(ne)} is outside the {n_tokens} words", "ner")
            if labels is not None and ne[2] not in labels:
                err(f"unknown named-entity label {shorten(ne[2])} (ne_labels=None accepts any)", "ner")
            entities.append(Entity(ne[0], ne[1] + 1, ne[2]))
        yield lineno, Document(id=doc_id, part=part, sentences=sentences, clusters=clusters,
                               entities=sorted(entities))
    if not n:
        raise InputError("no JSON objects: the file holds no document", path=f)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
