"""The perturbation interface and the orthographic constraints shared by swap/delete/visual (their
``min_length``: ``adversarial.orthographic.min_length``, the paper's constraint 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True, slots=True)
class WordContext:
    """Where a word occurs: its sentence (texts and optional POS) and its index there.

    Lexical schemes use it for word sense disambiguation and to keep the inflection of the
    replaced word; orthographic schemes ignore it.
    """

    words: tuple[str, ...]
    index: int
    pos: tuple[str | None, ...] = field(default=())  # UPOS per word, may be empty
    tags: tuple[str | None, ...] = field(default=())  # PTB tag per word, may be empty

    @property
    def word(self) -> str:
        return self.words[self.index]

    def pos_at(self, i: int) -> str | None:
        return self.pos[i] if i < len(self.pos) else None

    def tag_at(self, i: int) -> str | None:
        return self.tags[i] if i < len(self.tags) else None


@runtime_checkable
class Perturbation(Protocol):
    """A word-level attack. ``perturb`` is pure given ``rng``: it returns the replacement
    tokens (one token for orthographic schemes, one or more for multi-word lemmas) or ``None``
    when the word is not eligible; it never returns the word unchanged."""

    name: str
    group: str

    def perturb(self, word: str, rng: np.random.Generator,
                context: WordContext | None = None) -> list[str] | None: ...


def interior_letter_positions(word: str, min_length: int) -> list[int]:
    """Positions an orthographic attack may touch: alphabetic characters that are neither the
    first nor the last character, in words of at least ``min_length`` characters."""
    if len(word) < min_length:
        return []
    return [i for i in range(1, len(word) - 1) if word[i].isalpha()]


def choose(rng: np.random.Generator, items: Sequence):
    """A uniformly chosen element (``None`` for an empty sequence)."""
    if not items:
        return None
    return items[int(rng.integers(len(items)))]
