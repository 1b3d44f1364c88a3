"""CAT (Sun, Zhang, Zhang et al., ICSE 2022, "Improving Machine Translation Systems via Isotopic Replacement"),
adapted as in the CREST paper: context-aware replacement of a word of any part of speech, kept only when the
follow-up stays syntactically and semantically close to the source.

As the CAT artifact (``bertMuN.py``): every token that is not punctuation gets the masked LM's top
``top_k`` (100) substitutes with probability at least ``min_score`` (0.05); a follow-up is kept when its
similarity to the source is at least ``min_similarity`` (0.85), and the kept follow-ups of a source are
ranked by that similarity, highest first (the artifact caps them at 5 per sentence; CREST's comparison at
M). Syntactic closeness (``same_tags``, the artifact's ``check_tree``): the re-parsed follow-up has the
source's PTB tag sequence. Offline substitutes: the masked LM is the project's fill-in proposer (its score is
the LM-ranked probability among a position's candidates, and it proposes for content words only,
:mod:`~lingtest.crest.baselines.substitution`), and CAT's contextual-embedding cosine of the two words is the
cosine of the two sentences' embeddings (``resources.embedder``, offline all-MiniLM-L6-v2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from lingtest.config import Block
from lingtest.crest.baselines.base import Generated, Parts, has_alnum
from lingtest.crest.baselines.substitution import (
    Substitute,
    collect,
    parse_substitutes,
    propose,
    substituted_text,
)
from lingtest.crest.generate import Source
from lingtest.data.model import Sentence


class CatConfig(Block):
    """``crest_baselines.cat``."""

    top_k: int                      # substitutes per position (CAT: K_Number = 100)
    min_score: float                # in the fill proposer's unit (CAT: masked-LM probability >= 0.05)
    same_tags: bool                 # the re-parsed follow-up keeps the source's PTB tag sequence
    min_similarity: float           # cosine of the two sentence embeddings (CAT: 0.85, word-level)


def tags_verdict(source: Sentence, followup: Sentence) -> str | None:
    if [t.tag for t in followup.tokens] != [t.tag for t in source.tokens]:
        return "tags_changed"
    return None


class Cat:
    name: ClassVar[str] = "cat"
    Config = CatConfig

    @classmethod
    def from_config(cls, config: CatConfig, parts: Parts) -> Cat:
        gen = cls(config, parts.parser, parts.fill, None)
        gen._parts = parts  # the embedder is built when a similarity is first needed
        return gen

    def __init__(self, config: CatConfig, parser: Any, fill: Any, embedder: Any) -> None:
        self.config = config
        self.parser = parser
        self.fill = fill
        self._embedder = embedder
        self._parts: Parts | None = None

    @property
    def embedder(self) -> Any:
        """The sentence embedder (from the parts on first use when built by ``from_config``)."""
        if self._embedder is None and self._parts is not None:
            self._embedder = self._parts.embedder
        return self._embedder

    def similarities(self, sources: Sequence[Source], subs: Sequence[Substitute],
                     texts: Sequence[str]) -> list[float]:
        """Cosine of each follow-up's embedding (``texts``) with its source's (one encode call)."""
        if not subs:
            return []
        src_ids = sorted({s.source for s in subs})
        vecs = np.asarray(self.embedder.encode([sources[i].sentence.text for i in src_ids] + list(texts)))
        row = {i: k for k, i in enumerate(src_ids)}
        fu = vecs[len(src_ids):]
        return [round(float(np.dot(vecs[row[s.source]], fu[k])), 5) for k, s in enumerate(subs)]

    def fill_positions(self, sentence: Sentence) -> list[int]:
        """Every token that is not punctuation (CAT)."""
        return [i for i, t in enumerate(sentence.tokens) if has_alnum(t.text)]

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        c = self.config
        positions = [self.fill_positions(s.sentence) for s in sources]
        subs, _ = propose(self.fill, sources, positions, top_k=c.top_k, min_score=c.min_score, min_chars=1,
                          reject_punctuation=False)
        parsed = parse_substitutes(self.parser, sources, subs)
        verdicts: list[str | None] = [
            (tags_verdict(sources[s.source].sentence, p) if c.same_tags else None)
            for s, p in zip(subs, parsed, strict=True)]
        close = [k for k, v in enumerate(verdicts) if v is None]
        sims = [0.0] * len(subs)
        texts = [substituted_text(sources[subs[k].source], subs[k]) for k in close]
        for k, sim in zip(close, self.similarities(sources, [subs[k] for k in close], texts), strict=True):
            sims[k] = sim
            if sim < c.min_similarity:
                verdicts[k] = "dissimilar"
        return collect(len(sources), self.name, subs, verdicts, M, scores=sims,
                       rank=lambda s, sim: (-sim, s.position, s.word))
