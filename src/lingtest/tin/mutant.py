"""The two records every TIN step passes along: a source sentence with the system's prediction
(:class:`TinSource`) and one mutant of it (:class:`Mutant`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.data.model import Entity, Sentence, Tree, stable_id
from lingtest.tin.spans import Span, TokenMap

#: the two metamorphic relations (names of their expectations, :mod:`lingtest.tin.relations`)
MR1 = "tin-mr1"
MR2 = "tin-mr2"


@dataclass(slots=True)
class TinSource:
    """A sentence to mutate: its words, PTB tags, lemmas, constituency tree and dependencies (``heads``:
    each token's head position, ``-1`` for the root; ``deps``: its label), all from the parse, and
    ``entities``, the system's prediction N(s) in its own labels (transformations avoid or move
    them). ``gold`` (CoNLL labels) is carried for grading only; no transformation reads it."""

    id: str
    tokens: list[str]
    entities: list[Entity]
    tags: list[str] | None = None
    lemmas: list[str | None] | None = None
    tree: Tree | None = None
    gold: list[Entity] | None = None
    heads: list[int] | None = None
    deps: list[str] | None = None

    def __post_init__(self) -> None:
        n = len(self.tokens)
        for name in ("tags", "lemmas", "heads", "deps"):
            v = getattr(self, name)
            if v is not None and len(v) != n:
                raise ValueError(f"source {self.id}: {len(v)} {name} for {n} tokens")
        for e in self.entities:
            if not 0 <= e.start < e.end <= n:
                raise ValueError(f"source {self.id}: entity {e} outside {n} tokens")

    @classmethod
    def from_sentence(cls, id: str, sentence: Sentence, entities: Sequence[Entity],
                      gold: Sequence[Entity] | None = None) -> TinSource:
        """From a parsed sentence (tags, lemmas, tree, dependencies) and the system's entities."""
        tags = [t.tag for t in sentence.tokens]
        heads = [t.head for t in sentence.tokens]
        deps = [t.dep for t in sentence.tokens]
        parsed = all(h is not None for h in heads) and all(d is not None for d in deps)
        return cls(id=id, tokens=sentence.words, entities=sorted(entities),
                   tags=None if any(t is None for t in tags) else [str(t) for t in tags],
                   lemmas=[t.lemma for t in sentence.tokens], tree=sentence.tree,
                   gold=None if gold is None else sorted(gold),
                   heads=[int(h) for h in heads] if parsed else None,  # type: ignore[arg-type]
                   deps=[str(d) for d in deps] if parsed else None)


@dataclass(slots=True)
class Mutant:
    """A mutant s' of source ``seed_id``.

    ``alignment`` maps source tokens onto ``tokens`` (gold and predictions move with it);
    ``changed``/``changed_followup`` are the replaced span in s and its replacement in s' (token
    and phrase level: what the semantic filter compares); ``restore`` maps mutant positions whose
    case the transformation changed to the source word (the structural rule lowercases the
    subject's first word; MR2 compares texts with it restored). ``params`` says what changed;
    ``scores`` collects filter scores."""

    seed_id: str
    transformation: str
    relation: str
    source: list[str]
    tokens: list[str]
    alignment: TokenMap
    params: dict[str, Any] = field(default_factory=dict)
    changed: Span | None = None
    changed_followup: Span | None = None
    restore: dict[int, str] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        al = self.alignment
        if len(al.to_followup) != len(self.source) or al.n_followup != len(self.tokens):
            raise ValueError(f"mutant of {self.seed_id}: alignment does not fit {len(self.source)} -> "
                             f"{len(self.tokens)} tokens")

    @property
    def id(self) -> str:
        """Deterministic id from the seed, the transformation and the mutant's words."""
        return stable_id(self.seed_id, self.transformation, self.tokens)

    def restored_tokens(self) -> list[str]:
        """The mutant's words with the case changes undone."""
        return [self.restore.get(j, w) for j, w in enumerate(self.tokens)]
