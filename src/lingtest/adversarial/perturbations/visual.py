"""VISUAL: replace one interior letter by a visually similar character (``emergency -> emergeňcy``).

Following Eger et al. (2019), neighbours are found from the Unicode character *names*, not from a
hand-typed table. The rule (:func:`visual_neighbours`):

* scan every code point of the running Python's Unicode database;
* keep letters (category ``Ll``/``Lu``) whose name is
  ``<SCRIPT> (SMALL|CAPITAL) [LETTER] <X>[ WITH <diacritics>]`` where ``<X>`` is a single Latin
  letter ``A``-``Z`` and ``<SCRIPT>`` is one of the configured scripts (``adversarial.visual.scripts``:
  ``LATIN``, ``CYRILLIC``, ``FULLWIDTH LATIN``, and the ``MATHEMATICAL <style>`` alphabets);
* such a character is a neighbour of the ASCII letter ``x`` (``SMALL``) or ``X`` (``CAPITAL``),
  so case is preserved; the ASCII letter itself is excluded.

Examples: ``a`` -> ``à á â ä ā ą а (CYRILLIC SMALL LETTER A) ａ 𝐚 ...``. Names such as
``CYRILLIC SMALL LETTER IE`` (``е``) do not qualify because their name does not spell the same
letter, and ``CIRCLED``/``PARENTHESIZED`` forms are not in the script list.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from lingtest.adversarial.perturbations.base import WordContext, choose, interior_letter_positions


def _name_pattern(scripts: Sequence[str]) -> re.Pattern[str]:
    alts = []
    for s in scripts:
        # MATHEMATICAL is followed by a style (BOLD, DOUBLE-STRUCK, SANS-SERIF BOLD ITALIC, ...)
        alts.append(re.escape(s) + (r"(?: [A-Z-]+)*?" if s == "MATHEMATICAL" else ""))
    return re.compile(r"^(?:" + "|".join(alts) + r") (SMALL|CAPITAL)(?: LETTER)? ([A-Z])(?: WITH .+)?$")


def letter_named(ch: str, scripts: Sequence[str]) -> str | None:
    """The ASCII letter (case preserved) that ``ch``'s Unicode name describes, or ``None``."""
    if unicodedata.category(ch) not in ("Ll", "Lu"):
        return None
    m = _name_pattern(tuple(scripts)).match(unicodedata.name(ch, ""))
    if not m:
        return None
    return m.group(2).lower() if m.group(1) == "SMALL" else m.group(2)


@lru_cache(maxsize=8)
def visual_neighbours(scripts: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """ASCII letter -> characters whose Unicode names describe the same letter (see module doc).

    Built once per script selection by scanning all code points (about half a second).
    """
    pat = _name_pattern(scripts)
    table: dict[str, list[str]] = {}
    for cp in range(0x110000):
        ch = chr(cp)
        name = unicodedata.name(ch, "")
        if not name or unicodedata.category(ch) not in ("Ll", "Lu"):
            continue
        m = pat.match(name)
        if not m:
            continue
        letter = m.group(2).lower() if m.group(1) == "SMALL" else m.group(2)
        if ch != letter:
            table.setdefault(letter, []).append(ch)
    return {k: tuple(v) for k, v in sorted(table.items())}


class VisualLetter:
    """Replace one interior ASCII letter by one of its visual neighbours.

    Same constraints as swap/delete: one change per word, never the first or last character,
    never a word shorter than ``min_length``.
    """

    name = "visual"
    group = "alpha"
    #: the adversarial config groups whose keys are this class's options, merged in order
    options_from = ("orthographic", "visual")

    def __init__(self, min_length: int, scripts: Sequence[str]) -> None:
        self.min_length = min_length
        self.scripts = tuple(scripts)
        self.table = visual_neighbours(self.scripts)

    def perturb(self, word: str, rng: np.random.Generator, context: WordContext | None = None) -> list[str] | None:
        positions = [i for i in interior_letter_positions(word, self.min_length) if self.table.get(word[i])]
        i = choose(rng, positions)
        if i is None:
            return None
        new = choose(rng, self.table[word[i]])
        return [word[:i] + new + word[i + 1:]]
