"""PatInv (Gupta, He, Meister and Su, ESEC/FSE 2020), PaInv-Replace adapted as in the CREST paper: a verb or
adverb of the source replaced by a masked-LM substitute that is *not* a synonym, to diversify the follow-ups.

As the PatInv artifact (``PatInv.py``): tokens whose tag starts with one of ``tags`` (the CREST paper: verbs
and adverbs, ``VB``, ``RB``; the artifact also takes ``JJ``, ``NN`` and ``PRP``), except the first and the
last, stop words and *'s*, get the top ``top_k`` (50) substitutes; substitutes shorter than two characters
or holding punctuation are dropped; the substitute must keep the first two letters of the tag after
re-tagging; the follow-up's constituency tree without labels must be within tree edit distance 1 of the
source's (one renamed leaf: the same unlabelled shape, :func:`tree_shape`); and the substitute must not be
a synonym of the original word (neither word nor its verb base form among the WordNet synonyms of the
other's base form), share its stem (Snowball), have the same lemma, or be a stop word. The artifact's
synonym dictionary (``synonyms.dat``) is WordNet here and its NLTK stop words are spaCy's English list.
Follow-ups come in position order, best substitute first, at most M per source; the masked LM's offline
substitute is the project's fill-in proposer (:mod:`~lingtest.crest.baselines.substitution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from lingtest.config import Block
from lingtest.crest.baselines.base import Generated, Parts
from lingtest.crest.baselines.substitution import (
    Substitute,
    collect,
    parse_substitutes,
    propose,
    tag_positions,
)
from lingtest.crest.generate import Source
from lingtest.data.model import Sentence, Tree


class PatInvConfig(Block):
    """``crest_baselines.patinv``."""

    tags: list[str]                 # PTB tag prefixes replaced (the CREST paper: VB, RB)
    top_k: int                      # substitutes per position (PatInv: num_of_perturb = 50)
    min_score: float                # in the fill proposer's unit
    min_chars: int                  # PatInv drops substitutes of one character
    skip_edges: bool                # never the first or the last token
    same_tag_prefix: bool           # the substitute keeps the first two letters of the tag after re-parsing
    same_tree_shape: bool           # the unlabelled constituency tree is within edit distance 1 of the source's
    non_synonym: bool               # drop WordNet synonyms, same stems and lemmas, and stop words


Shape = tuple[Any, ...]


def tree_shape(tree: Tree) -> Shape:
    """The tree without its labels (a preterminal is ``()``): two trees over sentences that differ in one
    word are within tree edit distance 1 of each other (PatInv's check, labels removed) exactly when their
    shapes are equal."""
    if tree.token is not None:
        return ()
    return tuple(tree_shape(c) for c in tree.children)


def stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


class Lexicon:
    """WordNet synonyms, verb base forms and stems, memoised (``wordnet``: an NLTK WordNet reader)."""

    def __init__(self, wordnet: Any) -> None:
        self.wn = wordnet
        self.stops = stop_words()
        self._syn: dict[str, frozenset[str]] = {}

    def base(self, word: str) -> str:
        """The verb base form (WordNet's morphy, as NLTK's lemmatizer with ``pos='v'``)."""
        return self.wn.morphy(word.lower(), "v") or word.lower()

    def stem(self, word: str) -> str:
        return str(_stemmer().stem(word.lower()))

    def synonyms(self, word: str) -> frozenset[str]:
        """Every lemma name of every synset of ``word`` (lower case, spaces for underscores)."""
        key = word.lower()
        if key not in self._syn:
            self._syn[key] = frozenset(lem.name().replace("_", " ").lower()
                                       for s in self.wn.synsets(key) for lem in s.lemmas())
        return self._syn[key]

    def verdict(self, original: str, new: str) -> str | None:
        """Why PatInv drops replacing ``original`` by ``new`` (``None``: it keeps it)."""
        w1, w2 = original.lower(), new.lower()
        s1, s2 = self.stem(w1), self.stem(w2)
        b1, b2 = self.base(w1), self.base(w2)
        if s1 == s2:
            return "same_stem"
        if b1 == b2:
            return "same_lemma"
        syn1, syn2 = self.synonyms(b1), self.synonyms(b2)
        if w1 in syn2 or b1 in syn2 or w2 in syn1 or b2 in syn1:
            return "synonym"
        if {w1, w2, s1, s2, b1, b2} & self.stops:
            return "stop_word"
        return None


def patinv_verdict(source: Sentence, followup: Sentence, position: int, config: PatInvConfig) -> str | None:
    """``None`` when the parsed follow-up passes PatInv's syntactic checks, else the check it fails."""
    if len(followup) != len(source):
        return "token_count"
    if config.same_tag_prefix and (followup.tokens[position].tag or "")[:2] != (source.tokens[position].tag or "")[:2]:
        return "tag_changed"
    if config.same_tree_shape:
        if source.tree is None or followup.tree is None:
            return "no_tree"
        if tree_shape(source.tree) != tree_shape(followup.tree):
            return "tree_changed"
    return None


class PatInv:
    name: ClassVar[str] = "patinv"
    Config = PatInvConfig

    @classmethod
    def from_config(cls, config: PatInvConfig, parts: Parts) -> PatInv:
        return cls(config, parts.parser, parts.fill, Lexicon(parts.wordnet))

    def __init__(self, config: PatInvConfig, parser: Any, fill: Any, lexicon: Lexicon) -> None:
        self.config = config
        self.parser = parser
        self.fill = fill
        self.lexicon = lexicon

    def fill_positions(self, sentence: Sentence) -> list[int]:
        """Tagged positions, without stop words and *'s* (PatInv)."""
        return [i for i in tag_positions(sentence, self.config.tags, self.config.skip_edges)
                if sentence.tokens[i].text.lower() not in self.lexicon.stops and sentence.tokens[i].text != "'s"]

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        c = self.config
        subs, _ = propose(self.fill, sources, [self.fill_positions(s.sentence) for s in sources], top_k=c.top_k,
                          min_score=c.min_score, min_chars=c.min_chars, reject_punctuation=True)
        lexical: list[str | None] = [
            self.lexicon.verdict(sources[s.source].sentence.tokens[s.position].text, s.word) if c.non_synonym else None
            for s in subs]
        todo: list[Substitute] = [s for s, v in zip(subs, lexical, strict=True) if v is None]
        parsed = iter(parse_substitutes(self.parser, sources, todo))
        verdicts = [v if v is not None else patinv_verdict(sources[s.source].sentence, next(parsed), s.position, c)
                    for s, v in zip(subs, lexical, strict=True)]
        return collect(len(sources), self.name, subs, verdicts, M)
