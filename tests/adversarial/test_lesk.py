"""Adapted Lesk on hand-made examples, and the lexical schemes built on it."""

from __future__ import annotations

import numpy as np
import pytest
from tests.fakes.conf_options import lesk_options, perturbation_options

from lingtest.adversarial.lesk import overlap_score, tokenize_gloss, wordnet_pos
from lingtest.adversarial.perturbations.base import WordContext
from lingtest.adversarial.perturbations.lexical import (
    HypernymReplacement,
    HyponymReplacement,
    SynonymReplacement,
)

FW = frozenset({"of", "a", "the", "in"})
LEXICAL = perturbation_options("synonym")  # window, fallback, pos, instances of conf/adversarial


def test_overlap_score_squares_phrase_lengths():
    a = tokenize_gloss("sloping land beside a body of water")
    b = tokenize_gloss("a body of water such as a river beside sloping land")
    # "a body of water" (4) and "sloping land" (2); "beside" (1)
    assert overlap_score(a, b, FW) == 16 + 4 + 1


def test_overlap_score_ignores_function_word_only_phrases_and_boundaries():
    assert overlap_score(("of", "the"), ("of", "the", "x"), FW) == 0
    # a phrase may not cross a gloss boundary (None)
    assert overlap_score(("river", None, "bank"), ("river", "bank"), FW) == 1 + 1
    assert overlap_score(("river", "bank"), ("river", "bank"), FW) == 4
    assert overlap_score((), ("river",), FW) == 0


def _search_everything(a, b, function_words):
    """The overlap score by the plain greedy search: find the longest content phrase from scratch,
    score it, mask it, repeat (the reference the lazy search must equal)."""
    sa, sb = list(a), list(b)
    score = 0
    while True:
        best = None  # (-length, start in a, i, j)
        for i, t in enumerate(sa):
            if t is None or t in function_words:
                continue
            for j, u in enumerate(sb):
                if u != t:
                    continue
                left = 0
                while i - left > 0 and j - left > 0 and sa[i - left - 1] is not None \
                        and sa[i - left - 1] == sb[j - left - 1] and sa[i - left - 1] in function_words:
                    left += 1
                if i - left > 0 and j - left > 0 and sa[i - left - 1] is not None \
                        and sa[i - left - 1] == sb[j - left - 1]:
                    continue  # the phrase holds an earlier content word: found from there
                n = 1
                while i + n < len(sa) and j + n < len(sb) and sa[i + n] is not None and sa[i + n] == sb[j + n]:
                    n += 1
                key = (-(left + n), i - left, i, j)
                best = key if best is None or key < best else best
        if best is None:
            return score
        n, start, i, j = -best[0], best[1], best[2], best[3]
        score += n * n
        for k in range(n):
            sa[start + k] = None
            sb[j - (i - start) + k] = None


def test_overlap_score_equals_the_plain_greedy_search_on_random_glosses():
    rng = np.random.default_rng(7)
    vocab = np.array(["river", "bank", "water", "land", "of", "the", "a", "in", ""], dtype=object)
    for _ in range(3000):
        a = [t or None for t in rng.choice(vocab, size=rng.integers(0, 18))]
        b = [t or None for t in rng.choice(vocab, size=rng.integers(0, 18))]
        assert overlap_score(a, b, FW) == _search_everything(a, b, FW), (a, b)


def test_overlap_score_of_long_glosses_with_many_shared_phrases():
    # the hyponym glosses of a general synset share dozens of phrases: each is scored once
    unit = ["a", "body", "of", "water", None, "sloping", "land", "beside", "river", None]
    assert overlap_score(unit * 40, unit * 40, FW) == _search_everything(unit * 40, unit * 40, FW) == 40 * (16 + 16)


def test_wordnet_pos_mapping():
    assert wordnet_pos("NOUN") == "n" and wordnet_pos("ADJ") == "a" and wordnet_pos("PRON") is None
    assert wordnet_pos(None, "VBD") == "v" and wordnet_pos(None, "RB") == "r" and wordnet_pos(None, "DT") is None


def test_bank_river_vs_money(lesk):
    river = "he sat on the bank of the river and watched the water flow".split()
    money = "she deposited the money in the bank and paid interest on the loan".split()
    pos_r = ["n" if w == "bank" else None for w in river]
    pos_m = ["n" if w == "bank" else None for w in money]
    s_river = lesk.disambiguate(river, river.index("bank"), pos_r)
    s_money = lesk.disambiguate(money, money.index("bank"), pos_m)
    assert s_river.name() == "bank.n.01"  # sloping land beside a body of water
    assert s_money.name() == "depository_financial_institution.n.01"


