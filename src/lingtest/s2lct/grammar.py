"""Productions, the reference CFG and S2LCT's syntax expansion identification (Algorithm 1).

* :class:`Node` is an immutable constituency tree with its words (a preterminal holds one word;
  a mask is a preterminal whose ``word`` is ``None``), built from lingtest's :class:`Tree` by
  :func:`node_from_tree`.
* :func:`productions` lists the non-lexical productions ``lhs -> rhs`` of a tree;
  :func:`production_rule_coverage` counts the distinct ones over many trees (the paper's syntactic
  diversity, Eq. 1).
* :class:`ReferenceCFG` holds every production of a reference treebank (the PTB sample, function
  tags stripped, no cut-off) with ``P(rule) = c(lhs -> rhs) / c(lhs)``, ``P(lhs) = c(lhs) / N`` and
  ``P(start)`` the share of trees rooted in the seed's root label; a production's probability is
  their product (the reference code's).
* :func:`masked_sentences` is Algorithm 1: for each production of a seed tree, every reference
  right-hand side of the same left-hand side that contains the seed's right-hand side as an
  ordered subsequence, is longer, and adds only word-level POS symbols, gives a masked sentence
  (the added symbols become masks, in their positions). The ``top`` most probable per seed
  production are kept; sentences with more than ``max_masks`` masks are skipped. Each keeps the path
  of the node it expanded (:attr:`MaskedSentence.span`: the leaves it covers).
* :class:`Insertion` restricts which masked sentences are filled: a masked sentence with one mask is an
  insertion in context ``(lhs, the symbol before, the inserted tag, the symbol after)``
  (:func:`insertion_context`; ``^``/``$``: the phrase's edge), and :func:`allowed_insertion` keeps those some
  rule matches (a pre-modifier: an adjective before the head noun of an NP, an adverb before a verb phrase...).
* :func:`realises` checks an expansion's re-parse: a phrase over the expanded node's leaves with the
  production's label and children (:func:`child_is`: a one-word phrase stands for its word's tag).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["CLAUSE_LABELS", "EDGE_AFTER", "EDGE_BEFORE", "Insertion", "MaskedSentence", "Node", "ReferenceCFG",
           "allowed_insertion", "attested_words", "child_is", "clause_before", "collocated_counts", "embed",
           "fronted_before", "in_main_clause", "insertion_context", "is_word_pos", "leaf_span", "masked_sentences",
           "node_from_tree", "one_word_tag", "parse_bracketed", "path_nodes", "production_rule_coverage",
           "productions", "realises", "Slot", "slot_contexts", "spans", "strip_function_tags"]

Production = tuple[str, tuple[str, ...]]

# POS tags of punctuation and symbols: never a mask (a fill must be alphanumeric)
_NON_WORD_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "-NONE-", "#", "$", "HYPH", "NFP",
                            "SYM", "LS", "_SP", "XX", "ADD", "AFX"})


def strip_function_tags(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``PP=2`` -> ``PP``; labels starting with ``-`` (``-NONE-``,
    ``-LRB-``) are kept."""
    if label.startswith("-"):
        return label
    return re.split(r"[-=]", label, maxsplit=1)[0] or label


def is_word_pos(tag: str) -> bool:
    """A word-level POS symbol that can be a mask (not punctuation or a symbol)."""
    return tag not in _NON_WORD_TAGS and any(ch.isalpha() for ch in tag)


