"""Phrase-level similar sentences (TIN section 3.2.1, 2): one noun phrase replaced per mutant.

Every minimal NP of the constituency tree (no NP below it) that does not overlap a predicted
entity is looked up without its leading determiners and pronouns (:func:`lingtest.tin.phrases.np_core`,
the public TIN code strips DT/PRP); NPs that are only a determiner or pronoun are skipped. Each of
the phrase index's ``topn`` neighbours with score ``>= min_score`` gives a mutant, the determiner
kept, after the TIN code's clean-up: a leading *the/a/an* of the neighbour is dropped, the
neighbour must be words of letters (``'`` and ``-`` allowed), at most ``max_words`` of them, and
differ from the original; after *a/an* a plural is skipped (the code's crude test, kept: a last
word ending in *s* but not *ss*, so *bus* counts as plural too).
lingtest also makes the article agree (*a* / *an* by the new first letter, recorded in
``params["article"]``) and gives the phrase the original's capitalisation (all capitals, or a
capital first letter).

**Whole noun phrases of the same number and determiner pattern** (with a ``tagger``; the configured
transformation has the parser's): the replaced words (the NP without its leading determiners) must be
adjectives, participles and nouns ending in a common noun (:data:`CORE_TAGS`, :data:`HEAD_TAGS`) that is
not a pronoun-like noun (*everything*, :data:`PRONOUN_NOUNS`): no number, adverb, quantifier or
preposition inside (*as many 79 seats*); and the replacement, tagged in place in the mutant, must be of
the same shape with a head of the original's number (``NN`` for ``NN``, ``NNS`` for ``NNS``): it adds no
determiner or quantifier of its own (*points* -> *too many points*) and agrees with the kept determiner
and the verb (*goals* -> *goal*, *everything* -> *things* are refused). A source without a finite verb (a
table row or header, *goals for, against, points*) gets no phrase mutants. With a ``lexicon`` (WordNet in
the configured transformation) the new phrase keeps the old head noun (*mortar shells* -> *shells*,
*speculation* -> *widespread speculation*) or puts a noun of the same kind in its place - a WordNet relative
or a noun of the same lexicographer class, not an antonym (*prison* -> *jail*, *soldiers* -> *fighters*,
*explosives* -> *explosive devices*); the phrase index's neighbours of another kind are refused
(*skinheads* -> *foreheads*, *explosives* -> *explosive experts*, *prison* -> *crime*, *presence* ->
*absence*). Refusals are counted by reason
in :attr:`PhraseLevel.refused`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.resources.candidates.inflect import lemmatize
from lingtest.tin.mutant import MR1, Mutant, TinSource
from lingtest.tin.phrases import PHRASE_WORD_RE, PhraseIndex, np_core, tree_tags
from lingtest.tin.spans import TokenMap, overlaps
from lingtest.tin.tagging import Tagger
from lingtest.tin.transformations.base import TransformationConfig, minimal_phrases
from lingtest.tin.transformations.frames import Lexicon, WordNetLexicon

ARTICLES = frozenset({"the", "a", "an"})
VOWELS = frozenset("aeiouAEIOU")
#: PTB tags a replaced (and a replacing) phrase may hold: adjectives, participles, common nouns
CORE_TAGS = frozenset({"JJ", "JJR", "JJS", "VBG", "VBN", "NN", "NNS"})
#: the tags its last word (its head) may have
HEAD_TAGS = frozenset({"NN", "NNS"})
#: PTB tags of a finite verb or modal: a source without one (a table row, a header) gets no phrase mutants
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
#: nouns that stand for a pronoun: replacing them changes the phrase's kind, not its words
PRONOUN_NOUNS = frozenset({"everything", "something", "anything", "nothing", "everyone", "someone", "anyone",
                           "everybody", "somebody", "anybody", "nobody", "none", "one", "ones", "lot", "lots",
                           "plenty", "rest", "others", "other"})


def phrase_shape_ok(tags: Sequence[str], words: Sequence[str]) -> bool:
    """Whether words tagged ``tags`` are adjectives, participles and nouns ending in a common noun that is not
    pronoun-like (:data:`CORE_TAGS`, :data:`HEAD_TAGS`, :data:`PRONOUN_NOUNS`)."""
    return (bool(tags) and all(t in CORE_TAGS for t in tags) and tags[-1] in HEAD_TAGS
            and words[-1].lower() not in PRONOUN_NOUNS)


def _case_like(words: list[str], original: Sequence[str]) -> list[str]:
    if all(len(w) > 1 and w.isupper() for w in original):
        return [w.upper() for w in words]
    if original[0][:1].isupper():
        return [words[0][:1].upper() + words[0][1:], *words[1:]]
    return words


def _article(det: str, first_word: str) -> str:
    new = "an" if first_word[:1] in VOWELS else "a"
    if det.isupper() and len(det) > 1:
        return new.upper()
    return new.capitalize() if det[:1].isupper() else new


class PhraseLevelConfig(TransformationConfig):
    """``tin.transformations.phrase``."""

    topn: int
    min_score: float
    max_words: int


class PhraseLevel:
    """``index``: a :class:`~lingtest.tin.phrases.PhraseIndex` (offline: MiniLM over minimal NPs;
    hub: sense2vec); ``tagger``: PTB tags of the mutants, for the number, shape and sentence rules (``None``:
    not checked); ``lexicon``: WordNet, for the head rule (``None``: not checked)."""

    name: ClassVar[str] = "phrase"
    label: ClassVar[str] = "Phrase-level"
    relation: ClassVar[str] = MR1
    Config: ClassVar[type[PhraseLevelConfig]] = PhraseLevelConfig

    @classmethod
    def from_config(cls, config: PhraseLevelConfig, parts: Any) -> PhraseLevel:
        """The phrase index and the tagger of ``parts``."""
        return cls(parts.phrase_index, topn=config.topn, min_score=config.min_score, max_words=config.max_words,
                   tagger=parts.tagger, lexicon=WordNetLexicon())

    def __init__(self, index: PhraseIndex, *, topn: int, min_score: float, max_words: int,
                 tagger: Tagger | None = None, lexicon: Lexicon | None = None) -> None:
        if topn < 1 or max_words < 1:
            raise ValueError("topn and max_words must be positive")
        self.index = index
        self.topn = topn
        self.min_score = float(min_score)
        self.max_words = max_words
        self.tagger = tagger
        self.lexicon = lexicon
        #: candidate replacements refused by the number and shape rules, by reason (over every call)
        self.refused: dict[str, int] = {}

    def slots(self, source: TinSource) -> list[tuple[int, int, int]]:
        """``(np start, core start, end)`` of each replaceable NP, left to right."""
        if source.tree is None:
            return []
        tags = tree_tags(source.tree, len(source.tokens))
        if self.tagger is not None and not any(t in FINITE_TAGS for t in tags):
            return []
        out = []
        for node in minimal_phrases(source.tree, "NP"):
            span = node.span()
            if any(overlaps(span, (e.start, e.end)) for e in source.entities):
                continue
            core = np_core(tags, span)
            if core is None or not any(ch.isalpha() for w in source.tokens[core[0]:core[1]] for ch in w):
                continue
            if self.tagger is not None and not phrase_shape_ok(tags[core[0]:core[1]], source.tokens[core[0]:core[1]]):
                continue
            out.append((span[0], core[0], core[1]))
        return out

    def _clean(self, phrase: str, det: str | None) -> list[str] | None:
        words = phrase.split()
        while words and words[0].lower() in ARTICLES:
            words = words[1:]
        if not words or len(words) > self.max_words or not all(PHRASE_WORD_RE.match(w) for w in words):
            return None
        last = words[-1].lower()
        if det is not None and det.lower() in ("a", "an") and last.endswith("s") and not last.endswith("ss"):
            return None
        return words

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        jobs: list[tuple[int, int, int, int]] = []  # (source, np start, core start, end)
        for si, s in enumerate(sources):
            jobs.extend((si, a, c, b) for a, c, b in self.slots(s))
        queries = [" ".join(sources[si].tokens[c:b]) for si, _, c, b in jobs]
        answers = self.index.neighbours(queries, self.topn) if queries else []
        out: list[Mutant] = []
        for (si, a, c, b), query, nbrs in zip(jobs, queries, answers, strict=True):
            s = sources[si]
            det = s.tokens[c - 1] if c > a else None
            seen = {query.lower()}
            for rank, (phrase, score) in enumerate(nbrs[: self.topn]):
                if score < self.min_score:
                    continue
                words = self._clean(phrase, det)
                if words is None or " ".join(words).lower() in seen:
                    continue
                seen.add(" ".join(words).lower())
                words = _case_like(words, s.tokens[c:b])
                new = list(s.tokens[:c]) + words + list(s.tokens[b:])
                params = {"start": c, "end": b, "old": query, "new": " ".join(words), "np": [a, b],
                          "rank": rank, "score": round(float(score), 6)}
                if det is not None and det.lower() in ("a", "an"):
                    art = _article(det, words[0])
                    if art != det:
                        new[c - 1] = art
                        params["article"] = art
                out.append(Mutant(
                    seed_id=s.id, transformation=self.name, relation=self.relation, source=list(s.tokens),
                    tokens=new, alignment=TokenMap.replacement(len(s.tokens), c, b, len(words)),
                    changed=(c, b), changed_followup=(c, c + len(words)), params=params,
                ))
        return self._same_shape(out)

    def _same_kind(self, old: str, new: str) -> bool:
        """Whether head noun ``new`` may replace head noun ``old``: the same lemma, or a WordNet relative
        (:meth:`~lingtest.tin.transformations.frames.Lexicon.nouns_related`); always without a lexicon."""
        if self.lexicon is None:
            return True
        a, b = lemmatize(old.lower(), "NOUN"), lemmatize(new.lower(), "NOUN")
        return a == b or self.lexicon.nouns_related(a, b)

    def _same_shape(self, mutants: list[Mutant]) -> list[Mutant]:
        """The mutants whose new phrase, tagged in place, has the replaced phrase's shape and number (all
        of them without a tagger)."""
        if self.tagger is None or not mutants:
            return mutants
        sources: dict[tuple[str, ...], int] = {}
        for m in mutants:
            sources.setdefault(tuple(m.source), len(sources))
        tagged = self.tagger.tag([m.tokens for m in mutants] + [list(t) for t in sources])
        src_tags = tagged[len(mutants):]
        kept = []
        for m, tags in zip(mutants, tagged, strict=False):
            a, b = m.changed_followup  # type: ignore[misc]
            old_head = src_tags[sources[tuple(m.source)]][m.changed[1] - 1]  # type: ignore[index]
            if not phrase_shape_ok(tags[a:b], m.tokens[a:b]):
                why = "shape"
            elif tags[b - 1] != old_head:
                why = "number"
            elif not self._same_kind(m.source[m.changed[1] - 1], m.tokens[b - 1]):  # type: ignore[index]
                why = "unrelated head"
            else:
                kept.append(m)
                continue
            self.refused[why] = self.refused.get(why, 0) + 1
        return kept
