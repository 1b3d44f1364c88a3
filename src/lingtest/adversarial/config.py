"""The adversarial benchmark's configuration (``conf/adversarial/default.yaml``, ``cfg.adversarial``),
typed: every key a field, no defaults here (they live in conf/), unknown keys rejected. Validated once
when an adversarial stage starts (and by ``coref_train``, which trains on the perturbed sets)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from lingtest.config import Block, Section


class Mixed(Block):
    """The ``mixed`` set: registered scheme -> weight (per word, drawn among these); ``retry`` the
    other schemes when the drawn one cannot change a word."""

    schemes: dict[str, float]
    retry: bool


class Orthographic(Block):
    """Options of the orthographic schemes (``swap``, ``delete``, ``visual``)."""

    min_length: int


class Visual(Block):
    scripts: list[str]


class Lexical(Block):
    """Options of the lexical schemes (``synonym``, ``hyponym``, ``hypernym``) and their Lesk WSD."""

    window: int
    fallback: Literal["mfs", "none"]
    pos: list[str]
    instances: bool


class Overlap(Block):
    lowercase: bool
    adversarial_train_ratio: float


class AdversarialConfig(Section):
    section = "adversarial"

    p: float
    seed: int
    splits: list[str]
    input: Literal["auto", "parsed", "prepared"]
    sets: list[str]
    mixed: Mixed
    consistency: Literal["token", "document"]
    strip_annotations: bool
    orthographic: Orthographic
    visual: Visual
    lexical: Lexical
    overlap: Overlap
    systems: list[str]
    test_split: str
    metrics: list[str]
    workers: Annotated[int, Field(ge=1)]

    def scheme_options(self, scheme: str) -> dict[str, Any]:
        """The constructor options of registered scheme ``scheme``: the option blocks its class names in
        ``options_from`` (:func:`lingtest.adversarial.perturbations.options_of`), merged in order."""
        from lingtest.adversarial.perturbations import options_of

        return options_of(scheme, self.model_dump())
