"""Mention detection for the sieve resolver (Lee et al. 2013, section 3.1), over a dependency parse.

Candidates are (1) maximal noun phrases: the dependency subtree of every nominal head that is not
itself a compound/flat modifier, without its conjuncts and appositions; (2) coordinations as a
whole (``John and Mary``); (3) personal, possessive and pronominal demonstrative pronouns (and
relative pronouns, kept internally for the relative-pronoun sieve); (4) named entities. Filters
remove pleonastic *it*, numeric/quantity mentions, non-referring quantifier heads, mentions strictly
inside a named entity, and of mentions sharing a head the larger is kept.

The data structures here (:class:`ParsedDoc`, :class:`MentionCand`) are the read-only input of
every sieve.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from lingtest.data.model import Document
from lingtest.errors import InputError
from lingtest.systems.coref import features as F

PRONOMINAL, PROPER, NOMINAL, LIST = "PRONOMINAL", "PROPER", "NOMINAL", "LIST"

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "nsubj:pass", "csubj", "csubjpass"})
# dependents that are not part of the NP of a nominal head: conjuncts and appositions (their own
# mentions), and the clause material a UD parse hangs on a nominal predicate (subject, copula, ...)
_SPLIT_DEPS = frozenset({"conj", "cc", "preconj", "appos", "nsubj", "nsubj:pass", "nsubjpass", "csubj",
                         "csubj:pass", "cop", "aux", "aux:pass", "auxpass", "mark", "expl", "discourse",
                         "vocative", "parataxis", "advcl", "ccomp", "xcomp", "obl", "obj", "iobj", "dislocated",
                         "reparandum", "list", "orphan"})
_LEADING_DROP = frozenset({"case", "mark", "cc", "punct"})
# nominal tokens that only modify another nominal (never a mention head of their own)
_MODIFIER_DEPS = frozenset({"compound", "flat", "flat:name", "fixed", "goeswith", "nn", "expl"})
_INDEFINITE_START = frozenset({"a", "an", "some", "any", "another", "no", "every", "each", "several",
                               "many", "few", "such"})
_WEATHER_SEEM = frozenset({"seem", "appear", "rain", "snow", "happen", "matter", "turn", "take",
                           "look", "sound", "occur"})
_COPULAR_LEMMAS = frozenset({"be", "become", "seem", "appear", "remain", "look", "sound", "feel"})
_BE_FORMS = frozenset({"'s", "’s", "is", "was", "be", "been", "being", "are", "were"})
_DEMONSTRATIVE = frozenset({"this", "that", "these", "those"})
_DETERMINER_DEPS = frozenset({"det", "poss", "predet", "nmod:poss", "det:poss", "case"})
_STOP_MODIFIERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "'s", "'", "his",
                             "her", "its", "their", "our", "my", "your"})


@dataclass(slots=True)
class ParsedDoc:
    """Document-level arrays over a parsed :class:`~lingtest.data.model.Document`."""

    words: list[str]
    lower: list[str]
    tags: list[str]
    pos: list[str]
    lemmas: list[str]
    deps: list[str]
    heads: list[int]  # document-level head index, -1 for a root
    morph: list[str]
    ner: list[str | None]  # normalised entity label of each token (None outside entities)
    ent_spans: list[tuple[int, int, str]]
    sent_of: list[int]
    sent_starts: list[int]
    children: list[list[int]] = field(default_factory=list)
    bfs_rank: list[int] = field(default_factory=list)

    @classmethod
    def from_document(cls, doc: Document) -> ParsedDoc:
        words: list[str] = []
        tags: list[str] = []
        pos: list[str] = []
        lemmas: list[str] = []
        deps: list[str] = []
        heads: list[int] = []
        morph: list[str] = []
        iob: list[str] = []
        sent_of: list[int] = []
        sent_starts: list[int] = []
        for si, sent in enumerate(doc.sentences):
            off = len(words)
            sent_starts.append(off)
            for ti, t in enumerate(sent.tokens):
                if t.head is None:
                    raise InputError(f"document {doc.key!r} sentence {si} token {ti} ({t.text!r}) is not parsed",
                                     field="head")
                if not -1 <= t.head < len(sent.tokens):
                    raise InputError(f"document {doc.key!r} sentence {si} token {ti}: head {t.head} out of range",
                                     field="head")
                words.append(t.text)
                tags.append(t.tag or "")
                pos.append(t.pos or "")
                lemmas.append((t.lemma or t.text).lower())
                deps.append((t.dep or "").lower())
                heads.append(-1 if t.head < 0 or t.head == ti else off + t.head)
                morph.append(t.morph or "")
                iob.append(t.ent or "O")
                sent_of.append(si)
        ent_spans = _iob_spans(iob)
        ner: list[str | None] = [None] * len(words)
        for s, e, lab in ent_spans:
            for i in range(s, e):
                ner[i] = lab
        pd = cls(words, [w.lower() for w in words], tags, pos, lemmas, deps, heads, morph, ner, ent_spans,
                 sent_of, sent_starts)
        pd.children = [[] for _ in words]
        for i, h in enumerate(heads):
            if h >= 0:
                pd.children[h].append(i)
        pd.bfs_rank = _bfs_ranks(pd)
        return pd

    def sentence_range(self, si: int) -> tuple[int, int]:
        end = self.sent_starts[si + 1] if si + 1 < len(self.sent_starts) else len(self.words)
        return self.sent_starts[si], end


def _iob_spans(iob: list[str]) -> list[tuple[int, int, str]]:
    """Entity spans from IOB2 tags (``B-PERSON``, ``I-PERSON``, ``O``); a stray ``I-`` opens a span."""
    spans: list[tuple[int, int, str]] = []
    start, label = -1, None
    for i, tag in enumerate([*iob, "O"]):
        prefix, _, lab = tag.partition("-")
        if label is not None and (prefix != "I" or lab != label):
            spans.append((start, i, F.normalise_ner(label) or label))
            label = None
        if prefix in ("B", "I") and label is None and lab:
            start, label = i, lab
    return spans


def _bfs_ranks(pd: ParsedDoc) -> list[int]:
    """Rank of each token in a left-to-right breadth-first traversal of its sentence's tree
    (syntactic prominence: shallower first)."""
    rank = [0] * len(pd.words)
    for si in range(len(pd.sent_starts)):
        s, e = pd.sentence_range(si)
        queue = deque(i for i in range(s, e) if pd.heads[i] < 0)
        seen = 0
        visited = set()
        while queue:
            i = queue.popleft()
            if i in visited:
                continue
            visited.add(i)
            rank[i] = seen
            seen += 1
            queue.extend(sorted(pd.children[i]))
        for i in range(s, e):  # tokens unreachable from a root (cyclic input): after the rest
            if i not in visited:
                rank[i] = seen
                seen += 1
    return rank


@dataclass(slots=True)
class MentionCand:
    """One detected mention with the attributes the sieves compare."""

    start: int
    end: int
    head: int
    sent: int
    kind: str
    words: tuple[str, ...]
    head_word: str
    head_lemma: str
    ner: str | None
    number: str
    gender: str
    animacy: str
    person: int
    is_subject: bool
    bfs_rank: int
    modifiers: frozenset[str]
    relative: bool = False
    indefinite: bool = False
    generic: bool = False  # a bare common noun (no determiner or possessor): ``milk``, ``workers``
    pronoun: F.PronounInfo | None = None
    idx: int = -1
    _text: str | None = None
    _relaxed: str | None = None

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def text(self) -> str:
        """Lower-cased surface string without a final possessive ``'s``."""
        if self._text is None:
            ws = [w.lower() for w in self.words]
            while ws and ws[-1] in ("'s", "'", "’s", "’"):
                ws = ws[:-1]
            self._text = " ".join(ws)
        return self._text

    def contains(self, other: MentionCand) -> bool:
        return self.start <= other.start and other.end <= self.end


