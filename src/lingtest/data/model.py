"""The one data model shared by every technique.

Document -> Sentence -> Token, with constituency :class:`Tree` per sentence, coreference
:class:`Mention`/:class:`Cluster`, NER :class:`Entity`, classification labels, contrastive
translation examples and :class:`TestCase` records.

Conventions (every module relies on them):

* Token indices inside a :class:`Sentence` are 0-based; ``Token.head`` is the sentence-relative
  index of the syntactic head, ``-1`` for the root, ``None`` when unparsed.
* :class:`Mention` and :class:`Entity` spans are **document-level** token offsets with an
  exclusive end (``tokens[start:end]``), so clusters can cross sentences.
* Everything serialises to plain JSON-compatible dicts (``to_dict``/``from_dict``) that omit
  ``None`` and empty fields; :data:`SCHEMA_VERSION` is written in every JSONL header.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    """Drop ``None`` and empty containers so JSON stays small and stable."""
    return {k: v for k, v in d.items() if v is not None and v != {} and v != [] and v != ()}


# --------------------------------------------------------------------------------------------
# Tokens and trees
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Token:
    text: str
    ws: str = " "  # whitespace that follows the token in the original text
    pos: str | None = None  # universal POS (UPOS)
    tag: str | None = None  # language-specific tag (PTB for English)
    lemma: str | None = None
    head: int | None = None  # sentence-relative head index, -1 for root
    dep: str | None = None
    ent: str | None = None  # IOB2 NER tag, e.g. "B-PER", "O"
    morph: str | None = None  # UD feature string, e.g. "Number=Sing|Person=3"

    def to_dict(self) -> dict[str, Any]:
        d = {
            "text": self.text,
            "ws": None if self.ws == " " else self.ws,
            "pos": self.pos,
            "tag": self.tag,
            "lemma": self.lemma,
            "head": self.head,
            "dep": self.dep,
            "ent": self.ent,
            "morph": self.morph,
        }
        return {k: v for k, v in d.items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Token:
        return cls(
            text=d["text"],
            ws=d.get("ws", " "),
            pos=d.get("pos"),
            tag=d.get("tag"),
            lemma=d.get("lemma"),
            head=d.get("head"),
            dep=d.get("dep"),
            ent=d.get("ent"),
            morph=d.get("morph"),
        )


@dataclass(slots=True)
class Tree:
    """A constituency tree over the tokens of one sentence.

    A preterminal has ``token`` set (the sentence-relative index of the word it dominates) and no
    children; every other node has children and ``token is None``. ``label`` of a preterminal is
    the POS tag. SST trees keep the sentiment class as the node label.
    """

    label: str
    children: list[Tree] = field(default_factory=list)
    token: int | None = None

    # ---- structure -------------------------------------------------------------------------
    def is_preterminal(self) -> bool:
        return self.token is not None

    def leaves(self) -> list[int]:
        """Token indices under this node, left to right."""
        if self.token is not None:
            return [self.token]
        out: list[int] = []
        for c in self.children:
            out.extend(c.leaves())
        return out

    def span(self) -> tuple[int, int]:
        """(first token, last token + 1) covered by this node."""
        lv = self.leaves()
        return (min(lv), max(lv) + 1)

    def subtrees(self) -> Iterator[Tree]:
        yield self
        for c in self.children:
            yield from c.subtrees()

    def constituents(self, include_preterminals: bool = False) -> list[tuple[str, int, int]]:
        """All labelled spans (label, start, end) in pre-order."""
        out: list[tuple[str, int, int]] = []
        for t in self.subtrees():
            if t.token is not None and not include_preterminals:
                continue
            s, e = t.span()
            out.append((t.label, s, e))
        return out

    def path_to_token(self, index: int) -> list[Tree]:
        """Nodes from the root down to the preterminal of token ``index`` (inclusive)."""
        if self.token is not None:
            return [self] if self.token == index else []
        for c in self.children:
            p = c.path_to_token(index)
            if p:
                return [self, *p]
        return []

    def token_depth(self, index: int) -> int:
        """Depth of a token: number of nodes from the root to its preterminal, root counted as 1.

        Raises ``KeyError`` when the token is not in the tree.
        """
        p = self.path_to_token(index)
        if not p:
            raise KeyError(index)
        return len(p)

    def lowest_covering(self, start: int, end: int) -> tuple[Tree, int]:
        """The lowest node whose span contains [start, end), with its depth (root = 1)."""
        node, depth = self, 1
        while True:
            for c in node.children:
                s, e = c.span()
                if s <= start and end <= e:
                    node, depth = c, depth + 1
                    break
            else:
                return node, depth

    # ---- text form -------------------------------------------------------------------------
    def to_bracketed(self, words: Sequence[str] | None = None) -> str:
        """Penn bracketed string; words are taken from ``words`` or written as token indices."""
        if self.token is not None:
            w = words[self.token] if words is not None else str(self.token)
            return f"({self.label} {_escape_leaf(w)})"
        return f"({self.label} " + " ".join(c.to_bracketed(words) for c in self.children) + ")"

    @classmethod
    def from_bracketed(cls, s: str) -> tuple[Tree, list[str]]:
        """Parse a Penn bracketed string; returns the tree and its words (leaves in order).

        Accepts an outer unlabelled bracket ``( (S ...) )`` as written in the PTB, which is
        returned as a node labelled ``ROOT``.
        """
        toks = _tokenize_brackets(s)
        words: list[str] = []
        pos = 0

        def parse() -> Tree:
            nonlocal pos
            if toks[pos] != "(":
                raise ValueError(f"expected '(' at bracket token {pos}: {toks[pos]!r}")
            pos += 1
            label = ""
            if toks[pos] not in ("(", ")"):
                label = toks[pos]
                pos += 1
            children: list[Tree] = []
            while toks[pos] != ")":
                if toks[pos] == "(":
                    children.append(parse())
                else:
                    # a leaf word: the current node is a preterminal
                    words.append(_unescape_leaf(toks[pos]))
                    pos += 1
                    if toks[pos] != ")":
                        raise ValueError(f"preterminal {label!r} has more than one word")
                    pos += 1
                    return cls(label=label, token=len(words) - 1)
            pos += 1
            return cls(label=label or "ROOT", children=children)

        try:
            tree = parse()
        except IndexError as exc:
            raise ValueError("unbalanced brackets in tree") from exc
        if pos != len(toks):
            raise ValueError("trailing material after tree")
        return tree, words

    def to_dict(self) -> dict[str, Any]:
        """Compact form: the bracketed string with token indices as leaves."""
        return {"ptb": self.to_bracketed()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tree:
        tree, words = cls.from_bracketed(d["ptb"])
        # leaves were written as indices: restore them
        for node in tree.subtrees():
            if node.token is not None:
                node.token = int(words[node.token])
        return tree


def _escape_leaf(w: str) -> str:
    """Brackets become -LRB-/-RRB- (PTB convention), spaces underscores."""
    if not w:
        return "_"
    return w.replace("(", "-LRB-").replace(")", "-RRB-").replace(" ", "_")


def _unescape_leaf(w: str) -> str:
    return w.replace("-LRB-", "(").replace("-RRB-", ")")


def _tokenize_brackets(s: str) -> list[str]:
    out: list[str] = []
    buf: list[str] = []
    for ch in s:
        if ch in "()":
            if buf:
                out.append("".join(buf))
                buf = []
            out.append(ch)
        elif ch.isspace():
            if buf:
                out.append("".join(buf))
                buf = []
        else:
            buf.append(ch)
    if buf:
        out.append("".join(buf))
    return out


# --------------------------------------------------------------------------------------------
# Sentences, mentions, clusters, entities, documents
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Sentence:
    tokens: list[Token]
    tree: Tree | None = None
    id: str | None = None
    label: str | None = None  # sentence-level class (e.g. SST sentiment, HateXplain label)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens]

    @property
    def text(self) -> str:
        return "".join(t.text + t.ws for t in self.tokens).rstrip()

    def __len__(self) -> int:
        return len(self.tokens)

    def to_dict(self) -> dict[str, Any]:
        return _compact(
            {
                "id": self.id,
                "tokens": [t.to_dict() for t in self.tokens],
                "tree": self.tree.to_dict() if self.tree is not None else None,
                "label": self.label,
                "meta": self.meta,
            }
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Sentence:
        return cls(
            tokens=[Token.from_dict(t) for t in d.get("tokens", [])],
            tree=Tree.from_dict(d["tree"]) if d.get("tree") else None,
            id=d.get("id"),
            label=d.get("label"),
            meta=dict(d.get("meta", {})),
        )


@dataclass(frozen=True, slots=True, order=True)
class Mention:
    """A document-level token span [start, end)."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise ValueError(f"empty or inverted mention span [{self.start}, {self.end})")

    def __len__(self) -> int:
        return self.end - self.start

    def to_list(self) -> list[int]:
        return [self.start, self.end]


