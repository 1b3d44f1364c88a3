"""Treebank readers: Penn bracketed trees (GUM ``const/*.ptb``, NLTK's PTB sample) and UD CoNLL-U.

* :func:`read_ptb` — one tree per sentence, trees separated by whitespace (GUM writes them over
  several lines with blank lines between). Tokens come from the leaves (``Token.tag`` = the
  preterminal label), ``Sentence.tree`` keeps the tree as written (outer ``ROOT``; function tags
  such as ``NP-SBJ`` are kept). Bracket words ``-LRB-``/``-RRB-`` become ``(``/``)``; other
  escaped leaves (``-LCB-``, GUM's literal ``[``) are kept as written. Empty elements
  (preterminal ``-NONE-``: traces, null complementisers) are removed with any constituent left
  empty, and token indices are renumbered, so tokens are the overt words only.
* :func:`read_ptb_sample` — the same for NLTK's ``treebank.zip`` (``treebank/combined/*.mrg``),
  read straight from the zip; one Document per file.
* :func:`read_conllu` — UD CoNLL-U (:mod:`lingtest.readers.conllu`, re-exported here).

Malformed input raises :class:`~lingtest.errors.InputError` with the file and 1-based line: text
outside brackets, unbalanced brackets, a node without a word or children, a word beside
subtrees, nesting deeper than ``max_depth``, invalid UTF-8 or control characters, a line longer
than ``max_line_bytes``, a file without trees, two documents with the same id, and in a zip a
member whose name differs between the zip's directory and the member's own header (a corrupt
directory would otherwise drop or rename a member silently).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from lingtest.data.model import Document, Sentence, Token, Tree
from lingtest.errors import InputError
from lingtest.readers.conllu import read_conllu
from lingtest.readers.textio import LineMeter, TextLimits, decode_lines, guarded, read_lines

__all__ = ["read_ptb", "read_ptb_sample", "read_conllu", "iter_bracketed", "strip_empty_elements",
           "tree_to_sentence", "check_bracketed"]


# --------------------------------------------------------------------------------------------
# bracketed trees
# --------------------------------------------------------------------------------------------
def iter_bracketed(lines: Iterable[str], path: str | Path, *, max_depth: int) -> Iterator[tuple[int, str]]:
    """Yield (1-based start line, text) of each top-level bracketed tree in ``lines``.

    Raises InputError on a closing bracket with no opener, text outside brackets, nesting
    deeper than ``max_depth``, or a tree still open at the end of the input.
    """
    depth = 0
    buf: list[str] = []
    start = 0
    for lineno, line in enumerate(lines, 1):
        if depth == 0 and not line.strip():
            continue
        seg_start = 0
        for j, ch in enumerate(line):
            if ch == "(":
                if depth == 0:
                    start = lineno
                    seg_start = j
                    buf = []
                depth += 1
                if depth > max_depth:
                    raise InputError(f"brackets nested deeper than {max_depth} (max_depth)", path=path,
                                     line=lineno)
            elif ch == ")":
                if depth == 0:
                    raise InputError("closing bracket without an opening one", path=path, line=lineno)
                depth -= 1
                if depth == 0:
                    buf.append(line[seg_start:j + 1])
                    yield start, " ".join(buf)
                    buf = []
                    seg_start = j + 1
            elif depth == 0 and not ch.isspace():
                raise InputError(f"text outside a bracketed tree: {line.strip()[:40]!r}", path=path,
                                 line=lineno)
        if depth > 0:
            buf.append(line[seg_start:])
    if depth > 0:
        raise InputError("unbalanced brackets: tree not closed at end of file", path=path, line=start)


_BRACKET_TOKEN = re.compile(r"\(|\)|[^()\s]+")


def check_bracketed(text: str, *, max_depth: int) -> str | None:
    """What is wrong with one bracketed tree, or ``None``: every node is ``(label word)`` or
    ``(label child...)`` (the outermost label may be missing), nesting at most ``max_depth``.
    Iterative, so it never recurses whatever the input."""
    stack: list[list[bool]] = []  # per open node: [expects label, has word, has children]
    closed = False
    for tok in _BRACKET_TOKEN.findall(text):
        if closed:
            return "material after the end of the tree"
        if tok == "(":
            if stack:
                top = stack[-1]
                if top[1]:
                    return "a node holds both a word and subtrees"
                top[0], top[2] = False, True
            if len(stack) >= max_depth:
                return f"brackets nested deeper than {max_depth} (max_depth)"
            stack.append([True, False, False])
        elif tok == ")":
            if not stack:
                return "closing bracket without an opening one"
            top = stack.pop()
            if not (top[1] or top[2]):
                return "a node with neither a word nor subtrees"
            closed = not stack
        else:
            if not stack:
                return "text outside the tree"
            top = stack[-1]
            if top[0]:
                top[0] = False
                continue
            if top[1] or top[2]:
                return "a node holds more than one word, or a word beside subtrees"
            top[1] = True
    if stack or not closed:
        return "unbalanced brackets"
    return None


def strip_empty_elements(tree: Tree, words: list[str],
                         empty_label: str = "-NONE-") -> tuple[Tree | None, list[str]]:
    """Remove ``-NONE-`` preterminals and constituents left empty; renumber tokens."""
    keep = {t.token for t in tree.subtrees() if t.token is not None and t.label != empty_label}
    if len(keep) == len(words):  # nothing to strip (GUM): keep the tree as it is
        return tree, words
    new_index = {old: i for i, old in enumerate(sorted(keep))}

    def prune(t: Tree) -> Tree | None:
        if t.token is not None:
            return Tree(t.label, token=new_index[t.token]) if t.token in keep else None
        kids = [c for c in (prune(c) for c in t.children) if c is not None]
        return Tree(t.label, kids) if kids else None

    return prune(tree), [words[i] for i in sorted(keep)]


def tree_to_sentence(tree: Tree, words: list[str], sent_id: str | None = None) -> Sentence:
    """A Sentence whose tokens are the tree's leaves (tag = preterminal label)."""
    tags = {t.token: t.label for t in tree.subtrees() if t.token is not None}
    tokens = [Token(text=w, tag=tags.get(i)) for i, w in enumerate(words)]
    return Sentence(tokens=tokens, tree=tree, id=sent_id)


