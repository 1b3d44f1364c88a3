"""HateCheck functional test suite reader (``test_suite_cases.csv`` / ``all_cases.csv``).

One :class:`Document` per test case, in file order: ``id`` ``hatecheck-<case_id>``, ``label``
the gold label (``hateful`` / ``non-hateful``), one :class:`Sentence` holding the case text
tokenised so that ``Sentence.text`` gives the text back (spaCy's rule-based English tokenizer
by default, ``tokenizer="whitespace"`` for a dependency-free split). ``meta`` keeps the
functionality, target identity, direction, focus words/lemma, template ids and the exact raw
text (``meta["text"]``; cases may end with a space). Empty optional cells are left out.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, csv_rows, guarded, read_lines, shorten

LABELS = ("hateful", "non-hateful")
REQUIRED = ("functionality", "case_id", "test_case", "label_gold")
OPTIONAL = ("target_ident", "direction", "focus_words", "focus_lemma", "ref_case_id", "ref_templ_id",
            "templ_id", "case_templ")


@lru_cache(maxsize=1)
def _spacy_tokenizer() -> Any:
    import spacy

    return spacy.blank("en").tokenizer


def tokenize(text: str, tokenizer: str = "spacy") -> list[Token]:
    """Tokens of ``text`` with their trailing whitespace, so ``"".join(t.text + t.ws)`` is the
    text without its leading/trailing whitespace. Runs of spaces stay in ``ws``; no token is
    itself whitespace."""
    text = text.strip()
    if tokenizer == "whitespace":
        return [Token(text=m.group(1), ws=m.group(2)) for m in re.finditer(r"(\S+)(\s*)", text)]
    if tokenizer != "spacy":
        raise ValueError(f"tokenizer must be 'spacy' or 'whitespace', got {tokenizer!r}")
    out: list[Token] = []
    for t in _spacy_tokenizer()(text):
        if t.is_space:  # extra spaces become part of the previous token's whitespace
            if out:
                out[-1].ws += t.text + t.whitespace_
            continue
        out.append(Token(text=t.text, ws=t.whitespace_))
    return out


@guarded("test cases")
def read_hatecheck(path: str | Path, *, tokenizer: str, encoding: str, max_line_bytes: int,
                   max_file_bytes: int) -> Iterator[Document]:
    """Read a HateCheck cases CSV (header row; an unnamed index column is allowed).

    Needs the columns ``functionality, case_id, test_case, label_gold``; the optional ones
    listed in :data:`OPTIONAL` go to ``meta`` when present and non-empty. A column named twice in
    the header, a ``case_id`` given twice, an unknown gold label, a row with another number of
    columns than the header and a quoted field left open at the end (a truncated file) are errors.
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    """
    path = Path(path)
    lines = read_lines(path, encoding, TextLimits(max_line_bytes, max_file_bytes))
    reader = csv.reader(lines, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("empty file (expected a header row)", path=path, line=1) from None
    except csv.Error as exc:
        raise InputError(f"malformed CSV ({exc})", path=path, line=1) from None
    header = [h.strip() for h in header]
    named = [h for h in header if h]
    if len(set(named)) != len(named):
        dup = next(h for h in named if named.count(h) > 1)
        raise InputError(f"column {dup!r} appears twice in the header", path=path, line=1, field=dup)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (header: {header})", path=path, line=1,
                         field=missing[0])
    col = {name: i for i, name in enumerate(header) if name}
    seen: dict[str, int] = {}
    for lineno, row in csv_rows(reader, path, start=reader.line_num + 1):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} columns, found {len(row)}", path=path, line=lineno)
        case_id = row[col["case_id"]].strip()
        if not case_id:
            raise InputError("empty case_id", path=path, line=lineno, field="case_id")
        if case_id in seen:
            raise InputError(f"duplicate case_id {case_id} (first on line {seen[case_id]})", path=path,
                             line=lineno, field="case_id")
        seen[case_id] = lineno
        label = row[col["label_gold"]].strip()
        if label not in LABELS:
            raise InputError(f"unknown label {shorten(label)} (expected {' or '.join(LABELS)})", path=path,
                             line=lineno, field="label_gold")
        functionality = row[col["functionality"]].strip()
        if not functionality:
            raise InputError("empty functionality", path=path, line=lineno, field="functionality")
        text = row[col["test_case"]]
        tokens = tokenize(text, tokenizer)
        if not tokens:
            raise InputError("empty test case", path=path, line=lineno, field="test_case")
        meta: dict[str, Any] = {"functionality": functionality, "case_id": case_id, "text": text}
        for name in OPTIONAL:
            if name in col and row[col[name]].strip():
                meta[name] = row[col[name]].strip()
        doc_id = f"hatecheck-{case_id}"
        sent = Sentence(tokens=tokens, id=f"{doc_id}-s0", label=label)
        yield Document(id=doc_id, sentences=[sent], label=label, meta=meta)