@dataclass(frozen=True, slots=True)
class Node:
    label: str
    children: tuple[Node, ...] = ()
    word: str | None = None

    @property
    def is_preterminal(self) -> bool:
        return not self.children

    @property
    def is_mask(self) -> bool:
        return not self.children and self.word is None

    def leaves(self) -> list[Node]:
        if not self.children:
            return [self]
        out: list[Node] = []
        for c in self.children:
            out.extend(c.leaves())
        return out

    def rhs(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.children)

    def subtrees(self) -> Iterable[tuple[tuple[int, ...], Node]]:
        """(path of child indices, node) in pre-order."""
        stack: list[tuple[tuple[int, ...], Node]] = [((), self)]
        while stack:
            path, node = stack.pop()
            yield path, node
            for i in range(len(node.children) - 1, -1, -1):
                stack.append(((*path, i), node.children[i]))

    def replace(self, path: tuple[int, ...], new: Node) -> Node:
        if not path:
            return new
        i = path[0]
        kids = list(self.children)
        kids[i] = kids[i].replace(path[1:], new)
        return Node(self.label, tuple(kids), self.word)

    def to_bracketed(self) -> str:
        if not self.children:
            return f"({self.label} {self.word if self.word is not None else '{' + self.label + '}'})"
        return f"({self.label} " + " ".join(c.to_bracketed() for c in self.children) + ")"


def node_from_tree(tree: Any, words: Sequence[str], *, strip: bool = True) -> Node:
    """A :class:`Node` from lingtest's :class:`~lingtest.data.model.Tree` over ``words``."""
    label = strip_function_tags(tree.label) if strip else tree.label
    if tree.token is not None:
        return Node(label, (), words[tree.token])
    return Node(label, tuple(node_from_tree(c, words, strip=strip) for c in tree.children))


def parse_bracketed(text: str) -> Node:
    """A :class:`Node` from a Penn bracketed string such as ``(FRAG (CC Or) (NP (DT both)) (. .))``
    (for tests and hand-built trees)."""
    toks = re.findall(r"\(|\)|[^\s()]+", text)
    pos = 0

    def node() -> Node:
        nonlocal pos
        if toks[pos] != "(":
            raise ValueError(f"expected '(' at token {pos} of {text!r}")
        label = toks[pos + 1]
        pos += 2
        if toks[pos] not in ("(", ")"):
            word = toks[pos]
            pos += 1
            if toks[pos] != ")":
                raise ValueError(f"preterminal {label} has more than one word in {text!r}")
            pos += 1
            return Node(label, (), word)
        kids = []
        while toks[pos] == "(":
            kids.append(node())
        if toks[pos] != ")":
            raise ValueError(f"unbalanced brackets in {text!r}")
        pos += 1
        return Node(label, tuple(kids))

    try:
        out = node()
    except IndexError:
        raise ValueError(f"unbalanced brackets in {text!r}") from None
    if pos != len(toks):
        raise ValueError(f"trailing input in {text!r}")
    return out


def productions(tree: Node) -> list[Production]:
    """The non-lexical productions ``(lhs, rhs)`` of ``tree`` in pre-order (repeats kept)."""
    return [(n.label, n.rhs()) for _, n in tree.subtrees() if n.children]


def path_nodes(tree: Node, path: tuple[int, ...]) -> list[Node]:
    """The nodes from ``tree`` down to the node at ``path``, both included."""
    chain = [tree]
    for i in path:
        chain.append(chain[-1].children[i])
    return chain


def leaf_span(tree: Node, path: tuple[int, ...]) -> tuple[int, int]:
    """The leaves ``[start, end)`` (left to right, masks included) that the node at ``path`` covers."""
    start, node = 0, tree
    for i in path:
        start += sum(len(c.leaves()) for c in node.children[:i])
        node = node.children[i]
    return start, start + len(node.leaves())


def spans(tree: Node) -> dict[tuple[int, int], list[Node]]:
    """Every phrase of ``tree`` (a node with children) by the leaves ``[start, end)`` it covers; nodes of a
    unary chain share a span (outermost first)."""
    out: dict[tuple[int, int], list[Node]] = {}

    def walk(node: Node, start: int) -> int:
        if not node.children:
            return start + 1
        here = out.setdefault((start, start + len(node.leaves())), [])
        here.append(node)  # before its children: the outermost of a unary chain comes first
        end = start
        for c in node.children:
            end = walk(c, end)
        return end

    walk(tree, 0)
    return out


