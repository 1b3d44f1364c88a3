"""Mention attributes: pronoun table, number, NER mapping, agreement, WordNet animacy."""

from __future__ import annotations

import pytest

from lingtest.systems.coref import features as F


def test_pronoun_table():
    he = F.pronoun_info("He")
    assert (he.number, he.gender, he.person, he.animacy) == (F.SINGULAR, F.MALE, 3, F.ANIMATE)
    assert F.pronoun_info("themselves").reflexive and F.pronoun_info("their").possessive
    assert F.pronoun_info("we").person == 1 and F.pronoun_info("you").person == 2
    assert F.pronoun_info("this").demonstrative
    assert F.pronoun_info("house") is None


@pytest.mark.parametrize(("tag", "morph", "word", "expected"), [
    ("NNS", None, "dogs", F.PLURAL), ("NN", None, "dog", F.SINGULAR), ("NNP", "Number=Plur", "Smiths", F.PLURAL),
    ("PRP", None, "they", F.PLURAL), ("JJ", None, "big", F.UNKNOWN),
])
def test_number(tag, morph, word, expected):
    assert F.number_from_token(tag, morph, word) == expected


def test_ner_normalisation_and_animacy():
    assert F.normalise_ner("PER") == "PERSON" and F.normalise_ner("O") is None
    assert F.animacy_from_ner("PERSON") == F.ANIMATE
    assert F.animacy_from_ner("GPE") == F.INANIMATE
    assert F.animacy_from_ner("NORP") == F.UNKNOWN


def test_compatible_sets():
    assert F.compatible({F.MALE}, {F.UNKNOWN})
    assert F.compatible({F.MALE, F.UNKNOWN}, {F.MALE})
    assert not F.compatible({F.MALE}, {F.FEMALE})
    assert F.compatible(set(), {F.FEMALE})


def test_animacy_lexicon_with_custom_lookup():
    lex = F.AnimacyLexicon(lookup=lambda w: F.ANIMATE if w == "teacher" else F.INANIMATE)
    assert lex.animacy("Teacher") == F.ANIMATE
    assert lex.animacy("table") == F.INANIMATE
    assert lex.animacy("1990s") == F.UNKNOWN  # not a word


@pytest.fixture(scope="module")
def wordnet_lexicon():
    lex = F.AnimacyLexicon()
    try:
        lex.animacy("dog")
    except Exception as exc:  # MissingResourceError when WordNet is absent
        pytest.skip(f"WordNet not available: {exc}")
    return lex


def test_wordnet_animacy(wordnet_lexicon):
    assert wordnet_lexicon.animacy("composer") == F.ANIMATE
    assert wordnet_lexicon.animacy("dog") == F.ANIMATE
    assert wordnet_lexicon.animacy("symphony") == F.INANIMATE
    assert wordnet_lexicon.animacy("xqzzyv") == F.UNKNOWN
