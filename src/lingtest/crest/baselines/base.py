"""What every baseline generator is: a class registered in :data:`lingtest.crest.baselines.BASELINES` with a
typed ``Config`` (a :class:`~lingtest.config.Block`), built by ``from_config(config, parts)`` from the shared
components (:class:`Parts`), whose ``generate(sources, M, seed)`` returns at most ``M`` follow-ups
(:class:`~lingtest.crest.baselines.edits.Perturbation`) per source and its counts (:class:`Generated`).

Generation is deterministic: a baseline that draws at random draws from :func:`source_rng`, seeded by the
seed, the baseline and the source id only (so a source's follow-ups do not depend on the other sources or on
how they are batched).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from lingtest.crest.baselines.edits import Perturbation, apply_edits
from lingtest.crest.generate import Source


class Parts(Protocol):
    """The shared components a baseline may use, each built on first use."""

    @property
    def parser(self) -> Any:
        """The configured parser behind a memo (``parse(list[list[str]]) -> list[Sentence]``)."""
        ...

    @property
    def fill(self) -> Any:
        """The fill-in proposer (:class:`lingtest.resources.fill.FillProposer`): the offline stand-in for
        the baselines' masked LM."""
        ...

    @property
    def embedder(self) -> Any:
        """A sentence embedder (``encode(list[str]) -> unit vectors``)."""
        ...

    @property
    def wordnet(self) -> Any:
        """An NLTK WordNet reader."""
        ...


@dataclass(slots=True)
class Generated:
    """Follow-ups per source (input order) and counts: ``proposed`` (candidate follow-ups per recipe, before
    the baseline's own checks), ``kept`` (per recipe, within M) and ``dropped`` (per check that rejected a
    candidate)."""

    followups: list[list[Perturbation]]
    proposed: Counter = field(default_factory=Counter)
    kept: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)

    def merge(self, other: Generated) -> None:
        self.followups.extend(other.followups)
        self.proposed.update(other.proposed)
        self.kept.update(other.kept)
        self.dropped.update(other.dropped)

    def counts(self) -> dict[str, dict[str, int]]:
        return {k: dict(sorted(getattr(self, k).items())) for k in ("proposed", "kept", "dropped")}


class BaselineGenerator(Protocol):
    name: ClassVar[str]

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        """At most ``M`` follow-ups of each of ``sources`` (parsed sources with their gold)."""
        ...


def source_rng(seed: int, baseline: str, source_id: str) -> random.Random:
    """The random stream of one source for one baseline."""
    return random.Random(f"{seed}:{baseline}:{source_id}")


def has_alnum(word: str) -> bool:
    return any(c.isalnum() for c in word)


def distinct(source: Source, perturbations: Sequence[Perturbation]) -> list[Perturbation]:
    """The perturbations whose follow-up differs from the source and from every earlier one's (by words)."""
    words = source.sentence.words
    ws = [t.ws for t in source.sentence.tokens]
    seen = {tuple(words)}
    out = []
    for p in perturbations:
        key = tuple(apply_edits(words, ws, p.edits)[0])
        if key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out
