"""TextAttack (Morris et al., EMNLP 2020 demos): its augmentation recipes that CheckList does not cover, as the
CREST paper uses them: neighbouring-character swaps and the Easy Data Augmentation operations (WordNet
synonym replacement, random synonym insertion, random swap, random deletion).

TextAttack does not install and run offline (pip's resolver does not settle its dependency closure, and on
import it downloads NLTK data and a Stanza model, ``textattack.shared.utils.install._post_install``), so the
recipes are re-implemented here as small pure functions over tokens, with
TextAttack's defaults: each follow-up modifies ``max(1, int(pct_words_to_swap * words))`` words
(``pct_words_to_swap`` 0.1); a word is a token with a letter or digit; stop words are never modified
(TextAttack's augmenters carry ``StopwordModification``; the list here is spaCy's English one) and no word is
modified twice (``RepeatModification``). Per recipe:

* ``char_swap`` (``WordSwapNeighboringCharacterSwap``, ``random_one``): two neighbouring characters of a word
  swapped;
* ``eda_synonym`` (``WordSwapWordNet``): a word replaced by a random one-word WordNet synonym (any sense);
* ``eda_insert`` (``WordInsertionRandomSynonym``): a random one-word WordNet synonym of a random word inserted
  before a random word (carried by a neighbouring token outside the gold mentions where there is one,
  :func:`~lingtest.crest.baselines.edits.insertion`);
* ``eda_swap`` (``WordInnerSwapRandom``): a word exchanged with another random word (the token multiset is
  kept);
* ``eda_delete`` (``WordDeletion``): random words deleted, at most ``max_deletions`` (1: a record's alignment
  holds one deletion).

Follow-ups of a source are drawn recipe after recipe in turn until M distinct ones exist or
``draws_per_followup * M`` draws are spent.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from lingtest.config import Block
from lingtest.crest.baselines.base import Generated, Parts, source_rng
from lingtest.crest.baselines.edits import Edit, Perturbation, apply_edits, insertion
from lingtest.crest.baselines.patinv import stop_words
from lingtest.crest.generate import Source

Recipe = Literal["char_swap", "eda_synonym", "eda_insert", "eda_swap", "eda_delete"]
RECIPES: tuple[str, ...] = ("char_swap", "eda_synonym", "eda_insert", "eda_swap", "eda_delete")


class TextAttackConfig(Block):
    """``crest_baselines.textattack``."""

    recipes: list[Recipe]           # drawn in turn (TextAttack's char swap and EDA operations)
    pct_words_to_swap: float        # share of the words one follow-up modifies (TextAttack: 0.1), at least 1
    max_deletions: int              # words one eda_delete follow-up deletes at most
    skip_stopwords: bool            # never modify a stop word (TextAttack's StopwordModification)
    draws_per_followup: int         # draws spent per wanted follow-up before a source gives up


def is_word(token: str) -> bool:
    return any(c.isalnum() for c in token)


def n_modified(words: Sequence[str], pct: float) -> int:
    """TextAttack's ``max(int(pct * words), 1)`` over the tokens that are words."""
    return max(int(pct * sum(is_word(w) for w in words)), 1)


def swap_neighbouring_characters(word: str, rng: random.Random) -> str | None:
    """``word`` with two neighbouring characters swapped at a random place (``None``: too short or no
    change)."""
    if len(word) < 2:
        return None
    i = rng.randrange(len(word) - 1)
    out = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return out if out != word else None


def wordnet_synonyms(wordnet: Any, word: str) -> list[str]:
    """One-word WordNet synonyms of ``word`` over all its senses, in WordNet order, without ``word`` itself
    (``WordSwapWordNet``: no lemma joined by ``_``)."""
    out: list[str] = []
    for s in wordnet.synsets(word.lower()):
        for lem in s.lemmas():
            name = lem.name()
            if "_" in name or "-" in name or name.lower() == word.lower() or name in out:
                continue
            out.append(name)
    return out