def one_word_tag(node: Node) -> str | None:
    """The tag of the single word a phrase is a unary chain over (``(ADVP (RB only))`` -> ``RB``), else
    ``None``."""
    while len(node.children) == 1:
        node = node.children[0]
    return node.label if not node.children else None


def child_is(child: Node, symbol: str) -> bool:
    """Whether ``child`` stands for ``symbol`` in a production: its label, or the tag of the one word it is
    a phrase over (a parser may wrap a lone adverb in ``ADVP`` where the treebank puts ``RB``)."""
    return child.label == symbol or (bool(child.children) and one_word_tag(child) == symbol)


def realises(tree: Node, span: tuple[int, int], lhs: str, rhs: tuple[str, ...]) -> bool:
    """Whether ``tree`` has a phrase over the leaves ``span`` labelled ``lhs`` whose children stand for ``rhs``
    in order (:func:`child_is`): the production ``lhs -> rhs`` at that span."""
    return any(n.label == lhs and len(n.children) == len(rhs) and all(map(child_is, n.children, rhs))
               for n in spans(tree).get(span, ()))


def production_rule_coverage(trees: Iterable[Node]) -> int:
    """Distinct non-lexical productions over ``trees`` (the paper's syntactic diversity)."""
    seen: set[Production] = set()
    for t in trees:
        seen.update(productions(t))
    return len(seen)


class ReferenceCFG:
    """Productions of a reference treebank with their counts."""

    def __init__(self, trees: Iterable[Node]) -> None:
        self.rules: Counter[Production] = Counter()
        self.starts: Counter[str] = Counter()
        self.preterminals: set[str] = set()
        n_trees = 0
        for t in trees:
            n_trees += 1
            self.starts[t.label] += 1
            for _, node in t.subtrees():
                if node.children:
                    self.rules[(node.label, node.rhs())] += 1
                else:
                    self.preterminals.add(node.label)
        self.n_trees = n_trees
        self.lhs_counts: Counter[str] = Counter()
        for (lhs, _), c in self.rules.items():
            self.lhs_counts[lhs] += c
        self.total = sum(self.rules.values())
        self.by_lhs: dict[str, list[tuple[str, ...]]] = {}
        for lhs, rhs in sorted(self.rules, key=lambda r: (r[0], r[1])):
            self.by_lhs.setdefault(lhs, []).append(rhs)

    def prob(self, start: str, lhs: str, rhs: tuple[str, ...]) -> float:
        c = self.rules.get((lhs, rhs), 0)
        if not c:
            return 0.0
        p_start = self.starts.get(start, 0) / self.n_trees if self.n_trees else 0.0
        return p_start * (self.lhs_counts[lhs] / self.total) * (c / self.lhs_counts[lhs])

    def word_pos(self, tag: str) -> bool:
        return tag in self.preterminals and is_word_pos(tag)


def embed(small: Sequence[str], big: Sequence[str]) -> list[int] | None:
    """Positions of ``small`` in ``big`` as an ordered subsequence (leftmost), or ``None``."""
    out, j = [], 0
    for i, sym in enumerate(big):
        if j < len(small) and sym == small[j]:
            out.append(i)
            j += 1
    return out if j == len(small) else None


@dataclass(frozen=True, slots=True)
class MaskedSentence:
    """A seed tree with masks inserted at one production: ``tree`` (masks are word-less
    preterminals), the production expanded, its reference right-hand side and probability."""

    tree: Node
    lhs: str
    seed_rhs: tuple[str, ...]
    ref_rhs: tuple[str, ...]
    prob: float
    path: tuple[int, ...]  # of the expanded node (``lhs -> ref_rhs``) in ``tree``

    @property
    def span(self) -> tuple[int, int]:
        """The leaves ``[start, end)`` of the expanded node (a filled sentence's words at the same places)."""
        return leaf_span(self.tree, self.path)

    @property
    def words(self) -> list[str | None]:
        """Leaves left to right; ``None`` at a mask."""
        return [leaf.word for leaf in self.tree.leaves()]

    @property
    def tags(self) -> list[str]:
        return [leaf.label for leaf in self.tree.leaves()]

    @property
    def mask_positions(self) -> list[int]:
        return [i for i, leaf in enumerate(self.tree.leaves()) if leaf.is_mask]

    def text(self) -> str:
        """Words with ``{TAG}`` at the masks (``Or both {NNS} .``)."""
        return " ".join(w if w is not None else "{" + t + "}" for w, t in zip(self.words, self.tags, strict=True))


