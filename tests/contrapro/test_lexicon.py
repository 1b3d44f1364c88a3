"""Loaders of OpenThesaurus, the Ding dictionary and german-nouns, on excerpts in their real formats."""

from __future__ import annotations

import pytest

from lingtest.contrapro.lexicon import (
    load_ding,
    load_german_nouns,
    load_lexicon,
    load_openthesaurus,
    parse_ding,
    parse_openthesaurus,
)
from lingtest.errors import InputError, MissingResourceError


def test_openthesaurus_keeps_noun_sets_without_annotations(cp_dir):
    sets = load_openthesaurus(cp_dir / "openthesaurus.txt")
    assert ("Gardine", "Vorhang") in sets
    assert ("Kasten", "Tor", "Kiste") in sets  # "(ugs.)" dropped
    assert all(len(s) >= 2 for s in sets)
    assert not any("zumachen" in s or "schließen" in s for s in sets)  # verbs dropped
    assert parse_openthesaurus("# only a comment\n\nklein;winzig\n") == []


def test_ding_genders_and_aligned_translations(cp_dir):
    ding = load_ding(cp_dir / "de-en")
    assert ding.genders["Gardine"]["f"] == 2 and ding.genders["Vorhang"] == {"m": 1}
    assert "net curtain" in ding.translations["Gardine"] and "curtain" in ding.translations["Gardine"]
    assert "curtain" in ding.translations["Vorhang"] and "curtains" not in ding.translations["Vorhang"]
    assert "schließen" not in ding.genders  # a verb
    with pytest.raises(InputError) as err:
        parse_ding("Haus {n} house\n", path="x/de-en")
    assert "x/de-en" in str(err.value) and "line 1" in str(err.value)


def test_german_nouns_forms(cp_dir):
    nouns = load_german_nouns(cp_dir / "nouns.csv")
    assert nouns.forms[("Vorhang", "m")][("Dat", "Pl")] == "Vorhängen"
    assert nouns.forms[("Löwe", "m")][("Acc", "Sg")] == "Löwen"  # a weak masculine noun
    assert nouns.forms[("Kasten", "m")][("Nom", "Pl")] == "Kästen"  # from the numbered column
    assert nouns.genders["See"] == {"m": 1, "f": 1}
    assert (
        nouns.forms[("See", "m")][("Gen", "Sg")] == "Sees"
        and nouns.forms[("See", "f")][("Gen", "Sg")] == "See"
    )


def test_merged_lexicon_votes_on_genders(lexicon):
    assert lexicon.gender("Kirche") == "f"  # Ding's stray "Kirche {m}" is outvoted
    assert lexicon.gender("See") is None  # der See / die See
    assert lexicon.gender("Wagen") == "m" and lexicon.gender("Unbekannt") is None
    assert lexicon.synonyms("Vorhang") == ["Gardine"]
    assert lexicon.synonyms("Auto") == [
        "Automobil",
        "Wagen",
        "Pkw",
    ]  # "fahrbarer Untersatz" is no single noun
    assert "Wagen" in lexicon.nouns_translating("car")
    assert (
        lexicon.form("Gardine", "f", "Dat", "Pl") == "Gardinen"
        and lexicon.form("Gardine", "m", "Dat", "Sg") is None
    )
    assert lexicon.sources == ("openthesaurus", "ding", "german_nouns")


def test_missing_resources_say_how_to_install(tmp_path):
    with pytest.raises(MissingResourceError, match="apt-get install openthesaurus-de-text"):
        load_openthesaurus(tmp_path / "nope.txt")
    with pytest.raises(MissingResourceError, match="apt-get install trans-de-en"):
        load_ding(tmp_path / "de-en")
    with pytest.raises(MissingResourceError, match="pip install german-nouns"):
        load_german_nouns(tmp_path / "nouns.csv")
    with pytest.raises(MissingResourceError, match="needs noun genders"):
        load_lexicon(openthesaurus=None, ding=None, german_nouns=False)
