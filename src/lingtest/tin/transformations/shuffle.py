"""Random entity shuffle (TIN section 3.2.3): the predicted entities of one type trade places.

For every group of at least two entities in N(s) - the entities of one label, or with ``whole_phrases``
the whole-phrase entities of one label and one role (below) - the entities of the group are permuted among
their positions (the other entities stay): every permutation when there are at most ``max_exhaustive`` of
them, else ``samples`` distinct permutations drawn with a generator seeded by (``seed``, sentence id,
group). The identity, and any permutation that gives back the same words (two entities with equal text,
also across groups), are left out; each mutant permutes one group. Entities that overlap
another predicted entity (nested predictions) are not moved: a label with one is skipped. (The
public TIN code permutes all labels at once, as a cartesian product, and its sampled shuffles are
all equal - a bug; here each label is a separate mutant and samples are distinct.)

**Whole phrases, in the same role** (``whole_phrases``): an entity is moved only when it is a whole phrase of
the sentence (:func:`whole_phrase`) - it cuts no name (no proper noun right before or after it, nor one joined
to it by *and*, *of*, ... outside every predicted entity: *Energy Ministry* of *Mines and Energy Ministry*)
and it is a constituent of the parse or a run of proper nouns - and entities trade places only with entities
of their label that play the same part (:func:`slot_key`): the role of the entity's head word in the
dependency parse (an argument - subject, object, object of a preposition, apposition, conjunct -, told apart
by whether a determiner starts or precedes it, *the United Nations* / *Interfax*; a modifier of a noun; a
possessor) and the word class of that head (proper noun, adjective, year, weekday, month, ...: *on Friday* /
*in January*). Only arguments headed by a name, an adjective, a year, a weekday or a month, and adjectives
modifying a noun (*French troops*), move (:func:`movable`): not possessors (*NATO's biography* / *Albright's
plans*), nouns modifying nouns (*FBI agents* / *TWA airliner*), counts (*they had 10 in the top two*) or
common nouns (*soybean* labelled as a person).

A system that cuts "New York City" into "New" and "York City" predicts entities that are not whole phrases;
moving them garbles the sentence ("York New City") and splits a gold entity, which made the mutant, not the
system, wrong (the reviewed shuffles were 27% well-formed; every issue on them sat on a split entity). Moving
a modifier into an argument's place does the same to the sentence ("killed four Athens citizens"). The paper's
shuffle moves entities as units; this keeps its mutants sentences. Without a parse (no tags, no dependencies)
nothing can be told: every entity is whole and all entities of a label share one role. An entity that is not a
whole phrase stays in place; a group needs two movable entities, and each mutant permutes one group
(``params["group"]``: label, role, word class).
"""

from __future__ import annotations

import itertools
import random
import re
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


PROPER = frozenset({"NNP", "NNPS"})
#: dependency labels (spaCy's ClearNLP scheme) of a word that modifies a noun inside its noun phrase
MODIFIER_DEPS = frozenset({"compound", "amod", "nmod", "nn", "nummod", "quantmod"})
POSSESSIVE_DEPS = frozenset({"poss"})
DETERMINERS = frozenset({"DT", "PDT", "PRP$"})
#: word classes of an entity's head word, by PTB tag
WORD_CLASSES = {"NNP": "proper", "NNPS": "proper", "NN": "noun", "NNS": "noun", "JJ": "adjective",
                "JJR": "adjective", "JJS": "adjective", "CD": "number"}
#: calendar names, a word class of their own: a weekday and a month take other prepositions (*on Friday*,
#: *in January*)
CALENDAR = {**dict.fromkeys(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
                            "weekday"),
            **dict.fromkeys(("january", "february", "march", "april", "may", "june", "july", "august",
                             "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun",
                             "jul", "aug", "sep", "sept", "oct", "nov", "dec"), "month")}
YEAR_RE = re.compile(r"^(1[89]|20)\d\d$")
#: words that join the parts of one name (*Mines and Energy Ministry*, *Bank of England*)
NAME_CONNECTORS = frozenset({"and", "of", "&", "for", "de", "-"})
#: the word classes of the argument entities the whole-phrase shuffle moves: names, nationality adjectives,
#: years, weekdays, months (an entity headed by a common noun, *soybean*, is a system's mistake; counts and
#: ranks trade places into nonsense, *they had 10 in the top two*)
MOVABLE_CLASSES = frozenset({"proper", "adjective", "year", "weekday", "month", "unknown"})


def movable(key: tuple[str, str, str]) -> bool:
    """Whether entities of ``(label, role, word class)`` (:func:`slot_key`) trade places: arguments of a
    movable word class (:data:`MOVABLE_CLASSES`), and modifiers that are adjectives (*French troops*); not
    possessors (*NATO's biography*) nor nouns modifying nouns (*FBI agents* -> *TWA agents*)."""
    _, role, word_class = key
    if role == "possessive":
        return False
    if role == "modifier":
        return word_class in ("adjective", "unknown")
    return word_class in MOVABLE_CLASSES


