"""Blocks of CoNLL-style coreference files: ``#begin document`` ... ``#end document``.

:func:`iter_raw` splits a file into :class:`RawDoc` blocks, stored column-major per sentence, and
checks the block structure (markers, column counts). As in the reference scorer, every line
inside a document is a token line (a ``#`` line there is a token, not a comment; comments may
stand between documents), and fields are separated by whitespace with trailing whitespace
ignored (a line may end in a tab). Each block is first parsed with whole-text splits (fast);
anything irregular is re-parsed line by line, which either accepts it or raises an
:class:`~lingtest.errors.InputError` at the exact line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat
from operator import itemgetter
from pathlib import Path

from lingtest.errors import InputError
from lingtest.readers.coref.records import DocumentIds, DuplicateOrder, Duplicates, Malformed, check_options
from lingtest.readers.textio import TextLimits, read_text

__all__ = ["RawDoc", "LazyLines", "iter_raw", "doc_name_parts", "input_files", "stem", "split_columns",
           "admitted_documents"]

_DOC_NAME = re.compile(r"^\((.*)\);\s*part\s+(\d+)$")
_MARKER = re.compile(r"^#[ \t]*(begin|end)[ \t]+document\b([^\n]*)$", re.M)


class RawDoc:
    """One ``#begin document`` ... ``#end document`` block, stored column-major per sentence.

    ``sents[k][c]`` is column ``c`` of sentence ``k`` (a list with one cell per token), so a
    reader takes whole columns without touching single lines; ``coref`` is the last column of
    the whole document. Line numbers (for error messages) are computed only when asked for.
    """

    __slots__ = ("name", "begin_line", "sents", "coref", "sent_starts", "_body", "_tabbed", "_lines")

    def __init__(self, name: str, begin_line: int, body: str, tabbed: bool) -> None:
        self.name = name
        self.begin_line = begin_line
        self.sents: list[list[list[str]]] = []
        self.coref: list[str] = []
        self.sent_starts: list[int] = []
        self._body = body
        self._tabbed = tabbed
        self._lines: list[int] | None = None

    @property
    def n_tokens(self) -> int:
        return len(self.coref)

    @property
    def lines(self) -> list[int]:
        """1-based file line of every token."""
        if self._lines is None:
            first = self.begin_line + 1
            self._lines = [first + k for k, line in enumerate(self._body.split("\n")) if line.strip()]
        return self._lines


class LazyLines:
    """``lines[j]`` = file line of token ``offset + j``, computed only when an error needs it."""

    __slots__ = ("raw", "offset")

    def __init__(self, raw: RawDoc, offset: int) -> None:
        self.raw, self.offset = raw, offset

    def __getitem__(self, j: int) -> int:
        if j < 0:
            raise IndexError(j)
        return self.raw.lines[self.offset + j]


def split_columns(line: str, tabbed: bool) -> list[str]:
    """Tab-separated (empty fields kept) when the block has empty fields, else any whitespace."""
    return line.split("\t") if tabbed else line.split()


def doc_name_parts(name: str, stem_: str, index: int) -> tuple[str, int | None]:
    """``(bc/cnn/00/cnn_0004); part 000`` -> (id, part); ``(id)`` -> (id, None); empty -> stem."""
    m = _DOC_NAME.match(name)
    if m:
        return m.group(1), int(m.group(2))
    if len(name) >= 2 and name[0] == "(" and name[-1] == ")":
        return name[1:-1], None
    if name:
        return name, None
    return (stem_ if index == 0 else f"{stem_}_{index}"), None


def input_files(path: str | Path) -> list[Path]:
    """A file, or every coreference file of a directory (sorted)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and (
            f.suffix in (".conll", ".jsonlines", ".jsonl") or f.name.endswith("_conll")))
        if not files:
            raise InputError("directory holds no *.conll, *_conll or *.jsonlines files", path=p)
        return files
    if not p.exists():
        raise InputError("file not found", path=p)
    return [p]


