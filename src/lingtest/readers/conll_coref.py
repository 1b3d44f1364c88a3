"""Coreference file formats: read them into :class:`~lingtest.data.Document` and write them back.

Supported layouts

* **CoNLL-2012** ``*_conll`` (:func:`read_conll2012`): doc id, part, word index, word, POS, parse
  bit, predicate lemma, frameset, sense, speaker, named entity, predicate arguments..., coreference
  last. Every column is kept: POS -> ``Token.tag``, lemma -> ``Token.lemma``, the parse bits ->
  ``Sentence.tree``, NE bits -> ``Document.entities`` (and IOB2 ``Token.ent``), speaker, frameset,
  sense and argument columns -> ``Sentence.meta``. The number of argument columns differs from
  sentence to sentence (one per predicate), so the column count is checked per sentence.
* **OntoGUM** 3-column (:func:`read_ontogum`): ``index token coref``, one document per file, empty
  document name, no sentence breaks; sentences come from GUM's ``dep/<doc>.conllu``.
* **e2e-coref jsonlines** (:func:`read_jsonlines`): ``doc_key``, ``sentences``, ``clusters`` with
  inclusive ``[start, end]`` word offsets, ``speakers`` (and ``ner`` when present).
* **Generic CoNLL** (:func:`read_conll_coref`): any whitespace- or tab-separated file with
  ``#begin document`` / ``#end document`` lines whose *last* column holds the coreference
  brackets: exactly what the reference scorer accepts.

Coreference brackets: ``(12)`` a one-token mention, ``(12`` opens, ``12)`` closes, several per
token either ``|``-separated (``(3|(12)``) or run together (``(1(2)``); ``-``/``_`` mean none.
Within one token they are applied like the reference scorer does: one-token mentions, then
openings, then closings; a closing bracket closes the most recent open mention of its cluster.

:func:`read_coref_records` is the fast path used for scoring: it keeps only the mentions and the
token count of each document (no Token objects), so a whole corpus scores in a fraction of a
second. Bad input raises :class:`~lingtest.errors.InputError` naming file, 1-based line and field.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from lingtest.errors import InputError

if TYPE_CHECKING:  # the data model is imported lazily: the scoring fast path does not need it
    from lingtest.data.model import Cluster, Document, Entity, Sentence, Tree

Duplicates = Literal["error", "drop", "keep"]
Malformed = Literal["error", "warn"]
Span = tuple[int, int]

__all__ = [
    "CorefRecord",
    "CorefWarning",
    "detect_format",
    "parse_coref_field",
    "read_conll2012",
    "read_conll_coref",
    "read_coref",
    "read_coref_records",
    "read_jsonlines",
    "read_ontogum",
    "write_conll",
]


class CorefWarning(UserWarning):
    """Recoverable problems in coreference files (dropped duplicate mentions, unwritable spans)."""


@dataclass(slots=True)
class CorefRecord:
    """The scoring view of one document: its identity, token count and mention clusters.

    ``spans`` are document-level token spans with an exclusive end, one list per cluster.
    """

    id: str
    part: int | None
    n_tokens: int
    spans: list[list[Span]]
    path: str = ""
    line: int = 0

    @property
    def key(self) -> str:
        """Same identity as :attr:`lingtest.data.Document.key` (id plus part)."""
        return self.id if self.part is None else f"{self.id}#{self.part}"


# --------------------------------------------------------------------------------------------
# Low level: lines, documents and coreference brackets
# --------------------------------------------------------------------------------------------
_NO_COREF = frozenset({"-", "_", ""})
_BRACKET = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)|\|")
_DOC_NAME = re.compile(r"^\((.*)\);\s*part\s+(\d+)$")


class _RawDoc:
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


def _read_text(path: str | Path) -> str:
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end]
        raise InputError(f"not valid UTF-8: byte(s) {bad!r} cannot be decoded ({exc.reason})",
                         path=path, line=line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n") if "\r" in text else text


def _split_columns(line: str, tabbed: bool) -> list[str]:
    """Tab-separated (empty fields kept) when the block has empty fields, else any whitespace."""
    return line.split("\t") if tabbed else line.split()


def _doc_name_parts(name: str, stem: str, index: int) -> tuple[str, int | None]:
    """``(bc/cnn/00/cnn_0004); part 000`` -> (id, part); ``(id)`` -> (id, None); empty -> stem."""
    m = _DOC_NAME.match(name)
    if m:
        return m.group(1), int(m.group(2))
    if len(name) >= 2 and name[0] == "(" and name[-1] == ")":
        return name[1:-1], None
    if name:
        return name, None
    return (stem if index == 0 else f"{stem}_{index}"), None


_MARKER = re.compile(r"^#[ \t]*(begin|end)[ \t]+document\b([^\n]*)$", re.M)
_BLANKS = re.compile(r"\n[ \t]*(?:\n[ \t]*)*\n")


class _SlowPath(Exception):
    """The vectorised parse of a block found something irregular: redo it line by line."""


def _iter_raw(path: str | Path, *, min_columns: int = 2, columns: bool = True) -> Iterator[_RawDoc]:
    """Split a CoNLL-style file into raw documents, checking the block structure.

    Blank lines separate sentences; the column count must be constant within a sentence (the
    CoNLL-2012 argument columns differ between sentences). As in the reference scorer, every
    other line inside a document is a token line (a ``#`` line there is a token, not a comment;
    comments may stand between documents). Each block is first parsed with whole-text splits
    (fast); anything irregular (ragged columns) is re-parsed line by line, which either accepts
    it or raises an :class:`InputError` at the exact line.
    """
    text = _read_text(path)
    pos = 0  # end of the previous block
    line_at_pos = 1
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
            body = text[body_start : m.start()] if m.start() > body_start else ""
            yield _parse_block(body, dname, dline, path, min_columns, columns)
            open_doc = None
        pos, line_at_pos = m.start(), lineno
    if open_doc is not None:
        last = line_at_pos + text.count("\n", pos, max(pos, len(text.rstrip())))
        raise InputError(f"truncated file: document {open_doc[0]!r} begun at line {open_doc[1]} "
                         "has no '#end document'", path=path, line=last)
    _check_gap(text, pos if pos == 0 else text.find("\n", pos) + 1 or len(text), len(text),
               line_at_pos if pos == 0 else line_at_pos + 1, path)


def _markers(text: str) -> Iterator[re.Match[str]]:
    """``#begin document`` / ``#end document`` lines, in order.

    Found by searching for the word ``document`` with ``str.find`` and checking that its line is
    a marker: far cheaper than a line-anchored regex scan or a search for newline-hash pairs over
    the whole text.
    """
    pos = text.find("document")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        if text.startswith("#", start):
            end = text.find("\n", pos)
            if end < 0:
                end = len(text)
            m = _MARKER.match(text, start, end)
            if m is not None:
                yield m
            pos = text.find("document", end)
        else:
            pos = text.find("document", pos + 8)


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
                 columns: bool = True) -> _RawDoc:
    # pure-tab files are split on tabs (empty fields kept); anything with spaces on whitespace
    tabbed = "\t" in body and " " not in body
    if not tabbed and ("\t\t" in body or "\n\t" in body or "\t\n" in body or body.startswith("\t")):
        tabbed = True
    doc = _RawDoc(name, begin_line, body, tabbed)
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


def _last_column_of_block(doc: _RawDoc, body: str, min_columns: int) -> bool:
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
                      tabbed: bool) -> _RawDoc:
    doc = _RawDoc(name, begin_line, body, tabbed)
    rows: list[list[str]] = []
    ncols = 0

    def flush() -> None:
        if rows:
            doc.sent_starts.append(len(doc.coref))
            cols = [list(c) for c in zip(*rows)]
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
        cols = _split_columns(line, tabbed)
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


def parse_coref_field(value: str) -> tuple[list[str], list[str], list[str]]:
    """Split one coreference cell into (one-token ids, opening ids, closing ids).

    Raises ``ValueError`` when the cell holds anything but brackets and ``|`` separators.
    """
    singles: list[str] = []
    opens: list[str] = []
    closes: list[str] = []
    if value in _NO_COREF:
        return singles, opens, closes
    pos = 0
    for m in _BRACKET.finditer(value):
        if m.start() != pos:
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
        raise ValueError(f"malformed coreference brackets {value!r}")
    return singles, opens, closes


def _decode_coref(doc: _RawDoc, path: str | Path, duplicates: Duplicates, malformed: Malformed = "error",
                  label: str | None = None) -> tuple[list[str], list[list[Span]]]:
    """Turn the bracket column of a document into clusters (id, spans), in order of first mention.

    ``malformed="warn"`` skips a bad cell, a closing bracket without an opening one or a mention
    left open, with a :class:`CorefWarning` naming the line, instead of raising
    :class:`InputError` (the released OntoGUM has one stray bracket, in ``GENTLE_poetry_road``).
    """
    if duplicates not in ("error", "drop", "keep"):
        raise ValueError(f"duplicates must be 'error', 'drop' or 'keep', not {duplicates!r}")
    if malformed not in ("error", "warn"):
        raise ValueError(f"malformed must be 'error' or 'warn', not {malformed!r}")

    def bad(msg: str, line: int) -> None:
        if malformed == "error":
            raise InputError(msg + " (malformed='warn' skips it)", path=path, line=line, field="coref")
        warnings.warn(f"{path}, line {line}: {msg}; skipped", CorefWarning, stacklevel=4)

    lines = _LazyLines(doc, 0)
    name = label if label is not None else doc.name
    cache = _FIELD_CACHE
    if len(cache) > 100_000:
        cache.clear()
    open_stack: dict[str, list[int]] = {}
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
            found.append((cid, i, i + 1, i))
        for cid in opens:
            stack = open_stack.get(cid)
            if stack is None:
                open_stack[cid] = [i]
            else:
                stack.append(i)
        for cid in closes:
            stack = open_stack.get(cid)
            if not stack:
                bad(f"closing bracket '{cid})' with no open mention of cluster {cid!r}", lines[i])
                continue
            found.append((cid, stack.pop(), i + 1, i))
    for cid, stack in open_stack.items():
        for start in stack:
            bad(f"unclosed mention '({cid}' (cluster {cid!r}) at the end of document {name!r}",
                lines[start])

    clusters: dict[str, list[Span]] = {}
    seen: dict[Span, str] = {}
    for cid, start, end, i in found:
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
                              CorefWarning, stacklevel=3)
                continue
        seen[span] = cid
        spans = clusters.get(cid)
        if spans is None:
            clusters[cid] = [span]
        else:
            spans.append(span)
    out = [sorted(v) for v in clusters.values()]
    ids = list(clusters)
    order = sorted(range(len(ids)), key=lambda k: (out[k][0], ids[k]))
    return [ids[k] for k in order], [out[k] for k in order]


_FIELD_CACHE: dict[str, tuple[list[str], list[str], list[str]]] = {}


# --------------------------------------------------------------------------------------------
# Format detection and the fast scoring path
# --------------------------------------------------------------------------------------------
CorefFormat = Literal["auto", "conll2012", "ontogum", "jsonlines", "conll"]


def _input_files(path: str | Path) -> list[Path]:
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


def detect_format(path: str | Path) -> str:
    """Guess the layout of a coreference file: ``jsonlines``, ``conll2012``, ``ontogum`` or ``conll``.

    JSON objects mean jsonlines; otherwise the first token line decides: 12 or more columns with
    integer part and word-index columns is CoNLL-2012, exactly 3 columns with an integer first
    column is OntoGUM, anything else the generic last-column layout.
    """
    p = _input_files(path)[0]
    with open(p, "rb") as fh:
        head = fh.read(65536)
    text = head.decode("utf-8", errors="replace")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return "jsonlines"
    for line in text.split("\n"):
        line = line.rstrip()
        if not line or line[0] == "#":
            continue
        cols = _split_columns(line, "\t\t" in line)
        if len(cols) >= 12 and cols[1].isdigit() and cols[2].isdigit():
            return "conll2012"
        if len(cols) == 3 and cols[0].isdigit():
            return "ontogum"
        return "conll"
    return "conll"


def read_coref_records(path: str | Path, format: CorefFormat = "auto", *,
                       duplicates: Duplicates = "error", malformed: Malformed = "error") -> list[CorefRecord]:
    """Mentions and token counts of every document in a file (or a directory of files).

    This is what scoring needs, read without building Token objects. ``duplicates`` says what a
    mention annotated twice in one document does: ``error`` (InputError), ``drop`` (keep the
    first, warn with :class:`CorefWarning`) or ``keep`` (leave it for the metrics to report);
    ``malformed="warn"`` skips broken brackets with a warning instead of raising.
    """
    out: list[CorefRecord] = []
    for f in _input_files(path):
        fmt = detect_format(f) if format == "auto" else format
        if fmt == "jsonlines":
            for lineno, doc in _iter_jsonlines(f, False, duplicates, malformed):
                out.append(CorefRecord(doc.id, doc.part, sum(len(s.tokens) for s in doc.sentences),
                                       [[(m.start, m.end) for m in c.mentions] for c in doc.clusters],
                                       str(f), lineno))
            continue
        min_cols = {"conll2012": 12, "ontogum": 3}.get(fmt, 2)
        for index, raw in enumerate(_iter_raw(f, min_columns=min_cols, columns=False)):
            doc_id, part = _doc_name_parts(raw.name, _stem(f), index)
            _, spans = _decode_coref(raw, f, duplicates, malformed, doc_id)
            out.append(CorefRecord(doc_id, part, len(raw.coref), spans, str(f), raw.begin_line))
    return out


def _stem(f: Path) -> str:
    name = f.name
    for suffix in ("_conll", ".conll", ".jsonlines", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return f.stem


# --------------------------------------------------------------------------------------------
# Document readers
# --------------------------------------------------------------------------------------------
def read_coref(path: str | Path, format: CorefFormat = "auto", **options: Any) -> Iterator[Document]:
    """Documents of a coreference file (or directory) in any supported layout."""
    for f in _input_files(path):
        fmt = detect_format(f) if format == "auto" else format
        reader = {"conll2012": read_conll2012, "ontogum": read_ontogum, "jsonlines": read_jsonlines,
                  "conll": read_conll_coref}[fmt]
        yield from reader(f, **options)


def _clusters(ids: list[str], spans: list[list[Span]]) -> list[Cluster]:
    from lingtest.data.model import Cluster, Mention

    return [Cluster(mentions=[Mention(s, e) for s, e in ss], id=cid) for cid, ss in zip(ids, spans)]


_NUMS: list[str] = []


def _numbers(n: int) -> list[str]:
    """``["0", "1", ..., str(n - 1)]`` (cached), to check index columns with one comparison."""
    if len(_NUMS) < n:
        _NUMS.extend(str(i) for i in range(len(_NUMS), n))
    return _NUMS[:n]


def _check_index(col: list[str], start: int, raw: _RawDoc, a: int, path: Path, field: str) -> None:
    """The index column must count up from ``start``; else name the first wrong line."""
    n = len(col)
    if col == _numbers(start + n)[start:]:
        return
    for j, v in enumerate(col):
        if v.strip() != str(start + j):
            raise InputError(f"{field} {v!r} where {start + j} was expected", path=path,
                             line=raw.lines[a + j], field=field)


_WORD_ESCAPES = {"/.": ".", "/?": "?"}


def read_conll2012(path: str | Path, *, unescape: bool = True, duplicates: Duplicates = "error",
                   malformed: Malformed = "error", **_: Any) -> Iterator[Document]:
    """CoNLL-2012 ``*_conll`` documents (several documents and parts per file), every column kept.

    ``Document.id``/``part`` come from ``#begin document (id); part NNN``; ``Sentence.meta`` holds
    ``speaker`` (or ``speakers`` when it changes inside the sentence), ``frameset``, ``sense`` and
    ``args`` (one list of bits per predicate column). With ``unescape`` the OntoNotes escapes
    ``/.`` and ``/?`` of conversational data become ``.`` and ``?`` (as e2e-coref's jsonlines).
    """
    from lingtest.data.model import Document, Sentence, Token

    for f in _input_files(path):
        for index, raw in enumerate(_iter_raw(f, min_columns=12)):
            doc_id, part = _doc_name_parts(raw.name, _stem(f), index)
            sentences: list[Sentence] = []
            entities: list[Entity] = []
            for a, cols in zip(raw.sent_starts, raw.sents):
                n = len(cols[0])
                _check_index(cols[2], 0, raw, a, f, "word index")
                lines = _LazyLines(raw, a)
                words = cols[3]
                if unescape and ("/." in words or "/?" in words):
                    words = [_WORD_ESCAPES.get(w, w) for w in words]
                tokens = list(map(Token, words, [" "] * n, [None] * n, map(_dash_none, cols[4]),
                                  map(_dash_none, cols[6])))
                sent_entities, iob = _ne_spans(cols[10], lines, f, offset=a)
                if sent_entities or any(t is not None for t in iob):
                    for t, tag in zip(tokens, iob):
                        t.ent = tag
                entities.extend(sent_entities)
                tree = _tree_from_bits(cols[5], cols[4], lines, f)
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
            ids, spans = _decode_coref(raw, f, duplicates, malformed, doc_id)
            yield Document(id=doc_id, part=part, sentences=sentences, clusters=_clusters(ids, spans),
                           entities=entities)


class _LazyLines:
    """``lines[j]`` = file line of token ``offset + j``, computed only when an error needs it."""

    __slots__ = ("raw", "offset")

    def __init__(self, raw: _RawDoc, offset: int) -> None:
        self.raw, self.offset = raw, offset

    def __getitem__(self, j: int) -> int:
        if j < 0:
            raise IndexError(j)
        return self.raw.lines[self.offset + j]


def read_conll_coref(path: str | Path, *, word_column: int | None = None,
                     duplicates: Duplicates = "error", malformed: Malformed = "error",
                     **_: Any) -> Iterator[Document]:
    """Any CoNLL-style file whose last column holds the coreference brackets.

    The word is column ``word_column`` when given, else column 3 for 12+ columns (CoNLL-2012),
    column 1 for 3+ columns and column 0 otherwise. Blank lines are sentence breaks.
    """
    from lingtest.data.model import Document, Sentence, Token

    for f in _input_files(path):
        for index, raw in enumerate(_iter_raw(f, min_columns=1)):
            doc_id, part = _doc_name_parts(raw.name, _stem(f), index)
            sentences = []
            for a, cols in zip(raw.sent_starts, raw.sents):
                ncol = len(cols)
                wc = word_column if word_column is not None else (3 if ncol >= 12 else 1 if ncol >= 3 else 0)
                if wc >= max(ncol - 1, 1):
                    raise InputError(f"word column {wc} does not exist before the coreference column "
                                     f"({ncol} columns)", path=f, line=raw.lines[a], field="word")
                sentences.append(Sentence(tokens=list(map(Token, cols[wc]))))
            ids, spans = _decode_coref(raw, f, duplicates, malformed, doc_id)
            yield Document(id=doc_id, part=part, sentences=sentences, clusters=_clusters(ids, spans))


def read_ontogum(path: str | Path, conllu_dir: str | Path | None = None, *,
                 duplicates: Duplicates = "error", malformed: Malformed = "error",
                 **_: Any) -> Iterator[Document]:
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
    """
    from lingtest.data.model import Document, Sentence, Token

    for f in _input_files(path):
        for index, raw in enumerate(_iter_raw(f, min_columns=3)):
            doc_id, part = _doc_name_parts(raw.name, _stem(f), index)
            words: list[str] = []
            for a, cols in zip(raw.sent_starts, raw.sents):
                if len(cols) != 3:
                    raise InputError(f"OntoGUM lines have 3 columns (index, token, coref), found "
                                     f"{len(cols)}", path=f, line=raw.lines[a])
                _check_index(cols[0], a, raw, a, f, "index")
                words.extend(cols[1])
            if conllu_dir is not None:
                sentences = _sentences_from_conllu(Path(conllu_dir) / f"{doc_id}.conllu", words, f, raw)
            else:
                sentences = [Sentence(tokens=list(map(Token, words)))] if words else []
            ids, spans = _decode_coref(raw, f, duplicates, malformed, doc_id)
            yield Document(id=doc_id, part=part, sentences=sentences, clusters=_clusters(ids, spans))


def _sentences_from_conllu(conllu: Path, words: list[str], coref_path: Path, raw: _RawDoc) -> list[Sentence]:
    """Sentences of a CoNLL-U file whose word sequence must equal ``words`` (gold UD annotations)."""
    from lingtest.data.model import Sentence, Token

    if not conllu.is_file():
        raise InputError(f"no CoNLL-U file {conllu} for this document (conllu_dir is set)",
                         path=coref_path, line=raw.begin_line)
    text = _read_text(conllu)
    sentences: list[Sentence] = []
    n = 0
    for chunk in _BLANKS.split(text.strip("\n")):
        lines = chunk.split("\n")
        sent_id = None
        for line in lines:
            if line.startswith("# sent_id"):
                sent_id = line.split("=", 1)[-1].strip()
                break
        wl = [ln for ln in lines if ln and ln[0] != "#"]
        if not wl:
            continue
        flat = "\t".join(wl).split("\t")
        if len(flat) != 10 * len(wl):
            for ln in wl:
                if ln.count("\t") != 9:
                    raise InputError(f"CoNLL-U lines have 10 columns, found {ln.count(chr(9)) + 1}",
                                     path=conllu, line=_line_of(text, ln))
        ids = flat[0::10]
        keep = None
        if any("-" in i or "." in i for i in ids):  # multiword-token ranges and empty nodes
            keep = [k for k, i in enumerate(ids) if "-" not in i and "." not in i]
        cols = [flat[c::10] for c in range(10)]
        if keep is not None:
            cols = [[col[k] for k in keep] for col in cols]
        forms = cols[1]
        m = len(forms)
        expected = words[n : n + m]
        if forms != expected:
            for j, form in enumerate(forms):
                if n + j >= len(words):
                    raise InputError(f"the CoNLL-U file has more words than the coreference file "
                                     f"({len(words)}); first extra word {form!r}", path=conllu,
                                     line=_line_of(text, wl[j if keep is None else keep[j]]))
                if words[n + j] and words[n + j] != form:
                    raise InputError(f"token {n + j} is {words[n + j]!r} in the coreference file but "
                                     f"{form!r} in {conllu}: the files do not hold the same text",
                                     path=coref_path, line=raw.lines[n + j], field="token")
        try:
            heads = [int(h) - 1 for h in cols[6]]
        except ValueError:
            bad = next(h for h in cols[6] if not h.lstrip("-").isdigit())
            raise InputError(f"head {bad!r} is not an integer", path=conllu, field="head") from None
        ws = ["" if "SpaceAfter=No" in misc else " " for misc in cols[9]]
        if keep is not None:  # a multiword token: no space inside it, its own SpaceAfter at its end
            pos_of = {ids[k]: j for j, k in enumerate(keep)}
            for k, rid in enumerate(ids):
                if "-" in rid:
                    a_, _, b_ = rid.partition("-")
                    for w in range(int(a_), int(b_)):
                        if str(w) in pos_of:
                            ws[pos_of[str(w)]] = ""
                    if b_ in pos_of:
                        ws[pos_of[b_]] = "" if "SpaceAfter=No" in flat[10 * k + 9] else " "
        tokens = list(map(Token, forms, ws, map(_us_none, cols[3]), map(_us_none, cols[4]),
                          map(_us_none, cols[2]), heads, map(_us_none, cols[7]), [None] * m,
                          map(_us_none, cols[5])))
        sentences.append(Sentence(tokens=tokens, id=sent_id))
        n += m
    if n != len(words):
        raise InputError(f"the coreference file has {len(words)} tokens but {conllu} has only {n} words",
                         path=coref_path, line=raw.lines[n] if n < len(raw.lines) else None, field="token")
    return sentences


def _line_of(text: str, line: str) -> int | None:
    pos = text.find(line)
    return None if pos < 0 else text.count("\n", 0, pos) + 1


def read_jsonlines(path: str | Path, *, part_suffix: bool = False, duplicates: Duplicates = "error",
                   malformed: Malformed = "error", **_: Any) -> Iterator[Document]:
    """e2e-coref jsonlines: one JSON object per line with ``doc_key``, ``sentences`` (lists of words),
    ``clusters`` (lists of inclusive ``[start, end]`` document word offsets), ``speakers``
    (one per word, optional) and ``ner`` (inclusive ``[start, end, label]``, optional).

    ``Document.id`` is the ``doc_key``; with ``part_suffix`` a trailing ``_<n>`` (as in
    ``bc/cnn/00/cnn_0004_0``) becomes the part number.
    """
    for f in _input_files(path):
        for _, doc in _iter_jsonlines(f, part_suffix, duplicates, malformed):
            yield doc


def _iter_jsonlines(f: Path, part_suffix: bool, duplicates: Duplicates, malformed: Malformed
                    ) -> Iterator[tuple[int, Document]]:
    from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token

    for lineno, line in enumerate(_read_text(f).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path=f, line=lineno) from None
        if not isinstance(d, dict):
            raise InputError("expected a JSON object", path=f, line=lineno)
        for key in ("doc_key", "sentences"):
            if key not in d:
                raise InputError("missing required field", path=f, line=lineno, field=key)
        doc_id, part = str(d["doc_key"]), None
        if part_suffix:
            m = re.match(r"^(.*)_(\d+)$", doc_id)
            if m:
                doc_id, part = m.group(1), int(m.group(2))
        sents = d["sentences"]
        if not isinstance(sents, list) or not all(isinstance(s, list) for s in sents):
            raise InputError("must be a list of lists of words", path=f, line=lineno, field="sentences")
        speakers = d.get("speakers") or []
        if speakers and [len(s) for s in speakers] != [len(s) for s in sents]:
            raise InputError("speakers do not have one entry per word", path=f, line=lineno,
                             field="speakers")
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
            sentences.append(Sentence(tokens=[Token(text=str(w)) for w in words], meta=meta))
        n_tokens = sum(len(s) for s in sents)
        clusters: list[Cluster] = []
        seen: dict[Span, int] = {}
        for ci, cl in enumerate(d.get("clusters", [])):
            mentions = []
            for m in cl:
                try:
                    s, e = int(m[0]), int(m[1])
                    problem = None if 0 <= s <= e < n_tokens else \
                        f"cluster {ci}: mention [{s}, {e}] is outside the {n_tokens} words"
                except (TypeError, ValueError, IndexError):
                    problem = f"cluster {ci}: mention {m!r} is not [start, end]"
                if problem is not None:
                    if malformed == "error":
                        raise InputError(problem, path=f, line=lineno, field="clusters")
                    warnings.warn(f"{f}, line {lineno}: {problem}; skipped", CorefWarning, stacklevel=2)
                    continue
                span = (s, e + 1)
                if span in seen:
                    where = "the same cluster" if seen[span] == ci else f"clusters {seen[span]} and {ci}"
                    msg = f"duplicate mention [{s}, {e}] of document {doc_id!r}, in {where}"
                    if duplicates == "error":
                        raise InputError(msg, path=f, line=lineno, field="clusters")
                    if duplicates == "drop":
                        warnings.warn(f"{f}, line {lineno}: {msg}; the repeat is dropped",
                                      CorefWarning, stacklevel=2)
                        continue
                seen[span] = ci
                mentions.append(Mention(s, e + 1))
            if mentions:
                clusters.append(Cluster(mentions=sorted(mentions), id=str(ci)))
        entities = []
        for ne in d.get("ner", []) or []:
            try:
                entities.append(Entity(int(ne[0]), int(ne[1]) + 1, str(ne[2])))
            except (TypeError, ValueError, IndexError):
                raise InputError(f"entity {ne!r} is not [start, end, label]", path=f, line=lineno,
                                 field="ner") from None
        yield lineno, Document(id=doc_id, part=part, sentences=sentences, clusters=clusters,
                               entities=sorted(entities))


# --------------------------------------------------------------------------------------------
# Column helpers: named entities and parse bits
# --------------------------------------------------------------------------------------------
def _dash_none(v: str) -> str | None:
    return None if v in ("-", "_", "") else v


def _us_none(v: str) -> str | None:
    return None if v == "_" else v


def _ne_spans(bits: Sequence[str], lines: Sequence[int], path: Path, offset: int
              ) -> tuple[list[Entity], list[str | None]]:
    """Named entities of one sentence from ``(GPE)``, ``(ORG*``, ``*``, ``*)`` bits, plus IOB2 tags."""
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
                raise InputError(f"named entity {b!r} opens inside the open entity {label!r}",
                                 path=path, line=lines[i], field="ne")
            inner = b[1:]
            closed = inner.endswith(")")
            inner = inner.rstrip(")").rstrip("*")
            if not inner:
                raise InputError(f"malformed named-entity bit {b!r}", path=path, line=lines[i], field="ne")
            iob.append(f"B-{inner}")
            if closed:
                entities.append(Entity(offset + i, offset + i + 1, inner))
            else:
                label, start = inner, i
            continue
        if b in ("*)", ")"):
            if label is None:
                raise InputError(f"named entity closes ({b!r}) but none is open", path=path,
                                 line=lines[i], field="ne")
            iob.append(f"I-{label}")
            entities.append(Entity(offset + start, offset + i + 1, label))
            label = None
            continue
        raise InputError(f"malformed named-entity bit {b!r}", path=path, line=lines[i], field="ne")
    if label is not None:
        raise InputError(f"named entity {label!r} is not closed at the end of the sentence",
                         path=path, line=lines[start], field="ne")
    return entities, iob


_PARSE_PIECE = re.compile(r"\(([^()*\s_]+)|\*|\)|[_\s]+")


def _tree_from_bits(bits: Sequence[str], pos: Sequence[str], lines: Sequence[int], path: Path) -> Tree | None:
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
            elif tok == "*":
                if stars or not stack:
                    raise InputError(f"malformed parse bit {b!r}", path=path, line=lines[i], field="parse")
                stars = 1
                stack[-1].children.append(Tree(label=pos[i], token=i))
            elif tok == ")":
                if not stack:
                    raise InputError(f"parse bit {b!r} closes more brackets than are open",
                                     path=path, line=lines[i], field="parse")
                stack.pop()
        if pos_ != len(b) or not stars:
            raise InputError(f"malformed parse bit {b!r}", path=path, line=lines[i], field="parse")
    if stack or root is None:
        raise InputError("parse bits of the sentence leave brackets open", path=path,
                         line=lines[len(bits) - 1], field="parse")
    return root


def _parse_bits(tree: Tree | None, n: int) -> list[str]:
    """CoNLL parse bits of a tree over ``n`` tokens; ``-`` for each token when there is none."""
    if tree is None:
        return ["-"] * n
    opens: list[list[str]] = [[] for _ in range(n)]
    closes = [0] * n
    ok = True

    def walk(node: Tree) -> tuple[int, int]:
        nonlocal ok
        if node.token is not None:
            return node.token, node.token
        spans = [walk(c) for c in node.children]
        if not spans:
            ok = False
            return 0, 0
        s, e = spans[0][0], spans[-1][1]
        if 0 <= s < n and 0 <= e < n:
            opens[s].append(node.label)
            closes[e] += 1
        else:
            ok = False
        return s, e

    walk(tree)
    leaves = tree.leaves()
    if not ok or leaves != list(range(n)):
        warnings.warn("a tree does not cover its sentence's tokens in order; its parse bits are "
                      "written as '-'", CorefWarning, stacklevel=3)
        return ["-"] * n
    # the walk appends a node's label after its children's, so reverse for outer-first order
    return ["".join(f"({lab}" for lab in reversed(opens[i])) + "*" + ")" * closes[i] for i in range(n)]


# --------------------------------------------------------------------------------------------
# Writer
# --------------------------------------------------------------------------------------------
def _coref_bits(n_tokens: int, clusters: Iterable[Cluster], doc_id: str) -> list[str]:
    """Bracket cell for every token; cluster numbers are 0.. in the given order (or numeric ids)."""
    opens: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    singles: list[list[str]] = [[] for _ in range(n_tokens)]
    closes: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    clusters = list(clusters)
    use_ids = all(c.id is not None and str(c.id).isdigit() for c in clusters) and \
        len({str(c.id) for c in clusters}) == len(clusters)
    for k, c in enumerate(clusters):
        cid = str(int(c.id)) if use_ids else str(k)
        if _has_crossing(c.mentions):
            warnings.warn(f"document {doc_id!r}: cluster {cid} has crossing mentions (overlapping, "
                          "neither inside the other); the bracket format cannot express them and "
                          "they will read back as nested mentions", CorefWarning, stacklevel=4)
        for m in c.mentions:
            if not 0 <= m.start < m.end <= n_tokens:
                raise ValueError(f"document {doc_id!r}: mention [{m.start}, {m.end}) is outside its "
                                 f"{n_tokens} tokens")
            if m.end - m.start == 1:
                singles[m.start].append(cid)
            else:
                opens[m.start].append((m.end, cid))
                closes[m.end - 1].append((m.start, cid))
    out = []
    for i in range(n_tokens):
        parts = [f"({cid}" for _, cid in sorted(opens[i], reverse=True)]  # longest first
        parts += [f"({cid})" for cid in singles[i]]
        parts += [f"{cid})" for _, cid in sorted(closes[i], reverse=True)]  # shortest first
        out.append("|".join(parts) if parts else "-")
    return out


def _has_crossing(mentions: Iterable[Any]) -> bool:
    """Whether two mentions overlap without one containing the other."""
    stack: list[int] = []  # ends of the open enclosing mentions
    for m in sorted(mentions, key=lambda m: (m.start, -m.end)):
        while stack and stack[-1] <= m.start:
            stack.pop()
        if stack and stack[-1] < m.end:
            return True
        stack.append(m.end)
    return False


def _ne_bits(doc: Document, offsets: list[int]) -> list[list[str]]:
    """NE column per sentence; entities that overlap or cross sentences are skipped with a warning."""
    bits = [["*"] * len(s.tokens) for s in doc.sentences]
    if not doc.entities:
        return [["*"] * len(s.tokens) for s in doc.sentences]
    taken = -1
    for ent in sorted(doc.entities, key=lambda e: (e.start, -e.end)):
        si, a = doc.locate(ent.start)
        if ent.start < taken or ent.end - offsets[si] > len(doc.sentences[si].tokens):
            warnings.warn(f"document {doc.key}: entity {ent.to_list()} overlaps another or crosses a "
                          "sentence break; it is not written", CorefWarning, stacklevel=3)
            continue
        b = ent.end - offsets[si] - 1
        if a == b:
            bits[si][a] = f"({ent.label})"
        else:
            bits[si][a] = f"({ent.label}*"
            bits[si][b] = "*)"
        taken = ent.end
    return bits


def _cell(v: Any) -> str:
    """A column value without whitespace (the format splits on it); empty becomes '-'."""
    s = "-" if v is None else str(v)
    if not s:
        return "-"
    return "_".join(s.split()) if any(ch.isspace() for ch in s) else s


def write_conll(docs: Iterable[Document], path_or_fh: str | Path | IO[str]) -> int:
    """Write documents in CoNLL-2012 layout (tab-separated), readable by our readers and the
    reference scorer; returns the number of documents.

    Header ``#begin document (id); part NNN`` (just ``(id)`` when the document has no part).
    Columns: id, part, word index, word, POS (``Token.tag``), parse bit (from ``Sentence.tree``),
    lemma, frameset, sense, speaker, NE (from ``Document.entities``), the argument columns kept in
    ``Sentence.meta["args"]``, coreference last; ``-`` where a value is unknown. Paths are written
    atomically.
    """
    if isinstance(path_or_fh, (str, Path)):
        from lingtest.data.io import atomic_open

        with atomic_open(path_or_fh) as fh:
            return _write_conll(docs, fh)
    return _write_conll(docs, path_or_fh)


def _write_conll(docs: Iterable[Document], fh: IO[str]) -> int:
    count = 0
    for doc in docs:
        part = doc.part if doc.part is not None else 0
        header = f"({doc.id})" if doc.part is None else f"({doc.id}); part {doc.part:03d}"
        lines = [f"#begin document {header}"]
        offsets = doc.sentence_offsets()
        n_tokens = sum(len(s.tokens) for s in doc.sentences)
        coref = _coref_bits(n_tokens, doc.clusters, doc.key)
        ne = _ne_bits(doc, offsets)
        doc_col = _cell(doc.id)
        for si, sent in enumerate(doc.sentences):
            n = len(sent.tokens)
            if not n:
                continue
            bits = _parse_bits(sent.tree, n)
            pre_tags: dict[int, str] = {}
            if sent.tree is not None:
                pre_tags = {t.token: t.label for t in sent.tree.subtrees() if t.token is not None}
            meta = sent.meta
            speakers = meta.get("speakers") or [meta.get("speaker", "-")] * n
            framesets = meta.get("frameset") or ["-"] * n
            senses = meta.get("sense") or ["-"] * n
            args = [a for a in meta.get("args", []) if len(a) == n]
            for j, tok in enumerate(sent.tokens):
                cols = [doc_col, str(part), str(j), _cell(tok.text) if tok.text else "_",
                        _cell(tok.tag or pre_tags.get(j)), bits[j], _cell(tok.lemma),
                        _cell(framesets[j]), _cell(senses[j]), _cell(speakers[j]), ne[si][j],
                        *(_cell(a[j]) for a in args), coref[offsets[si] + j]]
                lines.append("\t".join(cols))
            lines.append("")
        lines.append("#end document")
        fh.write("\n".join(lines) + "\n")
        count += 1
    return count