@dataclass(slots=True)
class Cluster:
    mentions: list[Mention]
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _compact({"id": self.id, "mentions": [m.to_list() for m in self.mentions]})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Cluster:
        return cls(mentions=[Mention(s, e) for s, e in d["mentions"]], id=d.get("id"))


@dataclass(frozen=True, slots=True, order=True)
class Entity:
    """A named entity: document-level token span [start, end) with a label."""

    start: int
    end: int
    label: str

    def to_list(self) -> list[Any]:
        return [self.start, self.end, self.label]


@dataclass(slots=True)
class Document:
    id: str
    sentences: list[Sentence] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    part: int | None = None  # CoNLL-2012 part number
    split: str | None = None
    label: str | None = None  # document-level class (HateXplain post label, ...)
    meta: dict[str, Any] = field(default_factory=dict)

    # ---- derived views ---------------------------------------------------------------------
    @property
    def key(self) -> str:
        """Stable identity used to match documents across files (id plus part)."""
        return self.id if self.part is None else f"{self.id}#{self.part}"

    @property
    def tokens(self) -> list[Token]:
        return [t for s in self.sentences for t in s.tokens]

    @property
    def words(self) -> list[str]:
        return [t.text for s in self.sentences for t in s.tokens]

    def sentence_offsets(self) -> list[int]:
        """Document offset of the first token of each sentence."""
        out, n = [], 0
        for s in self.sentences:
            out.append(n)
            n += len(s.tokens)
        return out

    def locate(self, doc_index: int) -> tuple[int, int]:
        """(sentence index, sentence-relative index) of a document token offset."""
        n = 0
        for si, s in enumerate(self.sentences):
            if doc_index < n + len(s.tokens):
                return si, doc_index - n
            n += len(s.tokens)
        raise IndexError(doc_index)

    def mention_text(self, m: Mention) -> str:
        return " ".join(self.words[m.start : m.end])

    def content_hash(self) -> str:
        """Hash of the token texts and sentence breaks (not annotations)."""
        h = hashlib.sha256()
        for s in self.sentences:
            h.update("\x1f".join(s.words).encode("utf-8"))
            h.update(b"\x1e")
        return h.hexdigest()

    # ---- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return _compact(
            {
                "id": self.id,
                "part": self.part,
                "split": self.split,
                "label": self.label,
                "sentences": [s.to_dict() for s in self.sentences],
                "clusters": [c.to_dict() for c in self.clusters],
                "entities": [e.to_list() for e in self.entities],
                "meta": self.meta,
            }
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        return cls(
            id=d["id"],
            part=d.get("part"),
            split=d.get("split"),
            label=d.get("label"),
            sentences=[Sentence.from_dict(s) for s in d.get("sentences", [])],
            clusters=[Cluster.from_dict(c) for c in d.get("clusters", [])],
            entities=[Entity(s, e, lab) for s, e, lab in d.get("entities", [])],
            meta=dict(d.get("meta", {})),
        )