def masked_sentences(tree: Node, cfg: ReferenceCFG, *, top: int, max_masks: int,
                     keep: Callable[[MaskedSentence], bool] | None = None) -> list[MaskedSentence]:
    """Algorithm 1 on one seed tree: the masked sentences, per seed production (pre-order) the
    ``top`` most probable (the most frequent reference rules; ties: the right-hand side in sorted order) of those
    ``keep`` allows (``None``: all), duplicates (the same masked tree from two productions) kept once."""
    out: list[MaskedSentence] = []
    seen: set[Node] = set()
    for path, node in tree.subtrees():
        if not node.children:
            continue
        s_rhs = node.rhs()
        found: list[MaskedSentence] = []
        for r_rhs in cfg.by_lhs.get(node.label, ()):
            if len(r_rhs) <= len(s_rhs):
                continue
            where = embed(s_rhs, r_rhs)
            if where is None:
                continue
            added = [i for i in range(len(r_rhs)) if i not in set(where)]
            if len(added) > max_masks or not all(cfg.word_pos(r_rhs[i]) for i in added):
                continue
            kids: list[Node] = []
            it = iter(node.children)
            for i, sym in enumerate(r_rhs):
                kids.append(next(it) if i in where else Node(sym, (), None))
            new_tree = tree.replace(path, Node(node.label, tuple(kids)))
            m = MaskedSentence(new_tree, node.label, s_rhs, r_rhs, cfg.prob(tree.label, node.label, r_rhs), path)
            if keep is None or keep(m):
                found.append(m)
        # within one seed production P(start) and P(lhs) are shared: the rule's count orders them (also
        # when the seed's root label never starts a reference tree and every product is 0)
        found.sort(key=lambda m: (-cfg.rules[(m.lhs, m.ref_rhs)], m.ref_rhs))
        for m in found[:top]:
            if m.tree not in seen:
                seen.add(m.tree)
                out.append(m)
    return out


# ---- which insertions are filled -------------------------------------------------------------------------
#: the symbol that stands for the phrase's start (nothing before the inserted word) or its end (nothing after)
EDGE_BEFORE = "^"
EDGE_AFTER = "$"


class Slot(NamedTuple):
    """Where a word sits in a phrase: the phrase's label (``lhs``), the sibling before it (``left``;
    :data:`EDGE_BEFORE` at the phrase's start), its tag, the sibling after it (``right``; :data:`EDGE_AFTER` at the
    end) and whether that sibling ends the phrase (``right_last``: the head of an NP such as *the [new] film*)."""

    lhs: str
    left: str
    tag: str
    right: str
    right_last: bool


def _slot(lhs: str, rhs: Sequence[str], i: int) -> Slot:
    return Slot(lhs, rhs[i - 1] if i > 0 else EDGE_BEFORE, rhs[i], rhs[i + 1] if i + 1 < len(rhs) else EDGE_AFTER,
                i + 2 == len(rhs))


def insertion_context(m: MaskedSentence) -> Slot | None:
    """The :class:`Slot` of a masked sentence's one mask in the reference right-hand side; ``None`` for two masks
    or more."""
    where = embed(m.seed_rhs, m.ref_rhs)
    if where is None:
        return None
    added = [i for i in range(len(m.ref_rhs)) if i not in set(where)]
    if len(added) != 1:
        return None
    return _slot(m.lhs, m.ref_rhs, added[0])


