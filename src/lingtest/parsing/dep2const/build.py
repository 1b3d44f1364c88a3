"""Building the constituency tree from the layers: each head's preterminal is wrapped in its layers
bottom-up (:func:`~lingtest.parsing.dep2const.layers.assign_layers`), each layer holding the trees
of the dependents attached at it; then brackets make ``PRN`` and repeated unary labels collapse."""

from __future__ import annotations

from lingtest.data.model import Tree
from lingtest.parsing.dep2const.deptree import DepTree
from lingtest.parsing.dep2const.layers import Layer, assign_layers
from lingtest.parsing.dep2const.relations import BARE, CLOSE_BRACKETS, FLAT, OPEN_BRACKETS, SUBJ

__all__ = ["build_root", "collapse_unaries", "parenthetical"]

# relations of the words a flattened subtree (a multi-word name, a fixed expression) may contain
_FLAT_MEMBERS = FLAT | {"punct", "det", "amod", "nummod", "case", "compound"}


def build_root(t: DepTree) -> Tree:
    """The root word's full projection; a lone word that projects nothing (a symbol) is still
    wrapped in a phrase, ``FRAG``."""
    tree = build_phrase(t, t.root, role="ROOT", allow_clause=True)
    if tree.is_preterminal():
        tree = Tree("FRAG", [tree])
    return tree


def preterminal(t: DepTree, i: int) -> Tree:
    """``(TAG word)`` for word ``i``."""
    return Tree(t.tag(i), token=i)


def build_phrase(t: DepTree, h: int, role: str, allow_clause: bool) -> Tree:
    """Head ``h``'s preterminal wrapped in each of its layers that has dependents or is obligatory,
    bottom-up."""
    layers = assign_layers(t, h, role, allow_clause)
    node = preterminal(t, h)
    for li, layer in enumerate(layers):
        if not layer.deps and not layer.obligatory:
            continue
        node = _coordinated(t, h, node, layers, li) if layer.coord else _wrapped(t, h, node, layer)
    return node


def _wrapped(t: DepTree, h: int, node: Tree, layer: Layer) -> Tree:
    """``(LABEL node dependents...)`` in word order."""
    kids = [node]
    for d in layer.deps:
        kids.extend(build_dependent(t, d, h))
    kids.sort(key=lambda x: x.span()[0])
    return Tree(layer.label, kids)


def _coordinated(t: DepTree, h: int, node: Tree, layers: list[Layer], li: int) -> Tree:
    """A coordination ``(XP (XP ...) (CC and) (XP ...))``: the head's phrase so far, the conjuncts
    (each projected like it, :func:`build_conjunct`) and the conjunctions and separators; labelled
    like the head's phrase (or like the layer, when the head has no phrase yet)."""
    kids = [node]
    for d in layers[li].deps:
        if t.deps[d] == "conj":
            kids.append(build_conjunct(t, d, layers, li))
        else:
            kids.extend(build_dependent(t, d, h))
    label = node.label if not node.is_preterminal() else layers[li].label
    return Tree(label, sorted(kids, key=lambda x: x.span()[0]))


def build_conjunct(t: DepTree, c: int, head_layers: list[Layer], coord_index: int) -> Tree:
    """A conjunct projected up to the same kind of layer as the first conjunct: a clause when the
    first conjunct's phrase below the coordination is ``S``/``SBAR`` or the conjunct has its own
    subject, else no higher than a VP."""
    below = [ly for ly in head_layers[:coord_index] if ly.deps or ly.obligatory]
    target = below[-1].label if below else None
    has_subj = any(t.deps[k] in SUBJ for k in t.children[c])
    clause = target in ("S", "SBAR") or has_subj
    return build_phrase(t, c, role="conj", allow_clause=clause)


def flat_subtree(t: DepTree, d: int) -> list[int] | None:
    """The words of a dependent in a flat relation (``compound``, ``flat``, ``fixed`` ...) when its
    subtree is contiguous and made of flat-able words only: they go into the head's phrase as
    bare preterminals. ``None`` otherwise."""
    if t.deps[d] not in FLAT:
        return None
    sub = t.subtree(d)
    if sub == list(range(sub[0], sub[-1] + 1)) and all(t.deps[k] in _FLAT_MEMBERS for k in sub if k != d):
        return sub
    return None


def is_bare(t: DepTree, d: int, head: int) -> bool:
    """A dependent without dependents that attaches as a bare preterminal: function words and
    modifiers (:data:`BARE`), an interjection next to an interjection (``(INTJ (UH oh) (UH
    well))``, not nested INTJs), an adverbial modifier of an adjective, adverb, noun or
    preposition (``(ADJP (RB very) (JJ big))``)."""
    if t.children[d]:
        return False
    rel = t.deps[d]
    if rel in BARE:
        return True
    if rel in ("intj", "discourse") and t.category(head) == "U":
        return True
    return rel in ("advmod", "npadvmod", "obl:npmod") and t.category(head) in ("J", "R", "N", "P")


def build_dependent(t: DepTree, d: int, head: int) -> list[Tree]:
    """Trees for dependent ``d`` of ``head``: the preterminals of a flattened subtree, a bare
    preterminal (:func:`is_bare`), or ``d``'s own projection (a ``PRN`` when bracketed)."""
    flat = flat_subtree(t, d)
    if flat is not None:
        return [preterminal(t, k) for k in flat]
    if is_bare(t, d, head):
        return [preterminal(t, d)]
    return [parenthetical(build_phrase(t, d, role=t.deps[d], allow_clause=True))]


def parenthetical(tree: Tree) -> Tree:
    """A dependent phrase enclosed in brackets is a PRN: ``(PRN (-LRB- () (CD 17) (-RRB- )))``."""
    kids = tree.children
    if len(kids) >= 3 and kids[0].is_preterminal() and kids[-1].is_preterminal() \
            and kids[0].label in OPEN_BRACKETS and kids[-1].label in CLOSE_BRACKETS:
        return Tree("PRN", kids)
    return tree


def collapse_unaries(tree: Tree) -> Tree:
    """Collapse X → X unary chains (keeping one node) throughout the tree."""
    if tree.is_preterminal():
        return tree
    kids = [collapse_unaries(c) for c in tree.children]
    while len(kids) == 1 and not kids[0].is_preterminal() and kids[0].label == tree.label:
        kids = kids[0].children
    return Tree(tree.label, kids)
