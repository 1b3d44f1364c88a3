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
(``params["group"]``: label, role, word class, referent kind).

**Same kind of referent** (``whole_phrases``): the system's label is no proof of what an entity is (a system
that types a person and three breweries alike moves the person into the breweries' places: *Zywiec said Van
Boxmeer had its eye on Okocim*, *Zywiec's potential production of Van Boxmeer*). Two things in the sentence
say what the slot needs, and entities trade places only when they agree on both: the pronouns that refer back
to the entity (:func:`referent_kind`: *its*, *itself*, *which* take a thing; *his*, *her*, *himself*,
*herself*, *who*, *whom* a person; none: a kind of its own), and whether it is the complement of a common noun
(role ``complement``, :func:`noun_complement`: *production of Heineken*, where a noun chooses its argument).

**Names kept apart** (always): a permutation must keep which mentions share a name (:func:`keeps_names_apart`):
no moved name lands where the same name already stands (*Zywiec's potential production of Zywiec*, a company
producing itself), and no mention of a repeated name is moved away from the others.

**At most ``max_per_source`` mutants a source** (null: all): a sentence with n entities in one group gives
n! - 1 shuffles (23 at four), each one the others' near copy; beyond the cap a seeded draw
(:func:`keep_at_most`) keeps that many, in their order, so that one long sentence cannot fill the suite.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import Field

from lingtest.data.model import Entity, stable_id
from lingtest.tin.mutant import MR2, Mutant, TinSource
from lingtest.tin.spans import TokenMap, overlaps
from lingtest.tin.transformations.base import TransformationConfig

T = TypeVar("T")


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
#: possessive and reflexive pronouns by the kind of referent they take (*her*: only as a possessive, PTB
#: ``PRP$``). *their* and *it* are left out: *their* refers to persons and organisations alike (*Heineken said
#: their ...*), *it* is as often no reference at all (*it is likely that*)
POSSESSIVE_PRONOUNS = {"its": "thing", "itself": "thing", "his": "person", "her": "person", "himself": "person",
                       "herself": "person"}
#: relative pronouns by the kind of referent they take (*that* and *whose* take both)
RELATIVE_PRONOUNS = {"which": "thing", "who": "person", "whom": "person"}
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
COMMON_NOUNS = frozenset({"NN", "NNS"})


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


def clause_subject(source: TinSource, i: int) -> int | None:
    """The word that a possessive or reflexive pronoun at ``i`` refers to: the subject (``nsubj``,
    ``nsubjpass``) of the nearest ancestor in the dependency tree whose subject does not contain the pronoun
    (*Zywiec had its eye*: *Zywiec*; *Zywiec said its profit rose*: *its profit* is the subject of *rose*, so
    *Zywiec*, the subject of *said*). ``None`` without dependencies or without such a subject."""
    heads, deps = source.heads, source.deps
    if heads is None or deps is None:
        return None
    path = {i}
    a = heads[i]
    while 0 <= a and a not in path:
        for c, (h, d) in enumerate(zip(heads, deps, strict=True)):
            if h == a and d in SUBJECT_DEPS and c not in path:
                return c
        path.add(a)
        a = heads[a]
    return None


def referent_kind(source: TinSource, entity: Entity) -> str:
    """The kind of referent the pronouns that refer back to ``entity`` take: ``thing``, ``person``, both
    (``person+thing``) or ``none``. A relative pronoun right after the entity (a comma between them allowed:
    *Okocim, which*) refers to it, as does a possessive or reflexive pronoun whose clause has the entity's
    word as its subject (:func:`clause_subject`); pronoun kinds: :data:`RELATIVE_PRONOUNS`,
    :data:`POSSESSIVE_PRONOUNS`. Without dependencies only the relative pronoun is seen."""
    tokens = source.tokens
    kinds: set[str] = set()
    j = entity.end + 1 if entity.end < len(tokens) and tokens[entity.end] == "," else entity.end
    if j < len(tokens) and tokens[j].lower() in RELATIVE_PRONOUNS:
        kinds.add(RELATIVE_PRONOUNS[tokens[j].lower()])
    for i, word in enumerate(tokens):
        kind = POSSESSIVE_PRONOUNS.get(word.lower())
        if kind is None or (word.lower() == "her" and (source.tags is None or source.tags[i] != "PRP$")):
            continue
        subject = clause_subject(source, i)
        if subject is not None and entity.start <= subject < entity.end:
            kinds.add(kind)
    return "+".join(sorted(kinds)) or "none"


def noun_complement(source: TinSource, h: int) -> bool:
    """Whether word ``h`` is the object of *of* attached to a common noun (*production of Heineken*, *shares
    of Zywiec*): the noun chooses what may stand there, so such an entity trades places only with another
    (a person is not produced). Needs dependencies and tags."""
    if source.heads is None or source.deps is None or source.tags is None:
        return False
    of = source.heads[h]
    if source.deps[h] != "pobj" or of < 0 or source.tokens[of].lower() != "of":
        return False
    noun = source.heads[of]
    return noun >= 0 and source.tags[noun] in COMMON_NOUNS


