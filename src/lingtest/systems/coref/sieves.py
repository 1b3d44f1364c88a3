"""The sieves of the deterministic multi-pass resolver (Raghunathan et al. 2010; Lee et al. 2013).

Each sieve is a small pure predicate ``sieve(anaphor, antecedent, state, pd) -> bool`` that says
whether the anaphor's cluster may be merged into the antecedent's cluster. ``state`` is the
:class:`ClusterState` built so far (cluster-level features: entity-level agreement and head/word
sets); the resolver applies sieves in order of decreasing precision and merges on the first
candidate (in salience order) a sieve accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lingtest.systems.coref import features as F
from lingtest.systems.coref.mentions import LIST, NOMINAL, PRONOMINAL, PROPER, MentionCand, ParsedDoc

_STOP_WORDS = frozenset(
    "the a an this that these those of in on at to for with by from and or 's ' , . - -- `` '' \" "
    "his her its their our my your some any all no".split()
)
_LOCATION_MODIFIERS = frozenset({
    "east", "west", "north", "south", "eastern", "western", "northern", "southern", "upper", "lower",
    "northeast", "northwest", "southeast", "southwest", "new", "old", "central",
})
DEMONYMS: dict[str, str] = {
    "american": "america", "americans": "america", "british": "britain", "briton": "britain",
    "english": "england", "french": "france", "german": "germany", "germans": "germany",
    "italian": "italy", "spanish": "spain", "chinese": "china", "japanese": "japan",
    "russian": "russia", "russians": "russia", "indian": "india", "canadian": "canada",
    "mexican": "mexico", "brazilian": "brazil", "australian": "australia", "israeli": "israel",
    "israelis": "israel", "iraqi": "iraq", "iraqis": "iraq", "iranian": "iran", "afghan": "afghanistan",
    "pakistani": "pakistan", "egyptian": "egypt", "syrian": "syria", "turkish": "turkey",
    "greek": "greece", "dutch": "netherlands", "swedish": "sweden", "norwegian": "norway",
    "danish": "denmark", "finnish": "finland", "polish": "poland", "czech": "czech republic",
    "austrian": "austria", "swiss": "switzerland", "irish": "ireland", "scottish": "scotland",
    "welsh": "wales", "korean": "korea", "vietnamese": "vietnam", "thai": "thailand",
    "palestinian": "palestine", "palestinians": "palestine", "european": "europe", "african": "africa",
    "asian": "asia", "taiwanese": "taiwan", "cuban": "cuba", "nigerian": "nigeria", "kenyan": "kenya",
    "ukrainian": "ukraine", "portuguese": "portugal", "belgian": "belgium", "hungarian": "hungary",
    "romanian": "romania", "new zealander": "new zealand", "bangladeshi": "bangladesh",
    "filipino": "philippines", "indonesian": "indonesia", "saudi": "saudi arabia", "lebanese": "lebanon",
    "tongan": "tonga", "californian": "california", "texan": "texas",
}


# --------------------------------------------------------------------------------------------
# cluster state
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class ClusterAttrs:
    members: list[int]
    number: set[str] = field(default_factory=set)
    gender: set[str] = field(default_factory=set)
    animacy: set[str] = field(default_factory=set)
    ner: set[str] = field(default_factory=set)
    person: set[int] = field(default_factory=set)
    heads: set[str] = field(default_factory=set)  # head words of non-pronominal mentions
    words: set[str] = field(default_factory=set)  # non-stop words of non-pronominal mentions

    @classmethod
    def of(cls, m: MentionCand) -> ClusterAttrs:
        c = cls(members=[m.idx], number={m.number}, gender={m.gender}, animacy={m.animacy},
                ner={m.ner} if m.ner else set(), person={m.person})
        if m.kind != PRONOMINAL:
            c.heads.add(m.head_word)
            c.words.update(w.lower() for w in m.words if w.lower() not in _STOP_WORDS)
        return c

    def absorb(self, o: ClusterAttrs) -> None:
        self.members.extend(o.members)
        self.members.sort()
        for a in ("number", "gender", "animacy", "ner", "person", "heads", "words"):
            getattr(self, a).update(getattr(o, a))


class ClusterState:
    """Clusters under construction: mention index -> cluster id, with cluster-level attributes."""

    def __init__(self, mentions: Sequence[MentionCand]) -> None:
        self.mentions = list(mentions)
        self.cluster_of = list(range(len(mentions)))
        self.clusters: dict[int, ClusterAttrs] = {m.idx: ClusterAttrs.of(m) for m in mentions}

    def cluster(self, m: MentionCand) -> ClusterAttrs:
        return self.clusters[self.cluster_of[m.idx]]

    def same(self, a: MentionCand, b: MentionCand) -> bool:
        return self.cluster_of[a.idx] == self.cluster_of[b.idx]

    def is_first(self, m: MentionCand) -> bool:
        return self.cluster(m).members[0] == m.idx

    def merge(self, anaphor: MentionCand, antecedent: MentionCand) -> None:
        keep, drop = self.cluster_of[antecedent.idx], self.cluster_of[anaphor.idx]
        if keep == drop:
            return
        if drop < keep:
            keep, drop = drop, keep
        gone = self.clusters.pop(drop)
        for i in gone.members:
            self.cluster_of[i] = keep
        self.clusters[keep].absorb(gone)

    def result(self) -> list[list[MentionCand]]:
        return [[self.mentions[i] for i in c.members] for _, c in sorted(self.clusters.items())]


Sieve = Callable[[MentionCand, MentionCand, ClusterState, ParsedDoc], bool]


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def attributes_agree(m: MentionCand, a: MentionCand, state: ClusterState) -> bool:
    """Entity-level agreement of the two clusters in number, gender, animacy, person and NER."""
    cm, ca = state.cluster(m), state.cluster(a)
    if not (F.compatible(cm.number, ca.number) and F.compatible(cm.gender, ca.gender)
            and F.compatible(cm.animacy, ca.animacy)):
        return False
    if cm.ner and ca.ner and not (cm.ner & ca.ner):
        return False
    return True


def _nominal(m: MentionCand) -> bool:
    return m.kind in (NOMINAL, PROPER)


def relaxed_text(m: MentionCand, pd: ParsedDoc) -> str:
    """The mention's text up to and including its head (post-modifiers dropped)."""
    if m._relaxed is None:
        end = min(m.end, m.head + 1)
        words = [w.lower() for w in pd.words[m.start:end]]
        while words and words[-1] in ("'s", "'", "’s", "’"):
            words.pop()
        m._relaxed = " ".join(words)
    return m._relaxed