@dataclass(frozen=True, slots=True)
class Insertion:
    """An insertion a masked sentence may make: one word of a tag in ``tag`` into a phrase labelled in ``lhs``,
    right after a sibling labelled in ``after`` and right before one labelled in ``before`` (``^``/``$``: the
    phrase's edge) and, when ``final``, that sibling ends the phrase; ``attested``: the word must fill such a slot
    in the reference treebank at least this many
    times (:func:`attested_words`; ``None``: any word of the tag); ``collocated``: the word must come right before
    the word after the mask at least this many times in a corpus (:func:`collocated_counts`; ``None``: not
    checked); ``main_clause``: the phrase must be part of the sentence's main clause (:func:`in_main_clause`).

    The words around the slot (lower-cased; :meth:`fits`): ``after_words``: the word right before the mask must be
    one of them (``None``: any; an auxiliary or modal, not a lexical verb); ``not_after``: it must not be one of these
    (*wanna*, which fuses a verb with its *to*); ``not_before_tags``: the word right after the mask is tagged none of
    these (an adverb between a subject and its verb phrase: not before a gerund or participle, which heads no
    clause: ``<user> [also] invoking the doctrine was ...``); ``clause_refuse``: none of these words may come before
    the mask in its clause (:func:`clause_before`: a negation, a focus word such as *only*); ``wh_front``: none of
    these words may open the mask's clause before it (:func:`fronted_before`: a wh-question or exclamative, *how
    bad it also is*)."""

    lhs: frozenset[str]
    tag: frozenset[str]
    after: frozenset[str]
    before: frozenset[str]
    final: bool = False
    attested: int | None = None
    collocated: int | None = None
    main_clause: bool = False
    after_words: frozenset[str] | None = None
    not_after: frozenset[str] = frozenset()
    not_before_tags: frozenset[str] = frozenset()
    clause_refuse: frozenset[str] = frozenset()
    wh_front: frozenset[str] = frozenset()

    @classmethod
    def of(cls, lhs: Iterable[str], tag: Iterable[str], after: Iterable[str], before: Iterable[str], *,
           final: bool = False, attested: int | None = None, collocated: int | None = None,
           main_clause: bool = False, after_words: Iterable[str] | None = None, not_after: Iterable[str] = (),
           not_before_tags: Iterable[str] = (), clause_refuse: Iterable[str] = (),
           wh_front: Iterable[str] = ()) -> Insertion:
        def low(words: Iterable[str]) -> frozenset[str]:
            return frozenset(w.lower() for w in words)

        return cls(frozenset(lhs), frozenset(tag), frozenset(after), frozenset(before), bool(final), attested,
                   collocated, bool(main_clause), None if after_words is None else low(after_words),
                   low(not_after), frozenset(not_before_tags), low(clause_refuse), low(wh_front))

    def matches(self, slot: Slot) -> bool:
        return (slot.lhs in self.lhs and slot.tag in self.tag and slot.left in self.after
                and slot.right in self.before and (slot.right_last or not self.final))

    def fits(self, m: MaskedSentence) -> bool:
        """Whether the words around ``m``'s one mask allow this insertion (``after_words``, ``not_after``,
        ``not_before_tags``, ``clause_refuse``, ``wh_front``; see the class)."""
        [p] = m.mask_positions
        words = [w.lower() if w is not None else None for w in m.words]
        prev = words[p - 1] if p > 0 else None
        if self.after_words is not None and prev not in self.after_words:
            return False
        if prev is not None and prev in self.not_after:
            return False
        if p + 1 < len(words) and m.tags[p + 1] in self.not_before_tags:
            return False
        if self.clause_refuse and any(words[i] in self.clause_refuse for i in clause_before(m.tree, m.path, p)):
            return False
        return not (self.wh_front and fronted_before(m, self.wh_front))


#: labels that may stand above a sentence's top clause (a parser's root)
ROOT_LABELS = frozenset({"ROOT", "TOP", ""})