def clusters_as_spans(clusters: Iterable[Cluster]) -> list[list[tuple[int, int]]]:
    """Plain ``[[(start, end), ...], ...]`` view, as used by the coreference metrics."""
    return [[(m.start, m.end) for m in c.mentions] for c in clusters]


def non_singleton(clusters: Iterable[Iterable[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Clusters of at least two distinct spans, each sorted, in sorted order: the canonical form in
    which two coreference predictions are compared (systems do not output singletons)."""
    out = []
    for c in clusters:
        uniq = sorted({(s, e) for s, e in c})
        if len(uniq) >= 2:
            out.append(uniq)
    return sorted(out)


# --------------------------------------------------------------------------------------------
# Contrastive translation examples (ContraPro, ContraCAT)
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class ContrastiveExample:
    """A source sentence with its correct translation and contrastive (wrong) variants."""

    id: str
    src: str
    ref: str
    contrastive: list[str]
    src_context: str = ""
    ref_context: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _compact(
            {
                "id": self.id,
                "src": self.src,
                "ref": self.ref,
                "contrastive": list(self.contrastive),
                "src_context": self.src_context or None,
                "ref_context": self.ref_context or None,
                "meta": self.meta,
            }
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ContrastiveExample:
        return cls(
            id=d["id"],
            src=d["src"],
            ref=d["ref"],
            contrastive=list(d.get("contrastive", [])),
            src_context=d.get("src_context", ""),
            ref_context=d.get("ref_context", ""),
            meta=dict(d.get("meta", {})),
        )


# --------------------------------------------------------------------------------------------
# Test cases
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Provenance:
    seed_id: str
    transformation: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _compact({"seed_id": self.seed_id, "transformation": self.transformation, "params": self.params})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Provenance:
        return cls(seed_id=d["seed_id"], transformation=d["transformation"], params=dict(d.get("params", {})))


@dataclass(slots=True)
class TestCase:
    """One generated test: a source input, its follow-up, and what should hold between them.

    ``source`` and ``followup`` are JSON-compatible payloads (usually ``Document.to_dict()`` or
    ``{"text": ...}``); ``expected`` is the expected relation (e.g. ``"same-coreference"``) or
    label. ``id`` is derived from the content, so regenerating a suite gives the same ids.
    """

    __test__ = False  # not a pytest class

    technique: str
    relation: str
    source: dict[str, Any]
    followup: dict[str, Any] | None
    expected: Any
    provenance: Provenance
    meta: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = stable_id(self.technique, self.relation, self.provenance.seed_id,
                                self.provenance.transformation, self.provenance.params,
                                self.followup)

    def to_dict(self) -> dict[str, Any]:
        return _compact(
            {
                "id": self.id,
                "technique": self.technique,
                "relation": self.relation,
                "source": self.source,
                "followup": self.followup,
                "expected": self.expected,
                "provenance": self.provenance.to_dict(),
                "meta": self.meta,
            }
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TestCase:
        return cls(
            id=d["id"],
            technique=d["technique"],
            relation=d["relation"],
            source=d["source"],
            followup=d.get("followup"),
            expected=d.get("expected"),
            provenance=Provenance.from_dict(d["provenance"]),
            meta=dict(d.get("meta", {})),
        )


def stable_id(*parts: Any, length: int = 16) -> str:
    """A short deterministic id from JSON-serialisable parts."""
    import json

    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]
