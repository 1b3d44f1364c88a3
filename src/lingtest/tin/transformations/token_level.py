"""Token-level similar sentences (TIN section 3.2.1, 1): one word replaced per mutant.

Every word outside the predicted entities whose PTB tag is one of ``tags`` (verbs and adjectives)
and whose lemma is not in ``skip_lemmas`` is masked in turn; the fill-in proposer's ``top_k``
fills (:class:`lingtest.resources.fill.FillProposer`) with score ``>= min_score`` that are single
alphabetic words different from the original give one mutant each, provided the tagger gives the
new word the original's tag in place (the tagger tags the source too, so both tags come from one
model). The paper: ``bert-large-cased``, K = 10, raw logit > 9, NLTK tags. The new word takes the
original's capitalisation (all capitals, or a capital first letter).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.resources.candidates.inflect import match_case
from lingtest.resources.fill import FillProposer
from lingtest.tin.mutant import MR1, Mutant, TinSource
from lingtest.tin.spans import TokenMap, inside_any
from lingtest.tin.tagging import Tagger
from lingtest.tin.transformations.base import TransformationConfig

WORD_RE = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


class TokenLevelConfig(TransformationConfig):
    """``tin.transformations.token``."""

    top_k: int
    min_score: float
    tags: tuple[str, ...]
    skip_lemmas: tuple[str, ...]


class TokenLevel:
    """``proposer``: fill-in proposals; ``tagger``: PTB tags of sources and mutants."""

    name: ClassVar[str] = "token"
    label: ClassVar[str] = "Token-level"
    relation: ClassVar[str] = MR1
    Config: ClassVar[type[TokenLevelConfig]] = TokenLevelConfig

    @classmethod
    def from_config(cls, config: TokenLevelConfig, parts: Any) -> TokenLevel:
        """The shared fill-in proposer and tagger of ``parts``."""
        return cls(parts.fill, parts.tagger, top_k=config.top_k, min_score=config.min_score, tags=config.tags,
                   skip_lemmas=config.skip_lemmas)

    def __init__(self, proposer: FillProposer, tagger: Tagger, *, top_k: int, min_score: float,
                 tags: Sequence[str], skip_lemmas: Sequence[str]) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be positive, got {top_k}")
        self.proposer = proposer
        self.tagger = tagger
        self.top_k = top_k
        self.min_score = float(min_score)
        self.tags = frozenset(tags)
        self.skip_lemmas = frozenset(w.lower() for w in skip_lemmas)

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