def whole_phrase(source: TinSource, entity: Entity) -> bool:
    """Whether ``entity`` is a whole phrase of ``source``: it cuts no name - no proper noun right before or
    after it, nor one joined to it by a connector (:data:`NAME_CONNECTORS`) that lies outside every predicted
    entity (*Energy Ministry* of *Mines and Energy Ministry*; *France* of *France and Canada* is whole) - and
    its span is a constituent of the tree (any phrase, or a one-word preterminal) or a run of proper nouns.
    Without tags nothing can be told: with a tree the constituent test alone decides, without one every
    entity counts as whole."""
    span = (entity.start, entity.end)
    tags = source.tags
    if tags is not None:
        n = len(tags)
        before = entity.start > 0 and tags[entity.start - 1] in PROPER
        after = entity.end < n and tags[entity.end] in PROPER
        if before or after:
            return False

        def orphan_name(j: int) -> bool:
            return 0 <= j < n and tags[j] in PROPER and not any(e.start <= j < e.end for e in source.entities)

        words = source.tokens
        if entity.start > 1 and words[entity.start - 1].lower() in NAME_CONNECTORS and orphan_name(entity.start - 2):
            return False
        if entity.end + 1 < n and words[entity.end].lower() in NAME_CONNECTORS and orphan_name(entity.end + 1):
            return False
        if entity.end - entity.start == 1:
            return True  # one word: a preterminal of any tree
    if source.tree is not None:
        spans = {(s, e) for _, s, e in source.tree.constituents(include_preterminals=True)}
        if span in spans:
            return True
    if tags is None:
        return source.tree is None
    return all(t in PROPER for t in tags[entity.start:entity.end])


def head_of(source: TinSource, entity: Entity) -> int | None:
    """The entity's head word: the last of its words whose head lies outside it (``None`` without
    dependencies)."""
    if source.heads is None:
        return None
    inside = range(entity.start, entity.end)
    outer = [i for i in inside if source.heads[i] not in inside]
    return outer[-1] if outer else entity.end - 1


def slot_key(source: TinSource, entity: Entity) -> tuple[str, str, str]:
    """``(label, role, word class)``: entities trade places only with entities of the same key. ``role``:
    ``possessive`` (followed by ``'s`` or a ``poss`` dependent), ``modifier`` (modifies a noun inside its
    phrase), ``argument`` (anything else; ``determined argument`` when it starts with a determiner or
    follows one, *the United Nations*) or ``unknown`` (no dependencies); ``word class``: of the head word's tag
    (:data:`WORD_CLASSES`, else ``other``; ``unknown`` without tags), a weekday or a month for those names
    (:data:`CALENDAR`)."""
    h = head_of(source, entity)
    if h is None or source.deps is None:
        role = "unknown"
    else:
        dep = source.deps[h]
        following = source.tokens[entity.end].lower() if entity.end < len(source.tokens) else ""
        if dep in POSSESSIVE_DEPS or following in ("'s", "'"):
            role = "possessive"
        elif dep in MODIFIER_DEPS:
            role = "modifier"
        elif source.tags is not None and (source.tags[entity.start] in DETERMINERS or (
                entity.start > 0 and source.tags[entity.start - 1] in DETERMINERS)):
            role = "determined argument"
        else:
            role = "argument"
    if source.tags is None:
        word_class = "unknown"
    else:
        head = entity.end - 1 if h is None else h
        word_class = WORD_CLASSES.get(source.tags[head], "other")
        word_class = CALENDAR.get(source.tokens[head].lower().rstrip("."), word_class)
        if word_class == "number" and YEAR_RE.match(source.tokens[head]):
            word_class = "year"
    return entity.label, role, word_class


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

    def groups(self, source: TinSource) -> list[tuple[tuple[str, ...], list[Entity]]]:
        """The groups of entities that trade places, each with its key, in key order: with
        ``whole_phrases`` the whole-phrase entities that may move (:func:`movable`) by :func:`slot_key`, else
        every entity by label. A group with an entity that
        overlaps another predicted entity (nested predictions) is left out."""
        ents = sorted(source.entities)
        by_key: dict[tuple[str, ...], list[Entity]] = {}
        for e in ents:
            if not self.whole_phrases:
                by_key.setdefault((e.label,), []).append(e)
            elif whole_phrase(source, e):
                key = slot_key(source, e)
                if movable(key):
                    by_key.setdefault(key, []).append(e)
        out: list[tuple[tuple[str, ...], list[Entity]]] = []
        for group in sorted(by_key):
            slots = by_key[group]
            if len(slots) < 2:
                continue
            if any(overlaps((a.start, a.end), (b.start, b.end)) for a in slots for b in ents if a != b):
                continue
            out.append((group, slots))
        return out

    def mutants_of(self, source: TinSource) -> list[Mutant]:
        out: list[Mutant] = []
        seen = {tuple(source.tokens)}
        for key, slots in self.groups(source):
            label = key[0]
            perms = permutations_of(len(slots), max_exhaustive=self.max_exhaustive, samples=self.samples,
                                    rng=self._rng(source.id, "/".join(key)))
            for perm in perms:
                words, order = apply_permutation(source.tokens, slots, perm)
                if tuple(words) in seen:
                    continue
                seen.add(tuple(words))
                out.append(Mutant(
                    seed_id=source.id, transformation=self.name, relation=self.relation,
                    source=list(source.tokens), tokens=words,
                    alignment=TokenMap.from_order(len(source.tokens), order),
                    params={"label": label, "group": list(key), "permutation": list(perm),
                            "entities": [[e.start, e.end] for e in slots]},
                ))
        return out

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        return [m for s in sources for m in self.mutants_of(s)]
