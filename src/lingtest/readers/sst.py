"""Stanford Sentiment Treebank readers: PTB-format trees and the SST-2/SST-5 line format.

Label convention (stated once, used everywhere):

* fine labels are the strings ``"0"`` .. ``"4"`` (very negative, negative, neutral, positive,
  very positive); ``Sentence.label`` and ``Document.label`` hold the fine label of the root;
* ``meta["binary"]`` is derived from it as in SST-2: ``0, 1 -> "negative"``, ``3, 4 ->
  "positive"``, ``2 -> None`` (neutral sentences have no binary label and are left out of
  SST-2); ``meta["fine_name"]`` is the readable fine name.

:func:`read_sst_ptb` yields one :class:`Document` per tree line with one :class:`Sentence`
whose tokens are the leaves (PTB escapes such as ``-LRB-`` and ``\\/`` undone unless
``unescape=False``) and whose :attr:`Sentence.tree` keeps the sentiment class of every
node as its label (preterminal labels are the word-level classes, not POS tags).
:func:`read_sst_lines` reads ``label sentence`` lines (``stsa.binary.*``: 0/1, ``stsa.fine.*``:
0..4). Ids are positional: ``<prefix>-<line index:05d>`` with the file stem as prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lingtest.data.model import Document, Sentence, Token, Tree
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, guarded, read_lines, shorten, split_fields

FINE_NAMES = ("very negative", "negative", "neutral", "positive", "very positive")
BINARY_NAMES = ("negative", "positive")
_FINE_LABELS = {str(i) for i in range(5)}


def binary_from_fine(label: int | str) -> str | None:
    """SST-2 label of a fine label: 0,1 -> negative; 3,4 -> positive; 2 -> None."""
    v = int(label)
    if v not in range(5):
        raise ValueError(f"SST fine label must be 0..4, got {shorten(label)}")
    return None if v == 2 else ("negative" if v < 2 else "positive")


def _label_meta(fine: str) -> dict[str, Any]:
    return {"binary": binary_from_fine(fine), "fine_name": FINE_NAMES[int(fine)]}


_PTB_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]"}
# SST trees separate tokens by ASCII spaces only: a word may hold a no-break space ("8 1/2")
_TREE_TOKEN_RE = re.compile(r"[()]|[^ \t\r\n()]+")


def unescape_word(word: str) -> str:
    """Undo PTB escapes (``-LRB-`` -> ``(``, ``\\/`` -> ``/``, ``\\*`` -> ``*``); case-insensitive
    for the bracket names because the SST-2/5 line files are lower-cased (``-lrb-``)."""
    mapped = _PTB_ESCAPES.get(word.upper())
    if mapped is not None:
        return mapped
    return word.replace("\\/", "/").replace("\\*", "*")


def parse_sst_tree(line: str, *, unescape: bool, max_depth: int) -> tuple[Tree, list[str]]:
    """Parse one SST tree; returns the tree (sentiment labels kept) and its words.

    Every node is ``(label child...)`` and every preterminal ``(label word)``. Raises
    ``ValueError`` on unbalanced brackets, a node label outside 0..4, a tree without words or
    brackets nested deeper than ``max_depth``.
    """
    toks = _TREE_TOKEN_RE.findall(line)
    depth = 0
    for t in toks:  # bound the recursion below before it starts
        depth += 1 if t == "(" else -1 if t == ")" else 0
        if depth > max_depth:
            raise ValueError(f"brackets nested deeper than {max_depth} (max_depth)")
    words: list[str] = []
    pos = 0

    def node() -> Tree:
        nonlocal pos
        if pos >= len(toks) or toks[pos] != "(":
            raise ValueError(f"expected '(' at bracket token {pos}")
        if pos + 1 >= len(toks) or toks[pos + 1] in "()":
            raise ValueError(f"node without a label at bracket token {pos}")
        label = toks[pos + 1]
        if label not in _FINE_LABELS:
            raise ValueError(f"node label {shorten(label)} is not a sentiment class 0..4")
        pos += 2
        if pos < len(toks) and toks[pos] not in "()":
            word = toks[pos]
            pos += 1
            if pos >= len(toks) or toks[pos] != ")":
                raise ValueError(f"preterminal {shorten(label)} has more than one word")
            pos += 1
            words.append(unescape_word(word) if unescape else word)
            return Tree(label=label, token=len(words) - 1)
        children: list[Tree] = []
        while pos < len(toks) and toks[pos] == "(":
            children.append(node())
        if pos >= len(toks) or toks[pos] != ")":
            raise ValueError("unbalanced brackets")
        pos += 1
        if not children:
            raise ValueError("tree has no words")
        return Tree(label=label, children=children)

    tree = node()
    if pos != len(toks):
        raise ValueError("trailing material after the tree")
    return tree, words


@guarded("trees")
def read_sst_ptb(path: str | Path, *, split: str | None, id_prefix: str | None, unescape: bool, encoding: str,
                 max_depth: int, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """Yield one :class:`Document` per SST tree line (blank lines are skipped).

    Every phrase label stays in ``Sentence.tree`` (``tree.constituents()`` lists them as
    ``(label, start, end)``); ``Document.meta["line"]`` is the 1-based source line.
    ``max_depth`` bounds the bracket nesting, ``max_line_bytes`` and ``max_file_bytes`` what is read.
    """
    path = Path(path)
    prefix = id_prefix if id_prefix is not None else f"sst-{path.stem}"
    n = 0
    for lineno, line in enumerate(read_lines(path, encoding, TextLimits(max_line_bytes, max_file_bytes)), start=1):
        if not line.strip():
            continue
        try:
            tree, words = parse_sst_tree(line.strip(), unescape=unescape, max_depth=max_depth)
        except ValueError as exc:
            field = "label" if "sentiment class" in str(exc) else "tree"
            raise InputError(f"bad SST tree: {exc}", path=path, line=lineno, field=field) from None
        doc_id = f"{prefix}-{n:05d}"
        fine = tree.label
        meta = _label_meta(fine)
        sent = Sentence(tokens=[Token(text=w) for w in words], tree=tree, id=f"{doc_id}-s0", label=fine,
                        meta=dict(meta))
        yield Document(id=doc_id, sentences=[sent], split=split, label=fine, meta={**meta, "line": lineno})
        n += 1


def _infer_label_set(path: Path, labels: str) -> str:
    if labels in ("binary", "fine"):
        return labels
    if labels != "auto":
        raise ValueError(f"labels must be 'auto', 'binary' or 'fine', got {labels!r}")
    name = path.name.lower()
    if "binary" in name or "sst2" in name or "sst-2" in name:
        return "binary"
    if "fine" in name or "sst5" in name or "sst-5" in name:
        return "fine"
    return "auto"  # decided from the values


@guarded("sentences")
def read_sst_lines(path: str | Path, *, labels: str, split: str | None, id_prefix: str | None, unescape: bool,
                   encoding: str, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """Read SST-2/SST-5 ``label sentence`` lines (pre-tokenised, space-separated).

    ``labels``: ``"binary"`` (0 negative, 1 positive), ``"fine"`` (0..4) or ``"auto"`` (from
    the file name, ``binary``/``fine``; failing that fine unless every label is 0 or 1). A label
    is one ASCII digit: ``+1``, ``01`` or other scripts' digits are errors.
    Binary documents get ``label`` ``"negative"``/``"positive"``; fine ones the fine string
    with ``meta["binary"]`` derived as in the module docstring. ``unescape`` undoes the PTB
    escapes the files keep (``-lrb-``, ``\\/``), as :func:`read_sst_ptb` does. ``max_line_bytes`` and
    ``max_file_bytes`` cap what is read.
    """
    path = Path(path)
    kind = _infer_label_set(path, labels)
    rows: list[tuple[int, int, list[str]]] = []
    for lineno, line in enumerate(read_lines(path, encoding, TextLimits(max_line_bytes, max_file_bytes)), start=1):
        parts = split_fields(line)
        if not parts:
            continue
        if parts[0] not in _FINE_LABELS:
            raise InputError(f"expected a label 0..4 first, found {shorten(parts[0])}", path=path,
                             line=lineno, field="label")
        value = int(parts[0])
        if len(parts) < 2:
            raise InputError("empty sentence", path=path, line=lineno, field="sentence")
        rows.append((lineno, value, parts[1:]))
    if kind == "auto":
        kind = "binary" if rows and all(v in (0, 1) for _, v, _ in rows) else "fine"
    allowed = range(2) if kind == "binary" else range(5)
    prefix = id_prefix if id_prefix is not None else f"sst-{path.name}"
    for n, (lineno, value, words) in enumerate(rows):
        if value not in allowed:
            raise InputError(f"label {value} is not a {kind} SST label ({allowed.start}..{allowed.stop - 1})",
                             path=path, line=lineno, field="label")
        if kind == "binary":
            label, meta = BINARY_NAMES[value], {"binary": BINARY_NAMES[value]}
        else:
            label, meta = str(value), _label_meta(str(value))
        doc_id = f"{prefix}-{n:05d}"
        tokens = [Token(text=unescape_word(w) if unescape else w) for w in words]
        sent = Sentence(tokens=tokens, id=f"{doc_id}-s0", label=label, meta=dict(meta))
        yield Document(id=doc_id, sentences=[sent], split=split, label=label,
                       meta={**meta, "label_set": kind, "line": lineno})