def in_main_clause(tree: Node, path: tuple[int, ...]) -> bool:
    """Whether the node at ``path`` belongs to the sentence's main clause: the labels from the root down to it are
    an optional root label, then ``S`` (conjoined main clauses: ``S`` under ``S``), then ``VP`` only. A clause under
    ``SBAR`` (*as the story unfolds*), a ``VP`` (*help Chicago make*), an ``NP`` or a ``PP`` is not the main one:
    an adverb such as *also* inserted there has nothing to attach to."""
    labels = [strip_function_tags(n.label) for n in path_nodes(tree, path)]
    if labels and labels[0] in ROOT_LABELS:
        labels = labels[1:]
    k = 0
    while k < len(labels) and labels[k] == "S":
        k += 1
    return k > 0 and all(lab == "VP" for lab in labels[k:])


#: labels of a clause: a declarative, inverted or question clause (an ``SBAR`` holds one with its complementizer)
CLAUSE_LABELS = frozenset({"S", "SINV", "SQ", "SBARQ"})
#: labels of a clause nested in another one (its words are not the outer clause's)
_NESTED_CLAUSES = CLAUSE_LABELS | {"SBAR"}


def clause_before(tree: Node, path: tuple[int, ...], position: int) -> list[int]:
    """The leaves before leaf ``position`` in its clause: the lowest node labelled in :data:`CLAUSE_LABELS` from the
    root down to the node at ``path`` (that node included; none: the whole tree), without the leaves of the clauses
    nested in it (``S``, ``SBAR``, ...) that do not hold ``position``: in *only the elite looters [also] are
    enriched when they import*, *only* is in the mask's clause; in *they do not care and law will [also] ignore*,
    parsed as two conjoined clauses, *not* is not."""
    chain = path_nodes(tree, path)
    low = max((d for d, n in enumerate(chain) if strip_function_tags(n.label) in CLAUSE_LABELS), default=0)
    top = path[:low]
    start, _ = leaf_span(tree, top)
    clause = chain[low]
    out: list[int] = []

    def walk(n: Node, first: int, root: bool) -> int:
        end = first + len(n.leaves())
        if not root and n.children and strip_function_tags(n.label) in _NESTED_CLAUSES and not first <= position < end:
            return end
        if not n.children:
            if first < position:
                out.append(first)
            return end
        k = first
        for c in n.children:
            k = walk(c, k, False)
        return end

    walk(clause, start, True)
    return out


def _is_verb(tag: str) -> bool:
    return tag.startswith("VB") or tag == "MD"


def fronted_before(m: MaskedSentence, wh: frozenset[str]) -> bool:
    """Whether a word of ``wh`` (lower-cased) opens the clause of ``m``'s one mask: reading leftwards from the mask,
    one comes before any verb (a ``VB*`` or ``MD`` tag) or punctuation, the mask's left sibling not counted when it
    is one word (the auxiliary an adverb joins): *how shitty their lives must [also] be*, *how shitty their lives
    [also] must be*; not *the people who came [also] left*. A verb right after a wh-adverb (``WRB``) and adverbs is
    the head of the wh-phrase, whatever its tag (*how suddenly shitty*, ``shitty`` tagged ``VBP``): a degree *how*
    takes an adjective or adverb, while a relative pronoun (*who*, ``WP``) comes right before its clause's verb.
    Read on the words, not the tree: a parser seldom parses an exclamative in a post as one."""
    [p] = m.mask_positions
    words, tags = [w.lower() if w is not None else None for w in m.words], m.tags
    kids = path_nodes(m.tree, m.path)[-1].children
    j = next(i for i, c in enumerate(kids) if c.is_mask)
    skip = p - 1 if j > 0 and not kids[j - 1].children else None
    for i in range(p - 1, -1, -1):
        w = words[i]
        if i == skip or w is None:
            continue
        if w in wh:
            return True
        if not is_word_pos(tags[i]):
            return False
        if _is_verb(tags[i]):
            h = i - 1
            while h >= 0 and tags[h].startswith("RB") and words[h] not in wh:
                h -= 1
            return h >= 0 and tags[h] == "WRB" and words[h] in wh
    return False