class TextAttack:
    name: ClassVar[str] = "textattack"
    Config = TextAttackConfig

    @classmethod
    def from_config(cls, config: TextAttackConfig, parts: Parts) -> TextAttack:
        return cls(config, parts.wordnet)

    def __init__(self, config: TextAttackConfig, wordnet: Any, stops: frozenset[str] | None = None) -> None:
        self.config = config
        self.wordnet = wordnet
        self.stops = stop_words() if stops is None else stops

    def modifiable(self, words: Sequence[str]) -> list[int]:
        return [i for i, w in enumerate(words)
                if is_word(w) and not (self.config.skip_stopwords and w.lower() in self.stops)]

    def draw(self, source: Source, recipe: str, rng: random.Random) -> Perturbation | None:
        """One follow-up of ``recipe`` (``None`` when this draw found nothing to change)."""
        words = source.sentence.words
        idx = self.modifiable(words)
        n = n_modified(words, self.config.pct_words_to_swap)
        rng.shuffle(idx)
        if recipe == "char_swap":
            edits = []
            for i in idx:
                new = swap_neighbouring_characters(words[i], rng)
                if new is not None:
                    edits.append(Edit(i, (new,)))
                if len(edits) == n:
                    break
            return Perturbation(tuple(edits), recipe) if edits else None
        if recipe == "eda_synonym":
            edits = []
            for i in idx:
                syns = wordnet_synonyms(self.wordnet, words[i])
                if syns:
                    edits.append(Edit(i, (rng.choice(syns),)))
                if len(edits) == n:
                    break
            return Perturbation(tuple(edits), recipe) if edits else None
        if recipe == "eda_insert":
            return self._insert(source, idx, n, rng)
        if recipe == "eda_swap":
            if len(idx) < 2:
                return None
            cur = list(words)
            for _ in range(n):
                a, b = rng.sample(idx, 2)
                cur[a], cur[b] = cur[b], cur[a]
            swapped = tuple(Edit(i, (w,)) for i, (w, old) in enumerate(zip(cur, words, strict=True)) if w != old)
            return Perturbation(swapped, recipe) if swapped else None
        if recipe == "eda_delete":
            k = min(n, self.config.max_deletions, len(words) - 1)
            if k < 1 or not idx:
                return None
            return Perturbation(tuple(Edit(i, ()) for i in sorted(idx[:k])), recipe)
        raise ValueError(f"unknown TextAttack recipe {recipe!r}; known: {', '.join(RECIPES)}")

    def _insert(self, source: Source, idx: list[int], n: int, rng: random.Random) -> Perturbation | None:
        """``WordInsertionRandomSynonym``: before each of ``n`` modifiable words, a random one-word synonym of a
        random word of the sentence (seven tries to find a word with one)."""
        sent = source.sentence
        words, ws = sent.words, [t.ws for t in sent.tokens]
        protected = {i for c in source.gold for s, e in c for i in range(s, e)}
        edits: dict[int, Edit] = {}
        for i in idx[:n]:
            syns: list[str] = []
            for _ in range(7):
                syns = [w for w in wordnet_synonyms(self.wordnet, rng.choice(words)) if w.isalpha()]
                if syns:
                    break
            if not syns:
                continue
            e = insertion(words, ws, i, [rng.choice(syns)], protected)
            edits.setdefault(e.position, e)
        return Perturbation(tuple(edits.values()), "eda_insert") if edits else None

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        c = self.config
        out = Generated([])
        for source in sources:
            rng = source_rng(seed, self.name, source.id)
            words = source.sentence.words
            ws = [t.ws for t in source.sentence.tokens]
            seen = {tuple(words)}
            kept: list[Perturbation] = []
            for k in range(c.draws_per_followup * M):
                if len(kept) >= M or not c.recipes:
                    break
                recipe = c.recipes[k % len(c.recipes)]
                p = self.draw(source, recipe, rng)
                if p is None:
                    out.dropped["nothing_to_change"] += 1
                    continue
                out.proposed[recipe] += 1
                key = tuple(apply_edits(words, ws, p.edits)[0])
                if key in seen:
                    out.dropped["duplicate"] += 1
                    continue
                seen.add(key)
                kept.append(p)
                out.kept[recipe] += 1
            out.followups.append(kept)
        return out
