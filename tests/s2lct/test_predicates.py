"""S2LCT search predicates on hand-made sentences."""

from __future__ import annotations

import pytest

from lingtest.s2lct.predicates import (
    And,
    Knowledge,
    Not,
    Or,
    PredicateError,
    SearchSentence,
    parse_predicate,
    sentence_length,
)

SENT = {("good", "adj"): "positive", ("bad", "adj"): "negative", ("movie", "noun"): "neutral",
        ("both", "adj"): "neutral", ("way", "noun"): "neutral", ("hate", "verb"): "negative",
        ("love", "noun"): "positive"}


def sentiment(word: str, pos: str) -> str | None:
    return SENT.get((word.lower(), pos))


K = Knowledge(lexicons={"negation": ["not", "n't"], "profanity": ["shit", "pissed off"]}, sentiment=sentiment)


def s(text: str, tags: str, label: str | None = None) -> SearchSentence:
    return SearchSentence(text.split(), tags.split(), label)


GOOD = s("a good movie .", "DT JJ NN .", "positive")
BAD = s("This is a bad movie", "DT VBZ DT JJ NN", "negative")
NEUTRAL = s("Or both .", "CC DT .", "neutral")
BOTH_ADJ = s("both ways", "JJ NNS", "neutral")


def holds(pred: str, sent: SearchSentence) -> bool:
    return parse_predicate(pred).holds(sent, K)


def test_length_excludes_a_final_period():
    assert sentence_length(["a", "b", "."]) == 2
    assert sentence_length(["a", ".", "b"]) == 3
    assert holds("hasattr(length, < 4)", GOOD)
    assert not holds("hasattr(length, < 3)", GOOD)
    assert holds("hasattr(length, == 3)", GOOD) and holds("hasattr(length, >= 3)", GOOD)
    assert holds("hasattr(length, != 2)", GOOD) and not holds("hasattr(length, > 3)", GOOD)


def test_label_and_text():
    assert holds("hasattr(label, positive)", GOOD)
    assert not holds("hasattr(label, negative)", GOOD)
    assert holds("hasattr(label, != negative)", GOOD)
    assert holds('hasattr(text, ~ "^(this|that) (is|are) ")', BAD)  # case-insensitive
    assert not holds('hasattr(text, ~ "^(this|that) (is|are) ")', GOOD)


def test_contain_word_sentiment_and_pos():
    assert holds("contain(pos, positive_adj)", GOOD)
    assert holds("contain(pos, neutral_noun)", GOOD)
    assert not holds("contain(pos, negative_adj)", GOOD)
    assert holds("contain(pos, negative_adj)", BAD)
    # the tag decides the part of speech: "both" as DT is no adjective, as JJ it is
    assert not holds("contain(pos, neutral_adj)", NEUTRAL)
    assert holds("contain(pos, neutral_adj)", BOTH_ADJ)
    assert not holds("contain(pos, neutral_noun)", BOTH_ADJ)  # "ways" has no entry: no sentiment


def test_contain_lexicon_words_and_phrases():
    assert holds("contain(word, negation)", s("it is n't good", "PRP VBZ RB JJ"))
    assert not holds("contain(word, negation)", GOOD)
    assert holds("contain(word, profanity)", s("I am PISSED off", "PRP VBP VBN RP"))
    assert not holds("contain(word, profanity)", s("I am off pissed", "PRP VBP RP VBN"))


def test_boolean_combinations_and_precedence():
    assert holds("hasattr(label, negative) or hasattr(label, positive) and hasattr(length, > 10)", BAD)
    assert not holds("(hasattr(label, negative) or hasattr(label, positive)) and hasattr(length, > 10)", BAD)
    assert holds("not contain(pos, negative_adj) and not not hasattr(label, positive)", GOOD)
    p = parse_predicate("not hasattr(label, x) or contain(word, negation)")
    assert isinstance(p, Or) and isinstance(p.parts[0], Not)
    assert isinstance(parse_predicate("hasattr(label, a) and hasattr(label, b)"), And)


def test_the_papers_table1_predicate():
    pred = ("hasattr(length, < 10) and ((contain(pos, positive_adj) or contain(pos, positive_noun)) and "
            "hasattr(label, positive) or (contain(pos, negative_adj) or contain(pos, negative_noun)) and "
            "hasattr(label, negative))")
    assert holds(pred, GOOD)
    assert holds(pred, BAD)
    assert not holds(pred, s("a good movie", "DT JJ NN", "negative"))
    assert not holds(pred, s("a very long sentence that has a good word in it", "DT RB JJ NN WDT VBZ DT JJ NN IN PRP",
                             "positive"))


@pytest.mark.parametrize("bad", [
    "", "hasattr(label)", "hasattr(colour, red)", "contain(pos, happy_adj)", "contain(pos, positive_det)",
    "hasattr(length, < ten)", "hasattr(label, ~ x)", "hasattr(label, < x)", "contain(tag, x)",
    "hasattr(label, a) and", "(hasattr(label, a)", "hasattr(label, a))", "frobnicate(x, y)",
    'hasattr(text, ~ "(")', "hasattr(label, a) & hasattr(label, b)",
])
def test_bad_predicates_are_clear_errors(bad):
    with pytest.raises(PredicateError):
        parse_predicate(bad)


def test_unknown_lexicon_and_missing_sentiment_are_errors():
    with pytest.raises(PredicateError, match="unknown lexicon"):
        parse_predicate("contain(word, slurs)").check(K)
    with pytest.raises(PredicateError, match="SentiWordNet"):
        parse_predicate("contain(pos, neutral_adj)").check(Knowledge())
