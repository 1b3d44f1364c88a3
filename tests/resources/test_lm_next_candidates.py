"""CREST's lm_next candidates: the causal LM's own next words after the left context, kept when they are words of
the token's part of speech, with its initial case, other than the original."""

from __future__ import annotations

import pytest
from tests.fakes.conf_options import score_grid

from lingtest.data.model import Sentence, Token
from lingtest.resources.candidates import PROPOSERS, get_proposer, needs_scorer
from lingtest.resources.candidates.lm_next import LMNextProposer

GRID = score_grid()


class Words:
    """A next-word source from a table: context -> words (best first); it records the contexts it was asked."""

    def __init__(self, table):
        self.table = table
        self.asked: list[str] = []

    def next_words(self, contexts, n):
        self.asked.extend(contexts)
        return [[(w, -1.0) for w in self.table.get(c, [])][:n] for c in contexts]


def sentence():
    rows = [("He", "PRON", "he"), ("had", "VERB", "have"), ("effervescent", "ADJ", "effervescent"),
            ("tablets", "NOUN", "tablet"), ("quickly", "ADV", "quickly"), (".", "PUNCT", ".")]
    return Sentence([Token(t, pos=p, lemma=lemma) for t, p, lemma in rows])


def test_next_words_filtered_by_kind_case_and_original():
    words = Words({"He had effervescent": ["tablets", "pills", "Pills", "drinks", "x", "3d", "glorp", "drinking",
                                           "water"],
                   "He had": ["been", "a"], "He had effervescent tablets": ["slowly", "very", "and"]})
    p = LMNextProposer(grid=GRID, candidates=9, max_pieces=3, skip_lemmas=["have"], words=words)
    got = p.propose(sentence(), [0, 1, 2, 3, 4, 5])
    # "had" (lemma have) is skipped, "He" and "." are no content words: never asked
    assert words.asked == ["He had", "He had effervescent", "He had effervescent tablets"]
    # the original, a capitalised word, a one-letter word, digits, a non-word are dropped; "drinking" is a noun too
    assert [c.text for c in got[3]] == ["pills", "drinks", "drinking", "water"]
    assert all(c.source == "lm_next" for c in got[3])
    assert [c.text for c in got[4]] == ["slowly", "very"]  # "and" is no adverb
    assert 2 not in got  # after "He had": no adjective ("been" is a verb, "a" one letter)


def test_it_is_registered_and_gets_the_scorer():
    assert "lm_next" in PROPOSERS.names() and needs_scorer("lm_next") and not needs_scorer("wordnet")
    with pytest.raises(ValueError, match="scorer"):
        get_proposer("lm_next", GRID, candidates=5, max_pieces=3, skip_lemmas=[])
    with pytest.raises(ValueError, match="at least one"):
        LMNextProposer(grid=GRID, candidates=0, max_pieces=3, skip_lemmas=[], words=Words({}))


def test_on_a_tiny_causal_lm():
    from tests.fakes.lm import tiny_gpt2

    from lingtest.resources.lm import CausalLMScorer
    from lingtest.resources.next_words import CausalNextWords, NextTokens, WordPieces

    vocab = ["the", "cat", "dog", "sat", "ran", "on", "mat", "big", "small", "."]
    model, tok = tiny_gpt2(vocab)
    # the tiny tokenizer splits on spaces; its pieces, as a SentencePiece vocabulary would mark them
    pieces = WordPieces.from_pieces(["<|endoftext|>", "<pad>", "<unk>", *("\u2581" + w for w in vocab)])
    scorer = CausalLMScorer.from_model(model, tok, device="cpu")
    words = CausalNextWords(NextTokens(scorer), pieces, grid=GRID, max_pieces=1, known=None)
    p = LMNextProposer(grid=GRID, candidates=len(vocab), max_pieces=1, skip_lemmas=[], words=words)
    s = Sentence([Token("the", pos="DET"), Token("cat", pos="NOUN", lemma="cat"), Token("sat", pos="VERB"),
                  Token(".", pos="PUNCT")])
    got = p.propose(s, [0, 1, 2, 3])
    # every word of the vocabulary is a next word: the nouns WordNet knows replace "cat", the verbs "sat"
    assert {c.text for c in got[1]} == {"dog", "mat", "sat", "small"}  # WordNet's nouns (SAT, the small of the back)
    assert "ran" in {c.text for c in got[2]} and set(got) == {1, 2}
    built = get_proposer("lm_next", GRID, scorer, candidates=3, max_pieces=2, skip_lemmas=[])
    assert isinstance(built, LMNextProposer) and built.words.lm.scorer is scorer