def slot_key(source: TinSource, entity: Entity) -> tuple[str, str, str]:
    """``(label, role, word class)``: entities trade places only with entities of the same key. ``role``:
    ``possessive`` (followed by ``'s`` or a ``poss`` dependent), ``modifier`` (modifies a noun inside its
    phrase), ``complement`` (the object of *of* after a common noun, :func:`noun_complement`), ``argument``
    (anything else; ``determined argument`` / ``determined complement`` when it starts with a determiner or
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
        else:
            role = "complement" if noun_complement(source, h) else "argument"
            if source.tags is not None and (source.tags[entity.start] in DETERMINERS or (
                    entity.start > 0 and source.tags[entity.start - 1] in DETERMINERS)):
                role = f"determined {role}"
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


def occurrences(tokens: Sequence[str], words: tuple[str, ...], outside: Sequence[Entity]) -> int:
    """How many times ``words`` stand in ``tokens`` overlapping none of the spans ``outside``."""
    k = len(words)
    return sum(1 for i in range(len(tokens) - k + 1)
               if tuple(tokens[i:i + k]) == words and not any(overlaps((i, i + k), (e.start, e.end)) for e in outside))


def keeps_names_apart(tokens: Sequence[str], slots: Sequence[Entity], perm: Sequence[int]) -> bool:
    """Whether putting entity ``perm[k]`` into the place of entity ``k`` keeps which mentions share a name:
    any two places - the slots, and every other occurrence of a slot's words in the sentence - hold equal words
    after the shuffle exactly when they did before. Else a name lands where the same name stands already
    (*Zywiec's potential production of Zywiec*: a company producing itself) - and, as the multiset of names is
    kept, that is the same as moving one mention of a repeated name away from the others."""
    before = [tuple(tokens[e.start:e.end]) for e in slots]
    after = [before[p] for p in perm]
    fixed = [w for w in dict.fromkeys(before) for _ in range(occurrences(tokens, w, slots))]
    b, a = before + fixed, after + fixed
    return all((a[i] == a[j]) == (b[i] == b[j]) for i in range(len(b)) for j in range(i + 1, len(b)))


def keep_at_most(items: list[T], cap: int | None, rng: random.Random) -> list[T]:
    """``items`` when there are at most ``cap`` (or ``cap`` is ``None``), else ``cap`` of them drawn with
    ``rng``, in their order."""
    if cap is None or len(items) <= cap:
        return items
    return [items[i] for i in sorted(rng.sample(range(len(items)), cap))]


class EntityShuffleConfig(TransformationConfig):
    """``tin.transformations.shuffle`` (``seed``: ``tin.seed``; ``max_per_source``: null, no cap)."""

    max_exhaustive: int
    samples: int
    whole_phrases: bool
    max_per_source: Annotated[int, Field(ge=1)] | None
    seed: int


class EntityShuffle:
    """Permute the entities of each type; checked with MR2. ``max_exhaustive``: enumerate every
    permutation up to this many entities of a type; ``samples``: seeded permutations otherwise;
    ``max_per_source``: at most this many mutants of one source, a seeded draw (``None``: all)."""

    name: ClassVar[str] = "shuffle"
    label: ClassVar[str] = "Entity shuffle"
    relation: ClassVar[str] = MR2
    Config: ClassVar[type[EntityShuffleConfig]] = EntityShuffleConfig

    @classmethod
    def from_config(cls, config: EntityShuffleConfig, parts: Any) -> EntityShuffle:
        return cls(max_exhaustive=config.max_exhaustive, samples=config.samples, seed=config.seed,
                   whole_phrases=config.whole_phrases, max_per_source=config.max_per_source)

    def __init__(self, *, max_exhaustive: int, samples: int, seed: int, whole_phrases: bool,
                 max_per_source: int | None = None) -> None:
        if max_exhaustive < 1 or samples < 0 or (max_per_source is not None and max_per_source < 1):
            raise ValueError("max_exhaustive must be >= 1, samples >= 0 and max_per_source >= 1 (or None)")
        self.max_exhaustive = max_exhaustive
        self.samples = samples
        self.seed = seed
        self.whole_phrases = whole_phrases
        self.max_per_source = max_per_source

    def _rng(self, source_id: str, label: str) -> random.Random:
        return random.Random(int(stable_id(self.seed, source_id, label), 16))

    def groups(self, source: TinSource) -> list[tuple[tuple[str, ...], list[Entity]]]:
        """The groups of entities that trade places, each with its key, in key order: with
        ``whole_phrases`` the whole-phrase entities that may move (:func:`movable`) by :func:`slot_key` and
        :func:`referent_kind`, else every entity by label. A group with an entity that
        overlaps another predicted entity (nested predictions) is left out."""
        ents = sorted(source.entities)
        by_key: dict[tuple[str, ...], list[Entity]] = {}
        for e in ents:
            if not self.whole_phrases:
                by_key.setdefault((e.label,), []).append(e)
            elif whole_phrase(source, e):
                key = slot_key(source, e)
                if movable(key):
                    by_key.setdefault((*key, referent_kind(source, e)), []).append(e)
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
        """The shuffles of ``source``: group by group, permutation by permutation, less those that give
        words already had or put names together (:func:`keeps_names_apart`), at most ``max_per_source``
        (:func:`keep_at_most`, seeded by the source)."""
        out: list[Mutant] = []
        seen = {tuple(source.tokens)}
        for key, slots in self.groups(source):
            label = key[0]
            perms = permutations_of(len(slots), max_exhaustive=self.max_exhaustive, samples=self.samples,
                                    rng=self._rng(source.id, "/".join(key)))
            for perm in perms:
                words, order = apply_permutation(source.tokens, slots, perm)
                if tuple(words) in seen or not keeps_names_apart(source.tokens, slots, perm):
                    continue
                seen.add(tuple(words))
                out.append(Mutant(
                    seed_id=source.id, transformation=self.name, relation=self.relation,
                    source=list(source.tokens), tokens=words,
                    alignment=TokenMap.from_order(len(source.tokens), order),
                    params={"label": label, "group": list(key), "permutation": list(perm),
                            "entities": [[e.start, e.end] for e in slots]},
                ))
        return keep_at_most(out, self.max_per_source, self._rng(source.id, "max_per_source"))

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        return [m for s in sources for m in self.mutants_of(s)]
