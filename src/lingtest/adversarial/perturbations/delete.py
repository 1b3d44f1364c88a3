"""DELETE: drop one interior letter (``rise -> rse``)."""

from __future__ import annotations

import numpy as np

from lingtest.adversarial.perturbations.base import WordContext, choose, interior_letter_positions


class DeleteLetter:
    """Delete one random letter that is neither the first nor the last character.

    When the chosen letter repeats its left neighbour (``letter -> leter``) the deletion is still
    a real change of the string, so every interior letter is a candidate.
    """

    name = "delete"
    group = "alpha"
    #: the adversarial config groups whose keys are this class's options, merged in order
    options_from = ("orthographic",)

    def __init__(self, min_length: int) -> None:
        self.min_length = min_length

    def perturb(self, word: str, rng: np.random.Generator, context: WordContext | None = None) -> list[str] | None:
        i = choose(rng, interior_letter_positions(word, self.min_length))
        if i is None:
            return None
        return [word[:i] + word[i + 1:]]
