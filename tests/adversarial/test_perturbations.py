"""Property tests of the orthographic schemes' constraints and the visual table's naming rule."""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.fakes.conf_options import perturbation_options

from lingtest.adversarial.perturbations import PERTURBATIONS, group_of, groups, make_perturbation, options_of
from lingtest.adversarial.perturbations.visual import visual_neighbours

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
words = st.text(alphabet=LETTERS + "-'0é", min_size=0, max_size=14)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _names_letter(ch: str, letter: str) -> bool:
    """Independent check: the Unicode name spells the same letter in the same case."""
    name = unicodedata.name(ch)
    case = "SMALL" if letter.islower() else "CAPITAL"
    return re.search(rf"\b{case}(?: LETTER)? {letter.upper()}(?: WITH .+)?$", name) is not None


def test_registry_has_the_six_schemes_with_groups_and_options_from_their_classes():
    assert groups() == {"alpha": ("delete", "swap", "visual"), "beta": ("hypernym", "hyponym", "synonym")}
    for name in PERTURBATIONS.names():
        p = PERTURBATIONS.get(name)
        assert p.name == name and p.group == group_of(name)
    acfg = {"orthographic": {"min_length": 5}, "visual": {"scripts": ["LATIN"]}, "lexical": {"window": 3}}
    assert options_of("visual", acfg) == {"min_length": 5, "scripts": ["LATIN"]}
    assert options_of("swap", acfg) == {"min_length": 5} and options_of("hyponym", acfg) == {"window": 3}
    assert group_of("mixed") is None


@settings(max_examples=300, deadline=None)
@given(word=words, seed=seeds)
def test_swap_constraints(word, seed):
    out = make_perturbation("swap", **perturbation_options("swap")).perturb(word, np.random.default_rng(seed))
    if len(word) < 4:
        assert out is None
    if out is None:
        return
    (new,) = out
    assert len(new) == len(word) and new != word
    assert new[0] == word[0] and new[-1] == word[-1]
    diff = [i for i in range(len(word)) if word[i] != new[i]]
    assert len(diff) == 2 and diff[1] == diff[0] + 1  # one adjacent pair, exchanged
    i = diff[0]
    assert (new[i], new[i + 1]) == (word[i + 1], word[i]) and word[i].isalpha() and word[i + 1].isalpha()


@settings(max_examples=300, deadline=None)
@given(word=words, seed=seeds)
def test_delete_constraints(word, seed):
    out = make_perturbation("delete", **perturbation_options("delete")).perturb(word, np.random.default_rng(seed))
    if len(word) < 4:
        assert out is None
    if out is None:
        assert len(word) < 4 or not any(c.isalpha() for c in word[1:-1])
        return
    (new,) = out
    assert len(new) == len(word) - 1
    assert new[0] == word[0] and new[-1] == word[-1]
    # exactly one interior letter removed
    assert any(word[:i] + word[i + 1:] == new and word[i].isalpha() for i in range(1, len(word) - 1))


@settings(max_examples=300, deadline=None)
@given(word=words, seed=seeds)
def test_visual_constraints(word, seed):
    out = make_perturbation("visual", **perturbation_options("visual")).perturb(word, np.random.default_rng(seed))
    if len(word) < 4:
        assert out is None
    if out is None:
        return
    (new,) = out
    assert len(new) == len(word) and new[0] == word[0] and new[-1] == word[-1]
    diff = [i for i in range(len(word)) if word[i] != new[i]]
    assert len(diff) == 1  # modified once
    i = diff[0]
    assert _names_letter(new[i], word[i]), (word[i], unicodedata.name(new[i]))


def test_visual_table_is_built_from_names():
    table = visual_neighbours(tuple(perturbation_options("visual")["scripts"]))
    assert set(table) >= set("abcxyzABCXYZ")
    assert "\u0430" in table["a"]  # CYRILLIC SMALL LETTER A
    assert "\u00e9" in table["e"]  # LATIN SMALL LETTER E WITH ACUTE
    assert "\u0435" not in table["e"]  # CYRILLIC SMALL LETTER IE names another letter
    for letter, chars in table.items():
        assert letter not in chars
        for ch in chars:
            assert _names_letter(ch, letter), (letter, unicodedata.name(ch))


@pytest.mark.parametrize("scheme", ["swap", "delete", "visual"])
def test_short_and_letterless_words_untouched(scheme):
    p = make_perturbation(scheme, **perturbation_options(scheme))
    rng = np.random.default_rng(0)
    for w in ["a", "an", "the", "1999", "----", "a--b"]:
        assert p.perturb(w, rng) is None


def test_same_seed_same_output():
    for scheme in ("swap", "delete", "visual"):
        p = make_perturbation(scheme, **perturbation_options(scheme))
        a = [p.perturb("adversarial", np.random.default_rng(s)) for s in range(20)]
        b = [p.perturb("adversarial", np.random.default_rng(s)) for s in range(20)]
        assert a == b and len({tuple(x) for x in a}) > 1


def test_options_come_from_config_only():
    from lingtest.errors import ConfigError

    with pytest.raises(ConfigError, match=r"perturbation 'swap' \(its options: adversarial\.orthographic\): "
                                          r"missing option\(s\) min_length"):
        make_perturbation("swap")
    with pytest.raises(ConfigError, match=r"unknown option\(s\) windows"):
        make_perturbation("synonym", **perturbation_options("synonym"), windows=3)
    p = make_perturbation("hyponym", **perturbation_options("hyponym"))
    assert p.pos == ("NOUN", "VERB", "ADJ", "ADV") and p.instances is False
    assert make_perturbation("visual", **perturbation_options("visual")).min_length == 4