def stem(f: Path) -> str:
    name = f.name
    for suffix in ("_conll", ".conll", ".jsonlines", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return f.stem


def admitted_documents(path: str | Path, *, min_columns: int, duplicates: Duplicates, malformed: Malformed,
                       duplicate_documents: Duplicates | None, duplicate_order: DuplicateOrder,
                       limits: TextLimits | None) -> Iterator[tuple[Path, str, int | None, RawDoc]]:
    """``(file, document id, part, block)`` of every document block under ``path`` that the
    duplicate-document check admits: the loop every bracket-column reader starts with. The
    options are checked first; ``duplicate_documents`` (``None``: as ``duplicates``) says what a
    document key (id plus part) read twice does; files are read within ``limits``."""
    check_options(duplicates, malformed, duplicate_order)
    seen = DocumentIds(duplicate_documents or duplicates)
    for f in input_files(path):
        for index, raw in enumerate(iter_raw(f, min_columns=min_columns, limits=limits)):
            doc_id, part = doc_name_parts(raw.name, stem(f), index)
            if seen.admit(doc_id if part is None else f"{doc_id}#{part}", f, raw.begin_line):
                yield f, doc_id, part, raw


class _SlowPath(Exception):
    """The vectorised parse of a block found something irregular: redo it line by line."""


def iter_raw(path: str | Path, *, min_columns: int = 2, columns: bool = True,
             limits: TextLimits | None = None) -> Iterator[RawDoc]:
    """Split a CoNLL-style file into raw documents, checking the block structure.

    Blank lines separate sentences; the column count must be constant within a sentence (the
    CoNLL-2012 argument columns differ between sentences). With ``columns=False`` only the last
    column is kept (the scoring fast path). A file without any document is an error. The file is
    read within ``limits`` (``None``: no caps).
    """
    text = read_text(path, limits=limits)
    if "\t\n" in text or " \n" in text or text.endswith((" ", "\t")) or "\r" in text or "\f" in text \
            or "\v" in text:
        # trailing whitespace never makes a field (line by line: a regex would be quadratic on
        # long runs of blanks)
        text = "\n".join([line.rstrip(" \t\f\v\r") for line in text.split("\n")])
    pos = 0  # end of the previous block
    line_at_pos = 1
    n_docs = 0
    open_doc: tuple[str, int, int] | None = None  # name, begin line, body start
    for m in _markers(text):
        lineno = line_at_pos + text.count("\n", pos, m.start())
        kind, name = m.group(1), m.group(2).strip()
        if kind == "begin":
            if open_doc is not None:
                raise InputError(f"'#begin document' while document {open_doc[0]!r} (begun at line "
                                 f"{open_doc[1]}) has no '#end document'", path=path, line=lineno)
            _check_gap(text, pos, m.start(), line_at_pos, path)
            open_doc = (name, lineno, m.end() + 1)
        else:
            if open_doc is None:
                _check_gap(text, pos, m.start(), line_at_pos, path)
                raise InputError("'#end document' without '#begin document'", path=path, line=lineno)
            dname, dline, body_start = open_doc
            body = text[body_start: m.start()] if m.start() > body_start else ""
            n_docs += 1
            yield _parse_block(body, dname, dline, path, min_columns, columns)
            open_doc = None
        pos, line_at_pos = m.start(), lineno
    if open_doc is not None:
        last = line_at_pos + text.count("\n", pos, max(pos, len(text.rstrip())))
        raise InputError(f"truncated file: document {open_doc[0]!r} begun at line {open_doc[1]} "
                         "has no '#end document'", path=path, line=last)
    _check_gap(text, pos if pos == 0 else text.find("\n", pos) + 1 or len(text), len(text),
               line_at_pos if pos == 0 else line_at_pos + 1, path)
    if not n_docs:
        raise InputError("no '#begin document' ... '#end document' block: the file holds no document",
                         path=path)


def _markers(text: str) -> Iterator[re.Match[str]]:
    """``#begin document`` / ``#end document`` lines, in order.

    Found by searching for the word ``document`` with ``str.find`` and checking that its line is
    a marker: far cheaper than a line-anchored regex scan or a search for newline-hash pairs over
    the whole text.
    """
    pos = text.find("document")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        if end < 0:
            end = len(text)
        if text.startswith("#", start):
            m = _MARKER.match(text, start, end)
            if m is not None:
                yield m
        pos = text.find("document", end)  # one look per line: linear however often the word occurs


def _check_gap(text: str, start: int, end: int, first_line: int, path: str | Path) -> None:
    """Text between documents may hold only blank lines and comments."""
    if start >= end or not text[start:end].strip():
        return
    for k, line in enumerate(text[start:end].split("\n")):
        s = line.strip()
        if s and not s.startswith("#"):
            raise InputError("token line outside a '#begin document' ... '#end document' block",
                             path=path, line=first_line + k)


def _parse_block(body: str, name: str, begin_line: int, path: str | Path, min_columns: int,
                 columns: bool = True) -> RawDoc:
    # pure-tab files are split on tabs (empty fields kept); anything with spaces on whitespace
    tabbed = "\t" in body and " " not in body
    if not tabbed and ("\t\t" in body or "\n\t" in body or "\t\n" in body or body.startswith("\t")):
        tabbed = True
    doc = RawDoc(name, begin_line, body, tabbed)
    try:
        if not columns and _last_column_of_block(doc, body, min_columns):
            return doc
        # whitespace-only lines are not split here: they fail the column check, and the slow
        # path then treats them as the sentence breaks they are
        for chunk in body.split("\n\n"):
            chunk = chunk.strip("\n")
            if not chunk:
                continue
            if not columns:  # only the last column and the column-count check
                lines = chunk.split("\n")
                if tabbed:
                    counts = set(map(str.count, lines, repeat("\t")))
                    if len(counts) != 1 or counts.pop() + 1 < min_columns:
                        raise _SlowPath
                    last = list(map(itemgetter(2), map(str.rpartition, lines, repeat("\t"))))
                    if "" in last:
                        raise _SlowPath
                else:
                    rows = list(map(str.split, lines))
                    counts = set(map(len, rows))
                    if len(counts) != 1 or counts.pop() < min_columns:
                        raise _SlowPath
                    last = list(map(itemgetter(-1), rows))
                doc.sent_starts.append(len(doc.coref))
                doc.coref.extend(last)
                continue
            nl = chunk.find("\n")
            first = chunk if nl < 0 else chunk[:nl]
            if tabbed:
                ncols = first.count("\t") + 1
                flat = chunk.replace("\n", "\t").split("\t")
            else:
                ncols = len(first.split())
                flat = chunk.split()
            if ncols < min_columns or len(flat) != ncols * (chunk.count("\n") + 1):
                raise _SlowPath
            cols = [flat[c::ncols] for c in range(ncols)]
            if tabbed and "" in cols[-1]:
                raise _SlowPath
            doc.sent_starts.append(len(doc.coref))
            doc.sents.append(cols)
            doc.coref.extend(cols[-1])
    except _SlowPath:
        doc = _parse_block_slow(body, name, begin_line, path, min_columns, tabbed)
    return doc


def _last_column_of_block(doc: RawDoc, body: str, min_columns: int) -> bool:
    """Scoring fast path: when every token line of the block has the same number of columns,
    take the last column of all of them at once (sentence starts are not needed) and say so."""
    lines = body.split("\n")
    if "" in lines:
        lines = list(filter(None, lines))
    if not lines:
        return True
    if doc._tabbed:
        counts = set(map(str.count, lines, repeat("\t")))
        if len(counts) != 1 or counts.pop() + 1 < min_columns:
            return False
        coref = list(map(itemgetter(2), map(str.rpartition, lines, repeat("\t"))))
        if "" in coref:  # an empty last field, maybe a whitespace-only line: go line by line
            return False
        doc.coref = coref
    else:
        rows = list(map(str.split, lines))
        counts = set(map(len, rows))
        if len(counts) != 1 or counts.pop() < min_columns:
            return False
        doc.coref = list(map(itemgetter(-1), rows))
    doc.sent_starts = [0]
    return True


def _parse_block_slow(body: str, name: str, begin_line: int, path: str | Path, min_columns: int,
                      tabbed: bool) -> RawDoc:
    doc = RawDoc(name, begin_line, body, tabbed)
    rows: list[list[str]] = []
    ncols = 0

    def flush() -> None:
        if rows:
            doc.sent_starts.append(len(doc.coref))
            cols = [list(c) for c in zip(*rows, strict=True)]
            doc.sents.append(cols)
            doc.coref.extend(cols[-1])
            rows.clear()

    for k, raw in enumerate(body.split("\n")):
        line = raw.rstrip("\n")
        lineno = begin_line + 1 + k
        if not line.strip():
            flush()
            ncols = 0
            continue
        cols = split_columns(line, tabbed)
        if not ncols:
            if len(cols) < min_columns:
                raise InputError(f"expected at least {min_columns} columns, found {len(cols)}",
                                 path=path, line=lineno)
            ncols = len(cols)
        elif len(cols) != ncols:
            raise InputError(f"wrong column count: {len(cols)} columns where this sentence has {ncols}",
                             path=path, line=lineno)
        rows.append(cols)
    flush()
    return doc
