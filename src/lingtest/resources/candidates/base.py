"""The candidate record and the proposer protocol."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from lingtest.data.model import Sentence

#: the parts of speech CREST replaces (content words; WordNet covers exactly these)
CONTENT_UPOS = ("NOUN", "VERB", "ADJ", "ADV")


@dataclass(slots=True)
class Candidate:
    """A replacement for one token: ``text`` may hold several words (``"ice cream"``).

    ``source`` names where it came from (``wordnet_synonym``, ``wordnet_antonym``, ``vectors``,
    ``masked_lm``); ``prob`` is the language-model probability when it was ranked; ``fit`` the
    log-probability difference against the original word when the ranker checked it
    (:class:`~lingtest.resources.candidates.rank.LMRanker`, ``min_fit``).
    """

    text: str
    source: str
    prob: float | None = None
    fit: float | None = None

    @property
    def words(self) -> list[str]:
        return self.text.split()


class Proposer(Protocol):
    name: str

    def propose(self, sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]:
        """Candidates for each position of ``sentence`` (a parsed sentence)."""
        ...


def merge_candidates(original: str, lists: Iterable[list[Candidate]]) -> list[Candidate]:
    """Concatenate candidate lists, dropping the original word and case-insensitive duplicates
    (the first source wins, so proposer order in the config sets precedence)."""
    seen = {original.lower()}
    out: list[Candidate] = []
    for lst in lists:
        for c in lst:
            key = c.text.lower()
            if key in seen or not c.text.strip():
                continue
            seen.add(key)
            out.append(c)
    return out
