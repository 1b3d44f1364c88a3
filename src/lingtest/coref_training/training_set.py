"""The training documents of a variant: a seeded subset of the clean split, and the paper's adversarial
training set over it (the share ``ratio`` of the documents replaced by their perturbed versions, each
checked against its clean original and parsed, keeping its own words and gold clusters)."""

from __future__ import annotations

import hashlib
from typing import Any

from lingtest.data import Document
from lingtest.errors import LingtestError


def subset(docs: list[Document], limit: int | None, seed: int) -> list[Document]:
    """All documents, or ``limit`` of them chosen by a seeded hash of their keys (in input order)."""
    if limit is None or limit >= len(docs):
        return list(docs)
    ranked = sorted(docs, key=lambda d: hashlib.sha256(f"{seed}\x1f{d.key}".encode()).hexdigest())
    keep = {d.key for d in ranked[:limit]}
    return [d for d in docs if d.key in keep]


def choose_perturbed(clean: list[Document], perturbed: list[Document], ratio: float, seed: int,
                     where: str) -> tuple[list[Document], set[str]]:
    """The adversarial training set over ``clean`` (:func:`~lingtest.adversarial.apply.adversarial_training_set`)
    from the perturbed versions of its documents (each checked against its clean original; ``where``
    names them in errors), and the keys of the documents replaced."""
    from lingtest.adversarial.apply import adversarial_training_set
    from lingtest.systems.coref.neural.features import check_perturbed_alignment

    by_key = {d.key: d for d in clean}
    mine = [p for p in perturbed if p.key in by_key]
    for p in mine:
        check_perturbed_alignment(by_key[p.key], p, where)
    chosen = adversarial_training_set(clean, mine, ratio, seed)
    replaced = {d.key for d, c in zip(chosen, clean, strict=True) if d is not c}
    return chosen, replaced


def parse_perturbed(perturbed: list[Document], parser: Any) -> list[Document]:
    """Parse annotation-stripped perturbed documents; each keeps its own words and gold clusters
    (checked: parsing must not move a token)."""
    parsed = parser.parse_documents(perturbed) if perturbed else []
    for src, p in zip(perturbed, parsed, strict=True):
        if p.words != src.words or [c.mentions for c in p.clusters] != [c.mentions for c in src.clusters]:
            raise LingtestError(f"parsing {src.key!r} changed its words or clusters")
    return parsed


def with_replaced_parsed(chosen: list[Document], replaced: set[str], parser: Any) -> list[Document]:
    """``chosen`` with its replaced (perturbed) documents parsed (:func:`parse_perturbed`)."""
    to_parse = [d for d in chosen if d.key in replaced]
    parsed = {d.key: d for d in parse_perturbed(to_parse, parser)}
    return [parsed.get(d.key, d) for d in chosen]
