"""CREST's configuration (``conf/crest/default.yaml``, ``cfg.crest``), typed: every key a field, no
defaults here (they live in conf/), unknown keys rejected. Validated once when a CREST stage starts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from lingtest.config import Block, Section


class Proposers(Block):
    """``enabled``: registered proposers (:data:`lingtest.resources.candidates.PROPOSERS`) in precedence
    order; every other key is one proposer's options, checked by the proposer itself."""

    model_config = ConfigDict(extra="allow", frozen=True)

    enabled: list[str]

    def options(self, name: str) -> dict[str, Any]:
        return dict((self.model_extra or {}).get(name) or {})


class Ranker(Block):
    enabled: bool
    threshold: float
    include_original: bool
    filter_sources: list[str]
    window: int | None
    left_window: int | None
    shared_prefix: bool
    dtype: str | None
    min_fit: float | None
    fit_sources: list[str]


class Naturalness(Block):
    """The naturalness bound after the constituent check (:class:`lingtest.resources.naturalness.NaturalnessBound`)."""

    enabled: bool
    epsilon: float
    weight_min: float
    weight_mean: float
    packed: bool


class Oracle(Block):
    """A run option of the ``oracle`` expectation (:data:`lingtest.suite.oracles.ORACLES`)."""

    model_config = ConfigDict(extra="allow", frozen=True)  # the oracle's own options, checked by it

    name: str


class Ablation(Block):
    M: list[int]
    select: list[bool]


class CrestConfig(Section):
    section = "crest"

    corpus: str
    split: str
    seed: int
    N: int | None
    min_mentions: int
    min_tokens: int
    max_tokens: int
    M: int
    order: Literal["position", "round_robin"]
    parse_chunk: int
    batch_sources: int
    relations: list[str]
    copula_complements: list[str]
    proposers: Proposers
    ranker: Ranker
    naturalness: Naturalness
    select: bool
    oracle: Oracle
    systems: list[str]
    ablation: Ablation

    @property
    def M_generated(self) -> int:
        """Follow-ups generated per source: enough for the suite (``M``) and every ablation ``M``."""
        return max([self.M, *self.ablation.M])

    def oracle_options(self) -> dict[str, Any]:
        return self.oracle.model_dump()