# --------------------------------------------------------------------------------------------
# spans
# --------------------------------------------------------------------------------------------
def _subtree(pd: ParsedDoc, i: int, skip_top: frozenset[str] = frozenset()) -> list[int]:
    out, stack = [i], [c for c in pd.children[i] if pd.deps[c] not in skip_top]
    while stack:
        j = stack.pop()
        out.append(j)
        stack.extend(pd.children[j])
    return out


_POSSESSIVE = frozenset({"'s", "'", "’s", "’"})
_BRACKETS = {")": "(", "]": "[", "}": "{"}


def _trim(pd: ParsedDoc, s: int, e: int) -> tuple[int, int]:
    """Drop punctuation and coordinators at both edges of [s, e); a possessive marker and a closing
    bracket whose opening bracket is inside the span stay."""

    def edge(i: int) -> bool:
        return pd.pos[i] == "PUNCT" or pd.deps[i] in ("cc", "punct")

    while s < e - 1 and edge(s) and pd.words[s] != "$":
        s += 1
    while e - 1 > s and edge(e - 1) and pd.words[e - 1] not in _POSSESSIVE and pd.tags[e - 1] != "POS":
        opening = _BRACKETS.get(pd.words[e - 1])
        if opening is not None and opening in pd.words[s:e - 1]:
            break
        e -= 1
    return s, e