def _numbers(m: MentionCand, pd: ParsedDoc) -> set[str]:
    return {pd.lower[i] for i in range(m.start, m.end) if pd.tags[i] == "CD"}


def _location_modifiers(m: MentionCand) -> set[str]:
    return {w.lower() for w in m.words} & _LOCATION_MODIFIERS


# --------------------------------------------------------------------------------------------
# pass 1: speaker / discourse (first and second person)
# --------------------------------------------------------------------------------------------
def same_person_pronoun(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """First/second-person pronouns corefer with the same person and number (no speaker
    annotation: one speaker and one addressee per document is assumed)."""
    if m.pronoun is None or a.pronoun is None or m.person == 3 or m.pronoun.demonstrative:
        return False
    if m.person != a.person:
        return False
    return F.compatible({m.number}, {a.number})


# --------------------------------------------------------------------------------------------
# passes 2-3: string match
# --------------------------------------------------------------------------------------------
def exact_string_match(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Whole extents match, case-insensitively (possessive ``'s`` ignored); no pronouns, no bare
    (generic) common nouns."""
    if not (_nominal(m) and _nominal(a)) or m.kind == LIST or a.kind == LIST or m.generic:
        return False
    return m.text == a.text and bool(m.text)


def relaxed_string_match(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Texts match after dropping everything after the head (``the president of the US`` /
    ``the president``)."""
    if not (_nominal(m) and _nominal(a)) or m.kind == LIST or a.kind == LIST or m.generic:
        return False
    rm, ra = relaxed_text(m, pd), relaxed_text(a, pd)
    return bool(rm) and rm == ra and rm not in ("the", "a")


# --------------------------------------------------------------------------------------------
# pass 4: precise constructs
# --------------------------------------------------------------------------------------------
def appositive(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """``[Bill Gates], [the chairman of Microsoft]``: m's head is an ``appos`` dependent of a's."""
    if m.kind in (PRONOMINAL, LIST) or a.kind in (PRONOMINAL, LIST):
        return False
    pair = (pd.deps[m.head] == "appos" and pd.heads[m.head] == a.head) or (
        pd.deps[a.head] == "appos" and pd.heads[a.head] == m.head)
    return pair and attributes_agree(m, a, state)


def _copula_of(pd: ParsedDoc, i: int) -> int | None:
    """The clause head a predicate nominal depends on, if it is a copular predicate."""
    h = pd.heads[i]
    if pd.deps[i] == "attr" and h >= 0 and pd.lemmas[h] == "be":
        return h
    if any(pd.deps[c] == "cop" for c in pd.children[i]):  # UD style: predicate is the head
        return i
    return None


def predicate_nominative(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """``[The Duke] is [the ruler of Monaco]``: the subject and the nominal predicate of a copula."""
    if m.kind in (PRONOMINAL, LIST) or a.kind in (PRONOMINAL, LIST) or m.sent != a.sent:
        return False
    clause = _copula_of(pd, m.head)
    if clause is None:
        return False
    subj = [c for c in pd.children[clause] if pd.deps[c] in ("nsubj", "nsubjpass", "nsubj:pass")]
    return a.head in subj and attributes_agree(m, a, state)


def role_appositive(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """``[actress] [Rebecca Schaeffer]``: an animate common-noun role directly modifying a PERSON name
    (one mention's head is a compound/appos dependent of the other's, adjacent)."""
    for role, name in ((m, a), (a, m)):
        if (role.kind == NOMINAL and name.kind == PROPER and name.ner == "PERSON"
                and role.animacy == F.ANIMATE and pd.heads[role.head] == name.head
                and pd.deps[role.head] in ("compound", "appos", "nn") and role.end <= name.start + 1
                and role.sent == name.sent):
            return F.compatible(state.cluster(m).gender, state.cluster(a).gender)
    return False


def relative_pronoun(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """``[the man] [who] ...``: a relative pronoun in a relative clause attached to a's head."""
    if not m.relative:
        return False
    clause = pd.heads[m.head]
    while clause >= 0 and pd.deps[clause] not in ("relcl", "acl:relcl"):
        clause = pd.heads[clause]
    return clause >= 0 and pd.heads[clause] == a.head


def acronym(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """One proper mention is the acronym of the other (``NASA`` / ``National Aeronautics and
    Space Administration``): the upper-case letters of the long form spell the short one."""
    if m.kind != PROPER or a.kind != PROPER:
        return False
    for short, long in ((m, a), (a, m)):
        if len(short.words) == 1 and short.words[0].isupper() and len(short.words[0]) > 1 and len(long.words) > 1:
            letters = "".join(ch for w in long.words for ch in w if ch.isupper())
            if letters == short.words[0].replace(".", ""):
                return True
    return False


def demonym(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """A demonym and its place (``Americans`` / ``America``), from a small offline table."""
    if m.kind != PROPER or a.kind != PROPER:
        return False
    tm, ta = m.text.removeprefix("the "), a.text.removeprefix("the ")
    return DEMONYMS.get(tm) == ta or DEMONYMS.get(ta) == tm


# --------------------------------------------------------------------------------------------
# passes 5-9: head match
# --------------------------------------------------------------------------------------------
def _head_cluster_match(m: MentionCand, a: MentionCand, state: ClusterState) -> bool:
    return m.head_word in state.cluster(a).heads


def _word_inclusion(m: MentionCand, a: MentionCand, state: ClusterState) -> bool:
    """All non-stop words of m's cluster (but m's head) appear in a's cluster."""
    words = state.cluster(m).words - {m.head_word}
    return words <= state.cluster(a).words


def _compatible_modifiers(m: MentionCand, a: MentionCand) -> bool:
    return m.modifiers <= a.modifiers


def _head_match_base(m: MentionCand, a: MentionCand) -> bool:
    return _nominal(m) and _nominal(a) and not m.indefinite and not m.generic


def strict_head_match_a(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Cluster head match + word inclusion + compatible modifiers only."""
    return (_head_match_base(m, a) and _head_cluster_match(m, a, state) and _word_inclusion(m, a, state)
            and _compatible_modifiers(m, a) and attributes_agree(m, a, state))


def strict_head_match_b(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Cluster head match + word inclusion (modifiers may differ)."""
    return (_head_match_base(m, a) and _head_cluster_match(m, a, state) and _word_inclusion(m, a, state)
            and attributes_agree(m, a, state))


def strict_head_match_c(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Cluster head match + compatible modifiers (no word inclusion)."""
    return (_head_match_base(m, a) and _head_cluster_match(m, a, state) and _compatible_modifiers(m, a)
            and attributes_agree(m, a, state))


def proper_head_match(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """Two proper names with the same head word, no location-modifier or number mismatch
    (``Bill Clinton`` / ``Clinton``; not ``North Carolina`` / ``South Carolina``)."""
    if m.kind != PROPER or a.kind != PROPER or m.head_word != a.head_word:
        return False
    if _location_modifiers(m) != _location_modifiers(a) and _location_modifiers(m) and _location_modifiers(a):
        return False
    nm, na = _numbers(m, pd), _numbers(a, pd)
    if nm and na and nm != na:
        return False
    return attributes_agree(m, a, state)


def relaxed_head_match(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """m's head appears anywhere in a's cluster, words included, and both are named entities of
    the same type (``Sanders`` / ``Sen. Bernie Sanders``)."""
    if not _head_match_base(m, a) or m.ner is None or a.ner is None or m.ner != a.ner:
        return False
    return (m.head_word in state.cluster(a).words and _word_inclusion(m, a, state)
            and attributes_agree(m, a, state))


# --------------------------------------------------------------------------------------------
# pass 10: pronouns
# --------------------------------------------------------------------------------------------
def _coargument(m: MentionCand, a: MentionCand, pd: ParsedDoc) -> bool:
    """Both are core arguments of the same predicate (binding principle B: *John saw him*)."""
    core = {"nsubj", "nsubjpass", "nsubj:pass", "dobj", "obj", "iobj", "dative"}
    return (pd.deps[m.head] in core and pd.deps[a.head] in core and pd.heads[m.head] == pd.heads[a.head]
            and pd.heads[m.head] >= 0)


def pronoun_match(m: MentionCand, a: MentionCand, state: ClusterState, pd: ParsedDoc) -> bool:
    """A third-person personal pronoun and an antecedent cluster that agree in number, gender,
    person, animacy and NER (a ``he``/``she`` needs a PERSON or untyped cluster)."""
    if m.pronoun is None or m.person != 3 or m.pronoun.demonstrative or m.relative:
        return False
    if a.relative or (a.pronoun is not None and a.pronoun.demonstrative):
        return False
    ca = state.cluster(a)
    if a.pronoun is not None and a.person != 3:
        return False
    if m.gender in (F.MALE, F.FEMALE) and ca.ner and "PERSON" not in ca.ner and "NORP" not in ca.ner:
        return False
    if m.head_word in ("it", "its", "itself") and "PERSON" in ca.ner:
        return False
    if not m.pronoun.reflexive and _coargument(m, a, pd):
        return False
    if m.pronoun.reflexive and a.sent != m.sent:
        return False
    return attributes_agree(m, a, state)


# The default pass order (most precise first); names are the config keys.
SIEVES: dict[str, Sieve] = {
    "same_person_pronoun": same_person_pronoun,
    "exact_string_match": exact_string_match,
    "relaxed_string_match": relaxed_string_match,
    "appositive": appositive,
    "predicate_nominative": predicate_nominative,
    "role_appositive": role_appositive,
    "relative_pronoun": relative_pronoun,
    "acronym": acronym,
    "demonym": demonym,
    "strict_head_match_a": strict_head_match_a,
    "strict_head_match_b": strict_head_match_b,
    "strict_head_match_c": strict_head_match_c,
    "proper_head_match": proper_head_match,
    "relaxed_head_match": relaxed_head_match,
    "pronoun_match": pronoun_match,
}
# sieves whose anaphor is a construct OntoNotes does not annotate as coreferent (removed on output
# when ``remove_constructs``): the appositive, the predicate nominal, the relative pronoun.
# Cheap pre-conditions per sieve, used by the resolver to skip hopeless work (the sieves check them
# again): which anaphors a sieve can accept, and which kind of antecedent ("nominal": proper or
# common noun phrase, no coordination; "pronoun"; "any").
def _nominal_anaphor(m: MentionCand) -> bool:
    return _nominal(m) and not m.generic


def _any_nominal(m: MentionCand) -> bool:
    return _nominal(m)


def _proper(m: MentionCand) -> bool:
    return m.kind == PROPER


ANAPHOR_FILTER: dict[str, Callable[[MentionCand], bool]] = {
    "same_person_pronoun": lambda m: m.pronoun is not None and m.person != 3,
    "exact_string_match": _nominal_anaphor,
    "relaxed_string_match": _nominal_anaphor,
    "appositive": _any_nominal,
    "predicate_nominative": _any_nominal,
    "role_appositive": _any_nominal,
    "relative_pronoun": lambda m: m.relative,
    "acronym": _proper,
    "demonym": _proper,
    "strict_head_match_a": _nominal_anaphor,
    "strict_head_match_b": _nominal_anaphor,
    "strict_head_match_c": _nominal_anaphor,
    "proper_head_match": _proper,
    "relaxed_head_match": _nominal_anaphor,
    "pronoun_match": lambda m: m.pronoun is not None and m.person == 3,
}
ANTECEDENT_CLASS: dict[str, str] = {name: "nominal" for name in SIEVES}
ANTECEDENT_CLASS.update({"same_person_pronoun": "pronoun", "relative_pronoun": "any", "pronoun_match": "any"})


def antecedent_class_of(m: MentionCand) -> set[str]:
    classes = {"any"}
    if _nominal(m):
        classes.add("nominal")
    if m.pronoun is not None:
        classes.add("pronoun")
    return classes


CONSTRUCT_SIEVES = frozenset({"appositive", "predicate_nominative", "role_appositive", "relative_pronoun"})
