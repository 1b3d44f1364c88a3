"""Tokens back to text for the language model (the naturalness filter): words joined by spaces,
without a space before closing punctuation and clitics or after opening brackets and quotes.
Sources and mutants go through the same function, so the comparison is unaffected by its rules."""

from __future__ import annotations

from collections.abc import Sequence

NO_SPACE_BEFORE = frozenset({".", ",", ":", ";", "?", "!", "%", ")", "]", "}", "''", "'s", "'S", "n't", "N'T",
                             "'re", "'ve", "'ll", "'d", "'m", "...", "-RRB-"})
NO_SPACE_AFTER = frozenset({"(", "[", "{", "``", "$", "-LRB-"})
BRACKETS = {"-LRB-": "(", "-RRB-": ")", "``": '"', "''": '"'}


def detokenize(tokens: Sequence[str]) -> str:
    out: list[str] = []
    quote_open = False
    for i, w in enumerate(tokens):
        text = BRACKETS.get(w, w)
        space = i > 0 and w not in NO_SPACE_BEFORE and tokens[i - 1] not in NO_SPACE_AFTER
        if w == '"':
            if quote_open:
                space = False
            elif i > 0 and tokens[i - 1] in NO_SPACE_AFTER:
                space = False
        if i > 0 and tokens[i - 1] == '"' and quote_open:
            space = False
        if w == '"':
            quote_open = not quote_open
        out.append((" " if space else "") + text)
    return "".join(out)
