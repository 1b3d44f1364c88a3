"""Inflect a replacement lemma to the form of the word it replaces (``lemminflect``).

A WordNet lemma or a vector neighbour is a base form; the follow-up needs the original token's
inflection (``ate`` -> ``devoured``, ``lakes`` -> ``ponds``) and capitalisation. Multi-word
replacements inflect their head: the last word for nouns/adjectives/adverbs (``ice creams``),
the first for verbs (``looked into``).
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

_UPOS_OK = {"NOUN", "VERB", "ADJ", "ADV", "PROPN", "AUX"}


def _lemminflect() -> ModuleType:
    """``lemminflect``, imported on first use: it imports spaCy (and with it torch), which costs a
    stage that only reads configs or JSON seconds of start-up."""
    import lemminflect

    return lemminflect


@lru_cache(maxsize=65536)
def lemmatize(word: str, upos: str) -> str:
    """Base form of ``word`` read as ``upos`` (the word itself when lemminflect knows none)."""
    if upos not in _UPOS_OK:
        return word
    lemmas = _lemminflect().getLemma(word, upos=upos, lemmatize_oov=False)
    return lemmas[0] if lemmas else word


@lru_cache(maxsize=65536)
def _inflect_word(lemma: str, tag: str) -> str | None:
    forms = _lemminflect().getInflection(lemma, tag=tag, inflect_oov=True)
    return forms[0] if forms else None


def inflect_like(lemma: str, tag: str | None, upos: str | None) -> str | None:
    """``lemma`` (one or more space-separated words) inflected to Penn ``tag``.

    Returns ``None`` when ``lemminflect`` cannot produce the form (the candidate is dropped rather
    than inserted ungrammatically). Base-form tags (``NN``, ``VB``, ``JJ``, ``RB``, ``VBP`` other
    than for *be*) return the lemma unchanged.
    """
    words = lemma.replace("_", " ").split()
    if not words:
        return None
    if tag is None or tag in ("NN", "JJ", "RB", "NNP", "VB") or not tag[:1].isalpha():
        return " ".join(words)
    head = 0 if (upos == "VERB" or tag.startswith("VB")) else len(words) - 1
    form = _inflect_word(words[head], tag)
    if form is None:
        return None
    words[head] = form
    return " ".join(words)


def match_case(word: str, original: str) -> str:
    """Copy the capitalisation pattern of ``original`` (all caps, title case, lower case)."""
    if len(original) > 1 and original.isupper():
        return word.upper()
    if original[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
