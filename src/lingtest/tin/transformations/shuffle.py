"""Random entity shuffle (TIN section 3.2.3): the predicted entities of one type trade places.

For every label with at least two entities in N(s), the entities of that label are permuted among
their positions (the other entities stay): every permutation when there are at most
``max_exhaustive`` of them, else ``samples`` distinct permutations drawn with a generator seeded by
(``seed``, sentence id, label). The identity, and any permutation that gives back the same words
(two entities with equal text), are left out; each mutant permutes one label. Entities that overlap
another predicted entity (nested predictions) are not moved: a label with one is skipped. (The
public TIN code permutes all labels at once, as a cartesian product, and its sampled shuffles are
all equal - a bug; here each label is a separate mutant and samples are distinct.)

**Whole phrases only** (``whole_phrases``): an entity is moved only when it is a whole phrase of the
sentence - its span is a noun-phrase constituent of the parse (``NP``/``NML``/``NX``, or a proper-noun
preterminal), or a maximal run of proper nouns (``NNP``/``NNPS``, no proper noun just before or after
it). A system that cuts "New York City" into "New" and "York City" predicts entities that are not
whole phrases; moving them garbles the sentence ("York New City") and splits a gold entity, which
made the mutant, not the system, wrong (the reviewed shuffles were 27% well-formed; every issue on
them sat on a split entity). The paper's shuffle moves entities as units; this keeps its mutants
sentences. An entity that is not a whole phrase stays in place; a label needs two movable entities.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.data.model import Entity, stable_id
from lingtest.tin.mutant import MR2, Mutant, TinSource
from lingtest.tin.spans import TokenMap, overlaps
from lingtest.tin.transformations.base import TransformationConfig


def permutations_of(n: int, *, max_exhaustive: int, samples: int,
                    rng: random.Random) -> list[tuple[int, ...]]:
    """Non-identity permutations of ``range(n)``: all of them when ``n <= max_exhaustive``, else up
    to ``samples`` distinct random ones (in the order drawn)."""
    ident = tuple(range(n))
    if n < 2:
        return []
    if n <= max_exhaustive:
        return [p for p in itertools.permutations(range(n)) if p != ident]
    out: list[tuple[int, ...]] = []
    seen = {ident}
    tries = 0
    while len(out) < samples and tries < samples * 50:
        tries += 1
        p = list(range(n))
        rng.shuffle(p)
        t = tuple(p)
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


NOUN_PHRASES = frozenset({"NP", "NML", "NX", "NNP", "NNPS"})
PROPER = frozenset({"NNP", "NNPS"})


def whole_phrase(source: TinSource, entity: Entity) -> bool:
    """Whether ``entity`` is a whole phrase of ``source`` (see the module doc); without a tree or tags
    nothing can be told and every entity counts as one."""
    span = (entity.start, entity.end)
    if source.tree is not None:
        spans = {(s, e) for label, s, e in source.tree.constituents(include_preterminals=True)
                 if label.split("-")[0] in NOUN_PHRASES}
        if span in spans:
            return True
    tags = source.tags
    if tags is None:
        return source.tree is None
    inside = all(t in PROPER for t in tags[entity.start:entity.end])
    before = entity.start > 0 and tags[entity.start - 1] in PROPER
    after = entity.end < len(tags) and tags[entity.end] in PROPER
    return inside and not before and not after


def apply_permutation(tokens: Sequence[str], slots: Sequence[Entity],
                      perm: Sequence[int]) -> tuple[list[str], list[int | None]]:
    """Put entity ``perm[k]`` into the place of entity ``k``; returns the words and, per new
    position, its source index."""
    starts = {e.start: k for k, e in enumerate(slots)}
    order: list[int | None] = []
    i = 0
    while i < len(tokens):
        k = starts.get(i)
        if k is None:
            order.append(i)
            i += 1
            continue
        moved = slots[perm[k]]
        order.extend(range(moved.start, moved.end))
        i = slots[k].end
    return [tokens[j] for j in order if j is not None], order


class EntityShuffleConfig(TransformationConfig):
    """``tin.transformations.shuffle`` (``seed``: ``tin.seed``)."""

    max_exhaustive: int
    samples: int
    whole_phrases: bool
    seed: int


class EntityShuffle:
    """Permute the entities of each type; checked with MR2. ``max_exhaustive``: enumerate every
    permutation up to this many entities of a type; ``samples``: seeded permutations otherwise."""

    name: ClassVar[str] = "shuffle"
    label: ClassVar[str] = "Entity shuffle"
    relation: ClassVar[str] = MR2
    Config: ClassVar[type[EntityShuffleConfig]] = EntityShuffleConfig

    @classmethod
    def from_config(cls, config: EntityShuffleConfig, parts: Any) -> EntityShuffle:
        return cls(max_exhaustive=config.max_exhaustive, samples=config.samples, seed=config.seed,
                   whole_phrases=config.whole_phrases)

    def __init__(self, *, max_exhaustive: int, samples: int, seed: int, whole_phrases: bool) -> None:
        if max_exhaustive < 1 or samples < 0:
            raise ValueError("max_exhaustive must be >= 1 and samples >= 0")
        self.max_exhaustive = max_exhaustive
        self.samples = samples
        self.seed = seed
        self.whole_phrases = whole_phrases

    def _rng(self, source_id: str, label: str) -> random.Random:
        return random.Random(int(stable_id(self.seed, source_id, label), 16))

    def mutants_of(self, source: TinSource) -> list[Mutant]:
        out: list[Mutant] = []
        ents = sorted(source.entities)
        for label in sorted({e.label for e in ents}):
            slots = [e for e in ents if e.label == label
                     and (not self.whole_phrases or whole_phrase(source, e))]
            if len(slots) < 2:
                continue
            if any(overlaps((a.start, a.end), (b.start, b.end)) for a in slots for b in ents if a != b):
                continue
            seen = {tuple(source.tokens)}
            perms = permutations_of(len(slots), max_exhaustive=self.max_exhaustive, samples=self.samples,
                                    rng=self._rng(source.id, label))
            for perm in perms:
                words, order = apply_permutation(source.tokens, slots, perm)
                if tuple(words) in seen:
                    continue
                seen.add(tuple(words))
                out.append(Mutant(
                    seed_id=source.id, transformation=self.name, relation=self.relation,
                    source=list(source.tokens), tokens=words,
                    alignment=TokenMap.from_order(len(source.tokens), order),
                    params={"label": label, "permutation": list(perm),
                            "entities": [[e.start, e.end] for e in slots]},
                ))
        return out

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        return [m for s in sources for m in self.mutants_of(s)]
