"""The baselines' configuration (``conf/crest/baselines.yaml``, composed as ``cfg.crest_baselines``), typed: every
key a field, no defaults here (they live in conf/), unknown keys rejected. The sources, M, the oracle and the
systems are CREST's (``cfg.crest``), so that both are compared on the same tests."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict

from lingtest.config import Block, Section
from lingtest.crest.baselines.cat import CatConfig
from lingtest.crest.baselines.checklist import CheckListConfig
from lingtest.crest.baselines.patinv import PatInvConfig
from lingtest.crest.baselines.sit import SitConfig
from lingtest.crest.baselines.textattack import TextAttackConfig


class FillSection(Block):
    """``crest_baselines.fill``: the fill-in proposer that stands in for the baselines' masked LM; ``kind`` names
    a registered proposer (:data:`lingtest.resources.fill.FILL_PROPOSERS`), the other keys are the proposers'
    own (checked by :func:`lingtest.resources.fill.fill_component` when it is built)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: str

    def component(self) -> tuple[Any, Block]:
        from lingtest.resources.fill import FILL_PROPOSERS, fill_component

        return fill_component(FILL_PROPOSERS, self.model_dump(), "crest_baselines.fill", shared=())


class BaselinesConfig(Section):
    section = "crest_baselines"

    baselines: list[str]            # the baselines run (lingtest.crest.baselines.BASELINES), one DVC stage each
    M: int | None                   # follow-ups per source, generated and evaluated (null: crest.M)
    seed: int                       # the random draws of CheckList and TextAttack
    batch_sources: int              # sources whose fill requests and parses are batched together
    fill: FillSection
    sit: SitConfig
    cat: CatConfig
    patinv: PatInvConfig
    checklist: CheckListConfig
    textattack: TextAttackConfig

    def options(self, baseline: str) -> Block:
        """The typed options of ``baseline`` (the field of the same name)."""
        value = getattr(self, baseline, None)
        if not isinstance(value, Block):
            from lingtest.errors import ConfigError

            raise ConfigError(f"crest_baselines has no options for baseline {baseline!r}")
        return value
