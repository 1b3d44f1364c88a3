"""German determiner morphology: the full paradigms, re-declension for a new gender in every case and
both numbers, case inferred from the form where the morphology says ``_``, contractions."""

from __future__ import annotations

import pytest

from lingtest.contrapro.german import (
    Determiner,
    Morph,
    decline_noun_default,
    inflect_determiner,
    join_contraction,
    parse_determiner,
    parse_morpho,
    pronoun_genders,
    redecline,
    split_contraction,
)

CASES = ("Nom", "Acc", "Dat", "Gen")
# textbook paradigms, in case order
DEFINITE = {"m": "der den dem des", "f": "die die der der", "n": "das das dem des", "p": "die die den der"}
INDEFINITE = {"m": "ein einen einem eines", "f": "eine eine einer einer", "n": "ein ein einem eines"}
DIESER = {
    "m": "dieser diesen diesem dieses",
    "f": "diese diese dieser dieser",
    "n": "dieses dieses diesem dieses",
    "p": "diese diese diesen dieser",
}
EUER = {
    "m": "euer euren eurem eures",
    "f": "eure eure eurer eurer",
    "n": "euer euer eurem eures",
    "p": "eure eure euren eurer",
}


@pytest.mark.parametrize(
    ("det", "table"),
    [
        (Determiner("definite", ""), DEFINITE),
        (Determiner("ein", "ein"), INDEFINITE),
        (Determiner("der", "dies"), DIESER),
        (Determiner("ein", "euer"), EUER),
    ],
)
def test_paradigms(det, table):
    for cell, forms in table.items():
        assert [inflect_determiner(det, cell, c) for c in CASES] == forms.split()
    assert inflect_determiner(Determiner("ein", "ein"), "p", "Nom") is None  # no plural of "ein"
    assert inflect_determiner(Determiner("ein", "kein"), "p", "Dat") == "keinen"


def test_parse_determiner_lists_every_reading():
    readings = {(d.kind, c, k) for d, c, k in parse_determiner("der")}
    assert readings == {
        ("definite", "m", "Nom"),
        ("definite", "f", "Dat"),
        ("definite", "f", "Gen"),
        ("definite", "p", "Gen"),
    }
    assert {(d.stem, c, k) for d, c, k in parse_determiner("Meinem")} == {
        ("mein", "m", "Dat"),
        ("mein", "n", "Dat"),
    }
    assert parse_determiner("Haus") == [] and parse_determiner("groß") == []


# every case and both numbers: masculine -> feminine and neuter, feminine -> masculine
REDECLINE = [
    # (word, morpho, new gender, expected)
    ("der", "Masc|Nom|Sg", "f", "die"),
    ("den", "Masc|Acc|Sg", "f", "die"),
    ("dem", "Masc|Dat|Sg", "f", "der"),
    ("des", "Masc|Gen|Sg", "f", "der"),
    ("der", "Masc|Nom|Sg", "n", "das"),
    ("den", "Masc|Acc|Sg", "n", "das"),
    ("dem", "Masc|Dat|Sg", "n", "dem"),
    ("des", "Masc|Gen|Sg", "n", "des"),
    ("die", "Fem|Nom|Sg", "m", "der"),
    ("die", "Fem|Acc|Sg", "m", "den"),
    ("der", "Fem|Dat|Sg", "m", "dem"),
    ("der", "Fem|Gen|Sg", "m", "des"),
    ("einen", "Masc|Acc|Sg", "f", "eine"),
    ("einem", "Masc|Dat|Sg", "n", "einem"),
    ("einer", "Fem|Gen|Sg", "m", "eines"),
    ("Diese", "Fem|Nom|Sg", "n", "Dieses"),
    ("meinen", "Masc|Acc|Sg", "n", "mein"),
    # plural: the article does not depend on the gender
    ("die", "Masc|Nom|Pl", "f", "die"),
    ("die", "Fem|Acc|Pl", "m", "die"),
    ("den", "Masc|Dat|Pl", "f", "den"),
    ("der", "Neut|Gen|Pl", "m", "der"),
    ("keine", "Masc|Nom|Pl", "f", "keine"),
]


@pytest.mark.parametrize(("word", "morpho", "gender", "expected"), REDECLINE)
def test_redecline_in_every_case_and_number(word, morpho, gender, expected):
    new, case = redecline(word, parse_morpho(morpho), gender)
    assert new == expected
    assert case == parse_morpho(morpho).case


def test_redecline_infers_the_case_from_the_form_or_refuses():
    # "den" of a masculine noun can only be accusative
    assert redecline("den", Morph("m", None, "Sg"), "f") == ("die", "Acc")
    # "die" of a feminine noun is nominative or accusative: fine for a neuter noun ...
    assert redecline("die", Morph("f", None, "Sg"), "n") == ("das", "Nom|Acc")
    # ... ambiguous for a masculine one (der / den)
    new, reason = redecline("die", Morph("f", None, "Sg"), "m")
    assert new is None and "ambiguous" in reason
    # a form that does not agree with the morphology, or no determiner at all
    assert redecline("den", Morph("f", "Nom", "Sg"), "m")[0] is None
    assert redecline("Haus", Morph("n", "Nom", "Sg"), "m")[0] is None


def test_parse_morpho():
    assert parse_morpho("Masc|Acc|Sg") == Morph("m", "Acc", "Sg")
    assert parse_morpho("Fem|_|Sg") == Morph("f", None, "Sg")
    assert parse_morpho("_|_|_") == Morph(None, None, None)
    assert parse_morpho(None) == Morph(None, None, None)
    assert parse_morpho("Neut|Dat|Pl").cell == "p"


def test_contractions_round_trip():
    assert split_contraction("Zum") == ("zu", "dem") and split_contraction("Haus") is None
    assert join_contraction("zu", "der", "zum") == "zur"
    assert join_contraction("in", "der", "Im") == "In der"
    assert join_contraction("in", "die", "ins") == "in die"
    assert join_contraction("von", "dem", "von") == "vom"


def test_default_noun_declension_and_pronouns():
    assert decline_noun_default("Wagen", "m", "Gen", "Sg") == "Wagens"
    assert decline_noun_default("Haus", "n", "Gen", "Sg") == "Hauses"
    assert decline_noun_default("Gardine", "f", "Gen", "Sg") == "Gardine"
    assert decline_noun_default("Gardine", "f", "Nom", "Pl") is None
    assert (
        pronoun_genders("Er") == ("m",)
        and pronoun_genders("ihm") == ("m", "n")
        and pronoun_genders("wir") == ()
    )