def np_span(pd: ParsedDoc, head: int) -> tuple[int, int]:
    """Maximal NP of a nominal head: its subtree minus conjuncts and appositions, contiguous
    around the head and trimmed of edge punctuation."""
    toks = set(_subtree(pd, head, _SPLIT_DEPS))
    s = e = head
    while s - 1 in toks:
        s -= 1
    while e + 1 in toks:
        e += 1
    # UD attaches prepositions to their noun (``in the house``): not part of the mention
    while s < head and pd.deps[s] in _LEADING_DROP and pd.heads[s] == head:
        s += 1
    return _trim(pd, s, e + 1)


def coordination_span(pd: ParsedDoc, head: int) -> tuple[int, int] | None:
    """The span of a whole coordination headed by ``head`` (``John and Mary``), if it has conjuncts."""
    conj = [c for c in pd.children[head] if pd.deps[c] == "conj" and _is_nominal(pd, c)]
    if not conj:
        return None
    toks = _subtree(pd, head, frozenset({"appos"}))
    return _trim(pd, min(toks), max(toks) + 1)


def _is_nominal(pd: ParsedDoc, i: int) -> bool:
    return pd.pos[i] in ("NOUN", "PROPN") or pd.tags[i].startswith("NN") or (
        pd.pos[i] == "PRON" and pd.lower[i] in F.PRONOUNS)


# --------------------------------------------------------------------------------------------
# filters
# --------------------------------------------------------------------------------------------
def is_pleonastic_it(pd: ParsedDoc, i: int) -> bool:
    """Pleonastic *it* (Lee et al. 2013's patterns, over dependencies): expletive label; subject
    of a weather/raising verb (*it seems*, *it rains*); subject of a copula or passive with an
    extraposed clausal complement (*it is clear that ...*, *it is believed that ...*)."""
    if pd.lower[i] != "it":
        return False
    if pd.deps[i] == "expl":
        return True
    h = pd.heads[i]
    if h < 0 or pd.deps[i] not in SUBJECT_DEPS:
        return False
    kids = pd.children[h]
    clausal = [c for c in kids if pd.deps[c] in ("ccomp", "xcomp", "csubj", "advcl") and c > h]
    if pd.lemmas[h] in ("rain", "snow", "hail", "drizzle"):
        return True
    if pd.lemmas[h] in _WEATHER_SEEM and clausal:
        return True
    copular = (pd.lemmas[h] in _COPULAR_LEMMAS or pd.lower[h] in _BE_FORMS
               or any(pd.deps[c] == "cop" for c in kids))
    has_pred = pd.pos[h] == "ADJ" or any(pd.deps[c] in ("acomp", "attr") for c in kids)
    passive = pd.deps[i] in ("nsubjpass", "nsubj:pass")
    if clausal and ((copular and has_pred) or passive):
        # the complement must be a that/to/whether/if clause or a participle, not a relative clause
        for c in clausal:
            first = min(_subtree(pd, c))
            if (pd.lower[first] in ("that", "to", "whether", "if", "how", "what", "when", "why")
                    or pd.deps[c] == "xcomp"):
                return True
    return False


