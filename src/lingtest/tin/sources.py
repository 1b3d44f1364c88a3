"""TIN's source sentences: a seeded sample of a labelled corpus split (CoNLL-2003 test: gold entities
from its IOB2 tags) or of a file of unlabelled sentences (the paper's BBC set), parsed once.

A source is stored as a one-sentence :class:`~lingtest.data.model.Document` (id ``<doc>/<k>`` or
``line<n>``) whose tokens carry the parse (PTB tag, lemma, dependency, constituency tree) and, in
``ent``, the **gold** IOB2 tags (``None`` when unlabelled; the parser's own NER is not kept).
``doc.meta["labelled"]`` says which.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document, Entity, Sentence, Token
from lingtest.errors import InputError
from lingtest.tin.spans import entities_from_tags

SOURCE_KIND = "document"


def labelled_pool(docs: Iterable[Document], *, min_tokens: int, max_tokens: int) -> list[Document]:
    """Every sentence of ``docs`` with ``min_tokens <= length <= max_tokens`` (``-DOCSTART-`` never)
    as a one-sentence document, in corpus order. A token without an NER tag is an error."""
    out = []
    for doc in docs:
        for k, sent in enumerate(doc.sentences):
            words = sent.words
            if not min_tokens <= len(words) <= max_tokens or words[0] == "-DOCSTART-":
                continue
            if any(t.ent is None for t in sent.tokens):
                raise InputError(f"document {doc.id}, sentence {k}: a token has no NER tag", field="ent")
            toks = [Token(t.text, ws=t.ws, ent=t.ent) for t in sent.tokens]
            out.append(Document(f"{doc.id}/{k}", [Sentence(toks, id=sent.id)], meta={"labelled": True}))
    return out


def unlabelled_pool(path: str | Path, *, min_tokens: int, max_tokens: int) -> list[Document]:
    """One source per non-empty line of a UTF-8 file (words split on whitespace), length-filtered."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file of unlabelled sentences not found", path=path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path=path) from None
    out = []
    for n, line in enumerate(lines, start=1):
        words = line.split()
        if not words or not min_tokens <= len(words) <= max_tokens:
            continue
        out.append(Document(f"line{n}", [Sentence([Token(w) for w in words])], meta={"labelled": False}))
    if not out:
        raise InputError(f"no sentence of {min_tokens}-{max_tokens} words", path=path)
    return out


def sample(pool: Sequence[Document], n: int | None, seed: int) -> list[Document]:
    """A seeded sample of ``n`` (all when ``None`` or more than the pool), in pool order."""
    if n is None or n >= len(pool):
        return list(pool)
    picked = sorted(random.Random(seed).sample(range(len(pool)), n))
    return [pool[i] for i in picked]


def parse_sources(docs: Sequence[Document], parser: Any) -> list[Document]:
    """The sources with the parser's annotation; ``ent`` keeps the gold tags (or ``None``)."""
    parsed = parser.parse([d.sentences[0].words for d in docs]) if docs else []
    out = []
    for d, p in zip(docs, parsed, strict=True):
        s = d.sentences[0]
        if len(p.tokens) != len(s.tokens):
            raise RuntimeError(f"parser returned {len(p.tokens)} tokens for the {len(s.tokens)} of {d.id}")
        toks = [Token(o.text, ws=o.ws, pos=q.pos, tag=q.tag, lemma=q.lemma, head=q.head, dep=q.dep, ent=o.ent,
                      morph=q.morph) for o, q in zip(s.tokens, p.tokens, strict=True)]
        out.append(replace(d, sentences=[Sentence(toks, tree=p.tree, id=s.id)]))
    return out


def gold_of(doc: Document) -> list[Entity] | None:
    """The gold entities of a stored source (``None`` when unlabelled)."""
    if not doc.meta.get("labelled"):
        return None
    return entities_from_tags([t.ent or "O" for t in doc.sentences[0].tokens])


def write_sources(path: str | Path, docs: Sequence[Document], meta: dict[str, Any]) -> int:
    return write_jsonl(path, docs, kind=SOURCE_KIND, meta=meta)


def load_sources(path: str | Path) -> list[Document]:
    docs = list(read_jsonl(path, Document.from_dict, kind=SOURCE_KIND))
    for lineno, d in enumerate(docs, start=2):
        if len(d.sentences) != 1:
            raise InputError(f"a TIN source holds one sentence, {d.id} holds {len(d.sentences)}", path=path,
                             line=lineno, field="sentences")
    return docs
