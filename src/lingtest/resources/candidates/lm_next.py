"""Candidates from a causal language model's own next words (offline CREST's stand-in for masked-LM fills).

The paper asks a masked LM (``bert-large-cased``) what could stand at a position given the whole sentence. No
English masked LM ships offline; the causal LM (Gemma-3-270M) can still say what it would write **after the left
context**: for each content position (UPOS NOUN, VERB, ADJ or ADV; lemmas in ``skip_lemmas`` get none), the
``candidates`` most probable whole next words (:class:`~lingtest.resources.next_words.CausalNextWords`: word-
starting tokens, each continued greedily while the most probable next token continues the word, ``max_pieces``
tokens at most), best first. A word is kept when it is alphabetic, at least two letters, not the original (case
aside), written with the original's initial case (a capitalised word stands for a capitalised one only) and known
to WordNet with the token's part of speech (its inflected forms through WordNet's morphology), so that a fill is a
word of the right kind, not a fragment or a name. The right context is not read here: the
:class:`~lingtest.resources.candidates.rank.LMRanker` scores every candidate with the words after it and its fit
bound compares it with the original; the constituent check then requires the same Penn tag in the re-parsed
follow-up.

Word-vector neighbours (:mod:`~lingtest.resources.candidates.vectors`) propose related words whatever the
sentence (*the company's daughter* for *the owner's daughter*); the LM proposes what fits where it stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.data.align import detokenize
from lingtest.data.model import Sentence
from lingtest.resources.candidates.base import CONTENT_UPOS, Candidate
from lingtest.resources.candidates.wordnet import UPOS_TO_WN, load_wordnet
from lingtest.resources.scores import ScoreGrid

__all__ = ["LMNextProposer"]


class LMNextProposer:
    """``propose(sentence, positions)``: the LM's next words at each content position (module doc). ``scorer``: a
    causal-LM scorer (:class:`~lingtest.resources.lm.CausalLMScorer`; the generator's ranker's, so one model
    serves both); ``words``: a :class:`~lingtest.resources.next_words.NextWordSource` to use instead (tests);
    ``wn``: a WordNet reader (default: :func:`~lingtest.resources.candidates.wordnet.load_wordnet`). Options from
    config (``crest.proposers.lm_next``)."""

    name = "lm_next"

    def __init__(self, scorer: Any = None, *, grid: ScoreGrid, candidates: int, max_pieces: int,
                 skip_lemmas: Sequence[str], words: Any = None, wn: Any = None) -> None:
        if int(candidates) < 1:
            raise ValueError(f"lm_next needs at least one candidate per position, got {candidates}")
        if words is None:
            if scorer is None:
                raise ValueError("lm_next needs a causal-LM scorer (or a next-word source)")
            from lingtest.resources.next_words import CausalNextWords

            words = CausalNextWords.of_scorer(scorer, grid=grid, max_pieces=int(max_pieces), known=None)
        self.words = words
        self.candidates = int(candidates)
        self.skip_lemmas = {s.lower() for s in skip_lemmas}
        self._wn = wn

    @property
    def wn(self) -> Any:
        if self._wn is None:
            self._wn = load_wordnet()
        return self._wn

    def _known(self, word: str, upos: str) -> bool:
        pos_set = UPOS_TO_WN[upos]
        return any(s.pos() in pos_set for s in self.wn.synsets(word.lower(), pos=pos_set[0]))

    def propose(self, sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]:
        toks = sentence.tokens
        words = [t.text for t in toks]
        ws = [t.ws for t in toks]
        todo = [i for i in positions
                if toks[i].pos in CONTENT_UPOS and (toks[i].lemma or toks[i].text).lower() not in self.skip_lemmas]
        if not todo:
            return {}
        nexts = self.words.next_words([detokenize(words[:i], ws[:i]) for i in todo], self.candidates)
        out: dict[int, list[Candidate]] = {}
        for i, got in zip(todo, nexts, strict=True):
            original = words[i]
            keep: list[Candidate] = []
            for word, _ in got:
                if (not word.isalpha() or len(word) < 2 or word.lower() == original.lower()
                        or word[:1].isupper() != original[:1].isupper() or not self._known(word, str(toks[i].pos))):
                    continue
                keep.append(Candidate(word, self.name))
            if keep:
                out[i] = keep
        return out