def _is_numeric(pd: ParsedDoc, s: int, e: int, head: int) -> bool:
    if pd.ner[head] in F.NUMERIC_NER:
        return True
    return pd.pos[head] == "NUM" or pd.tags[head] == "CD" or pd.words[head] in ("%", "percent")


# --------------------------------------------------------------------------------------------
# attributes
# --------------------------------------------------------------------------------------------
def _entity_covering(pd: ParsedDoc, s: int, e: int, head: int) -> str | None:
    """NER label of the mention: the entity containing its head, when that entity lies inside it."""
    lab = pd.ner[head]
    if lab is None:
        return None
    for es, ee, el in pd.ent_spans:
        if es <= head < ee:
            return el if s <= es and ee <= e else None
    return None


def make_mention(pd: ParsedDoc, s: int, e: int, head: int, kind: str | None,
                 animacy_lexicon: F.AnimacyLexicon | None) -> MentionCand:
    """Build a mention over [s, e) with head ``head`` and compute its attributes."""
    hw = pd.lower[head]
    pron = F.pronoun_info(hw) if e - s == 1 else None
    relative = pd.tags[head] in ("WP", "WDT", "WP$") or (
        hw == "that" and pd.deps[head] in SUBJECT_DEPS | {"dobj", "obj"} and _in_relative_clause(pd, head))
    ner = _entity_covering(pd, s, e, head)
    if kind is None:
        if pron is not None or relative:
            kind = PRONOMINAL
        elif ner is not None or pd.tags[head] in ("NNP", "NNPS") or pd.pos[head] == "PROPN":
            kind = PROPER
        else:
            kind = NOMINAL
    # number
    if kind == LIST:
        number = F.PLURAL
    elif ner in ("ORG",) and kind == PROPER:
        number = F.UNKNOWN
    else:
        number = F.number_from_token(pd.tags[head], pd.morph[head], hw)
    # person, gender, animacy
    person = pron.person if pron is not None else 3
    if pron is not None:
        gender, animacy = pron.gender, pron.animacy
    elif relative:
        gender, animacy = F.UNKNOWN, F.ANIMATE if hw in ("who", "whom") else F.UNKNOWN
    else:
        animacy = F.animacy_from_ner(ner)
        gender = F.UNKNOWN
        words_lower = {pd.lower[i] for i in range(s, head + 1)}
        if words_lower & {"mr.", "mr", "sir", "lord", "king", "prince"}:
            gender, animacy = F.MALE, F.ANIMATE
        elif words_lower & {"mrs.", "mrs", "ms.", "ms", "miss", "lady", "queen", "princess"}:
            gender, animacy = F.FEMALE, F.ANIMATE
        elif kind == NOMINAL:
            g = F.GENDERED_NOUNS.get(hw) or F.GENDERED_NOUNS.get(pd.lemmas[head])
            if g is not None:
                gender, animacy = g, F.ANIMATE
            elif animacy_lexicon is not None:
                animacy = animacy_lexicon.animacy(pd.lemmas[head])
        if animacy == F.INANIMATE and gender == F.UNKNOWN:
            gender = F.NEUTRAL
    modifiers = frozenset(
        pd.lower[i] for i in range(s, head)
        if pd.lower[i] not in _STOP_MODIFIERS and pd.pos[i] in ("NOUN", "PROPN", "ADJ", "NUM", "VERB")
    )
    first = pd.lower[s]
    generic = kind == NOMINAL and not any(
        pd.deps[c] in _DETERMINER_DEPS or pd.tags[c] in ("DT", "PRP$", "WP$", "POS")
        for c in pd.children[head] if c < head)
    return MentionCand(
        start=s, end=e, head=head, sent=pd.sent_of[head], kind=kind, words=tuple(pd.words[s:e]),
        head_word=hw, head_lemma=pd.lemmas[head], ner=ner, number=number, gender=gender, animacy=animacy,
        person=person, is_subject=pd.deps[head] in SUBJECT_DEPS, bfs_rank=pd.bfs_rank[head],
        modifiers=modifiers, relative=relative, indefinite=first in _INDEFINITE_START, pronoun=pron,
        generic=generic,
    )


