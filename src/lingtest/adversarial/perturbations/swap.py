"""SWAP: exchange two adjacent interior letters (``people -> peolpe``)."""

from __future__ import annotations

import numpy as np

from lingtest.adversarial.perturbations.base import WordContext, choose, interior_letter_positions


class SwapLetters:
    """Swap a random pair of adjacent letters, both strictly inside the word.

    Pairs of identical letters are skipped (swapping them changes nothing), so the result always
    differs from the input and has the same length and the same first and last character.
    """

    name = "swap"
    group = "alpha"
    #: the adversarial config groups whose keys are this class's options, merged in order
    options_from = ("orthographic",)

    def __init__(self, min_length: int) -> None:
        self.min_length = min_length

    def candidates(self, word: str) -> list[int]:
        inner = set(interior_letter_positions(word, self.min_length))
        return [i for i in sorted(inner) if i + 1 in inner and word[i] != word[i + 1]]

    def perturb(self, word: str, rng: np.random.Generator, context: WordContext | None = None) -> list[str] | None:
        i = choose(rng, self.candidates(word))
        if i is None:
            return None
        return [word[:i] + word[i + 1] + word[i] + word[i + 2:]]
