"""TIN's configuration (``conf/tin/default.yaml``, ``cfg.tin``), typed: every key a field, no defaults here
(they live in conf/), unknown keys rejected. Validated once when a TIN stage starts (and once in each
generator actor on Ray).

The typed configs the components already have are the fields' types, not copied here: each entry of
``transformations`` is validated by the ``Config`` of the class registered under its name
(:data:`lingtest.tin.transformations.TRANSFORMATIONS`), ``fill`` is checked by
:func:`lingtest.resources.fill.fill_component` against the registered fill-in proposers' ``Config``\\ s,
``relabel`` is :class:`~lingtest.tin.repair.RelabelConfig`, ``baseline`` extends
:class:`~lingtest.tin.baseline.AttackConfig`, and ``train_data`` / ``train_ner`` come from
:class:`~lingtest.tin.train_ner.TinTraining` (the ``train_ner`` stage's part of the section).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ConfigDict, Field, ValidationError, ValidatorFunctionWrapHandler, create_model, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from lingtest.config import Block
from lingtest.errors import RegistryError
from lingtest.tin.baseline import AttackConfig
from lingtest.tin.repair.relabel import RelabelConfig
from lingtest.tin.train_ner import TinTraining
from lingtest.tin.transformations.base import TransformationConfig


class PhraseCorpus(Block):
    """A parsed split read by the phrase index (``<paths.parsed>/<dataset>/<split>.jsonl``)."""

    dataset: str
    split: str


class PhraseIndex(Block):
    """``tin.phrase_index``: minimal NPs of the parsed ``corpora`` (``max_sentences`` per split; null: all)."""

    corpora: list[PhraseCorpus]
    max_words: int
    min_count: int
    max_sentences: int | None


class Fill(Block):
    """``tin.fill``: ``kind`` names a registered fill-in proposer (:data:`lingtest.resources.fill.FILL_PROPOSERS`);
    every other key belongs to a registered proposer's ``Config`` (every proposer's keys stay in conf/, so
    that switching ``kind`` is one override). :meth:`component` checks them, when the proposer is built."""

    model_config = ConfigDict(extra="allow", frozen=True)  # the proposers' own options, checked by fill_component

    kind: str

    def component(self) -> tuple[Any, Block]:
        """The proposer class ``kind`` names and its validated ``Config``
        (:func:`lingtest.resources.fill.fill_component`)."""
        from lingtest.resources.fill import FILL_PROPOSERS, fill_component

        cls, config = fill_component(FILL_PROPOSERS, self.model_dump(), "tin.fill", shared=())
        return cls, config


class Embedder(Block):
    """``tin.embedder``: the context-aware span embedder (:class:`lingtest.tin.embedding.TransformersSpanEmbedder`)."""

    model: str
    layers: list[int]
    max_length: int
    device: str
    batch_size: int | None


class Filters(Block):
    """``tin.filters``: the SynEval weights, packed scoring and the fit filter's window (the thresholds are in
    each transformation's entry)."""

    weight_min: float
    weight_mean: float
    packed: bool
    #: words after a replacement that the fit filter scores with it (null: the rest of the sentence)
    fit_window: Annotated[int, Field(ge=0)] | None


@dataclass(frozen=True)
class Baseline(AttackConfig):
    """``tin.baseline``: the word-substitution attack's options and the systems it attacks."""

    systems: list[str]


class TinConfig(TinTraining):
    section = "tin"
    model_config = ConfigDict(extra="forbid", frozen=True)

    corpus: str
    split: str
    unlabelled: dict[str, str]
    seed: int
    N: int | None
    batch_sources: Annotated[int, Field(ge=1)] | None
    min_tokens: int
    max_tokens: int
    systems: list[str]
    score_cache: bool
    #: name -> its entry, in generation order, each an instance of its registered class's ``Config``
    transformations: dict[str, TransformationConfig]
    phrase_index: PhraseIndex
    fill: Fill
    embedder: Embedder
    filters: Filters
    relabel: RelabelConfig
    baseline: Baseline
    # train_data, train_ner: TinTraining's

    @field_validator("transformations", mode="wrap")
    @classmethod
    def _registered(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> dict[str, TransformationConfig]:
        return transformation_entries(value)

    @property
    def labelled(self) -> bool:
        """Whether ``corpus`` is a prepared dataset with gold (not a key of ``unlabelled``)."""
        return self.corpus not in self.unlabelled


def transformation_entries(value: Any) -> dict[str, TransformationConfig]:
    """The entries of ``tin.transformations`` in order, each validated by the ``Config`` of the class
    registered under its name; errors name the entry's key (``token.top_k``)."""
    from lingtest.tin.transformations import TRANSFORMATIONS

    if not isinstance(value, Mapping):
        raise PydanticCustomError("transformations", "must map each transformation's name to its config "
                                  "(conf/tin/default.yaml), got {got}", {"got": repr(value)})
    names = [str(n) for n in value]

    def found(name: str) -> bool:  # registered, or a "package.module:Class" import path
        try:
            TRANSFORMATIONS.get(name)
        except RegistryError:
            return False
        return True

    unknown = [InitErrorDetails(type=PydanticCustomError(
        "unregistered", "no tin transformation {name} is registered (or importable); known: {known}",
        {"name": repr(n), "known": ", ".join(TRANSFORMATIONS.names())}), loc=(n,), input=value[n])
        for n in names if not found(n)]
    if unknown:
        raise ValidationError.from_exception_data("tin.transformations", unknown)
    # one model over the entries (aliases: an entry's name may be any string): every entry's errors at once
    fields: dict[str, Any] = {f"entry{i}": (TRANSFORMATIONS.get(n).Config, Field(alias=n)) for i, n in enumerate(names)}
    entries = create_model("Transformations", __config__=ConfigDict(extra="forbid", frozen=True), **fields)
    got = entries.model_validate(dict(value))
    return {n: getattr(got, f"entry{i}") for i, n in enumerate(names)}