def test_scores_follow_wordnet_order_and_relatedness_is_symmetric(lesk):
    wn = lesk.wn
    words = "the bank of the river".split()
    scored = lesk.scores(words, 1, [None, "n", None, None, "n"])
    assert [s for s, _ in scored] == wn.synsets("bank", "n")
    a, b = wn.synset("bank.n.01"), wn.synset("river.n.01")
    assert lesk.relatedness(a, b) == lesk.relatedness(b, a) > 0


def test_no_context_falls_back_to_most_frequent_sense(lesk):
    from lingtest.adversarial.lesk import AdaptedLesk

    assert lesk.disambiguate(["bank"], 0, ["n"]) == lesk.wn.synsets("bank", "n")[0]
    strict = AdaptedLesk(wordnet=lesk.wn, **lesk_options(fallback="none"))
    assert strict.disambiguate(["bank"], 0, ["n"]) is None
    with pytest.raises(ValueError):
        AdaptedLesk(wordnet=lesk.wn, **lesk_options(fallback="random"))


def _ctx(sentence: str, word: str, tags: dict[str, tuple[str, str]] | None = None) -> WordContext:
    words = tuple(sentence.split())
    tags = tags or {}
    return WordContext(words=words, index=words.index(word), pos=tuple(tags.get(w, (None, None))[0] for w in words),
                       tags=tuple(tags.get(w, (None, None))[1] for w in words))


def test_lexical_replacements_go_through_the_lesk_sense(lesk):
    ctx = _ctx("a pigeon sat on the roof of the house", "pigeon", {"pigeon": ("NOUN", "NN")})
    for cls, rel in ((SynonymReplacement, lambda s: [s]), (HyponymReplacement, lambda s: s.hyponyms()),
                     (HypernymReplacement, lambda s: s.hypernyms())):
        p = cls(lesk=lesk, **LEXICAL)
        sense = p.sense("pigeon", ctx)
        allowed = {lemma for syn in rel(sense) for lemma in syn.lemma_names()}
        cands = p.candidates("pigeon", ctx)
        assert set(cands) <= allowed and "pigeon" not in cands
        out = p.perturb("pigeon", np.random.default_rng(0), ctx)
        if cands:
            assert out is not None and "_".join(out) in {c for c in cands} | {c.lower() for c in cands}
    assert "columbiform_bird" in HypernymReplacement(lesk=lesk, **LEXICAL).candidates("pigeon", ctx)


def test_multiword_lemma_becomes_tokens_and_inflection_follows(lesk):
    p = HypernymReplacement(lesk=lesk, **LEXICAL)
    ctx = _ctx("the pigeons sat on the roof", "pigeons", {"pigeons": ("NOUN", "NNS")})
    out = p.perturb("pigeons", np.random.default_rng(0), ctx)
    assert out == ["columbiform", "birds"]
    ctx = _ctx("Pigeons sat on the roof", "Pigeons", {"Pigeons": ("NOUN", "NNS")})
    assert p.perturb("Pigeons", np.random.default_rng(0), ctx) == ["Columbiform", "birds"]


def test_ineligible_words_are_left_alone(lesk):
    rng = np.random.default_rng(0)
    p = SynonymReplacement(lesk=lesk, **LEXICAL)
    assert p.perturb("the", rng, _ctx("the dog", "the")) is None  # function word
    assert p.perturb("1999", rng, _ctx("in 1999", "1999")) is None
    assert p.perturb("Paris", rng, _ctx("I saw Paris", "Paris", {"Paris": ("PROPN", "NNP")})) is None
    assert p.perturb("United", rng, _ctx("the United States", "United", {"United": ("VERB", "NNP")})) is None
    assert p.perturb("Paris", rng, _ctx("I saw Paris", "Paris")) is None  # untagged capitalised: a name


def test_inflected_forms_never_contain_spaces(lesk):
    # lemminflect pluralises "flatfoot" as "flat feet": it must come out as two tokens
    p = HyponymReplacement(lesk=lesk, **LEXICAL)
    out = p.realise("flatfoot", "feet", WordContext(words=("feet",), index=0, pos=("NOUN",), tags=("NNS",)))
    assert out == ["flat", "feet"]
