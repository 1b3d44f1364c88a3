"""The ContraPro attacks' configuration (``conf/contrapro/default.yaml``, ``cfg.contrapro``), typed: every
key a field, no defaults here (they live in conf/), unknown keys rejected. Validated once when a
ContraPro stage starts (and once in each generator actor on Ray)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from lingtest.config import Block, Section
from lingtest.contrapro.finetune import FinetuneOptions

#: the attacks there are (:mod:`lingtest.contrapro.phrase`, :mod:`~lingtest.contrapro.possessive`,
#: :mod:`~lingtest.contrapro.synonym`)
Attack = Literal["phrase", "possessive", "synonym"]


class Phrase(Block):
    """``variants``: release variants (:data:`lingtest.contrapro.phrase.RELEASE_VARIANTS`) or ``custom``
    ones; ``custom``: name -> a variant definition, checked by :meth:`PhraseVariant.from_dict`."""

    variants: list[str]
    custom: dict[str, dict[str, Any]]


class Tagger(Block):
    parser: Literal["spacy"]
    model: str


class Possessive(Block):
    """``custom``: name -> a possessor definition, checked by :meth:`Possessor.from_dict`."""

    possessors: list[str]
    custom: dict[str, dict[str, Any]]
    pos_patterns: list[str | list[str]]  # "DT JJ NN" or [DT, JJ, NN] (lingtest.contrapro.possessive.parse_patterns)
    distances: list[int]
    tagger: Tagger


class Lexicon(Block):
    """The German lexicon's resources (:func:`lingtest.contrapro.lexicon.load_lexicon`): paths, ``null``
    for none; ``german_nouns``: ``true`` (the installed package's CSV), a path, or ``false``."""

    openthesaurus: str | None
    ding: str | None
    german_nouns: bool | str | None


class Synonym(Block):
    sources: list[Literal["openthesaurus", "ding"]]
    require_translation: bool
    distances: list[int]
    lexicon: Lexicon


class Export(Block):
    separator: str


class Review(Block):
    n: int
    seed: int
    attacks: list[Attack]


class Finetune(FinetuneOptions):
    """``contrapro.afa.finetune``: the sets and model to fine-tune, and the training options."""

    sets: list[Literal["augmented", "baseline"]]
    model: str

    def options(self) -> FinetuneOptions:
        return FinetuneOptions(**self.model_dump(include=set(FinetuneOptions.model_fields)))


class Afa(Block):
    coref_system: str
    include_unclustered: bool
    max_examples: int | None
    finetune: Finetune


class ContraproConfig(Section):
    section = "contrapro"

    dataset: str
    metadata: str | None
    seed: int
    sample: int | None
    systems: list[str]
    attacks: list[Attack]
    phrase: Phrase
    possessive: Possessive
    synonym: Synonym
    export: Export
    review: Review
    afa: Afa
    workers: Annotated[int, Field(ge=1)]
