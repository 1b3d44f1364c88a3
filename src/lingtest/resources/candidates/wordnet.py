"""WordNet synonyms and antonyms (Algorithm 1, lines 10-11).

Sense-compatibility rule (no word-sense disambiguation is run): a token's candidates come only
from the synsets of its lemma **with the token's part of speech** (UPOS NOUN/VERB/ADJ/ADV mapped to
WordNet n/v/a+s/r), restricted to the ``max_senses`` most frequent senses in WordNet's order (sense
numbers are ordered by SemCor frequency, so the first sense is the best guess without context).
Synonyms are the other lemma names of those synsets; antonyms are the antonyms WordNet lists for
the token's lemma in those synsets. Every candidate is inflected to the original token's Penn tag
(:func:`~lingtest.resources.candidates.inflect.inflect_like`) and given its capitalisation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Sentence
from lingtest.resources.candidates.base import CONTENT_UPOS, Candidate
from lingtest.resources.candidates.inflect import inflect_like, lemmatize, match_case

UPOS_TO_WN = {"NOUN": ("n",), "VERB": ("v",), "ADJ": ("a", "s"), "ADV": ("r",)}


def load_wordnet() -> Any:
    """The NLTK WordNet reader via :mod:`lingtest.resources.wordnet` when present, else NLTK's."""
    try:
        from lingtest.resources.wordnet import ensure_wordnet
    except ImportError:
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
        return wordnet
    return ensure_wordnet()


class WordNetProposer:
    """Synonyms and antonyms of a content word from its ``max_senses`` most frequent senses (when
    ``synonyms`` / ``antonyms``), at most ``max_per_position`` per position; lemmas in ``skip_lemmas`` get
    none. Options from config (``crest.proposers.wordnet``, ``tin.fill.wordnet``); ``wn``: a WordNet reader
    to use (default: :func:`load_wordnet` on first use)."""

    name = "wordnet"

    def __init__(self, wn: Any = None, *, max_senses: int, synonyms: bool, antonyms: bool,
                 max_per_position: int, skip_lemmas: Sequence[str]) -> None:
        self._wn = wn
        self.max_senses = max_senses
        self.synonyms = synonyms
        self.antonyms = antonyms
        self.max_per_position = max_per_position
        self.skip_lemmas = set(skip_lemmas)

    @property
    def wn(self) -> Any:
        if self._wn is None:
            self._wn = load_wordnet()
        return self._wn

    def lemma_candidates(self, lemma: str, upos: str) -> list[tuple[str, str]]:
        """(base-form candidate, source) pairs for ``lemma`` read as ``upos``, in WordNet order."""
        pos_set = UPOS_TO_WN.get(upos)
        if not pos_set or lemma.lower() in self.skip_lemmas:
            return []
        synsets = [s for s in self.wn.synsets(lemma, pos=pos_set[0]) if s.pos() in pos_set]
        synsets = synsets[: self.max_senses]
        out: list[tuple[str, str]] = []
        key = lemma.lower()
        for s in synsets:
            for lem in s.lemmas():
                name = lem.name().replace("_", " ")
                if self.synonyms and name.lower() != key:
                    out.append((name, "wordnet_synonym"))
                if self.antonyms and lem.name().lower() == key.replace(" ", "_"):
                    out.extend((a.name().replace("_", " "), "wordnet_antonym")
                               for a in sorted(lem.antonyms(), key=lambda x: x.name()))
        return out

    def propose(self, sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]:
        out: dict[int, list[Candidate]] = {}
        for i in positions:
            tok = sentence.tokens[i]
            if tok.pos not in CONTENT_UPOS:
                continue
            lemma = tok.lemma or lemmatize(tok.text, tok.pos)
            cands: list[Candidate] = []
            seen = {tok.text.lower()}
            for base, source in self.lemma_candidates(lemma, tok.pos):
                form = inflect_like(base, tok.tag, tok.pos)
                if form is None:
                    continue
                form = match_case(form, tok.text)
                if form.lower() in seen:
                    continue
                seen.add(form.lower())
                cands.append(Candidate(form, source))
                if len(cands) >= self.max_per_position:
                    break
            if cands:
                out[i] = cands
        return out
