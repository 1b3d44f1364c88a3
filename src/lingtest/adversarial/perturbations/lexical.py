"""SYNONYM / HYPONYM / HYPERNYM: replace a word through the WordNet sense chosen by adapted Lesk.

For a word in its sentence:

1. eligibility: alphabetic (hyphens allowed), not a function word; with POS tags, only the
   UPOS in ``pos`` (configured: NOUN, VERB, ADJ, ADV: proper nouns and pronouns are left alone); without
   tags, capitalised words that do not start the sentence are treated as names and skipped;
2. the sense is the synset that :class:`~lingtest.adversarial.lesk.AdaptedLesk` picks (the WordNet
   POS comes from the tag; untagged words use noun senses, else adjective senses -- mention words
   are nominal);
3. candidates are lemmas of that very synset (synonym), of its hyponyms (hyponym) or of its
   hypernyms (hypernym), instance relations included when ``instances`` is true; the word itself
   and its base form are excluded. So the substitute always shares the Lesk-chosen sense
   (synonym) or is directly related to it (hyponym/hypernym);
4. one candidate is drawn with ``rng``; multi-word lemmas (``ice_cream``) become several tokens;
   number/tense follow the original (``NNS`` plural, ``VBD``... via lemminflect) and the
   capitalisation pattern (Title, UPPER) is copied.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from lingtest.adversarial.lesk import AdaptedLesk, stopwords, wordnet_pos
from lingtest.adversarial.perturbations.base import WordContext, choose

_INFLECT_TAGS = {"NNS", "VBD", "VBG", "VBN", "VBZ"}

_SHARED_LESK: dict[tuple, AdaptedLesk] = {}


def shared_lesk(window: int, fallback: str) -> AdaptedLesk:
    """One cached :class:`AdaptedLesk` per setting, so the three lexical schemes share caches."""
    key = (int(window), fallback)
    if key not in _SHARED_LESK:
        _SHARED_LESK[key] = AdaptedLesk(window=window, fallback=fallback)
    return _SHARED_LESK[key]


def _inflect(lemma: str, tag: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(lemma, tag)
    return forms[0] if forms else lemma


def _match_case(tokens: list[str], original: str) -> list[str]:
    if len(original) > 1 and original.isupper():
        return [t.upper() for t in tokens]
    if original[:1].isupper():
        return [tokens[0][:1].upper() + tokens[0][1:], *tokens[1:]]
    return tokens


class _LexicalReplacement(ABC):
    """Shared steps of the three lexical schemes; subclasses name the WordNet relation. Options from
    ``adversarial.lexical``: the Lesk ``window`` and ``fallback`` (:class:`AdaptedLesk`; ignored when a
    ``lesk`` is given), the UPOS ``pos`` that may be replaced, and whether ``instances`` relations count."""

    name = "lexical"
    group = "beta"
    #: the adversarial config groups whose keys are this class's options
    options_from = ("lexical",)
    relation = "synonym"

    def __init__(self, *, window: int, fallback: str, pos: Sequence[str], instances: bool,
                 lesk: AdaptedLesk | None = None) -> None:
        self.lesk = lesk if lesk is not None else shared_lesk(window, fallback)
        self.pos = tuple(pos)
        self.instances = bool(instances)
        self.function_words = stopwords()

    # ---- steps ----------------------------------------------------------------------------
    def eligible(self, word: str, context: WordContext | None) -> bool:
        if not word.replace("-", "").isalpha() or word.lower() in self.function_words or len(word) < 2:
            return False
        if context is not None:
            if (context.tag_at(context.index) or "").startswith("NNP"):
                return False  # proper noun, whatever the UPOS says (GUM tags "United" VERB/NNP)
            upos = context.pos_at(context.index)
            if upos is not None:
                return upos in self.pos
            if context.tag_at(context.index) is None and context.index > 0 and word[:1].isupper():
                return False  # probably a name
        return True

    def target_pos(self, word: str, context: WordContext | None) -> str | None:
        if context is not None:
            p = wordnet_pos(context.pos_at(context.index), context.tag_at(context.index))
            if p is not None:
                return p
        return "n" if self.lesk.senses(word, "n") else "a"

    def sense(self, word: str, context: WordContext | None) -> Any | None:
        """The Lesk-chosen synset of ``word`` in ``context`` (its sentence)."""
        tpos = self.target_pos(word, context)
        if context is None:
            context = WordContext(words=(word,), index=0)
        pos = [wordnet_pos(context.pos_at(i), context.tag_at(i)) for i in range(len(context.words))]
        pos[context.index] = tpos
        return self.lesk.disambiguate(context.words, context.index, pos)

    @abstractmethod
    def related(self, synset: Any) -> list[Any]:
        """Synsets whose lemmas may replace a word of sense ``synset``."""

    def candidates(self, word: str, context: WordContext | None = None) -> list[str]:
        """WordNet lemma names (``_`` for spaces) that may replace ``word``, in WordNet order."""
        if not self.eligible(word, context):
            return []
        s = self.sense(word, context)
        if s is None:
            return []
        base = {word.lower()}
        base.update(m for m in (self.lesk.wn.morphy(word.lower(), s.pos() if s.pos() != "s" else "a"),) if m)
        out: list[str] = []
        for syn in self.related(s):
            for lemma in syn.lemma_names():
                if lemma.lower() in base or lemma in out:
                    continue
                if not lemma.replace("_", "").replace("-", "").replace("'", "").isalpha():
                    continue
                if lemma[:1].isupper() and not word[:1].isupper():
                    continue  # a name (``Columba_fasciata``) for a common word
                out.append(lemma)
        return out

    def realise(self, lemma: str, word: str, context: WordContext | None) -> list[str]:
        """Tokens for ``lemma`` with the original's inflection and capitalisation."""
        tokens = lemma.split("_")
        tag = context.tag_at(context.index) if context is not None else None
        if tag is None:
            # untagged: a noun whose form differs from its base form is a plural
            wl = word.lower()
            base = self.lesk.wn.morphy(wl, "n")
            if base is not None and base != wl and wl.endswith("s") and lemma.islower():
                tag = "NNS"
        if tag in _INFLECT_TAGS:
            if tag.startswith("NN"):
                if lemma[:1].islower():
                    tokens[-1] = _inflect(tokens[-1], tag)
            else:
                tokens[0] = _inflect(tokens[0], tag)
        # lemminflect may answer with a space (flatfoot -> "flat feet"): keep tokens space-free
        tokens = [piece for t in tokens for piece in t.split() if piece]
        return _match_case(tokens, word)

    def perturb(self, word: str, rng: np.random.Generator, context: WordContext | None = None) -> list[str] | None:
        lemma = choose(rng, self.candidates(word, context))
        if lemma is None:
            return None
        tokens = self.realise(lemma, word, context)
        if tokens == [word]:
            return None
        return tokens


class SynonymReplacement(_LexicalReplacement):
    """Another lemma of the Lesk-chosen synset (``next -> upcoming``)."""

    name = "synonym"
    relation = "synonym"

    def related(self, synset: Any) -> list[Any]:
        return [synset]


def _synset_name(synset: Any) -> str:
    """Sort key: NLTK returns related synsets in an order that depends on Python's per-process
    string hashing, so a seeded choice among them must sort them first."""
    return synset.name()


class HyponymReplacement(_LexicalReplacement):
    """A lemma of a hyponym of the Lesk-chosen synset (``people -> workers``)."""

    name = "hyponym"
    relation = "hyponym"

    def related(self, synset: Any) -> list[Any]:
        out = list(synset.hyponyms())
        if self.instances:
            out += synset.instance_hyponyms()
        return sorted(out, key=_synset_name)


class HypernymReplacement(_LexicalReplacement):
    """A lemma of a hypernym of the Lesk-chosen synset (``pigeon -> bird``)."""

    name = "hypernym"
    relation = "hypernym"

    def related(self, synset: Any) -> list[Any]:
        out = list(synset.hypernyms())
        if self.instances:
            out += synset.instance_hypernyms()
        return sorted(out, key=_synset_name)
