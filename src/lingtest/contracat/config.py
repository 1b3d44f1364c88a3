"""ContraCAT's configuration (``conf/contracat/default.yaml``, ``cfg.contracat``), typed: every key a field,
no defaults here (they live in conf/), unknown keys rejected. Validated once when a ContraCAT stage
starts."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from lingtest.config import Block, Section


class ExtraNouns(Block):
    """New nouns added to the entity class ``class`` (:func:`lingtest.contracat.vocabulary.build_vocabulary`):
    a TSV list and/or English nouns looked up in the Ding dictionary (``null``: none)."""

    noun_class: str = Field(alias="class")  # `class` in the YAML (a Python keyword)
    tsv: str | None
    ding_english: str | None
    ding: str


class ValidityCheck(Block):
    """The German dictionaries every example's antecedent gender is checked against
    (:mod:`lingtest.contracat.validity`): the Ding dictionary file and Wiktionary's ``german-nouns``."""

    ding: str
    german_nouns: bool


class ContracatConfig(Section):
    section = "contracat"

    vocabulary: str
    extra_nouns: ExtraNouns
    templates: list[str]
    custom: dict[str, dict[str, Any]]  # name -> a template definition, checked by TemplateDef.from_dict
    separator: str
    seed: int
    sample: int | None
    systems: list[str]
    validity: ValidityCheck
