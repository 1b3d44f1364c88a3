"""Write documents in CoNLL-2012 layout (tab-separated), readable by the coreference readers and
the reference scorer: :func:`write_conll`."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from lingtest.readers.coref.records import CorefWarning

if TYPE_CHECKING:
    from lingtest.data.model import Cluster, Document, Tree

__all__ = ["write_conll"]


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


def _coref_bits(n_tokens: int, clusters: Iterable[Cluster], doc_id: str) -> list[str]:
    """Bracket cell for every token; cluster numbers are 0.. in the given order (or numeric ids)."""
    opens: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    singles: list[list[str]] = [[] for _ in range(n_tokens)]
    closes: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    clusters = list(clusters)
    use_ids = all(c.id is not None and str(c.id).isdigit() for c in clusters) and \
        len({str(c.id) for c in clusters}) == len(clusters)
    for k, c in enumerate(clusters):
        cid = str(int(str(c.id))) if use_ids else str(k)
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
