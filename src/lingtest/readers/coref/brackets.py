"""The coreference bracket column.

``(12)`` a one-token mention, ``(12`` opens, ``12)`` closes, several per token either
``|``-separated (``(3|(12)``) or run together (``(1(2)``); ``-``/``_`` mean none. Cluster ids are
numbers, the only ids the reference scorer reads (it skips any other bracket). Within one
token they are applied like the reference scorer (v8.01) does: one-token mentions, then
openings, then closings; a closing bracket closes the most recent open mention of its cluster.

A mention annotated twice (in one cluster or in two) keeps its first occurrence; the repeats
are dropped (``duplicates="drop"``), kept (``"keep"``) or an error (``"error"``, the default).
With ``order="reference"`` the first is the reference scorer's (v8.01): entities in the order
their numbers first appear in the column (scanning each cell's one-token mentions, openings,
closings), then the mentions of an entity in the order they are completed; the test cases
TC-A-8 and TC-A-9 of the reference scorer depend on it. With ``order="file"`` it is the
occurrence completed first in the file (what the document readers have always kept, and what
the prepared OntoGUM data depend on).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import LazyLines, RawDoc
from lingtest.readers.coref.records import (
    CorefWarning,
    DuplicateOrder,
    Duplicates,
    Malformed,
    Span,
    check_options,
)
from lingtest.readers.textio import shorten

__all__ = ["parse_coref_field", "decode_coref"]

_NO_COREF = frozenset({"-", "_", ""})
_BRACKET = re.compile(r"\(([0-9]+)\)|\(([0-9]+)|([0-9]+)\)|\|")
_FIELD_CACHE: dict[str, tuple[list[str], list[str], list[str]]] = {}


def parse_coref_field(value: str) -> tuple[list[str], list[str], list[str]]:
    """Split one coreference cell into (one-token ids, opening ids, closing ids).

    Raises ``ValueError`` when the cell holds anything but brackets of numeric cluster ids and
    ``|`` separators.
    """
    singles: list[str] = []
    opens: list[str] = []
    closes: list[str] = []
    if value in _NO_COREF:
        return singles, opens, closes
    pos, n = 0, len(value)
    while pos < n:  # anchored matches one after the other: linear even on a hostile cell
        m = _BRACKET.match(value, pos)
        if m is None:
            break
        pos = m.end()
        s, o, c = m.group(1), m.group(2), m.group(3)
        if s is not None:
            singles.append(s)
        elif o is not None:
            opens.append(o)
        elif c is not None:
            closes.append(c)
    if pos != len(value) or not (singles or opens or closes):
        raise ValueError(f"malformed coreference brackets {shorten(value)}")
    return singles, opens, closes


def decode_coref(doc: RawDoc, path: str | Path, duplicates: Duplicates, malformed: Malformed = "error",
                 label: str | None = None, order: DuplicateOrder = "reference"
                 ) -> tuple[list[str], list[list[Span]]]:
    """Turn the bracket column of a document into clusters (id, spans), in order of first mention.

    ``malformed="warn"`` skips a bad cell, a closing bracket without an opening one or a mention
    left open, with a :class:`CorefWarning` naming the line, instead of raising
    :class:`InputError` (the released OntoGUM has one stray bracket, in ``GENTLE_poetry_road``).
    """
    check_options(duplicates, malformed, order)

    def bad(msg: str, line: int) -> None:
        if malformed == "error":
            raise InputError(msg + " (malformed='warn' skips it)", path=path, line=line, field="coref")
        warnings.warn(f"{path}, line {line}: {msg}; skipped", CorefWarning, stacklevel=4)

    lines = LazyLines(doc, 0)
    name = label if label is not None else doc.name
    cache = _FIELD_CACHE
    if len(cache) > 100_000:
        cache.clear()
    open_stack: dict[str, list[int]] = {}
    rank: dict[str, int] = {}  # entity order of the reference scorer: first appearance of the number
    found: list[tuple[str, int, int, int]] = []  # (cluster id, start, end, token index)
    coref = doc.coref
    for i in [i for i, v in enumerate(coref) if v not in _NO_COREF]:
        value = coref[i]
        parsed = cache.get(value)
        if parsed is None:
            try:
                parsed = parse_coref_field(value.strip())
            except ValueError as exc:
                bad(str(exc), lines[i])
                continue
            cache[value] = parsed
        singles, opens, closes = parsed
        for cid in singles:
            if cid not in rank:
                rank[cid] = len(rank)
            found.append((cid, i, i + 1, i))
        for cid in opens:
            if cid not in rank:
                rank[cid] = len(rank)
            stack = open_stack.get(cid)
            if stack is None:
                open_stack[cid] = [i]
            else:
                stack.append(i)
        for cid in closes:
            if cid not in rank:
                rank[cid] = len(rank)
            stack = open_stack.get(cid)
            if not stack:
                bad(f"closing bracket '{cid})' with no open mention of cluster {cid!r}", lines[i])
                continue
            found.append((cid, stack.pop(), i + 1, i))
    for cid, stack in open_stack.items():
        for start in stack:
            bad(f"unclosed mention '({cid}' (cluster {cid!r}) at the end of document {name!r}",
                lines[start])
    if len({(s, e) for _, s, e, _ in found}) != len(found):
        if order == "reference":
            found.sort(key=lambda t: rank[t[0]])  # stable: mentions of an entity keep their order
        found = _drop_repeats(found, lines, path, name, duplicates)
    clusters: dict[str, list[Span]] = {}
    for cid, start, end, _ in found:
        spans = clusters.get(cid)
        if spans is None:
            clusters[cid] = [(start, end)]
        else:
            spans.append((start, end))
    out = [sorted(v) for v in clusters.values()]
    ids = list(clusters)
    by_first = sorted(range(len(ids)), key=lambda k: (out[k][0], ids[k]))
    return [ids[k] for k in by_first], [out[k] for k in by_first]


def _drop_repeats(found: list[tuple[str, int, int, int]], lines: LazyLines, path: str | Path, name: str,
                  duplicates: Duplicates) -> list[tuple[str, int, int, int]]:
    """The mentions in reference order with every repeat of a span handled per ``duplicates``."""
    seen: dict[Span, str] = {}
    kept: list[tuple[str, int, int, int]] = []
    for item in found:
        cid, start, end, i = item
        span = (start, end)
        prev = seen.get(span)
        if prev is not None:
            where = "the same cluster" if prev == cid else f"clusters {prev!r} and {cid!r}"
            msg = (f"duplicate mention: tokens {start}-{end - 1} of document {name!r} appear "
                   f"twice, in {where}")
            if duplicates == "error":
                raise InputError(msg + " (duplicates='drop' keeps the first)", path=path, line=lines[i],
                                 field="coref")
            if duplicates == "drop":
                warnings.warn(f"{path}, line {lines[i]}: {msg}; the repeat is dropped",
                              CorefWarning, stacklevel=4)
                continue
        else:
            seen[span] = cid
        kept.append(item)
    return kept
