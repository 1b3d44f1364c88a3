"""Reading a sentence's dependency annotation into a clean head array: one root, no cycles, no
out-of-range heads, lower-cased relations, and the two relabellings where the PTB's structure
differs from UD's (infinitival *to*, negation)."""

from __future__ import annotations

from collections.abc import Sequence

from lingtest.data.model import Sentence, Token

__all__ = ["clean_heads"]


def clean_heads(sentence: Sentence) -> tuple[list[int], list[str]]:
    """Heads (-1 = root) and lower-cased relations; one root, no cycles, no out-of-range heads."""
    tokens = sentence.tokens
    heads = _detach_cycles(_valid_heads(tokens))
    heads, deps = _single_root(heads, _relations(tokens))
    return heads, _ptb_relabel(tokens, deps)


def _relations(tokens: Sequence[Token]) -> list[str]:
    """Relations, lower-cased except spaCy's ``ROOT``; a missing one is ``dep``."""
    deps = [(t.dep or "dep") for t in tokens]
    return [d if d == "ROOT" else d.lower() for d in deps]


def _valid_heads(tokens: Sequence[Token]) -> list[int]:
    """Heads with missing, out-of-range and self-heads replaced by the root marker -1."""
    n = len(tokens)
    heads = [t.head if t.head is not None else -1 for t in tokens]
    return [h if (h is not None and -1 <= h < n and h != i) else -1 for i, h in enumerate(heads)]


def _detach_cycles(heads: list[int]) -> list[int]:
    """A token whose head chain loops: the token where the loop closes becomes a root."""
    heads = list(heads)
    for i in range(len(heads)):
        seen = set()
        j = i
        while j != -1 and j not in seen:
            seen.add(j)
            j = heads[j]
        if j != -1:  # cycle through j
            heads[j] = -1
    return heads


def _single_root(heads: list[int], deps: list[str]) -> tuple[list[int], list[str]]:
    """One root: the first word labelled root (else the first root) stays ``ROOT``; the other
    roots hang from it as ``dep``."""
    heads, deps = list(heads), list(deps)
    roots = [i for i in range(len(heads)) if heads[i] == -1]
    main = roots[0]
    for i in roots:  # prefer the word labelled root
        if deps[i] in ("ROOT", "root"):
            main = i
            break
    for r in roots:
        if r != main:
            heads[r] = main
            if deps[r] in ("ROOT", "root"):
                deps[r] = "dep"
    deps[main] = "ROOT"
    return heads, deps


def _ptb_relabel(tokens: Sequence[Token], deps: list[str]) -> list[str]:
    """UD's infinitival *to* (``mark``) becomes ``aux`` (PTB: ``(VP (TO to) (VP ...))``); *not*,
    *n't*, *never* as ``advmod`` become ``neg`` (the PTB keeps negation bare inside the VP)."""
    deps = list(deps)
    for i, t in enumerate(tokens):
        if deps[i] == "mark" and t.tag == "TO":
            deps[i] = "aux"
        elif deps[i] == "advmod" and t.text.lower() in ("not", "n't", "never") and t.tag in ("RB", None):
            deps[i] = "neg"
    return deps