def _in_relative_clause(pd: ParsedDoc, i: int) -> bool:
    h = pd.heads[i]
    return h >= 0 and pd.deps[h] in ("relcl", "acl:relcl")


# --------------------------------------------------------------------------------------------
# detection
# --------------------------------------------------------------------------------------------
def detect_mentions(pd: ParsedDoc, animacy_lexicon: F.AnimacyLexicon | None = None, *,
                    keep_relative_pronouns: bool = True) -> list[MentionCand]:
    """All mentions of a parsed document in textual order (start ascending, longer first)."""
    found: dict[tuple[int, int], MentionCand] = {}

    def add(s: int, e: int, head: int, kind: str | None = None) -> None:
        if (s, e) in found or e <= s or not any(ch.isalnum() for ch in pd.words[head]):
            return  # masked (``___``) or symbol-only heads are not mentions
        found[(s, e)] = make_mention(pd, s, e, head, kind, animacy_lexicon)

    for i, w in enumerate(pd.lower):
        dep = pd.deps[i]
        if dep in _MODIFIER_DEPS:
            continue
        if pd.tags[i] in ("PRP", "PRP$") or (pd.pos[i] == "PRON" and w in F.PRONOUNS):
            if w in F.PRONOUNS and not is_pleonastic_it(pd, i):
                add(i, i + 1, i)
            continue
        if pd.tags[i] in ("WP", "WDT") and _in_relative_clause(pd, i) and keep_relative_pronouns:
            add(i, i + 1, i)
            continue
        if w in _DEMONSTRATIVE and pd.deps[i] in SUBJECT_DEPS | {"dobj", "obj", "pobj", "attr"}:
            add(i, i + 1, i)
            continue
        if not (pd.pos[i] in ("NOUN", "PROPN") or pd.tags[i].startswith("NN")):
            continue
        if w in F.NON_REFERRING_HEADS or not any(ch.isalnum() for ch in w):
            continue
        s, e = np_span(pd, i)
        if _is_numeric(pd, s, e, i):
            continue
        add(s, e, i)
        cs = coordination_span(pd, i)
        if cs is not None and cs != (s, e):
            add(cs[0], cs[1], i, LIST)
    for es, ee, lab in pd.ent_spans:
        if lab in F.NUMERIC_NER:
            continue
        head = _span_head(pd, es, ee)
        if pd.pos[head] == "ADJ" or pd.tags[head] == "JJ":
            continue  # adjectival entities (``Indian history``) are not mentions
        if lab == "NORP" and pd.deps[head] in ("amod", "compound", "nmod", "nn"):
            continue  # nationality/party modifiers (``Republican senators``)
        s, e = _trim(pd, es, ee)
        if e > s:
            add(s, e, head, PROPER)

    cands = list(found.values())
    cands = _remove_inside_entities(pd, cands)
    cands = _keep_largest_per_head(cands)
    cands.sort(key=lambda m: (m.start, -m.end))
    for k, m in enumerate(cands):
        m.idx = k
    return cands


def _span_head(pd: ParsedDoc, s: int, e: int) -> int:
    """The token of [s, e) whose head lies outside the span (the last such one)."""
    heads = [i for i in range(s, e) if not s <= pd.heads[i] < e]
    return heads[-1] if heads else e - 1


def _remove_inside_entities(pd: ParsedDoc, cands: list[MentionCand]) -> list[MentionCand]:
    """Drop mentions strictly inside a named entity (``America`` in ``Bank of America``)."""
    out = []
    for m in cands:
        inside = any(es <= m.start and m.end <= ee and (es, ee) != (m.start, m.end)
                     for es, ee, lab in pd.ent_spans if lab not in F.NUMERIC_NER)
        if not inside:
            out.append(m)
    return out


def _keep_largest_per_head(cands: list[MentionCand]) -> list[MentionCand]:
    """Of mentions sharing a head word (coordinations aside), keep the largest span."""
    best: dict[tuple[int, bool], MentionCand] = {}
    for m in cands:
        key = (m.head, m.kind == LIST)
        cur = best.get(key)
        if cur is None or (m.end - m.start) > (cur.end - cur.start):
            best[key] = m
    return list(best.values())
