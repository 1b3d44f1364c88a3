"""Dependency → constituency conversion by head-driven projection.

:func:`dependency_to_constituency` turns a dependency-parsed :class:`~lingtest.data.Sentence`
into a Penn-style constituency :class:`~lingtest.data.Tree`, in the spirit of Xia & Palmer (2001)
and of Collins' head rules read backwards: every word projects a short chain of phrases
(its *layers*) and each of its dependents attaches at one layer of that chain.

Why: the CREST technique needs constituency depths, but the backends we can run offline give
dependency parses. The conversion is deterministic, pure and cheap.

Layers per head (bottom-up, a layer is only built when it has dependents or is obligatory):

* nouns, pronouns, numbers-as-heads → ``NP`` (determiners, pre-modifiers), then an outer
  ``NP`` for post-modifiers (``(NP (NP the fish) (PP in the lake))``); a UD ``case`` dependent adds
  a ``PP`` above (UD ``obl``/``nmod``); WH determiners/pronouns make ``WHNP``;
* prepositions with an object → ``PP``; adjectives → ``ADJP``; adverbs → ``ADVP`` (``WHADVP``);
  cardinal numbers with quantifier modifiers → ``QP``; interjections → ``INTJ``;
* verbs → ``VP`` holding objects and complements, one more ``VP`` per auxiliary
  (``(VP will (VP join ...))``), ``S`` with the subject and clause-level modifiers, ``SBAR`` with
  ``mark`` words and fronted WH phrases of relative/complement clauses. Non-verbal predicates
  with a UD ``cop`` get a ``VP`` layer for the copula;
* coordination (``conj``/``cc``) wraps the coordinated layer: ``(VP (VP ...) (CC and) (VP ...))``;
  clauses with their own subject coordinate at ``S`` level.

* subject–auxiliary inversion gives ``SQ``; a fronted WH phrase in a question gives
  ``(SBARQ (WHNP What) (SQ did you see) ?)``; finite complement clauses after their verb get the
  PTB's null-complementiser ``(SBAR (S ...))``; bracketed dependents become ``PRN``.

Punctuation goes to the highest layer of its head that keeps every phrase contiguous (so a
sentence-final period sits under the top ``S``, even when the parser hung it on a conjunct);
punctuation at the edge of a dependent phrase is raised out of it (UD hangs ``,`` on the next
word) except matching brackets, which stay with (and are moved to) the phrase they enclose.
Unary chains with a repeated label are collapsed. Non-projective arcs are lifted to the head's
head until the dependency tree is projective, which is the lowest attachment that keeps the
constituency tree projective.
Every token appears exactly once as a preterminal labelled with its PTB tag (``Token.tag``,
else the UPOS, else ``X``).

The package's modules follow the steps: :mod:`.heads` (clean head array), :mod:`.coordination`
(flat coordination), :mod:`.punctuation` (where punctuation hangs), :mod:`.projective` (cycle
breaking, non-projective lifting), :mod:`.deptree` (the prepared tree and word categories),
:mod:`.layers` (the projection chain of each head), :mod:`.build` (trees from layers);
:mod:`.relations` holds the relation and tag classes.

Agreement with GUM's gold trees (evalb, COLLINS.prm) on the GUM test split: labelled F1 0.813 from
spaCy ``en_core_web_sm`` parses, 0.846 from GUM's gold UD trees (``bench/bench_parse.py``).

Both spaCy/ClearNLP labels (``dobj``, ``pobj``, ``prep``, ``relcl``, ``acomp`` ...) and UD labels
(``obj``, ``obl``, ``case``, ``cop``, ``acl:relcl``, ``nsubj:pass`` ...) are understood.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lingtest.data.model import Sentence, Tree
from lingtest.parsing.dep2const.build import build_root, collapse_unaries
from lingtest.parsing.dep2const.deptree import DepTree
from lingtest.parsing.dep2const.projective import break_cycles, projectivize

__all__ = ["break_cycles", "dep2const_version", "dependency_to_constituency", "projectivize"]


def dep2const_version() -> str:
    """A short hash of the conversion's source (every module of this package): part of the
    parse-cache key, so that trees cached by an older version of the conversion are never reused."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def dependency_to_constituency(sentence: Sentence, *, root_label: str | None = None) -> Tree:
    """Derive a Penn-style constituency tree from the sentence's dependency annotation.

    ``Token.head`` (sentence-relative, ``-1`` root) and ``Token.dep`` must be filled; tokens with
    ``head is None`` are attached to the root. ``root_label`` (e.g. ``"ROOT"``) wraps the result
    in an extra top node; by default the top node is the root word's highest projection (``S``
    for a clause), matching how the CREST paper counts depths.
    """
    if not sentence.tokens:
        raise ValueError("cannot build a tree for an empty sentence")
    tree = collapse_unaries(build_root(DepTree.from_sentence(sentence)))
    if root_label:
        tree = Tree(root_label, [tree])
    return tree
