"""SIT (He, Meister and Su, ICSE 2020), adapted as in the CREST paper: one noun or adjective of the source
replaced by a masked-LM substitute that keeps the sentence's dependency structure.

As the SIT artifact (``SIT.py``): every token tagged ``NN*`` or ``JJ*`` except the first and the last gets
the top ``top_k`` (10) substitutes of the masked LM; substitutes shorter than two characters or holding a
punctuation character are dropped, and a follow-up is kept when the substitute is still tagged with the same
first two letters after re-tagging. The structure check (SIT's invariant, applied here to the follow-up
itself, as the CREST paper's "syntactic invariants"): the follow-up is re-parsed and SIT's dependency distance
to the source (the summed difference of the counts of each dependency relation, SIT's ``depDistance``) must
be at most ``max_dep_distance`` (0: the same relations). Follow-ups come in position order, each position's
substitutes best first, at most M per source. The masked LM's offline substitute is the project's fill-in
proposer (:mod:`~lingtest.crest.baselines.substitution`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.config import Block
from lingtest.crest.baselines.base import Generated, Parts
from lingtest.crest.baselines.substitution import collect, parse_substitutes, propose, tag_positions
from lingtest.crest.generate import Source
from lingtest.data.model import Sentence


class SitConfig(Block):
    """``crest_baselines.sit``."""

    tags: list[str]                 # PTB tag prefixes replaced (SIT: NN, JJ)
    top_k: int                      # substitutes per position (SIT: num_of_perturb = 10)
    min_score: float                # in the fill proposer's unit (SIT keeps the top k as they are: 0)
    min_chars: int                  # SIT drops substitutes of one character
    skip_edges: bool                # never the first or the last token (SIT)
    same_tag_prefix: bool           # the substitute keeps the first two letters of the tag after re-parsing
    max_dep_distance: int | None    # SIT's dependency distance to the source; null: not checked


def dependency_distance(a: Sentence, b: Sentence) -> int:
    """SIT's ``depDistance``: the summed absolute difference of the counts of each dependency relation."""
    ca = Counter((t.dep or "").lower() for t in a.tokens)
    cb = Counter((t.dep or "").lower() for t in b.tokens)
    return sum(abs(ca[k] - cb[k]) for k in set(ca) | set(cb))


def sit_verdict(source: Sentence, followup: Sentence, position: int, config: SitConfig) -> str | None:
    """``None`` when the follow-up passes SIT's checks, else the check it fails."""
    if len(followup) != len(source):
        return "token_count"
    if config.same_tag_prefix and (followup.tokens[position].tag or "")[:2] != (source.tokens[position].tag or "")[:2]:
        return "tag_changed"
    if config.max_dep_distance is not None and dependency_distance(source, followup) > config.max_dep_distance:
        return "dependency_changed"
    return None


class Sit:
    name: ClassVar[str] = "sit"
    Config = SitConfig

    @classmethod
    def from_config(cls, config: SitConfig, parts: Parts) -> Sit:
        return cls(config, parts.parser, parts.fill)

    def __init__(self, config: SitConfig, parser: Any, fill: Any) -> None:
        self.config = config
        self.parser = parser
        self.fill = fill

    def fill_positions(self, sentence: Sentence) -> list[int]:
        """The tagged positions (SIT: nouns and adjectives), without the first and last token (``skip_edges``)."""
        return tag_positions(sentence, self.config.tags, self.config.skip_edges)

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        c = self.config
        positions = [self.fill_positions(s.sentence) for s in sources]
        subs, _ = propose(self.fill, sources, positions, top_k=c.top_k, min_score=c.min_score,
                          min_chars=c.min_chars, reject_punctuation=True)
        parsed = parse_substitutes(self.parser, sources, subs)
        verdicts = [sit_verdict(sources[s.source].sentence, p, s.position, c)
                    for s, p in zip(subs, parsed, strict=True)]
        return collect(len(sources), self.name, subs, verdicts, M)
