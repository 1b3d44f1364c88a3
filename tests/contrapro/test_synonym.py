"""Synonym replacement: article re-declension in all four cases and both numbers, contractions, the
reference switch, and the skips (ambiguous case, distance, no synonym)."""

from __future__ import annotations

import pytest

from lingtest.contrapro.attack import Skip
from lingtest.contrapro.german import Morph
from lingtest.contrapro.synonym import Synonym, replace_head, synonym_candidates, synonym_replacement

GARDINE = Synonym("Gardine", "f", "openthesaurus", True)
VORHANG = Synonym("Vorhang", "m", "openthesaurus", True)

CASES = [
    # (text, head, morph, synonym, expected text)
    ("Der Vorhang ist rot.", "Vorhang", Morph("m", "Nom", "Sg"), GARDINE, "Die Gardine ist rot."),
    ("Ich sehe den Vorhang.", "Vorhang", Morph("m", "Acc", "Sg"), GARDINE, "Ich sehe die Gardine."),
    ("Mit dem Vorhang spielt er.", "Vorhang", Morph("m", "Dat", "Sg"), GARDINE, "Mit der Gardine spielt er."),
    (
        "Die Farbe des Vorhangs ist rot.",
        "Vorhangs",
        Morph("m", "Gen", "Sg"),
        GARDINE,
        "Die Farbe der Gardine ist rot.",
    ),
    ("Die Vorhänge sind rot.", "Vorhänge", Morph("m", "Nom", "Pl"), GARDINE, "Die Gardinen sind rot."),
    ("Ich sehe die Vorhänge.", "Vorhänge", Morph("m", "Acc", "Pl"), GARDINE, "Ich sehe die Gardinen."),
    (
        "Mit den Vorhängen spielt er.",
        "Vorhängen",
        Morph("m", "Dat", "Pl"),
        GARDINE,
        "Mit den Gardinen spielt er.",
    ),
    (
        "Die Farbe der Vorhänge ist rot.",
        "Vorhänge",
        Morph("m", "Gen", "Pl"),
        GARDINE,
        "Die Farbe der Gardinen ist rot.",
    ),
    # feminine -> masculine: the noun takes its case form from german-nouns
    ("Die Gardine ist rot.", "Gardine", Morph("f", "Nom", "Sg"), VORHANG, "Der Vorhang ist rot."),
    ("Ich sehe eine Gardine.", "Gardine", Morph("f", "Acc", "Sg"), VORHANG, "Ich sehe einen Vorhang."),
    (
        "Mit dieser Gardine spielt er.",
        "Gardine",
        Morph("f", "Dat", "Sg"),
        VORHANG,
        "Mit diesem Vorhang spielt er.",
    ),
    (
        "Die Farbe der Gardine ist rot.",
        "Gardine",
        Morph("f", "Gen", "Sg"),
        VORHANG,
        "Die Farbe des Vorhanges ist rot.",
    ),
    # contractions are split, re-declined and joined again
    ("Er steht am Vorhang.", "Vorhang", Morph("m", "Dat", "Sg"), GARDINE, "Er steht an der Gardine."),
    ("Sie geht zur Gardine.", "Gardine", Morph("f", "Dat", "Sg"), VORHANG, "Sie geht zum Vorhang."),
    # the case read off the form where the morphology has none ("den" of a masculine noun: accusative)
    ("Ich sehe den Vorhang.", "Vorhang", Morph("m", None, "Sg"), GARDINE, "Ich sehe die Gardine."),
]


@pytest.mark.parametrize(("text", "head", "morph", "syn", "expected"), CASES)
def test_article_redeclension_in_all_cases_and_numbers(lexicon, text, head, morph, syn, expected):
    res = replace_head(text, head, morph, syn, lexicon)
    assert not isinstance(res, str), res
    new_text, detail = res
    assert new_text == expected
    assert detail["case"] == (morph.case or "Acc")


def test_replace_head_refuses_what_it_cannot_do(lexicon):
    assert "ambiguous" in replace_head(
        "Ich sehe die Gardine.", "Gardine", Morph("f", None, "Sg"), VORHANG, lexicon
    )
    assert "no determiner directly before" in replace_head(
        "Ich sehe die rote Gardine.", "Gardine", Morph("f", "Acc", "Sg"), VORHANG, lexicon
    )
    assert "head not found" in replace_head(
        "Ich sehe es.", "Gardine", Morph("f", "Acc", "Sg"), VORHANG, lexicon
    )


