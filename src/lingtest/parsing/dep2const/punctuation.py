"""Where punctuation hangs before the conversion: sentence-final punctuation under the top clause,
matching brackets around one phrase under that phrase's head (a ``PRN``), and punctuation at the
edge of a phrase raised out of it, as in the PTB."""

from __future__ import annotations

from collections.abc import Sequence

from lingtest.data.model import Token
from lingtest.parsing.dep2const.projective import subtree_spans
from lingtest.parsing.dep2const.relations import CLOSE_BRACKETS, FINAL_PUNCT, OPEN_BRACKETS

__all__ = ["attach_brackets", "final_punct_to_root", "raise_edge_punct"]


def final_punct_to_root(tokens: Sequence[Token], heads: list[int], deps: list[str]) -> list[int]:
    """Sentence-final punctuation (and closing quotes/brackets right after it) belongs to the
    top clause in the PTB; parsers often hang it on the last conjunct."""
    heads = list(heads)
    n = len(heads)
    root = next(i for i in range(n) if heads[i] == -1)
    k = n - 1
    while k > root and deps[k] == "punct":
        if tokens[k].text in FINAL_PUNCT or tokens[k].tag == ".":
            for j in range(k, n):
                if deps[j] == "punct" and heads[j] != -1:
                    heads[j] = root
            return heads
        k -= 1
    return heads


def attach_brackets(tokens: Sequence[Token], heads: list[int], deps: list[str]) -> list[int]:
    """Matching brackets around one phrase hang from that phrase's head (parsers often attach
    them to the clause), so the converter can build ``(PRN ( ... ))``."""
    heads = list(heads)
    n = len(heads)
    i = 0
    while i < n:
        if tokens[i].tag in OPEN_BRACKETS or tokens[i].text in ("(", "["):
            j = next((k for k in range(i + 1, n)
                      if tokens[k].tag in CLOSE_BRACKETS or tokens[k].text in (")", "]")), None)
            if j is None:
                break
            inner = [k for k in range(i + 1, j) if not (i < heads[k] < j)]
            if len(inner) == 1 and deps[i] == "punct" and deps[j] == "punct":
                heads[i] = heads[j] = inner[0]
            i = j + 1
        else:
            i += 1
    return heads


def raise_edge_punct(heads: list[int], deps: list[str], tags: Sequence[str | None] = ()) -> list[int]:
    """Punctuation at the edge of a phrase belongs to the phrase above (UD hangs a comma on the
    following word: ``, in Dulwich``; the PTB puts it outside ``(PP in Dulwich)``)."""
    heads = list(heads)
    n = len(heads)
    spans = subtree_spans(heads)
    for d in range(n):
        if deps[d] != "punct" or (d < len(tags) and tags[d] in OPEN_BRACKETS | CLOSE_BRACKETS):
            continue  # brackets stay with what they enclose (a PRN)
        for _ in range(n):
            h = heads[d]
            if h == -1 or heads[h] == -1:
                break
            lo, hi = spans[h]
            others = [k for k in range(lo, hi + 1) if k != d]
            if not others or not (d < min(others) or d > max(others)):
                break
            heads[d] = heads[h]
            spans = subtree_spans(heads)
    return heads