def _read_trees(lines: Iterable[str], path: str | Path, doc_id: str, max_depth: int) -> Document:
    sentences: list[Sentence] = []
    n_trees = 0
    for lineno, text in iter_bracketed(lines, path, max_depth=max_depth):
        problem = check_bracketed(text, max_depth=max_depth)
        if problem is None:
            try:
                tree, words = Tree.from_bracketed(text)
            except (ValueError, IndexError) as exc:
                problem = str(exc)
        if problem is not None:
            raise InputError(f"malformed tree: {problem}", path=path, line=lineno)
        n_trees += 1
        pruned, words = strip_empty_elements(tree, words)
        if pruned is None:  # a tree of empty elements only
            continue
        sentences.append(tree_to_sentence(pruned, words, f"{doc_id}-{len(sentences) + 1}"))
    if not n_trees:
        raise InputError("no bracketed trees: the file is empty", path=path)
    return Document(id=doc_id, sentences=sentences, meta={"source": str(path)})


@guarded("trees")
def read_ptb(path: str | Path, *, max_depth: int, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """Read a Penn bracketed file (or every ``*.ptb``/``*.mrg`` file in a folder): one Document per
    file, id = file stem, sentence ids ``<stem>-<n>`` (matching GUM's ``sent_id``). ``max_depth``
    bounds the bracket nesting (deeper trees are an error), ``max_line_bytes`` and
    ``max_file_bytes`` what is read."""
    limits = TextLimits(max_line_bytes, max_file_bytes)
    path = Path(path)
    files = sorted([*path.glob("*.ptb"), *path.glob("*.mrg")]) if path.is_dir() else [path]
    if not files:
        raise InputError("the folder holds no *.ptb or *.mrg files", path=path)
    seen: dict[str, Path] = {}
    for f in files:
        if f.stem in seen:
            raise InputError(f"document {f.stem!r} occurs twice (also {seen[f.stem].name})", path=f)
        seen[f.stem] = f
        yield _read_trees(read_lines(f, limits=limits), f, f.stem, max_depth)


@guarded("trees")
def read_ptb_sample(path: str | Path, *, pattern: str, max_depth: int, max_member_bytes: int,
                    max_line_bytes: int) -> Iterator[Document]:
    """Read NLTK's PTB sample ``treebank.zip`` without extracting it: one Document per ``.mrg``
    file under ``pattern`` (``treebank/combined/`` in NLTK's zip), empty elements stripped. A
    member larger than ``max_member_bytes`` once decompressed (NLTK's sample files are at most
    about 60 kB) is refused before it is read, a line longer than ``max_line_bytes`` before it is
    parsed. Every member's header is checked against the zip's directory (name, and the CRC of
    the members read), so a corrupt zip is an error, never a member silently dropped."""
    path = Path(path)
    if path.is_dir():
        path = path / "treebank.zip"
    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except _ZIP_ERRORS as exc:
        raise InputError(f"cannot open treebank zip: {exc}", path=path) from None
    with zf:
        _check_member_headers(zf, path)
        names = sorted(n for n in zf.namelist() if n.startswith(pattern) and n.endswith(".mrg"))
        if not names:
            raise InputError(f"the zip holds no {pattern}*.mrg files", path=path)
        seen: set[str] = set()
        for name in names:
            where = f"{path}:{name}"
            if name in seen:
                raise InputError("the zip holds this member twice", path=where)
            seen.add(name)
            info = zf.getinfo(name)
            if info.file_size > max_member_bytes:
                raise InputError(f"member of {info.file_size} bytes is larger than max_member_bytes "
                                 f"({max_member_bytes})", path=where)
            data = _read_member(zf, info, where, max_member_bytes, max_line_bytes)
            yield _read_trees(decode_lines(data, where), where, Path(name).stem, max_depth)


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError)


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, max_member_bytes: int,
                 max_line_bytes: int) -> bytes:
    """The bytes of one member, read in chunks: refused as soon as it passes ``max_member_bytes``
    or one of its lines passes ``max_line_bytes`` (and when its CRC does not match)."""
    meter = LineMeter(max_line_bytes, where)
    chunks: list[bytes] = []
    total = 0
    try:
        with zf.open(info) as fh:
            while chunk := fh.read(meter.chunk_size):
                total += len(chunk)
                if total > max_member_bytes:
                    raise InputError(f"member is larger than max_member_bytes ({max_member_bytes})", path=where)
                meter.feed(chunk)
                chunks.append(chunk)
    except InputError:
        raise
    except _ZIP_ERRORS as exc:
        raise InputError(f"cannot read the zip member ({exc})", path=where) from None
    return b"".join(chunks)


def _check_member_headers(zf: zipfile.ZipFile, path: Path) -> None:
    """Open (without reading) every member: ``zipfile`` then checks the member's own header
    against the zip's directory, whose names nothing else protects."""
    for info in zf.infolist():
        try:
            with zf.open(info):
                pass
        except _ZIP_ERRORS as exc:
            raise InputError(f"corrupt zip: member {info.filename!r} ({exc})", path=path) from None
