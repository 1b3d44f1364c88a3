"""The dependency tree the converter works on: the sentence's heads cleaned, coordination made flat,
punctuation placed and every arc projective, with each word's children and its syntactic
category (what kind of phrase it projects)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lingtest.data.model import Sentence, Token
from lingtest.parsing.dep2const.coordination import normalise_coordination
from lingtest.parsing.dep2const.heads import clean_heads
from lingtest.parsing.dep2const.projective import projectivize
from lingtest.parsing.dep2const.punctuation import attach_brackets, final_punct_to_root, raise_edge_punct
from lingtest.parsing.dep2const.relations import NOUN_POS, NOUN_TAGS_PREFIX, PUNCT_TAGS, WH_TAGS

__all__ = ["DepTree", "prepare_heads", "token_category"]

_NOMINAL_TAGS = ("CD", "DT", "PDT", "POS", "ADD", "NFP", "XX", "$", "SYM", "LS", "GW", "AFX")


def prepare_heads(sentence: Sentence) -> tuple[list[int], list[str]]:
    """Heads and relations ready for conversion: cleaned (:func:`clean_heads`), flat coordination,
    final punctuation under the root, brackets on the phrase they enclose, projective (which also
    breaks any cycle the re-attachments closed), edge punctuation raised, projective again."""
    heads, deps = clean_heads(sentence)
    heads = normalise_coordination(heads, deps)
    heads = final_punct_to_root(sentence.tokens, heads, deps)
    heads = attach_brackets(sentence.tokens, heads, deps)
    heads = projectivize(heads)
    heads = raise_edge_punct(heads, deps, [t.tag for t in sentence.tokens])
    return projectivize(heads), deps


def token_category(tag: str, pos: str) -> str:
    """The kind of phrase a word heads, from its PTB tag (else its UPOS): ``V`` verb, ``N``
    nominal, ``J`` adjective, ``R`` adverb, ``P`` preposition, ``U`` interjection, ``C``
    conjunction, ``PU`` punctuation."""
    if tag.startswith("VB") or tag == "MD" or (not tag and pos in ("VERB", "AUX")):
        return "V"
    if tag in ("WP", "WDT") or (tag == "WP$"):
        return "N"
    if tag == "WRB":
        return "R"
    if tag.startswith(NOUN_TAGS_PREFIX) or tag in _NOMINAL_TAGS or (not tag and pos in NOUN_POS | {"DET"}):
        return "N"
    if tag.startswith("JJ") or (not tag and pos == "ADJ"):
        return "J"
    if tag.startswith("RB") or (not tag and pos == "ADV"):
        return "R"
    if tag in ("IN", "TO", "RP") or (not tag and pos == "ADP"):
        return "P"
    if tag == "UH" or pos == "INTJ":
        return "U"
    if tag == "CC" or pos in ("CCONJ", "SCONJ"):
        return "C"
    if tag in PUNCT_TAGS or pos == "PUNCT":
        return "PU"
    if pos == "PART":
        return "R"
    return "N"


@dataclass(frozen=True, slots=True)
class DepTree:
    """A prepared dependency tree (see :func:`prepare_heads`): ``heads[i]`` (-1 for ``root``),
    ``deps[i]`` and ``children[i]`` (in word order) of every word."""

    tokens: Sequence[Token]
    heads: list[int]
    deps: list[str]
    children: list[list[int]]
    root: int

    @classmethod
    def from_sentence(cls, sentence: Sentence) -> DepTree:
        heads, deps = prepare_heads(sentence)
        n = len(sentence.tokens)
        children: list[list[int]] = [[] for _ in range(n)]
        for i, h in enumerate(heads):
            if h != -1:
                children[h].append(i)
        return cls(sentence.tokens, heads, deps, children, next(i for i in range(n) if heads[i] == -1))

    def tag(self, i: int) -> str:
        """The word's preterminal label: its PTB tag, else its UPOS, else ``X``."""
        t = self.tokens[i]
        return t.tag or t.pos or "X"

    def category(self, i: int) -> str:
        """:func:`token_category` of word ``i``."""
        t = self.tokens[i]
        return token_category(t.tag or "", t.pos or "")

    def is_wh(self, i: int) -> bool:
        """A WH word, or a word with a WH determiner/possessor (*which book*, *whose car*)."""
        if self.tag(i) in WH_TAGS:
            return True
        return any(self.deps[c] in ("det", "poss", "nmod:poss", "det:poss") and self.tag(c) in WH_TAGS
                   for c in self.children[i])

    def subtree(self, i: int) -> list[int]:
        """The words of ``i``'s subtree, in order."""
        out = [i]
        for c in self.children[i]:
            out.extend(self.subtree(c))
        return sorted(out)

    def subtree_is_wh(self, k: int) -> bool:
        """A phrase that starts with a WH word (*what*, *in which*): a candidate fronted WH phrase."""
        sub = self.subtree(k)
        return self.tag(sub[0]) in WH_TAGS or (self.tag(k) in ("IN", "TO") and len(sub) > 1
                                               and self.tag(sub[1]) in WH_TAGS)
