"""The frame a word fills in its sentence, read off the dependency parse, and whether another word keeps it:
the token-level transformation replaces a verb or adjective only by a word that fits the same frame.

**Verbs.** :func:`verb_pattern` reads what the verb at a position takes from its dependents (spaCy's ClearNLP
labels): a direct object (``dobj``/``obj``/``dative``, or a passive verb: an ``nsubjpass``/``auxpass``
dependent, or a past participle reduced relative, ``acl``), whether that object is a person (a personal
pronoun, a predicted ``PER``/``PERSON`` entity, or a noun whose first WordNet sense is a person, people or a
gathering of them), a finite clause (``ccomp``), an infinitive (``xcomp``, with or without *to*: *helped
lead*) or a gerund (``xcomp``), and a particle (``prt``, or one of the adverbs :data:`PARTICLE_WORDS` right
after the verb, which the parser labels ``advmod``: *fired back*). Each is a requirement on WordNet's verb
frames (``frames.vrb``, the 35 sentence frames; :data:`NP_OBJECT` and the sets beside it); a verb without
object or clausal complement requires an intransitive frame. :func:`frame_refusal` keeps a fill when, for
every requirement the *original* verb's frames meet, the fill's frames meet it too (WordNet lists frames
incompletely: a requirement the original verb itself does not list is not checked). A verb with a particle
keeps it only when WordNet knows the fill with that particle as a phrasal verb (*fired back* -> *rampaged
back* is refused). A fill WordNet does not know as a verb is refused, and so is one that is no WordNet
relative of the original (:func:`relation_refusal`: no shared sense, hypernym, hyponym, sister sense, verb
group or antonym among the first :data:`RELATED_SENSES` senses of each, WordNet's most frequent ones): the
fill proposer's word-vector neighbours include verbs of the same topic that take other arguments (*killed* ->
*stole*, *restricted the options* -> *eluded the options*, *reported six ships* -> *examined six ships*),
which the frames alone let through.

**Adjectives.** :func:`adjective_position` says whether the adjective stands before a noun (attributive,
``amod``) or after a copula (predicative, ``acomp``/``attr``); :func:`adjective_refusal` refuses a fill for an
adjective in neither position (a noun the parser tagged as an adjective, *the men's final*; an ordinal number
may still replace another, *a respectable seventh* -> *eighth*), a fill whose WordNet adjective senses are all
marked for the other position (``(p)``: predicative only, *afraid*; ``(a)``: attributive only, *former*), a
fill or an original WordNet does not know as an adjective (*untraded* -> *undiversified*), and for a
comparative or superlative a fill that is neither a WordNet synonym nor a direct antonym of it (*the longest
wait* -> *the closest wait*; *highest* -> *lowest* is kept).

The WordNet look-ups are passed in (:class:`Lexicon`), so the rules are pure functions of the parse
and a lexicon; :class:`WordNetLexicon` reads NLTK's WordNet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from lingtest.data.model import Entity

#: WordNet verb frames (frames.vrb) with a noun-phrase object after the verb
NP_OBJECT = frozenset({5, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31})
#: ... whose object is a person (*Somebody ----s somebody*, *Something ----s somebody*, *... somebody something*)
PERSON_OBJECT = frozenset({9, 10, 14})
#: frames without an object or clausal complement (*Something ----s*, *Somebody ----s PP*, ...)
NO_OBJECT = frozenset({1, 2, 3, 4, 6, 7, 12, 13, 22, 23, 27})
#: a finite clause (*Somebody ----s that CLAUSE*, *It ----s that CLAUSE*)
CLAUSE = frozenset({26, 34})
#: a to-infinitive (*Somebody ----s to INFINITIVE*, *... somebody to INFINITIVE*, ...)
INFINITIVE = frozenset({24, 25, 28, 29, 32, 35})
#: a gerund (*Somebody ----s VERB-ing*, *... into V-ing something*)
GERUND = frozenset({30, 33})

OBJECT_DEPS = frozenset({"dobj", "obj", "dative", "iobj"})
PASSIVE_DEPS = frozenset({"nsubjpass", "csubjpass", "auxpass"})
PERSON_PRONOUNS = frozenset({"me", "you", "him", "her", "us", "them", "whom", "myself", "yourself", "himself",
                             "herself", "ourselves", "themselves", "everyone", "everybody", "someone",
                             "somebody", "anyone", "anybody", "nobody"})
PERSON_LABELS = frozenset({"PER", "PERSON"})
#: WordNet noun synsets whose hyponyms are people (a noun object under one needs a person frame)
PERSON_SYNSETS = ("person.n.01", "people.n.01", "gathering.n.01")
#: adverbs right after a verb that the parser may label ``advmod`` where they are its particle (*fired back*)
PARTICLE_WORDS = frozenset({"back", "out", "up", "off", "down", "away", "over", "around", "aside", "ahead",
                            "forward", "through"})
ATTRIBUTIVE_DEPS = frozenset({"amod", "nmod", "compound"})
PREDICATIVE_DEPS = frozenset({"acomp", "attr", "oprd", "xcomp", "ccomp", "conj", "ROOT"})
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
#: verbs whose infinitive complement has no *to* (*let him go*, *made him go*, *saw him go*; *help* takes both);
#: WordNet's frames do not tell (its *allow, let, permit* sense lists *Somebody ----s somebody to INFINITIVE*
#: for all three)
BARE_INFINITIVE_VERBS = frozenset({"let", "make", "have", "see", "hear", "watch", "feel", "bid"})
#: ordinal numbers: one stands for another in any position (*finishing a respectable seventh* -> *eighth*)
ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                      "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                      "eighteenth", "nineteenth", "twentieth"})
#: how many of a word's senses (WordNet orders them by frequency) the relatedness tests look at
RELATED_SENSES = 6
#: how many of a noun's senses give its lexicographer classes (*soldier* and *rebel*: ``noun.person``)
CLASS_SENSES = 3


class Lexicon(Protocol):
    """The WordNet facts the rules read."""

    def verb_frames(self, lemma: str) -> frozenset[int]:
        """The frame numbers of every verb sense of ``lemma`` (``_`` joins a phrasal verb); empty when WordNet
        has no such verb."""
        ...

    def is_person_noun(self, lemma: str) -> bool:
        """Whether the first noun sense of ``lemma`` is a person, people or a gathering of them."""
        ...

    def adjective_markers(self, lemma: str) -> frozenset[str | None] | None:
        """The syntactic markers of every adjective sense of ``lemma`` (``None`` for an unmarked sense);
        ``None`` when WordNet has no such adjective."""
        ...

    def verbs_related(self, a: str, b: str) -> bool:
        """Whether verb lemmas ``a`` and ``b`` share a sense or have senses next to each other in WordNet
        (hypernym, hyponym, sisters under one hypernym, verb group, antonym), among the first
        :data:`RELATED_SENSES` senses of each."""
        ...

    def adjectives_opposed_or_same(self, a: str, b: str) -> bool:
        """Whether adjective lemmas ``a`` and ``b`` share a sense or are direct antonyms in WordNet."""
        ...

    def nouns_related(self, a: str, b: str) -> bool:
        """Whether noun lemmas ``a`` and ``b`` share a sense or have senses next to each other in WordNet
        (hypernym, hyponym, sisters under one hypernym), among the first :data:`RELATED_SENSES` senses of
        each, or share a lexicographer class (``noun.person``, ``noun.artifact``, ...) among their first
        :data:`CLASS_SENSES` senses; never when they are antonyms (*presence* / *absence*)."""
        ...


@dataclass(frozen=True, slots=True)
class VerbPattern:
    """What a verb takes in its sentence: an object (``person_object``: a person), a finite clause, an
    infinitive (``bare``: without *to*), a gerund, a particle (its word, lower-cased)."""

    object: bool = False
    person_object: bool = False
    clause: bool = False
    infinitive: bool = False
    gerund: bool = False
    particle: str | None = None
    bare: bool = False

    def requirements(self) -> list[tuple[str, frozenset[int]]]:
        """``(name, frames)``: a verb keeps the pattern when it has a frame of each set."""
        out: list[tuple[str, frozenset[int]]] = []
        if self.object:
            out.append(("object", NP_OBJECT))
        if self.person_object:
            out.append(("person object", PERSON_OBJECT))
        if self.clause:
            out.append(("clause", CLAUSE))
        if self.infinitive:
            out.append(("infinitive", INFINITIVE))
        if self.gerund:
            out.append(("gerund", GERUND))
        if not (self.object or self.clause or self.infinitive or self.gerund):
            out.append(("no object", NO_OBJECT))
        return out


def children(heads: Sequence[int | None], i: int) -> list[int]:
    """The positions whose head is ``i``, left to right."""
    return [j for j, h in enumerate(heads) if h == i and j != i]


def _in_person_entity(j: int, entities: Sequence[Entity]) -> bool:
    return any(e.start <= j < e.end and e.label in PERSON_LABELS for e in entities)


def verb_pattern(i: int, tokens: Sequence[str], tags: Sequence[str], lemmas: Sequence[str | None],
                 heads: Sequence[int | None], deps: Sequence[str | None], entities: Sequence[Entity],
                 lexicon: Lexicon) -> VerbPattern:
    """The :class:`VerbPattern` of the verb at ``i`` (see the module doc); ``heads``: each token's head
    position (``-1`` or ``None``: the root), ``deps``: its dependency label."""
    obj = person = clause = inf = ger = bare = False
    particle = None
    for j in children(heads, i):
        dep = deps[j] or ""
        if dep in OBJECT_DEPS:
            obj = True
            word = tokens[j].lower()
            lemma = (lemmas[j] or tokens[j]).lower()
            if (word in PERSON_PRONOUNS or _in_person_entity(j, entities)
                    or (tags[j] in ("NN", "NNS") and lexicon.is_person_noun(lemma))):
                person = True
        elif dep in PASSIVE_DEPS:
            obj = True
        elif dep == "ccomp":
            clause = True
        elif dep == "xcomp":
            if tags[j] == "VBG":
                ger = True
            elif tags[j] == "VB" or any(tags[k] == "TO" for k in children(heads, j)):
                inf = True
                bare = not any(tags[k] == "TO" for k in children(heads, j))
        elif dep == "prt" or (dep == "advmod" and j == i + 1 and tokens[j].lower() in PARTICLE_WORDS):
            particle = tokens[j].lower()
    if tags[i] == "VBN" and deps[i] == "acl":  # a reduced relative: *a bomb planted on a plane*
        obj = True
    return VerbPattern(object=obj, person_object=person, clause=clause, infinitive=inf, gerund=ger,
                       particle=particle, bare=bare)


def frame_refusal(original: str, fill: str, pattern: VerbPattern, lexicon: Lexicon) -> str | None:
    """Why verb lemma ``fill`` cannot take the place of verb lemma ``original`` in ``pattern`` (the
    requirement it fails), or ``None`` when it keeps the frame (see the module doc)."""
    if pattern.particle is not None:
        if not lexicon.verb_frames(f"{fill}_{pattern.particle}"):
            return "particle"
    if pattern.infinitive and (fill in BARE_INFINITIVE_VERBS if not pattern.bare
                               else fill not in BARE_INFINITIVE_VERBS | {"help"}):
        return "infinitive"  # *allowed Japan to come* -> *let Japan to come*; *helped lead* -> *tried lead*
    theirs = lexicon.verb_frames(fill)
    if not theirs:
        return "unknown verb"
    ours = lexicon.verb_frames(original)
    for name, frames in pattern.requirements():
        if ours and not ours & frames:
            continue  # WordNet does not list the original verb with it either: nothing to compare
        if not theirs & frames:
            return name
    return None


def relation_refusal(original: str, fill: str, lexicon: Lexicon, particle: str | None = None) -> str | None:
    """``"unrelated verb"`` when verb lemma ``fill`` is no WordNet relative of verb lemma ``original``
    (:meth:`Lexicon.verbs_related`), else ``None``. With a ``particle`` that WordNet knows with the original
    (*break out*), the two phrasal verbs are compared (*break out* / *leave out* are not related)."""
    if particle is not None and lexicon.verb_frames(f"{original}_{particle}"):
        original, fill = f"{original}_{particle}", f"{fill}_{particle}"
    return None if lexicon.verbs_related(original, fill) else "unrelated verb"


def adjective_position(i: int, tags: Sequence[str], heads: Sequence[int | None],
                       deps: Sequence[str | None]) -> str:
    """``attributive`` (the adjective modifies a noun), ``predicative`` (after a copula, or heading its
    clause) or ``other``."""
    dep = deps[i] or ""
    h = heads[i]
    if dep in ATTRIBUTIVE_DEPS and h is not None and 0 <= h < len(tags) and (
            tags[h] in NOUN_TAGS or (dep == "amod" and tags[h].startswith("JJ"))):
        return "attributive"  # also of an adjective used as a noun: *a respectable seventh* (not *top 10*)
    if dep in PREDICATIVE_DEPS:
        return "predicative"
    return "other"


def adjective_refusal(original: str, fill: str, position: str, tag: str, lexicon: Lexicon) -> str | None:
    """Why adjective lemma ``fill`` cannot replace adjective lemma ``original`` (tagged ``tag``) in ``position``
    (:func:`adjective_position`), or ``None``: neither before a noun nor after a copula (the parser's
    adjective heads a noun phrase, *the men's final*) unless both are ordinal numbers (:data:`ORDINALS`),
    either word unknown to WordNet as an adjective, a position the fill's senses are all marked against, or,
    for a comparative or superlative (``JJR``/``JJS``), a fill that is neither a synonym nor a direct antonym
    (*the longest wait* -> *the closest wait*: degree words of other scales)."""
    if position == "other" and not (original in ORDINALS and fill in ORDINALS):
        return "nominal adjective"
    markers = lexicon.adjective_markers(fill)
    if markers is None or lexicon.adjective_markers(original) is None:
        return "unknown adjective"
    if tag in ("JJR", "JJS") and not lexicon.adjectives_opposed_or_same(original, fill):
        return "other scale"
    if position == "attributive" and markers <= {"p"}:
        return "predicative only"
    if position == "predicative" and markers <= {"a"}:
        return "attributive only"
    return None


class WordNetLexicon:
    """:class:`Lexicon` over NLTK's WordNet (``wn``: a reader; default:
    :func:`lingtest.resources.candidates.wordnet.load_wordnet` on first use). Look-ups are memoised."""

    def __init__(self, wn: Any = None) -> None:
        self._wn = wn
        self.verb_frames = lru_cache(maxsize=None)(self._verb_frames)  # type: ignore[method-assign]
        self.is_person_noun = lru_cache(maxsize=None)(self._is_person_noun)  # type: ignore[method-assign]
        self.adjective_markers = lru_cache(maxsize=None)(self._adjective_markers)  # type: ignore[method-assign]
        self.verbs_related = lru_cache(maxsize=None)(self._verbs_related)  # type: ignore[method-assign]
        self.adjectives_opposed_or_same = lru_cache(maxsize=None)(  # type: ignore[method-assign]
            self._adjectives_opposed_or_same)
        self.nouns_related = lru_cache(maxsize=None)(self._nouns_related)  # type: ignore[method-assign]

    @property
    def wn(self) -> Any:
        if self._wn is None:
            from lingtest.resources.candidates.wordnet import load_wordnet

            self._wn = load_wordnet()
        return self._wn

    def _verb_frames(self, lemma: str) -> frozenset[int]:
        key = lemma.lower().replace(" ", "_")
        out: set[int] = set()
        for s in self.wn.synsets(key, pos="v"):
            for lem in s.lemmas():
                if lem.name().lower() == key:
                    out.update(lem.frame_ids())
        return frozenset(out)

    def _is_person_noun(self, lemma: str) -> bool:
        senses = self.wn.synsets(lemma.lower(), pos="n")
        if not senses:
            return False
        targets = {self.wn.synset(name) for name in PERSON_SYNSETS}
        first = senses[0]
        return first in targets or any(t in targets for path in first.hypernym_paths() for t in path)

    def _adjective_markers(self, lemma: str) -> frozenset[str | None] | None:
        key = lemma.lower()
        markers: set[str | None] = set()
        for s in self.wn.synsets(key, pos="a"):
            for lem in s.lemmas():
                if lem.name().lower() == key:
                    m = lem.syntactic_marker()
                    markers.add(m.strip("()") if m else None)
        return frozenset(markers) if markers else None

    def _verbs_related(self, a: str, b: str) -> bool:
        return self._related(a, b, "v")

    def _nouns_related(self, a: str, b: str) -> bool:
        ours = self.wn.synsets(a.lower(), pos="n")
        theirs = self.wn.synsets(b.lower(), pos="n")
        if any(ant.synset() in theirs for x in ours for lem in x.lemmas() for ant in lem.antonyms()):
            return False
        classes = {x.lexname() for x in ours[:CLASS_SENSES]} & {x.lexname() for x in theirs[:CLASS_SENSES]}
        return bool(classes) or self._related(a, b, "n")

    def _related(self, a: str, b: str, pos: str) -> bool:
        """Shared sense, hypernym, hyponym, sister, verb group or antonym among the first senses."""
        ours = set(self.wn.synsets(a.lower(), pos=pos)[:RELATED_SENSES])
        theirs = set(self.wn.synsets(b.lower(), pos=pos)[:RELATED_SENSES])
        if not ours or not theirs:
            return False
        if ours & theirs:
            return True
        near: set[Any] = set()
        for s in ours:
            uppers = s.hypernyms() + s.instance_hypernyms()
            near.update(uppers, s.hyponyms(), s.verb_groups())
            for h in uppers:
                near.update(h.hyponyms())
            if pos == "v":
                for lem in s.lemmas():
                    near.update(x.synset() for x in lem.antonyms())
        return bool(near & theirs)

    def _adjectives_opposed_or_same(self, a: str, b: str) -> bool:
        ours = [x for x in self.wn.synsets(a.lower()) if x.pos() in ("a", "s")]
        theirs = {x for x in self.wn.synsets(b.lower()) if x.pos() in ("a", "s")}
        if set(ours) & theirs:
            return True
        return any(ant.synset() in theirs for x in ours for lem in x.lemmas() if lem.name().lower() == a.lower()
                   for ant in lem.antonyms())
