"""Mention attributes for the sieve resolver: number, gender, person, animacy and NER type.

Everything here is derived offline from what a spaCy parse gives (PTB tag, UD morphology, NER
label) plus two small closed-class tables (English pronouns and gendered common nouns) and an
animacy lexicon backed by WordNet (``person.n.01`` / ``animal.n.01`` hyponymy of the most frequent
noun sense). Proper names get their gender from cluster-level pronoun evidence in the resolver,
not from a name list (no name list is available offline).

Attribute values are plain strings; ``UNKNOWN`` is compatible with everything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

UNKNOWN = "UNKNOWN"
# number
SINGULAR, PLURAL = "SINGULAR", "PLURAL"
# gender
MALE, FEMALE, NEUTRAL = "MALE", "FEMALE", "NEUTRAL"
# animacy
ANIMATE, INANIMATE = "ANIMATE", "INANIMATE"


@dataclass(frozen=True, slots=True)
class PronounInfo:
    number: str
    gender: str
    person: int  # 1, 2 or 3
    animacy: str
    reflexive: bool = False
    possessive: bool = False
    demonstrative: bool = False


def _p(number: str, gender: str, person: int, animacy: str, **kw: bool) -> PronounInfo:
    return PronounInfo(number, gender, person, animacy, **kw)


# Closed-class English personal, possessive, reflexive and demonstrative pronouns.
PRONOUNS: dict[str, PronounInfo] = {
    "i": _p(SINGULAR, UNKNOWN, 1, ANIMATE), "me": _p(SINGULAR, UNKNOWN, 1, ANIMATE),
    "my": _p(SINGULAR, UNKNOWN, 1, ANIMATE, possessive=True),
    "mine": _p(SINGULAR, UNKNOWN, 1, ANIMATE, possessive=True),
    "myself": _p(SINGULAR, UNKNOWN, 1, ANIMATE, reflexive=True),
    "we": _p(PLURAL, UNKNOWN, 1, ANIMATE), "us": _p(PLURAL, UNKNOWN, 1, ANIMATE),
    "our": _p(PLURAL, UNKNOWN, 1, ANIMATE, possessive=True),
    "ours": _p(PLURAL, UNKNOWN, 1, ANIMATE, possessive=True),
    "ourselves": _p(PLURAL, UNKNOWN, 1, ANIMATE, reflexive=True),
    "you": _p(UNKNOWN, UNKNOWN, 2, ANIMATE), "your": _p(UNKNOWN, UNKNOWN, 2, ANIMATE, possessive=True),
    "yours": _p(UNKNOWN, UNKNOWN, 2, ANIMATE, possessive=True),
    "yourself": _p(SINGULAR, UNKNOWN, 2, ANIMATE, reflexive=True),
    "yourselves": _p(PLURAL, UNKNOWN, 2, ANIMATE, reflexive=True),
    "he": _p(SINGULAR, MALE, 3, ANIMATE), "him": _p(SINGULAR, MALE, 3, ANIMATE),
    "his": _p(SINGULAR, MALE, 3, ANIMATE, possessive=True),
    "himself": _p(SINGULAR, MALE, 3, ANIMATE, reflexive=True),
    "she": _p(SINGULAR, FEMALE, 3, ANIMATE), "her": _p(SINGULAR, FEMALE, 3, ANIMATE),
    "hers": _p(SINGULAR, FEMALE, 3, ANIMATE, possessive=True),
    "herself": _p(SINGULAR, FEMALE, 3, ANIMATE, reflexive=True),
    "it": _p(SINGULAR, NEUTRAL, 3, INANIMATE), "its": _p(SINGULAR, NEUTRAL, 3, INANIMATE, possessive=True),
    "itself": _p(SINGULAR, NEUTRAL, 3, INANIMATE, reflexive=True),
    "they": _p(PLURAL, UNKNOWN, 3, UNKNOWN), "them": _p(PLURAL, UNKNOWN, 3, UNKNOWN),
    "their": _p(PLURAL, UNKNOWN, 3, UNKNOWN, possessive=True),
    "theirs": _p(PLURAL, UNKNOWN, 3, UNKNOWN, possessive=True),
    "themselves": _p(PLURAL, UNKNOWN, 3, UNKNOWN, reflexive=True),
    "this": _p(SINGULAR, NEUTRAL, 3, INANIMATE, demonstrative=True),
    "that": _p(SINGULAR, NEUTRAL, 3, INANIMATE, demonstrative=True),
    "these": _p(PLURAL, UNKNOWN, 3, INANIMATE, demonstrative=True),
    "those": _p(PLURAL, UNKNOWN, 3, UNKNOWN, demonstrative=True),
}

RELATIVE_PRONOUNS = frozenset({"who", "whom", "whose", "which", "that"})

# Indefinite / quantifier words that head non-referring NPs ("nothing", "everyone"); never mentions.
NON_REFERRING_HEADS = frozenset({
    "nothing", "something", "anything", "everything", "nobody", "somebody", "anybody", "everybody",
    "noone", "someone", "anyone", "everyone", "none", "one", "ones", "each", "whatever", "whoever",
    "etc", "etc.", "lot", "lots", "bit", "all", "both",
    "either", "neither", "other", "others", "another",
})

# Gendered common nouns (closed list: kinship and role terms). Used for nominal mentions only.
_MALE_NOUNS = (
    "man men boy boys father fathers dad son sons brother brothers husband husbands king kings "
    "prince princes uncle uncles nephew nephews grandfather grandson gentleman gentlemen sir "
    "mr. mr lord lords monk monks priest actor actors waiter emperor duke count boyfriend "
    "stepfather godfather fiance widower groom bridegroom masculine guy guys"
)
_FEMALE_NOUNS = (
    "woman women girl girls mother mothers mom mum daughter daughters sister sisters wife wives "
    "queen queens princess princesses aunt aunts niece nieces grandmother granddaughter lady "
    "ladies madam mrs. mrs ms. ms miss nun nuns actress actresses waitress empress duchess "
    "countess girlfriend stepmother godmother fiancee widow bride feminine"
)
GENDERED_NOUNS: dict[str, str] = {w: MALE for w in _MALE_NOUNS.split()}
GENDERED_NOUNS.update({w: FEMALE for w in _FEMALE_NOUNS.split()})

# spaCy (OntoNotes) and CoNLL-style NER labels, by what they say about the mention.
NUMERIC_NER = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})
ANIMATE_NER = frozenset({"PERSON", "PER"})
INANIMATE_NER = frozenset({
    "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "MISC",
})
LOCATION_NER = frozenset({"GPE", "LOC", "FAC"})


def normalise_ner(label: str | None) -> str | None:
    """Map CoNLL-style short labels to the OntoNotes ones spaCy uses (``PER`` -> ``PERSON``)."""
    if not label or label == "O":
        return None
    return {"PER": "PERSON"}.get(label, label)


def pronoun_info(word: str) -> PronounInfo | None:
    return PRONOUNS.get(word.lower())


def number_from_token(tag: str | None, morph: str | None, word: str) -> str:
    """Grammatical number of a nominal head from its PTB tag or UD ``Number`` feature."""
    pi = pronoun_info(word)
    if pi is not None:
        return pi.number
    if morph:
        for feat in morph.split("|"):
            if feat == "Number=Sing":
                return SINGULAR
            if feat == "Number=Plur":
                return PLURAL
    if tag in ("NNS", "NNPS"):
        return PLURAL
    if tag in ("NN", "NNP"):
        return SINGULAR
    return UNKNOWN


def animacy_from_ner(ner: str | None) -> str:
    if ner in ANIMATE_NER:
        return ANIMATE
    if ner in INANIMATE_NER:
        return INANIMATE
    return UNKNOWN


# --------------------------------------------------------------------------------------------
# WordNet animacy
# --------------------------------------------------------------------------------------------
class AnimacyLexicon:
    """Animacy of a common noun from WordNet: animate iff the noun's most frequent sense is a
    hyponym of ``person.n.01``, ``animal.n.01`` or a social group of people (``people.n.01``).

    ``wordnet`` is an NLTK WordNet reader; ``None`` loads lingtest's offline copy lazily via
    :func:`lingtest.resources.wordnet.ensure_wordnet`. ``lookup`` replaces WordNet completely
    (tests, or a custom lexicon): a function from lemma to ``ANIMATE``/``INANIMATE``/``UNKNOWN``.
    """

    ANIMATE_ROOTS = ("person.n.01", "animal.n.01", "people.n.01")

    def __init__(self, wordnet=None, lookup: Callable[[str], str] | None = None, senses: int = 1) -> None:
        self._wn = wordnet
        self._lookup = lookup
        self._senses = senses
        self._cached = lru_cache(maxsize=50_000)(self._compute)

    def _reader(self):
        if self._wn is None:
            from lingtest.resources.wordnet import ensure_wordnet

            self._wn = ensure_wordnet()
        return self._wn

    def _compute(self, lemma: str) -> str:
        if self._lookup is not None:
            return self._lookup(lemma)
        wn = self._reader()
        synsets = wn.synsets(lemma.replace(" ", "_"), pos="n")[: self._senses]
        if not synsets:
            return UNKNOWN
        roots = {wn.synset(r) for r in self.ANIMATE_ROOTS}
        for s in synsets:
            closure = set(s.closure(lambda x: x.hypernyms() + x.instance_hypernyms()))
            closure.add(s)
            if closure & roots:
                return ANIMATE
        return INANIMATE

    def animacy(self, lemma: str) -> str:
        lemma = lemma.lower()
        if not lemma.isalpha():
            return UNKNOWN
        return self._cached(lemma)


def compatible(a: set[str], b: set[str]) -> bool:
    """Cluster-level agreement: two attribute sets agree unless both are known and disjoint."""
    a = a - {UNKNOWN}
    b = b - {UNKNOWN}
    return not a or not b or bool(a & b)