def allowed_insertion(m: MaskedSentence, rules: Sequence[Insertion] | None) -> bool:
    """Whether ``m`` is filled: every masked sentence when ``rules`` is ``None``, else one mask, not the sentence's
    first word (a sentence-initial bare noun is most often a parse error, *American falters when*), inserted in a
    context (:func:`insertion_context`) that one of the rules matches (in the main clause where the rule says
    so: :func:`in_main_clause`) and whose words it allows (:meth:`Insertion.fits`)."""
    if rules is None:
        return True
    ctx = insertion_context(m)
    if ctx is None or m.mask_positions == [0]:
        return False
    return any(r.matches(ctx) and (not r.main_clause or in_main_clause(m.tree, m.path)) and r.fits(m) for r in rules)


def _per_tag(rules: Sequence[Insertion], field: str) -> dict[str, list[int]]:
    """The ``field`` values of the rules per tag of a rule that sets it; a ValueError when another rule of such a
    tag leaves it unset."""
    out: dict[str, list[int]] = {}
    for r in rules:
        v = getattr(r, field)
        if v is not None:
            for t in r.tag:
                out.setdefault(t, []).append(int(v))
    loose = sorted({t for r in rules if getattr(r, field) is None for t in r.tag if t in out})
    if loose:
        raise ValueError(f"tags {', '.join(loose)} have rules with and without {field}")
    return out


def collocated_counts(rules: Sequence[Insertion]) -> dict[str, int]:
    """Per tag of a rule with ``collocated``: the fewest times a fill of the tag must have been seen right before
    the word after its mask (the smallest over the tag's rules). Every rule of such a tag must set ``collocated``
    (a ValueError otherwise)."""
    return {t: min(v) for t, v in _per_tag(rules, "collocated").items()}


def _one_word(node: Node) -> Node | None:
    """The word (preterminal) a node is, or a phrase is a unary chain over; else ``None``."""
    while len(node.children) == 1:
        node = node.children[0]
    return node if not node.children and node.word is not None else None


def slot_contexts(tree: Node) -> Iterable[tuple[Slot, str]]:
    """Every word of ``tree`` that is a phrase's child, or the one word of a child phrase (``(ADVP (RB also))``
    stands for ``RB``, as in :func:`child_is`), with its :class:`Slot` (the word's tag as the slot's)."""
    for _, node in tree.subtrees():
        kids = node.children
        labels = [c.label for c in kids]
        for i, c in enumerate(kids):
            leaf = _one_word(c)
            if leaf is None or leaf.word is None:
                continue
            yield _slot(node.label, [*labels[:i], leaf.label, *labels[i + 1:]], i), leaf.word


def attested_words(trees: Iterable[Node], rules: Sequence[Insertion]) -> dict[str, frozenset[str]]:
    """Per tag of a rule with ``attested``: the words (lower-cased) that fill a slot the rule matches in ``trees`` at
    least ``attested`` times, over every such rule of the tag. Every rule of such a tag must have ``attested`` (a
    ValueError otherwise): a fill of the tag is then one of these words."""
    tags = set(_per_tag(rules, "attested"))
    counted = [r for r in rules if r.attested is not None]
    counts: list[Counter[str]] = [Counter() for _ in counted]
    for tree in trees:
        for ctx, word in slot_contexts(tree):
            for c, r in zip(counts, counted, strict=True):
                if r.matches(ctx):
                    c[word.lower()] += 1
    out: dict[str, set[str]] = {t: set() for t in tags}
    for c, r in zip(counts, counted, strict=True):
        words = {w for w, n in c.items() if n >= int(r.attested or 0)}
        for t in r.tag:
            out[t].update(words)
    return {t: frozenset(ws) for t, ws in out.items()}
