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
* :func:`read_conllu` — UD CoNLL-U: syntactic words (multiword token ranges ``1-2`` skipped,
  their ``SpaceAfter`` passed to their last word; empty nodes ``1.1`` skipped), UPOS, XPOS,
  lemma, head (0-based, ``-1`` root), deprel, feats; ``# sent_id`` → ``Sentence.id``,
  ``# text`` and other ``key = value`` comments → ``Sentence.meta``; ``# newdoc id`` starts a new
  Document (otherwise one Document per file, named after the file).

Malformed input raises :class:`~lingtest.errors.InputError` with the file and 1-based line.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from lingtest.data.model import Document, Sentence, Token, Tree
from lingtest.errors import InputError

__all__ = ["read_ptb", "read_ptb_sample", "read_conllu", "iter_bracketed", "strip_empty_elements",
           "tree_to_sentence"]


# --------------------------------------------------------------------------------------------
# bracketed trees
# --------------------------------------------------------------------------------------------
def iter_bracketed(lines: Iterable[str], path: str | Path = "<string>") -> Iterator[tuple[int, str]]:
    """Yield (1-based start line, text) of each top-level bracketed tree in ``lines``.

    Raises InputError on a closing bracket with no opener, text outside brackets, or a tree still
    open at the end of the input.
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
                raise InputError(f"text outside a bracketed tree: {line.strip()[:40]!r}", path=path, line=lineno)
        if depth > 0:
            buf.append(line[seg_start:])
    if depth > 0:
        raise InputError("unbalanced brackets: tree not closed at end of file", path=path, line=start)


def strip_empty_elements(tree: Tree, words: list[str], empty_label: str = "-NONE-") -> tuple[Tree | None, list[str]]:
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


def _read_trees(lines: Iterable[str], path: str | Path, doc_id: str) -> Document:
    sentences = []
    for lineno, text in iter_bracketed(lines, path):
        try:
            tree, words = Tree.from_bracketed(text)
        except (ValueError, IndexError) as exc:
            raise InputError(f"malformed tree: {exc}", path=path, line=lineno) from None
        pruned, words = strip_empty_elements(tree, words)
        if pruned is None:  # a tree of empty elements only
            continue
        sentences.append(tree_to_sentence(pruned, words, f"{doc_id}-{len(sentences) + 1}"))
    return Document(id=doc_id, sentences=sentences, meta={"source": str(path)})


def read_ptb(path: str | Path) -> Iterator[Document]:
    """Read a Penn bracketed file (or every ``*.ptb``/``*.mrg`` file in a folder): one Document per
    file, id = file stem, sentence ids ``<stem>-<n>`` (matching GUM's ``sent_id``)."""
    path = Path(path)
    files = sorted([*path.glob("*.ptb"), *path.glob("*.mrg")]) if path.is_dir() else [path]
    for f in files:
        with open(f, encoding="utf-8") as fh:
            yield _read_trees(fh, f, f.stem)


def read_ptb_sample(path: str | Path, pattern: str = "treebank/combined/") -> Iterator[Document]:
    """Read NLTK's PTB sample ``treebank.zip`` without extracting it: one Document per ``.mrg``
    file under ``pattern``, empty elements stripped."""
    path = Path(path)
    if path.is_dir():
        path = path / "treebank.zip"
    try:
        zf = zipfile.ZipFile(path)
    except (FileNotFoundError, zipfile.BadZipFile) as exc:
        raise InputError(f"cannot open treebank zip: {exc}", path=path) from None
    with zf:
        names = sorted(n for n in zf.namelist() if n.startswith(pattern) and n.endswith(".mrg"))
        for name in names:
            text = zf.read(name).decode("utf-8", errors="replace")
            yield _read_trees(io.StringIO(text), f"{path}:{name}", Path(name).stem)


# --------------------------------------------------------------------------------------------
# CoNLL-U
# --------------------------------------------------------------------------------------------
def _none(v: str) -> str | None:
    return None if v == "_" else v


def read_conllu(path: str | Path) -> Iterator[Document]:
    """Read a UD CoNLL-U file into Documents (see the module docstring)."""
    path = Path(path)
    doc: Document | None = None
    doc_meta: dict[str, str] = {}
    tokens: list[Token] = []
    sent_meta: dict[str, str] = {}
    sent_id: str | None = None
    mwt_end: int | None = None
    mwt_space: str = " "
    ids: list[int] = []
    heads_raw: list[tuple[int, int]] = []  # (head, line) for range checks

    def finish_sentence(lineno: int) -> Sentence | None:
        nonlocal tokens, sent_meta, sent_id, ids, heads_raw, mwt_end
        if not tokens:
            sent_meta, sent_id = {}, None
            return None
        n = len(tokens)
        for (h, ln), tok in zip(heads_raw, tokens, strict=True):
            if h > n:
                raise InputError(f"head {h} outside the sentence of {n} words", path=path, line=ln, field="HEAD")
        s = Sentence(tokens=tokens, id=sent_id, meta=sent_meta)
        tokens, sent_meta, sent_id, ids, heads_raw, mwt_end = [], {}, None, [], [], None
        return s

    def new_doc(doc_id: str) -> Document:
        return Document(id=doc_id, meta={})

    lineno = 0
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip():
                s = finish_sentence(lineno)
                if s is not None:
                    if doc is None:
                        doc = new_doc(path.stem)
                        doc.meta.update(doc_meta)
                    doc.sentences.append(s)
                continue
            if line.startswith("#"):
                body = line[1:].strip()
                key, sep, value = body.partition("=")
                key, value = key.strip(), value.strip()
                if key in ("newdoc id", "newdoc"):
                    if doc is not None and doc.sentences:
                        yield doc
                    doc = new_doc(value or path.stem)
                    doc_meta = {}
                elif key == "sent_id":
                    sent_id = value
                elif sep:
                    if tokens:
                        raise InputError("comment inside a sentence", path=path, line=lineno)
                    if doc is not None and not doc.sentences and key.startswith(("meta::", "global.")):
                        doc.meta[key] = value
                    else:
                        sent_meta[key] = value
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise InputError(f"expected 10 tab-separated columns, found {len(cols)}", path=path, line=lineno)
            wid, form, lemma, upos, xpos, feats, head, deprel, _deps, misc = cols
            if "." in wid:  # empty node of enhanced UD
                continue
            if "-" in wid:  # multiword token range: remember its SpaceAfter
                try:
                    _a, b = (int(x) for x in wid.split("-"))
                except ValueError:
                    raise InputError(f"bad token range {wid!r}", path=path, line=lineno, field="ID") from None
                mwt_end = b
                mwt_space = "" if "SpaceAfter=No" in misc.split("|") else " "
                continue
            try:
                i = int(wid)
            except ValueError:
                raise InputError(f"non-integer ID {wid!r}", path=path, line=lineno, field="ID") from None
            if i != len(tokens) + 1:
                raise InputError(f"word ID {i} out of sequence (expected {len(tokens) + 1})", path=path,
                                 line=lineno, field="ID")
            try:
                h = int(head)
            except ValueError:
                raise InputError(f"non-integer head {head!r}", path=path, line=lineno, field="HEAD") from None
            if h < 0:
                raise InputError(f"negative head {h}", path=path, line=lineno, field="HEAD")
            ws = "" if "SpaceAfter=No" in misc.split("|") else " "
            if mwt_end is not None and i < mwt_end:
                ws = ""  # words inside a multiword token are written together
            elif mwt_end is not None and i == mwt_end:
                ws, mwt_end = mwt_space, None
            tokens.append(Token(text=form, ws=ws, pos=_none(upos), tag=_none(xpos), lemma=_none(lemma),
                                head=h - 1, dep=_none(deprel), morph=_none(feats)))
            heads_raw.append((h, lineno))
        s = finish_sentence(lineno)
        if s is not None:
            if doc is None:
                doc = new_doc(path.stem)
            doc.sentences.append(s)
    if doc is not None and doc.sentences:
        yield doc
