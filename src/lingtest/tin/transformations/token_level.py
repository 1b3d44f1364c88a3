"""Token-level similar sentences (TIN section 3.2.1, 1): one word replaced per mutant.

Every word outside the predicted entities whose PTB tag is one of ``tags`` (verbs and adjectives)
and whose lemma is not in ``skip_lemmas`` is masked in turn; the fill-in proposer's ``top_k``
fills (:class:`lingtest.resources.fill.FillProposer`) with score ``>= min_score`` that are single
alphabetic words different from the original give one mutant each, provided the tagger gives the
new word the original's tag in place (the tagger tags the source too, so both tags come from one
model). The paper: ``bert-large-cased``, K = 10, raw logit > 9, NLTK tags. The new word takes the
original's capitalisation (all capitals, or a capital first letter). A fill whose lemma is one of
``skip_lemmas`` is not put in either (*remained* -> *was*, *told* -> *said*: the words the transformation
never replaces are light verbs whose frame is not the original's).

**The fill keeps the word's frame** (with a ``lexicon``, :mod:`.frames`; the configured transformation reads
WordNet): a verb is replaced only by a verb that takes what the original takes in the sentence's dependency
parse - an object (a person object: a verb WordNet lists with a person object), no object, a clause, an
infinitive, a gerund, its particle as a phrasal verb (*testified against* -> *indicted against*, *told a news
conference* -> *said a news conference*, *killed four citizens* -> *stole four citizens*, *fired back* ->
*rampaged back* are refused) - and is a WordNet relative of the original; an adjective before a noun or after
a copula only by an adjective WordNet allows in that position and, for a comparative or superlative, of the
same scale (:func:`~.frames.adjective_refusal`). A source without a dependency parse is not checked. With
``distinct_fill`` a fill that is already a word of the sentence with the original's tag is refused too
(*Cuo Dan finishing a respectable seventh and Xu Nannan ninth* -> *... a respectable ninth and Xu Nannan
ninth*): two words of one tag side by side are usually parallel, and the same word in both slots undoes the
contrast. The refusals are counted by reason in :attr:`TokenLevel.refused`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.resources.candidates.inflect import lemmatize, match_case
from lingtest.resources.fill import FillProposer
from lingtest.tin.mutant import MR1, Mutant, TinSource
from lingtest.tin.spans import TokenMap, inside_any
from lingtest.tin.tagging import Tagger
from lingtest.tin.transformations.base import TransformationConfig
from lingtest.tin.transformations.frames import (
    Lexicon,
    WordNetLexicon,
    adjective_position,
    adjective_refusal,
    frame_refusal,
    relation_refusal,
    verb_pattern,
)

WORD_RE = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


class TokenLevelConfig(TransformationConfig):
    """``tin.transformations.token``."""

    top_k: int
    min_score: float
    tags: tuple[str, ...]
    skip_lemmas: tuple[str, ...]
    distinct_fill: bool


class TokenLevel:
    """``proposer``: fill-in proposals; ``tagger``: PTB tags of sources and mutants; ``lexicon``: the WordNet
    facts the frame rules read (``None``: fills are not checked against the frame); ``distinct_fill``: refuse
    a fill that repeats a word of the sentence with the original's tag."""

    name: ClassVar[str] = "token"
    label: ClassVar[str] = "Token-level"
    relation: ClassVar[str] = MR1
    Config: ClassVar[type[TokenLevelConfig]] = TokenLevelConfig

    @classmethod
    def from_config(cls, config: TokenLevelConfig, parts: Any) -> TokenLevel:
        """The shared fill-in proposer and tagger of ``parts``; WordNet for the frame rules."""
        return cls(parts.fill, parts.tagger, top_k=config.top_k, min_score=config.min_score, tags=config.tags,
                   skip_lemmas=config.skip_lemmas, lexicon=WordNetLexicon(), distinct_fill=config.distinct_fill)

    def __init__(self, proposer: FillProposer, tagger: Tagger, *, top_k: int, min_score: float,
                 tags: Sequence[str], skip_lemmas: Sequence[str], lexicon: Lexicon | None = None,
                 distinct_fill: bool = False) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be positive, got {top_k}")
        self.proposer = proposer
        self.tagger = tagger
        self.top_k = top_k
        self.min_score = float(min_score)
        self.tags = frozenset(tags)
        self.skip_lemmas = frozenset(w.lower() for w in skip_lemmas)
        self.lexicon = lexicon
        self.distinct_fill = bool(distinct_fill)
        #: fills refused by the rules (:meth:`fill_refusal`), by reason, over every call of :meth:`generate`
        self.refused: dict[str, int] = {}

    def positions(self, source: TinSource, tags: Sequence[str]) -> list[int]:
        """The replaceable positions of a source, left to right."""
        out = []
        for i, (w, t) in enumerate(zip(source.tokens, tags, strict=True)):
            if t not in self.tags or inside_any(i, source.entities) or not WORD_RE.match(w):
                continue
            lemma = (source.lemmas[i] if source.lemmas is not None else None) or w
            if lemma.lower() in self.skip_lemmas or w.lower() in self.skip_lemmas:
                continue
            out.append(i)
        return out

    def fill_refusal(self, source: TinSource, i: int, tag: str, word: str) -> str | None:
        """Why ``word`` cannot replace the verb or adjective at ``i`` (tagged ``tag``) in ``source``: its
        lemma is one of ``skip_lemmas`` (a word never replaced is never put in either: *told* -> *said*,
        *remained* -> *was*), or it breaks the word's frame (:mod:`.frames`); ``None`` when it may. The frame
        is not checked without a lexicon or a dependency parse."""
        upos = "VERB" if tag.startswith("VB") else "ADJ"
        if word in self.skip_lemmas or lemmatize(word, upos).lower() in self.skip_lemmas:
            return "skipped lemma"
        if self.lexicon is None or source.heads is None or source.deps is None:
            return None
        tags = source.tags or [tag if k == i else "X" for k in range(len(source.tokens))]
        lemmas = source.lemmas or [None] * len(source.tokens)
        if tag.startswith("VB"):
            original = (lemmas[i] or lemmatize(source.tokens[i], "VERB")).lower()
            pattern = verb_pattern(i, source.tokens, tags, lemmas, source.heads, source.deps, source.entities,
                                   self.lexicon)
            fill = lemmatize(word, "VERB").lower()
            return (frame_refusal(original, fill, pattern, self.lexicon)
                    or relation_refusal(original, fill, self.lexicon, pattern.particle))
        if tag.startswith("JJ"):
            position = adjective_position(i, tags, source.heads, source.deps)
            original = lemmatize(source.tokens[i].lower(), "ADJ").lower()
            return adjective_refusal(original, lemmatize(word, "ADJ").lower(), position, tag, self.lexicon)
        return None

    @staticmethod
    def repeats(tokens: Sequence[str], tags: Sequence[str], i: int, word: str) -> bool:
        """Whether ``word`` is, case aside, a word of ``tokens`` other than the one at ``i`` with the tag of
        the one at ``i``."""
        low = word.lower()
        return any(k != i and w.lower() == low and tags[k] == tags[i] for k, w in enumerate(tokens))

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        if not sources:
            return []
        src_tags = self.tagger.tag([s.tokens for s in sources])
        requests: list[tuple[list[str], int]] = []
        owners: list[int] = []
        for si, s in enumerate(sources):
            for i in self.positions(s, src_tags[si]):
                requests.append((s.tokens, i))
                owners.append(si)
        fills = self.proposer.propose_many(requests, self.top_k) if requests else []
        cands: list[tuple[int, int, int, str, float]] = []  # (source, position, rank, word, score)
        for si, (tokens, i), fl in zip(owners, requests, fills, strict=True):
            seen = {tokens[i].lower()}
            for rank, f in enumerate(fl[: self.top_k]):
                word = f.word.strip()
                if f.score < self.min_score or not WORD_RE.match(word) or word.lower() in seen:
                    continue
                seen.add(word.lower())
                why = ("repeats a word" if self.distinct_fill and self.repeats(tokens, src_tags[si], i, word)
                       else self.fill_refusal(sources[si], i, src_tags[si][i], word.lower()))
                if why is not None:
                    self.refused[why] = self.refused.get(why, 0) + 1
                    continue
                cands.append((si, i, rank, match_case(word, tokens[i]), float(f.score)))
        texts = []
        for si, i, _, word, _ in cands:
            words = list(sources[si].tokens)
            words[i] = word
            texts.append(words)
        new_tags = self.tagger.tag(texts) if texts else []
        out = []
        for (si, i, rank, word, score), words, tags in zip(cands, texts, new_tags, strict=True):
            if tags[i] != src_tags[si][i]:
                continue
            s = sources[si]
            out.append(Mutant(
                seed_id=s.id, transformation=self.name, relation=self.relation, source=list(s.tokens),
                tokens=words, alignment=TokenMap.identity(len(words)), changed=(i, i + 1),
                changed_followup=(i, i + 1),
                params={"position": i, "old": s.tokens[i], "new": word, "tag": tags[i], "rank": rank,
                        "score": round(score, 6)},
            ))
        return out