def test_candidates_need_another_gender_and_prefer_translations(lexicon):
    cands = synonym_candidates(
        "Auto", "car", "n", lexicon, sources=["openthesaurus"], require_translation=False
    )
    assert [c.noun for c in cands] == ["Wagen"]  # Automobil is neuter too, Pkw has no known gender
    assert cands[0].translates and cands[0].gender == "m"
    assert (
        synonym_candidates(
            "Vorhang", "curtain", "m", lexicon, sources=["openthesaurus"], require_translation=True
        )[0].noun
        == "Gardine"
    )
    # Kiste -> Kasten translates "box"; Tor does not and has no gender here
    assert [
        c.noun
        for c in synonym_candidates(
            "Kiste", "box", "f", lexicon, sources=["openthesaurus"], require_translation=True
        )
    ] == ["Kasten"]
    # Ding as a source: German nouns translating the English head
    ding = synonym_candidates("Vorhang", "curtain", "m", lexicon, sources=["ding"], require_translation=True)
    assert [c.noun for c in ding] == ["Gardine"] and ding[0].source == "ding"


def _attack(ex, lexicon):
    return synonym_replacement(
        ex, lexicon, sources=["openthesaurus"], require_translation=True, distances=[0, 1]
    )


def test_context_antecedent_switches_the_reference(examples, lexicon):
    ex = examples[0]  # "Der Vorhang geht langsam hoch." <SEP> "Er geht hoch."
    out = _attack(ex, lexicon)
    assert not isinstance(out, Skip), out
    assert out.ref_context == "Die Gardine geht langsam hoch."
    assert out.src_context == ex.src_context and out.src == ex.src  # English unchanged
    assert out.ref == "Sie geht hoch."
    assert out.contrastive == ["Er geht hoch.", "Es geht hoch."]  # the old reference took the variant's place
    assert out.meta["ref pronoun"] == "Sie" and out.meta["ref ante head gender"] == "Fem"
    assert (
        out.meta["errors"][0]["replacement"] == "Er" and out.meta["errors"][0]["replacement gender"] == "Masc"
    )
    rec = out.meta["attack"]
    assert out.id == f"{ex.id}@synonym/synonym" and rec["original_id"] == ex.id
    assert rec["synonym"]["old"] == "Vorhang" and rec["synonym"]["new"] == "Gardine"
    assert rec["reference"] == {"old": "Er", "new": "Sie", "index": 1}
    assert rec["changes"] == [
        {
            "where": "ref_context",
            "old": "Der Vorhang geht langsam hoch.",
            "new": "Die Gardine geht langsam hoch.",
        }
    ]


def test_sentence_antecedent_edits_every_candidate(examples, lexicon):
    ex = examples[1]  # "Ich habe ein Auto gekauft und es war billig." (ante distance 0)
    out = _attack(ex, lexicon)
    assert not isinstance(out, Skip), out
    assert out.ref == "Ich habe einen Wagen gekauft und er war billig."
    assert out.contrastive == [
        "Ich habe einen Wagen gekauft und es war billig.",
        "Ich habe einen Wagen gekauft und sie war billig.",
    ]
    assert out.ref_context == ex.ref_context
    assert out.meta["attack"]["determiner"] == {"old": "ein Auto", "new": "einen Wagen", "case": "Acc"}
    assert {c["where"] for c in out.meta["attack"]["changes"]} == {"ref", "contrastive[0]", "contrastive[1]"}


def test_skips_say_why(examples, lexicon):
    far, ambiguous = examples[2], examples[3]
    assert _attack(far, lexicon) == Skip(far.id, "antecedent distance 5")
    skip = _attack(ambiguous, lexicon)  # "die Kiste" with morphology Fem|_|Sg -> "der"/"den Kasten"?
    assert isinstance(skip, Skip) and "ambiguous" in skip.reason
    plural = examples[0]
    plural.meta["ref ante head morpho"] = "Masc|Nom|Pl"
    assert "plural" in _attack(plural, lexicon).reason
