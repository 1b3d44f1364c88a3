"""The transformation protocol, the config every transformation's entry shares, and
constituency-tree helpers shared by the transformations."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from lingtest.config import Block
from lingtest.data.model import Tree
from lingtest.tin.mutant import Mutant, TinSource

#: PTB tags of proper nouns
PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})


class TransformationConfig(Block):
    """An entry of ``tin.transformations`` (``conf/tin/default.yaml``): each transformation's ``Config``
    extends this with its own keys. The three keys every entry has are the filters' settings for its
    mutants (:func:`lingtest.tin.components.filter_config`)."""

    #: span-cosine threshold of the semantic filter (null: not filtered)
    semantic: float | None
    #: least LM log-probability difference of a replacement against what it replaced, in its left context
    #: (the fit filter, :mod:`lingtest.tin.filters`; null: not filtered)
    fit: float | None
    #: naturalness tolerance by system under test (``default``: every other system)
    epsilon: dict[str, float]


@runtime_checkable
class Transformation(Protocol):
    """``generate(sources) -> mutants`` (batched over sentences; mutants in source order, then in
    the transformation's own deterministic order). ``relation`` names the metamorphic relation the
    mutants are checked with, ``label`` the transformation in the report's tables.

    A transformation is registered in :data:`lingtest.tin.transformations.TRANSFORMATIONS` and built
    from its entry of ``tin.transformations`` by :meth:`from_config`: ``Config`` (a
    :class:`TransformationConfig`) declares the entry's keys (unknown keys are errors); ``parts``
    (:class:`lingtest.tin.components.Parts`) holds the shared models, each built on first use
    (``fill``, ``tagger``, ``phrase_index``)."""

    name: ClassVar[str]
    label: ClassVar[str]
    relation: ClassVar[str]
    Config: ClassVar[type[TransformationConfig]]

    @classmethod
    def from_config(cls, config: Any, parts: Any) -> Transformation: ...

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]: ...


def base_label(label: str) -> str:
    """A constituent label without PTB function tags or indices (``NP-SBJ-1`` -> ``NP``)."""
    if label.startswith("-"):  # -LRB-, -NONE-
        return label
    return label.split("-", 1)[0].split("=", 1)[0]


def preterminals(node: Tree) -> Iterator[Tree]:
    """The preterminals under ``node``, left to right."""
    if node.token is not None:
        yield node
        return
    for c in node.children:
        yield from preterminals(c)


def has_descendant(node: Tree, label: str) -> bool:
    """Whether a node strictly below ``node`` has (base) label ``label``."""
    for c in node.children:
        if c.token is None and (base_label(c.label) == label or has_descendant(c, label)):
            return True
    return False


def minimal_phrases(tree: Tree, label: str = "NP") -> list[Tree]:
    """Nodes labelled ``label`` with no ``label`` node below them, left to right."""
    out = []
    for node in tree.subtrees():
        if node.token is None and base_label(node.label) == label and not has_descendant(node, label):
            out.append(node)
    return sorted(out, key=lambda n: n.span())
